"""`vault-agent index | search | ask | chat | serve | eval | sources`: a thin shell over the
library.

Each command resolves the vault, opens a `VaultIndex` and prints. No logic lives here that a
test could not reach through the functions it calls.

This module declares the commands with typer and the standard library only; each command
imports what it runs (the index, the agent, the HTTP server, the evaluation) inside its body.
So `vault-agent --help` starts as fast as typer does, and every command loads only its own
stack (measured by bench/cli.py; tests/test_cli_startup.py keeps it so).
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from vault_agent.choices import EmbeddingChoice
from vault_agent.cli.collector import freeze_at_exit
from vault_agent.cli.fast_exit import leave
from vault_agent.cli.options import (
    NoSyncOption,
    ProfileOption,
    VaultOption,
    VerboseOption,
)
from vault_agent.cli.sources import sources_app

app = typer.Typer(
    help="Ask your Obsidian vault. Every answer cites its notes.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
app.add_typer(sources_app, name="sources")


def run() -> None:
    """The `vault-agent` console script (and `python -m vault_agent.cli`): the app, in a
    process whose long-lived objects the cycle collector leaves alone (`collector.py`) and
    that ends without the interpreter's teardown (`fast_exit.py`)."""
    freeze_at_exit()
    try:
        app()
    except SystemExit as stop:  # typer ends every command so, with its exit status
        leave(stop.code)


@app.command()
def index(
    vault: VaultOption = None,
    watch: Annotated[
        bool, typer.Option(help="Keep running and re-index notes as they change.")
    ] = False,
) -> None:
    """Index the vault (only changed notes are re-embedded)."""
    import asyncio

    from vault_agent.cli.common import (
        console,
        errors,
        load_settings,
        open_index,
        sync_with_progress,
    )
    from vault_agent.cli.printing import print_report, print_watch_sync

    settings = load_settings(vault)
    with open_index(settings) as vault_index:
        report = sync_with_progress(vault_index)
        print_report(vault_index, report)
        if watch:
            console.print(f"Watching {settings.vault_root} for changes (Ctrl-C to stop).")
            try:
                with contextlib.suppress(KeyboardInterrupt):
                    asyncio.run(vault_index.indexer.watch(on_sync=print_watch_sync))
            except OSError as error:  # the file system's watcher gave up (a limit, a device)
                errors.print(f"[red]error:[/red] watching the vault stopped: {error}")
                raise typer.Exit(1) from error


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
    open_tasks: Annotated[
        bool, typer.Option(help="Only passages holding a task still open (`- [ ]`).")
    ] = False,
    limit: Annotated[int, typer.Option(min=1, max=100)] = 10,
    as_json: Annotated[bool, typer.Option("--json", help='Print JSON: {"hits": [...]}.')] = False,
    no_sync: Annotated[
        bool, typer.Option(help="Search the index as it is, without syncing.")
    ] = False,
) -> None:
    """Hybrid (semantic + keyword) search over the vault (and documents of other sources)."""
    from vault_agent.cli.common import errors, load_settings, open_index, sync_with_progress
    from vault_agent.cli.printing import print_hits
    from vault_agent.index.embed.errors import EmbeddingError
    from vault_agent.index.store.errors import StoreError
    from vault_agent.index.store.protocol import SearchFilter

    settings = load_settings(vault)
    search_filter = SearchFilter(
        tags=[t.lstrip("#").lower() for t in tag or []],
        folders=[f.strip("/") for f in folder or []],
        types=note_type or [],
        sources=source or [],
        open_tasks=open_tasks,
    )
    with open_index(settings) as vault_index:
        if not no_sync:
            sync_with_progress(vault_index, quiet=as_json)
        try:
            hits = vault_index.searcher.search(query, search_filter, limit=limit)
        except (StoreError, EmbeddingError) as error:  # e.g. the embedding server went away
            errors.print(f"[red]error:[/red] {error}")
            raise typer.Exit(1) from error
    if as_json:
        sys.stdout.write(json.dumps({"hits": [h.model_dump() for h in hits]}, ensure_ascii=False))
        sys.stdout.write("\n")
    else:
        print_hits(hits)


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="Your question.")],
    vault: VaultOption = None,
    profile: ProfileOption = None,
    note: Annotated[
        Path | None,
        typer.Option(help="The note you are looking at: it and its linked notes go in as context."),
    ] = None,
    verbose: VerboseOption = False,
    no_sync: NoSyncOption = False,
) -> None:
    """Ask a question about the vault; the answer cites the notes it comes from."""
    import asyncio

    from vault_agent.cli.ask import answer, ask_request, question_index

    with question_index(vault, profile, no_sync) as vault_index:
        request = ask_request(question, vault_index, note)
        done = asyncio.run(answer(request, vault_index, verbose))
    if done is None:
        raise typer.Exit(1)


@app.command()
def chat(
    vault: VaultOption = None,
    profile: ProfileOption = None,
    verbose: VerboseOption = False,
    no_sync: NoSyncOption = False,
) -> None:
    """Talk with the vault: each answer cites its notes, follow-ups see the conversation."""
    from vault_agent.cli.chat import chat_session

    chat_session(vault, profile, verbose, no_sync)


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
    import asyncio

    from vault_agent.cli.common import errors, load_settings
    from vault_agent.cli.terminal import log_plainly
    from vault_agent.server.redaction import secrets_redacted
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
    log_plainly()  # warnings name notes, whose file names may hold terminal controls

    def ready(bound_port: int) -> None:
        # Plain prints, flushed: the plugin may start the sidecar and read these lines.
        url = f"http://{HOST}:{bound_port}"
        print(f"Vault Agent API for {settings.vault_root} on {url}", flush=True)
        print(f"Token: {api_token.describe()}", flush=True)

    try:
        with secrets_redacted(api_token.value):  # no log line, of any library, holds it
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
        EmbeddingChoice,
        typer.Option(
            help="english (MiniLM), multilingual (USE) or auto: decided from the vault's notes "
            "as `vault-agent index` decides (a BEIR set: english)."
        ),
    ] = "auto",
    language: Annotated[
        str | None,
        typer.Option(help="Keyword-search language (ISO 639-1); default: the notes' own."),
    ] = None,
) -> None:
    """Measure retrieval: BEIR nDCG/recall/MRR, or note-level recall on a question file."""
    from vault_agent.cli.common import console, errors
    from vault_agent.config import Settings
    from vault_agent.evaluation.console import print_result, progress_bars
    from vault_agent.evaluation.report import write_json
    from vault_agent.evaluation.run import eval_models, eval_options, run_eval
    from vault_agent.index.embed.errors import EmbeddingError
    from vault_agent.index.store.errors import StoreError

    try:
        # Checked before the progress bars start drawing.
        options = eval_options(path, vault, split, max_docs, mode, cache_dir)
        models = eval_models(options, embedding, language, Settings())
        console.print(models.choice.describe())
        with progress_bars(errors) as on_progress:
            result = run_eval(options, models.embedder, models.sparse, on_progress)
    except (ValueError, FileNotFoundError, StoreError, EmbeddingError) as error:
        errors.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error
    print_result(console, result)
    if json_path is not None:
        write_json(json_path, [result])
        console.print(f"Wrote {json_path}")
