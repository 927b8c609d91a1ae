"""Complexity audit: what runs over text an outsider writes (notes, properties, PDF text,
questions, model answers, request fields) takes time roughly linear in it.

Each case times the public entry point on an adversarial input at two sizes, in CPU time (a
busy machine stretches the wall clock; a busy memory bus still stretches the larger run's CPU
time): the larger, `FACTOR` times the smaller, must take less than `GROWTH` times as long
(quadratic code takes `FACTOR` squared times) or less than `FLOOR` seconds, and in any case less
than `CEILING`, far below what the superlinear code took. docs/reliability.md, "Complexity
audit", lists each case with its times before and after.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from typing import TypeVar, cast

import pytest

from vault_agent.agent.citations.checker import check_answer
from vault_agent.agent.citations.links import find_citations
from vault_agent.agent.citations.shown_links import unlink_unshown
from vault_agent.agent.extractive.amounts import holds_money
from vault_agent.agent.extractive.units import split_units
from vault_agent.agent.reader import NoteReader, ToolsContext
from vault_agent.agent.safe_markdown import sanitise_markdown
from vault_agent.index.search.hits import make_snippet
from vault_agent.index.search.related import plain_text
from vault_agent.index.search.relative_dates import relative_periods
from vault_agent.llm.held_text import TextGate
from vault_agent.vault.chunker import chunk_note
from vault_agent.vault.graph import LinkGraph
from vault_agent.vault.notes import parse_note

T = TypeVar("T")
FACTOR = 4
#: A linear run measured 4 to 5 times the smaller here, and 9 times on a machine busy with
#: other work (the larger one's data out of the caches); the quadratic code 10 to 16 times.
GROWTH = 10
#: No case takes the fixed code 1.1 s at its larger size (2.5 s busy); the superlinear code
#: took 4.5 s and more where its growth was least (`<?`: 5.8 s, 8 times the smaller).
CEILING = 4.0
#: Under this, a time says nothing of its growth (start-up costs, noise).
FLOOR = 0.75


def _cpu(run: Callable[[T], object], text: T) -> float:
    started = time.thread_time()
    run(text)
    return time.thread_time() - started


def assert_linear(run: Callable[[T], object], make: Callable[[int], T], size: int) -> None:
    """`run` on `make(size * FACTOR)` takes about `FACTOR` times what it takes on `make(size)`."""
    times = []
    for _ in range(3):  # a busy machine slows some runs; quadratic code is slow every time
        small = min(_cpu(run, make(size)) for _ in range(2))
        large = _cpu(run, make(size * FACTOR))
        if large < min(max(GROWTH * small, FLOOR), CEILING):
            return
        times.append((small, large))
    raise AssertionError(f"{FACTOR} times the text took (small, large) seconds: {times}")


def _repeat(unit: str, prefix: str = "") -> Callable[[int], str]:
    return lambda size: prefix + (unit * (size // len(unit) + 1))[:size]


@pytest.fixture(scope="module")
def graph() -> LinkGraph:
    graph = LinkGraph()
    graph.set_file("a.md", [])
    return graph


# A model's answer is at most `llm.max_answer_chars` (40,000 characters). Before: 40,000
# characters of `<?` in a raw HTML block took 6 s (the tag pattern read to the block's end
# from each, for a `?>` that isn't there); 40,000 of `<style>` in a paragraph 3.5 s (each
# looked for its closing tag through the rest of it).
@pytest.mark.parametrize(
    ("unit", "prefix"),
    [
        ("<?", ""),
        ("<?x?", "<div>\n"),
        ("<style>", "x "),
        ("<textarea>", ""),
        ("<iframe>", "x "),
    ],
)
def test_checking_an_answer_of_unclosed_html_takes_linear_time(
    unit: str, prefix: str, graph: LinkGraph
) -> None:
    assert_linear(lambda text: check_answer(text, {"a.md"}, graph), _repeat(unit, prefix), 10_000)


def _index(text: str) -> None:
    """What indexing does with a note's text before embedding it: parse and cut into chunks."""
    chunk_note(parse_note("n.md", text.encode()))


# A note may be 5 MB (`index.max_file_bytes`). Before: 80,000 characters of `<%` (Templater's
# opener, never closed) took 4.5 s, each looking for a `%>` through the rest of the note.
def test_indexing_a_note_of_unclosed_templater_commands_takes_linear_time() -> None:
    assert_linear(_index, _repeat("<%"), 20_000)


# A question is at most 8,000 characters (and a search tool's query). Before: each weekday or
# month alone read the whole question for its tense, and all before it for a habit ("le
# lundi"): 16,000 characters of "lundi " took 1.9 s, of "in March " 1.1 s (0.1 s now).
@pytest.mark.parametrize("unit", ["lundi ", "in March ", "on Monday "])
def test_reading_the_days_of_a_question_takes_linear_time(unit: str) -> None:
    today = datetime.date(2026, 11, 27)

    def read(question: str) -> object:
        return relative_periods(question, today, ("fr",), lambda _: False)

    assert_linear(read, _repeat(unit), 6_000)


def _related_snippets(text: str) -> None:
    """What `/v1/related` shows of a note's chunks: each one's snippet."""
    for chunk in chunk_note(parse_note("n.md", text.encode())):
        make_snippet(plain_text(chunk.body), "", 160)


# Before: a note of comments holding "[[" under empty headings is one chunk however long (its
# sections read as nothing), and its snippet read from each "[[" to the chunk's end: 8,800
# characters took 0.3 s, quadratic (a 5 MB note: hours).
def test_the_snippet_of_a_related_note_of_open_wikilinks_takes_linear_time() -> None:
    assert_linear(_related_snippets, _repeat("#\n<!--[[-->\n"), 5_000)


# Before: emphasis was sought from each mark to its line's end, list markers from each line
# of a run of blank lines, each link from each "[[": 20,000 characters of "*a " took 1.6 s, of
# "[[a|" 5 s (0.01 s now).
@pytest.mark.parametrize("unit", ["*a ", "`a ", "\n", "[[a|"])
def test_a_passage_as_plain_text_takes_linear_time(unit: str) -> None:
    assert_linear(plain_text, _repeat(unit), 5_000)


# The open note's unsaved text (up to 2 MB from the plugin) or a note rebuilt from the index:
# its headings, for `get_note` and the citation check. Before: a heading line of 20,000
# characters of " #" took 4.7 s (the lazy heading text tried the rest of the line from each
# character), 80,000 over a minute; now 0.01 s.
def test_reading_the_headings_of_a_note_takes_linear_time() -> None:
    def headings(text: str) -> object:
        return NoteReader(cast(ToolsContext, None), {"n.md": text}).headings("n.md")

    assert_linear(headings, lambda size: "# a" + " #" * (size // 2) + "x", 5_000)


# Before: whether each link of an answer was inside code was asked of every code span in turn:
# 40,000 characters alternating code and links took 1 s to find the citations in, 1.4 s to
# remove the embeds from (2.1 s for the whole check), now 0.1 s and 0.3 s.
@pytest.mark.parametrize(
    ("run", "unit"),
    [
        (find_citations, "`x` [[a]] "),
        (lambda text: sanitise_markdown(text, embeds=False), "`x`![[a]]"),
        (lambda text: unlink_unshown(text, lambda _: False), "`x` http://a.example/ "),
    ],
    ids=["citations", "embeds", "web links"],
)
def test_telling_links_in_code_from_others_takes_linear_time(
    run: Callable[[str], object], unit: str
) -> None:
    assert_linear(run, _repeat(unit), 10_000)


def _stream(text: str) -> None:
    """A model's turn arriving one character at a time, as the text gate reads it."""
    gate = TextGate({"search_notes"})
    for char in text:
        gate.feed(char)
    gate.finish()


# A model's turn is read piece by piece (`llm.max_answer_chars`, 40,000 by default). Before:
# held text was read whole at each piece while it decided nothing: 40,000 characters of an
# unclosed <think> block one at a time took 0.55 s, of spaces 0.7 s (80,000: 2 s and more).
@pytest.mark.parametrize(
    "make",
    [lambda size: "<think>" + "a " * (size // 2), lambda size: " " * size],
    ids=["thinking", "spaces"],
)
def test_reading_a_model_turn_piece_by_piece_takes_linear_time(
    make: Callable[[int], str],
) -> None:
    assert_linear(_stream, make, 20_000)


# A vault of one note name in many folders (README.md, index.md of a documentation site), or
# one alias on many notes. Before: each file was looked for among those of its name before
# being listed: loading 20,000 of them into the link graph took 2 s, quadratic; now 0.1 s.
@pytest.mark.parametrize(
    "entry",
    [lambda i: (f"d{i}/README.md", [], []), lambda i: (f"n{i}.md", ["same"], [])],
    ids=["name", "alias"],
)
def test_loading_many_notes_of_one_name_into_the_link_graph_takes_linear_time(
    entry: Callable[[int], tuple[str, list[str], list[str]]],
) -> None:
    def load(entries: list[tuple[str, list[str], list[str]]]) -> None:
        LinkGraph().set_files(entries)

    assert_linear(load, lambda size: [entry(i) for i in range(size)], 8_000)


# Many notes of one name each linking it by name ("[[README]]" in each folder's README.md, and
# notes beside them): each link read every README to pick its own. Before: 1,000 of them took
# 1.5 s to load, quadratic, and removing 100 of them one by one 146 s (each removal resolved
# every link to the name again).
def test_links_among_many_notes_of_one_name_resolve_in_linear_time() -> None:
    def load_and_remove(size: int) -> None:
        graph = LinkGraph()
        graph.set_files(
            (f"d{i}/{'README' if i % 2 else 'note'}.md", [], ["README"]) for i in range(size)
        )
        for i in range(1, min(size, 200), 2):
            graph.remove_file(f"d{i}/README.md")

    assert_linear(load_and_remove, lambda size: size, 1_000)


# An offline answer cuts each passage it reads into units and reads each for money. Before:
# 8,000 characters of "[[" took 2.3 s to cut (each link read from each "[[" to the line's end),
# a heading line of " #" 1.1 s at 20,000, "[" 0.34 s at 8,000 (14 times that at 4 times the
# size); 8,000 digits 4.7 s to read for money (a number read from each of its digits).
@pytest.mark.parametrize(
    ("unit", "prefix", "size"),
    [("[[", "", 4_000), ("[[a|", "", 4_000), ("[", "", 8_000)],
)
def test_cutting_a_passage_into_units_is_linear(unit: str, prefix: str, size: int) -> None:
    assert_linear(lambda text: split_units(text, ""), _repeat(unit, prefix), size)


def test_cutting_a_long_heading_line_into_units_is_linear() -> None:
    # Closing marks all along the line, and then a word: none of them closes it.
    assert_linear(
        lambda text: split_units(text, ""), lambda size: f"#{_repeat(' #')(size)} x", 10_000
    )


@pytest.mark.parametrize("unit", ["1", "1,", ".5"])
def test_reading_a_passage_for_money_is_linear(unit: str) -> None:
    assert_linear(holds_money, _repeat(unit, "x "), 4_000)
