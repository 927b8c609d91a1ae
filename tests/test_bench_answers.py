"""How bench/answers.py decides that an answer opens with its evidence."""

from __future__ import annotations

from bench.answers import _evidence_first

from vault_agent.agent.extractive import DISCLAIMER


def test_the_evidence_must_be_in_one_of_the_first_two_quotes() -> None:
    answer = (
        "Feed it twice a day. [[Starter#Feeding]]\n"
        "Keep it in the fridge. [[Starter#Storage]]\n"
        "Discard half before feeding. [[Starter#Feeding]]\n"
    )
    assert _evidence_first(answer, ["Keep it in the fridge."])
    assert not _evidence_first(answer, ["Discard half before feeding."])


def test_markup_and_a_link_cut_short_in_the_evidence_are_read_as_text() -> None:
    # The note writes a link around "are not supported"; the evidence line kept its brackets.
    answer = "Custom status bar items are **not** supported on mobile. [[Status bar]]\n"
    assert _evidence_first(answer, ["Custom status bar items [are **not** supported]"])
    assert not _evidence_first(answer, ["Status bar items are supported on desktop"])


def test_a_table_row_is_found_with_its_columns_names_between_its_cells() -> None:
    # The evidence is the row as the note writes it; the answer names each cell's column.
    answer = "Maximum file size — Sync Standard: 5 MB; Sync Plus: 200 MB [[Plans]]\n"
    assert _evidence_first(answer, ["| Maximum file size | 5 MB | 200 MB |"])
    assert not _evidence_first(answer, ["| Maximum file size | 200 MB | 5 MB |"])
    assert not _evidence_first(answer, ["| Synced vaults | 1 | 10 |"])


def test_what_follows_the_quotes_is_no_quote() -> None:
    """A Sources line ("- [[Graph view]]") read as "-" matched every hyphenated evidence
    sentence: an answer that quoted nothing counted as answered."""
    answer = (
        "Your notes don't seem to cover this. The closest notes: [[Graph view]].\n\n"
        "_Extractive answer: sentences quoted from your notes, no language model involved._"
        "\n\nSources:\n- [[Graph view]]"
    )
    assert not _evidence_first(answer, ["Use the slider in the local graph's filter-settings."])
    assert not _evidence_first(answer, ["Open sources of the graph."])


def test_evidence_that_reads_as_nothing_matches_nothing() -> None:
    """An embed alone ("![[Daily.base]]") reads as no words, and "" is in every quote."""
    answer = "Daily notes live in Daily. [[Readme]]\n\n" + DISCLAIMER
    assert not _evidence_first(answer, ["![[Daily.base]]"])
    assert _evidence_first(answer, ["![[Daily.base]]", "Daily notes live in Daily."])


def test_a_heading_is_found_where_a_quote_cites_it() -> None:
    """A heading is no quote; the citation of a quote under it shows it to the reader."""
    answer = (
        "*Release notes: Tasks 8.0.0.* [[docs/Breaking Changes#Tasks 8.0.0 (8 May 2026)]]\n"
        "2025-06-20: [[Daily/2025-06-20]], the newest of 4 notes in Daily.\n\n" + DISCLAIMER
    )
    assert _evidence_first(answer, ["## Tasks 8.0.0 (8 May 2026)"])
    assert _evidence_first(answer, ["# 2025-06-20"])
    assert not _evidence_first(answer, ["## Tasks 7.0.0 (1 May 2025)"])
