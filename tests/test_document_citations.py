"""Citations of documents from other sources: ``[Title](url)`` for a document with a web page,
``[Title (source)]`` for one without. The check treats them as it treats wikilinks: retrieved
ones stay and become Sources, others are removed and reported; links to web pages that are no
document are left alone. Pure functions, plus the passages the extractive profile reads."""

from __future__ import annotations

from vault_agent.agent.citations.checker import (
    check_answer,
)
from vault_agent.agent.citations.documents import document_citation, find_document_citations
from vault_agent.agent.citations.links import (
    NoteRef,
    cite,
)
from vault_agent.agent.extractive import ExtractiveModel
from vault_agent.agent.passages import format_passage, parse_passages
from vault_agent.vault.graph import LinkGraph

URL = "https://en.wikipedia.org/wiki/Skellig_(island)"
LOG = NoteRef(file="field-notes://log", title="Skellig [1904] log", source="field-notes", url=URL)
PUFFINS = NoteRef(file="field-notes://puffins", title="Puffin burrows", source="field-notes")
NOTE = NoteRef(file="Recipes/Miso Soup.md", title="Miso Soup")
LOG_LINK = "[Skellig (1904) log](https://en.wikipedia.org/wiki/Skellig_%28island%29)"
REASON = "not among the documents retrieved for this answer"


class Index:
    """What the check may ask the index: which sources and urls hold documents."""

    def is_source(self, name: str) -> bool:
        return name in ("field-notes", "archive")

    def is_document_url(self, url: str) -> bool:
        return url == "https://example.org/ledger"


def graph() -> LinkGraph:
    links = LinkGraph()
    links.set_file("Recipes/Miso Soup.md")
    return links


def check(text: str, *refs: NoteRef) -> tuple[str, list[NoteRef], list[tuple[str, str]]]:
    checked = check_answer(text, refs or (LOG, PUFFINS, NOTE), graph(), documents=Index())
    removed = [(r.citation, r.reason) for r in checked.removed_citations]
    return checked.answer, checked.sources, removed


def test_a_document_is_cited_by_its_url_else_by_title_and_source() -> None:
    assert cite(LOG) == LOG_LINK  # brackets out of the title, parentheses encoded in the url
    assert cite(PUFFINS) == "[Puffin burrows (field-notes)]"
    assert cite(NOTE) == "[[Recipes/Miso Soup]]"
    found = find_document_citations(f"a {LOG_LINK} b [Puffin burrows (field-notes)]", [])
    assert [(c.text, c.url, c.source) for c in found] == [
        ("Skellig (1904) log", URL, None),
        ("Puffin burrows", None, "field-notes"),
    ]


def test_retrieved_documents_stay_and_are_listed_with_the_notes() -> None:
    text = f"412 petrels {LOG_LINK}, burrows [Puffin burrows (field-notes)], dashi [[Miso Soup]]."
    answer, sources, removed = check(text)
    assert removed == []
    assert answer == (
        f"{text}\n\nSources:\n- {LOG_LINK}\n- [Puffin burrows (field-notes)]\n"
        "- [[Recipes/Miso Soup]]"
    )
    assert [s.file for s in sources] == ["field-notes://log", "field-notes://puffins", NOTE.file]
    assert sources[0].url == URL and sources[1].source == "field-notes"


def test_citations_of_documents_not_retrieved_are_removed_and_reported() -> None:
    text = (
        "Petrels [Lost diary (field-notes)]; paraffin [the ledger](https://example.org/ledger); "
        "maps [Old chart (archive)]; see [a page](https://example.com/page) [see note (sic)]."
    )
    answer, sources, removed = check(text, LOG)
    assert removed == [
        ("[Lost diary (field-notes)]", REASON),
        ("[the ledger](https://example.org/ledger)", REASON),
        ("[Old chart (archive)]", REASON),
    ]
    assert answer == (
        "Petrels; paraffin the ledger; maps; see [a page](https://example.com/page) "
        "[see note (sic)]."
    )
    assert sources == []


def test_a_document_cited_another_way_is_rewritten_to_its_own_form() -> None:
    answer, sources, _ = check(
        "Petrels [Skellig (1904) log (field-notes)] and [[field-notes://puffins]]."
    )
    assert answer.startswith(f"Petrels {LOG_LINK} and [Puffin burrows (field-notes)].")
    assert [s.file for s in sources] == [LOG.file, PUFFINS.file]


def test_the_models_own_sources_list_of_documents_is_replaced_by_ours() -> None:
    text = f"Petrels {LOG_LINK}.\n\nSources:\n- {LOG_LINK}\n- [Puffin burrows (field-notes)]"
    answer, sources, removed = check(text)
    assert (
        answer == f"Petrels {LOG_LINK}.\n\nSources:\n- {LOG_LINK}\n- [Puffin burrows (field-notes)]"
    )
    assert answer.count("Sources:") == 1 and removed == []
    assert [s.file for s in sources] == [LOG.file, PUFFINS.file]


def test_document_citations_in_code_are_quoted_text() -> None:
    text = "Write `[Lost diary (field-notes)]` to cite a document."
    answer, sources, removed = check(text)
    assert (answer, sources, removed) == (text, [], [])


def test_the_extractive_profile_quotes_and_cites_documents() -> None:
    blocks = [
        format_passage(1, LOG.file, "", " (from field-notes)", "412 storm petrels.", cite(LOG)),
        format_passage(2, PUFFINS.file, "", "", "Puffins dig burrows.", cite(PUFFINS)),
    ]
    passages = parse_passages("2 passages match.\n\n" + "\n\n".join(blocks))
    assert [p.link for p in passages] == [LOG_LINK, "[Puffin burrows (field-notes)]"]
    answer = ExtractiveModel().compose("How many storm petrels?", passages)
    assert "**Skellig (1904) log**" in answer and f"412 storm petrels. {LOG_LINK}" in answer
    checked = check_answer(answer, [LOG, PUFFINS], graph())
    assert checked.removed_citations == [] and [s.file for s in checked.sources] == [LOG.file]


def test_document_citation_without_title_text_still_reads() -> None:
    assert document_citation("  \n ", "clips", None) == "[untitled (clips)]"
