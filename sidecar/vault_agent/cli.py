"""`vault-agent index | search | ask | serve | eval`: a thin shell over the library.

Each command resolves the vault, opens a `VaultIndex` and prints. No logic lives here that a
test could not reach through the functions it calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from vault_agent.config import Settings
from vault_agent.index.errors import StoreError
from vault_agent.index.indexer import IndexProgress, SyncReport
from vault_agent.index.search import SearchHit
from vault_agent.index.store import SearchFilter
from vault_agent.index.vault_index import VaultIndex

app = typer.Typer(
    help="Ask your Obsidian vault. Every answer cites its notes.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
console = Console()
errors = Console(stderr=True)

VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        help="Vault folder (default: the vault containing the current folder, "
        "else $VAULT_AGENT_VAULT, else the current folder).",
        file_okay=False,
    ),
]


def load_settings(vault: Path | None) -> Settings:
    """Settings from the environment, with the vault chosen as the CLI documents."""
    settings = Settings()
    if vault is not None:
        return settings.model_copy(update={"vault": vault})
    if "VAULT_AGENT_VAULT" not in os.environ:
        enclosing = _enclosing_vault(Path.cwd())
        if enclosing is not None:
            return settings.model_copy(update={"vault": enclosing})
    return settings


def open_index(settings: Settings) -> VaultIndex:
    """Open the vault's index or exit with a message a user can act on."""
    try:
        return VaultIndex(settings)
    except (StoreError, FileNotFoundError) as error:
        errors.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from error


@app.command()
def index(
    vault: VaultOption = None,
    watch: Annotated[
        bool, typer.Option(help="Keep running and re-index notes as they change.")
    ] = False,
) -> None:
    """Index the vault (only changed notes are re-embedded)."""
    settings = load_settings(vault)
    with open_index(settings) as vault_index:
        report = _sync_with_progress(vault_index)
        _print_report(vault_index, report)
        if watch:
            console.print(f"Watching {settings.vault_root} for changes (Ctrl-C to stop).")
            with contextlib.suppress(KeyboardInterrupt):
                asyncio.run(vault_index.indexer.watch(on_sync=_print_watch_sync))


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    vault: VaultOption = None,
    tag: Annotated[list[str] | None, typer.Option(help="Only notes with this tag.")] = None,
    folder: Annotated[list[str] | None, typer.Option(help="Only notes under this folder.")] = None,
    note_type: Annotated[list[str] | None, typer.Option("--type", help="Frontmatter type.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=100)] = 10,
    as_json: Annotated[bool, typer.Option("--json", help='Print JSON: {"hits": [...]}.')] = False,
    no_sync: Annotated[
        bool, typer.Option(help="Search the index as it is, without syncing.")
    ] = False,
) -> None:
    """Hybrid (semantic + keyword) search over the vault."""
    settings = load_settings(vault)
    search_filter = SearchFilter(
        tags=[t.lstrip("#").lower() for t in tag or []],
        folders=[f.strip("/") for f in folder or []],
        types=note_type or [],
    )
    with open_index(settings) as vault_index:
        if not no_sync:
            _sync_with_progress(vault_index, quiet=as_json)
        hits = vault_index.searcher.search(query, search_filter, limit=limit)
    if as_json:
        sys.stdout.write(json.dumps({"hits": [h.model_dump() for h in hits]}, ensure_ascii=False))
        sys.stdout.write("\n")
    else:
        _print_hits(hits)


def _sync_with_progress(vault_index: VaultIndex, quiet: bool = False) -> SyncReport:
    try:
        if quiet or not sys.stderr.isatty():
            return vault_index.indexer.sync()
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[chunks]} chunks"),
            TimeElapsedColumn(),
            console=errors,
            transient=True,
        ) as progress:
            task = progress.add_task("Scanning", total=None, chunks=0)

            def show(state: IndexProgress) -> None:
                progress.update(
                    task,
                    description=state.state.capitalize(),
                    total=state.files_total or None,
                    completed=state.files_done,
                    chunks=state.chunks_done,
                )

            return vault_index.indexer.sync(on_progress=show)
    except StoreError as error:
        errors.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from error


def _print_report(vault_index: VaultIndex, report: SyncReport) -> None:
    console.print(
        f"Indexed {report.indexed} notes ({report.chunks} chunks), {report.unchanged} unchanged, "
        f"{report.deleted} removed, {report.skipped} skipped, {report.failed} failed "
        f"in {report.seconds:.1f} s."
    )
    problems = [s for s in vault_index.indexer.file_status() if s.state != "indexed"]
    if problems:
        table = Table("file", "state", "reason", title="Files not indexed")
        for status in problems:
            table.add_row(status.file, status.state, status.reason or "")
        console.print(table)


def _print_watch_sync(report: SyncReport) -> None:
    console.print(
        f"re-indexed {report.indexed}, removed {report.deleted} ({report.seconds * 1000:.0f} ms)"
    )


def _print_hits(hits: list[SearchHit]) -> None:
    if not hits:
        console.print("No matching notes.")
        return
    table = Table("#", "score", "note", "snippet", show_lines=True)
    for rank, hit in enumerate(hits, start=1):
        table.add_row(str(rank), f"{hit.score:.3f}", hit.wikilink, hit.snippet)
    console.print(table)


def _enclosing_vault(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        if (folder / ".obsidian").is_dir():
            return folder
    return None


if __name__ == "__main__":
    app()
