"""`vault-agent index | search | ask | chat | serve | eval | sources`: a thin shell over the
library.

Each command resolves the vault, opens a `VaultIndex` and prints. No logic lives here that a
test could not reach through the functions it calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from vault_agent.agent.document_citations import document_citation
from vault_agent.agent.events import (
    AgentEvent,
    DeltaEvent,
    DoneEvent,
    ErrorEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from vault_agent.agent.loop import AgentRequest, run_agent
from vault_agent.agent.prompts import ActiveNote, neighbourhood_of
from vault_agent.agent.reader import ToolsContext
from vault_agent.chat_cli import chat_command
from vault_agent.config import EmbeddingVariant, Settings
from vault_agent.index.embedder import MiniLmEmbedder
from vault_agent.index.errors import StoreError
from vault_agent.index.indexer import IndexProgress, SyncReport
from vault_agent.index.search import SearchHit
from vault_agent.index.store import VAULT_SOURCE, SearchFilter
from vault_agent.index.vault_index import VaultIndex
from vault_agent.llm.base import ModelError
from vault_agent.llm.extractive import ExtractiveModel
from vault_agent.llm.select import select_model
from vault_agent.sources_cli import sources_app
from vault_agent.vault.files import PathOutsideVaultError, resolve_in_vault

app = typer.Typer(
    help="Ask your Obsidian vault. Every answer cites its notes.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
console = Console()
errors = Console(stderr=True)
app.add_typer(sources_app, name="sources")

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
    source: Annotated[
        list[str] | None,
        typer.Option(help="Only this source: vault, or one added with `sources add`."),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=100)] = 10,
    as_json: Annotated[bool, typer.Option("--json", help='Print JSON: {"hits": [...]}.')] = False,
    no_sync: Annotated[
        bool, typer.Option(help="Search the index as it is, without syncing.")
    ] = False,
) -> None:
    """Hybrid (semantic + keyword) search over the vault (and documents of other sources)."""
    settings = load_settings(vault)
    search_filter = SearchFilter(
        tags=[t.lstrip("#").lower() for t in tag or []],
        folders=[f.strip("/") for f in folder or []],
        types=note_type or [],
        sources=source or [],
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


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="Your question.")],
    vault: VaultOption = None,
    profile: Annotated[
        str | None,
        typer.Option(help="auto, mistral, ollama, openai or extractive (default: llm.profile)."),
    ] = None,
    note: Annotated[
        Path | None,
        typer.Option(help="The note you are looking at: it and its linked notes go in as context."),
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show the tool calls.")] = False,
    no_sync: Annotated[
        bool, typer.Option("--no-sync", help="Use the index as it is, without syncing.")
    ] = False,
) -> None:
    """Ask a question about the vault; the answer cites the notes it comes from."""
    with question_index(vault, profile, no_sync) as vault_index:
        request = _ask_request(question, vault_index, note)
        done = asyncio.run(answer(request, vault_index, verbose))
    if done is None:
        raise typer.Exit(1)


@contextlib.contextmanager
def question_index(vault: Path | None, profile: str | None, no_sync: bool) -> Iterator[VaultIndex]:
    """The vault's index, synced (unless `no_sync`), with `profile` chosen for its answers."""
    settings = load_settings(vault)
    if profile is not None:
        if profile not in _PROFILES:
            errors.print(f"[red]error:[/red] unknown profile {profile!r}; use one of {_PROFILES}")
            raise typer.Exit(2)
        settings = settings.model_copy(
            update={"llm": settings.llm.model_copy(update={"profile": profile})}
        )
    with open_index(settings) as vault_index:
        if not no_sync:
            _sync_with_progress(vault_index)
        yield vault_index


_PROFILES = ("auto", "mistral", "ollama", "openai", "extractive")


def _ask_request(question: str, vault_index: VaultIndex, note: Path | None) -> AgentRequest:
    """The question, with ``note`` (read from disk) and its linked notes as context."""
    if note is None:
        return AgentRequest(question=question)
    root = vault_index.settings.vault_root
    path = note.expanduser()
    relative = path.as_posix()
    if path.is_absolute():
        resolved = path.resolve()
        relative = resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else ""
    try:
        content = resolve_in_vault(root, relative).read_text(encoding="utf-8", errors="replace")
    except (OSError, PathOutsideVaultError) as error:
        reason = "it is outside the vault" if not relative else str(error)
        errors.print(f"[red]error:[/red] can't read --note {note}: {reason}")
        raise typer.Exit(1) from error
    return AgentRequest(
        question=question,
        active_note=ActiveNote(path=relative, content=content),
        neighbourhood=neighbourhood_of(vault_index.graph, relative),
    )


async def answer(request: AgentRequest, vault_index: VaultIndex, verbose: bool) -> DoneEvent | None:
    """Run the agent, printing as events arrive: the final event, or None when it failed."""
    settings = vault_index.settings
    try:
        model, reason = await select_model(
            settings.llm, lambda: ExtractiveModel(vault_index.embedder)
        )
    except ModelError as error:
        errors.print(f"[red]error:[/red] {error}")
        return None
    errors.print(f"[dim]{reason}[/dim]")
    printer = _AnswerPrinter(verbose)
    try:
        with printer:
            async for event in run_agent(
                request, model, ToolsContext.from_index(vault_index), settings
            ):
                printer.show(event)
    finally:
        await model.aclose()
    return printer.done


class _AnswerPrinter:
    """Shows events: live text on a terminal, the checked answer when done; trace on stderr."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.done: DoneEvent | None = None
        self._live = Live(console=console, auto_refresh=False) if console.is_terminal else None
        self._turn = 0
        self._text = ""

    def __enter__(self) -> _AnswerPrinter:
        if self._live is not None:
            self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.stop()

    def show(self, event: AgentEvent) -> None:
        if isinstance(event, DeltaEvent):
            if event.turn != self._turn:  # a new turn: earlier text was thinking aloud
                self._turn, self._text = event.turn, ""
            self._text += event.text
            self._render(self._text)
        elif isinstance(event, ToolCallEvent) and self.verbose:
            arguments = json.dumps(event.arguments, ensure_ascii=False)
            errors.print(f"[cyan]→ {event.name}[/cyan] {arguments}", highlight=False)
        elif isinstance(event, ToolResultEvent) and self.verbose:
            colour = "green" if event.ok else "red"
            errors.print(
                f"[{colour}]← {event.summary}[/{colour}] [dim]({event.elapsed_ms:.0f} ms)[/dim]",
                highlight=False,
            )
        elif isinstance(event, DoneEvent):
            self.done = event
            self._done(event)
        elif isinstance(event, ErrorEvent):
            self._render("")
            errors.print(f"[red]error ({event.code}):[/red] {event.message}", highlight=False)

    def _done(self, event: DoneEvent) -> None:
        if self._live is not None:
            self._render(event.answer)
        else:
            sys.stdout.write(event.answer + "\n")
        for removed in event.removed_citations:
            errors.print(
                f"[yellow]removed citation[/yellow] {removed.citation}: {removed.reason}",
                highlight=False,
            )
        if self.verbose:
            t = event.timings
            errors.print(
                f"[dim]{event.profile} ({event.model}), {event.turns} turns, "
                f"{event.usage.total_tokens} tokens; {t.total_ms:.0f} ms total, model "
                f"{t.model_ms:.0f} ms, tools {t.tools_ms:.0f} ms[/dim]"
            )

    def _render(self, text: str) -> None:
        if self._live is not None:
            self._live.update(Text(text), refresh=True)


@app.command()
def serve(
    vault: VaultOption = None,
    port: Annotated[
        int | None, typer.Option(min=0, max=65535, help="Port on 127.0.0.1 (default 8765).")
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            help="API token (default: $VAULT_AGENT_TOKEN, else the one generated in the config "
            "dir). Other local users can see it in the process list: prefer the variable."
        ),
    ] = None,
) -> None:
    """Run the API for the Obsidian plugin on 127.0.0.1 (Ctrl-C to stop)."""
    # Imported here: the other commands never need the HTTP server.
    from vault_agent.server.runner import HOST
    from vault_agent.server.runner import serve as serve_api
    from vault_agent.server.token import TokenError, resolve_token

    settings = load_settings(vault)
    if port is not None:
        settings = settings.model_copy(
            update={"server": settings.server.model_copy(update={"port": port})}
        )
    if not settings.vault_root.is_dir():
        errors.print(f"[red]error:[/red] vault folder not found: {settings.vault_root}")
        raise typer.Exit(1)
    try:
        api_token = resolve_token(settings, token)
    except (TokenError, OSError) as error:
        errors.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    def ready(bound_port: int) -> None:
        # Plain prints, flushed: the plugin may start the sidecar and read these lines.
        url = f"http://{HOST}:{bound_port}"
        print(f"Vault Agent API for {settings.vault_root} on {url}", flush=True)
        print(f"Token: {api_token.describe()}", flush=True)

    try:
        asyncio.run(serve_api(settings, api_token.value, ready))
    except OSError as error:
        errors.print(
            f"[red]error:[/red] cannot listen on {HOST}:{settings.server.port}: {error.strerror} "
            "(is another sidecar running? choose another --port)"
        )
        raise typer.Exit(1) from error
    except KeyboardInterrupt:  # Ctrl-C before the signal handlers were in place
        pass


@app.command("eval")
def eval_command(
    path: Annotated[
        Path,
        typer.Argument(help="A BEIR dataset folder, or a question file (.jsonl) over --vault."),
    ],
    vault: VaultOption = None,
    split: Annotated[str, typer.Option(help="BEIR qrels split to score.")] = "test",
    max_docs: Annotated[
        int | None, typer.Option(min=1, help="Index only this many documents (judged first).")
    ] = None,
    mode: Annotated[
        list[str] | None,
        typer.Option(
            help="dense, sparse (BM25), hybrid, hybrid-rrf or hybrid-plain (no boosts); "
            "default the first three."
        ),
    ] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Also write JSON here.")] = None,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Dense vector cache (default: user cache dir).")
    ] = None,
    embedding: Annotated[
        EmbeddingVariant | None,
        typer.Option(help="Embedding variant (default: the index.embedding setting)."),
    ] = None,
) -> None:
    """Measure retrieval: BEIR nDCG/recall/MRR, or note-level recall on a question file."""
    # Imported here: only this command needs the evaluation package.
    from vault_agent.evaluation.console import print_result, progress_bars
    from vault_agent.evaluation.report import write_json
    from vault_agent.evaluation.run import eval_options, run_eval

    try:
        # Checked before the progress bars start drawing.
        options = eval_options(path, vault, split, max_docs, mode, cache_dir)
        index_settings = Settings().index
        if embedding is not None:
            index_settings = index_settings.model_copy(update={"embedding": embedding})
        embedder = MiniLmEmbedder.from_settings(index_settings)
        with progress_bars(errors) as on_progress:
            result = run_eval(options, embedder=embedder, on_progress=on_progress)
    except (ValueError, FileNotFoundError, StoreError) as error:
        errors.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error
    print_result(console, result)
    if json_path is not None:
        write_json(json_path, [result])
        console.print(f"Wrote {json_path}")


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
        link = hit.wikilink if hit.source == VAULT_SOURCE else _cite(hit)
        table.add_row(str(rank), f"{hit.score:.3f}", Text(link), hit.snippet)
    console.print(table)


def _cite(hit: SearchHit) -> str:
    """A document of another source, as answers cite it."""
    return document_citation(hit.title, hit.source, hit.url)


def _enclosing_vault(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        if (folder / ".obsidian").is_dir():
            return folder
    return None


app.command()(chat_command(question_index, answer))

if __name__ == "__main__":
    app()
