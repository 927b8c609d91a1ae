"""How the CLI shows hits and index reports: a note's words and names exactly as written."""

from __future__ import annotations

from types import SimpleNamespace

from agent_helpers import vault_hit
from vault_agent.cli.common import console
from vault_agent.cli.printing import print_hits, print_report
from vault_agent.index.sync.status import FileStatus, SyncReport


def test_hits_print_a_notes_words_verbatim_not_as_markup() -> None:
    snippet = "Close with [/tag], say [bold]hi[/bold] and :cookie: as written."
    hit = vault_hit("Notes/[x] Markup.md", snippet)
    with console.capture() as captured:  # a MarkupError before the snippet was a Text
        print_hits([hit])
    printed = " ".join(captured.get().replace("│", " ").split())
    assert "[/tag]" in printed and "[bold]hi[/bold]" in printed and ":cookie:" in printed
    assert "[[Notes/[x] Markup]]" in printed


def test_files_not_indexed_keep_their_brackets() -> None:
    failed = FileStatus(file="Notes/[draft] plan.md", state="failed", reason="bad [x] block")
    index = SimpleNamespace(models=None, indexer=SimpleNamespace(file_status=lambda: [failed]))
    with console.capture() as captured:  # rich read "[draft]" as a style and dropped it
        print_report(index, SyncReport(failed=1))  # type: ignore[arg-type]
    printed = captured.get()
    assert "[draft] plan.md" in printed and "bad [x] block" in printed
