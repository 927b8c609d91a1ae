"""How `index` and `search` show results: sync reports and search hits. (Answers print
through `answer_printer.py`.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from vault_agent.agent.citations.documents import document_citation
from vault_agent.cli.common import console
from vault_agent.cli.terminal import shown
from vault_agent.index.store.protocol import VAULT_SOURCE

if TYPE_CHECKING:  # a command imports this before opening the index (`common.open_index`)
    from vault_agent.index.search.hits import SearchHit
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
        for status in problems:  # file names and reasons: never rich markup nor controls
            table.add_row(shown(status.file), status.state, shown(status.reason or ""))
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
        # A note's words are never read as rich markup ("[/tag]") or emoji (":cookie:"), and
        # its terminal controls are never acted on.
        table.add_row(str(rank), f"{hit.score:.3f}", shown(link), shown(hit.snippet))
    console.print(table)


def _cite(hit: SearchHit) -> str:
    """A document of another source, as answers cite it."""
    return document_citation(hit.title, hit.source, hit.url)
