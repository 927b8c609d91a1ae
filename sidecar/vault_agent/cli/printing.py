"""How commands show results: sync reports, search hits and streamed answers."""

from __future__ import annotations

import json
import sys

from rich.live import Live
from rich.table import Table
from rich.text import Text

from vault_agent.agent.citations.documents import document_citation
from vault_agent.agent.events import (
    AgentEvent,
    DeltaEvent,
    DoneEvent,
    ErrorEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from vault_agent.cli.common import console, errors
from vault_agent.index.search.hits import (
    SearchHit,
)
from vault_agent.index.store.protocol import VAULT_SOURCE
from vault_agent.index.sync.status import SyncReport
from vault_agent.index.vault_index import VaultIndex


def print_report(vault_index: VaultIndex, report: SyncReport) -> None:
    console.print(
        f"Indexed {report.indexed} notes ({report.chunks} chunks), {report.unchanged} unchanged, "
        f"{report.deleted} removed, {report.skipped} skipped, {report.failed} failed "
        f"in {report.seconds:.1f} s."
    )
    if vault_index.models is not None:
        console.print(vault_index.models.describe())
    problems = [s for s in vault_index.indexer.file_status() if s.state != "indexed"]
    if problems:
        table = Table("file", "state", "reason", title="Files not indexed")
        for status in problems:
            table.add_row(status.file, status.state, status.reason or "")
        console.print(table)


def print_watch_sync(report: SyncReport) -> None:
    console.print(
        f"re-indexed {report.indexed}, removed {report.deleted} ({report.seconds * 1000:.0f} ms)"
    )


def print_hits(hits: list[SearchHit]) -> None:
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


class AnswerPrinter:
    """Shows events: live text on a terminal, the checked answer when done; trace on stderr."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        #: The final event, once the run ended with an answer (None while running, or on error).
        self.done: DoneEvent | None = None
        self._live = Live(console=console, auto_refresh=False) if console.is_terminal else None
        self._turn = 0
        self._text = ""

    def __enter__(self) -> AnswerPrinter:
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
