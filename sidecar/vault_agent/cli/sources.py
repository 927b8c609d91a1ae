"""`vault-agent sources list | add SOURCE FILE.jsonl | remove SOURCE`: documents of other sources.

Qdrant Edge lets one process hold a vault's index. So each command first opens the index
itself; when a running sidecar (`vault-agent serve`) holds it, the command goes through that
sidecar's API instead (127.0.0.1, `--port`, the same token as the sidecar), after checking that
the sidecar serves this very vault. It always says which of the two it did. With a Qdrant server
(`store.url`) nothing is locked, and the index is opened directly.

`FILE.jsonl` holds one document per line, as the API takes them: `{"id", "text", "title"?,
"url"?, "tags"?, "created"?, "metadata"?}`. Every line is checked before anything is written,
then the documents go in batches of the API's size (existing documents with other ids stay).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from vault_agent.cli.options import PortOption, VaultOption

sources_app = typer.Typer(
    help="Documents from other sources (web clippings, highlights, transcripts...), searched "
    "and cited with the vault.",
    no_args_is_help=True,
)


@sources_app.command("list")
def list_command(
    vault: VaultOption = None,
    port: PortOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Every source with its documents and chunks, the vault first."""
    # Each command imports what it runs: `--help` loads none of it (see main.py).
    from rich.table import Table

    from vault_agent.cli.common import console
    from vault_agent.cli.sources_access import opened

    with opened(vault, port, quiet=as_json) as access:
        sources = access.sources()
    if as_json:
        print(json.dumps([info.model_dump(mode="json") for info in sources], ensure_ascii=False))
        return
    table = Table("source", "managed by", "documents", "chunks", "updated")
    for info in sources:
        updated = info.updated.strftime("%Y-%m-%d %H:%M") if info.updated else ""
        table.add_row(info.source, info.managed_by, str(info.documents), str(info.chunks), updated)
    console.print(table)


@sources_app.command("add")
def add_command(
    source: Annotated[str, typer.Argument(help="The source's name, e.g. clippings.")],
    file: Annotated[
        Path, typer.Argument(help="A .jsonl file, one document per line.", dir_okay=False)
    ],
    vault: VaultOption = None,
    port: PortOption = None,
) -> None:
    """Add the documents of FILE.jsonl to SOURCE (documents with the same id are replaced)."""
    from vault_agent.cli.common import console, errors
    from vault_agent.cli.sources_access import SourcesError, batches, opened, read_documents
    from vault_agent.index.documents.models import (
        DocumentError,
        WriteReport,
        check_source,
        check_text_size,
    )

    try:
        check_source(source)
        documents = read_documents(file)
        for document in documents:  # batches keep to the per-request limit
            check_text_size(document.id, document.text)
    except (DocumentError, SourcesError) as error:
        errors.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error
    total = WriteReport(source=source)
    with opened(vault, port) as access:
        for batch in batches(documents, access):
            report = access.add(source, batch)
            total.added += report.added
            total.updated += report.updated
            total.unchanged += report.unchanged
            total.chunks_embedded += report.chunks_embedded
            total.documents = report.documents
    console.print(
        f"{source}: {len(total.added)} added, {len(total.updated)} updated, "
        f"{len(total.unchanged)} unchanged ({total.chunks_embedded} chunks embedded); "
        f"{total.documents} documents in the source."
    )


@sources_app.command("remove")
def remove_command(
    source: Annotated[str, typer.Argument(help="The source to delete, with its documents.")],
    vault: VaultOption = None,
    port: PortOption = None,
) -> None:
    """Delete SOURCE and all its documents (the vault itself can't be removed)."""
    from vault_agent.cli.common import console, errors
    from vault_agent.cli.sources_access import opened
    from vault_agent.index.documents.models import DocumentError, check_source

    try:
        check_source(source)
    except DocumentError as error:
        errors.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error
    with opened(vault, port) as access:
        documents, chunks = access.remove(source)
    if documents:
        console.print(f"Removed {source}: {documents} documents, {chunks} chunks.")
    else:
        console.print(f"Nothing to remove: {source} holds no document.")
