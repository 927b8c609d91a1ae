"""Chunking parsed notes (`vault_agent.vault.chunker`) over synthetic notes, examples/vault and
the real shared vaults."""

from __future__ import annotations

import re
import time
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLE_VAULT, shared_data
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.vault.chunker import (
    Chunk,
    ChunkSizes,
    approximate_tokens,
    chunk_note,
    innermost_folder,
    split_text,
)
from vault_agent.vault.markdown import cuts_outside_links
from vault_agent.vault.notes import Note, parse_note

#: Sizes in characters of reading text, so the tests can reason about lengths.
CHARS = ChunkSizes(max_size=1500, min_size=300, overlap=0, measure=len)


def parse(text: str, file: str = "Notes/Topic.md") -> Note:
    return parse_note(file, text.encode("utf-8"))


def para(word: str, chars: int) -> str:
    """A paragraph of roughly `chars` characters made of sentences about `word`."""
    sentence = f"The {word} sentence goes on a little. "
    return (sentence * (chars // len(sentence) + 1))[:chars].rsplit(" ", 1)[0] + "."


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def is_subsequence(needle: str, haystack: str) -> bool:
    letters = iter(haystack)
    return all(char in letters for char in needle)


def assert_nothing_lost(note: Note, chunks: list[Chunk], sizes: ChunkSizes = CHARS) -> None:
    """Every chunk's embedded text fits, indexes count from 0, and every section's text (and
    every heading) survives in order in the chunks."""
    assert chunks
    assert [chunk.chunk_index for chunk in chunks] == list(range(len(chunks)))
    assert all(sizes.measure(chunk.embed_text) <= sizes.max_size for chunk in chunks)
    bodies = squash("".join(chunk.body for chunk in chunks))
    assert is_subsequence(squash("".join(section.text for section in note.sections)), bodies)
    headings = " ".join(chunk.heading for chunk in chunks) + " ".join(c.body for c in chunks)
    for section in note.sections:
        if section.heading_path:
            assert section.heading_path[-1] in headings


# -- sections and merging ---------------------------------------------------------------------


def test_one_chunk_per_heading_section_when_sections_are_big_enough() -> None:
    note = parse(
        f"# Setup\n{para('setup', 400)}\n## Linux\n{para('linux', 400)}\n"
        f"# Usage\n{para('usage', 400)}"
    )
    chunks = chunk_note(note, CHARS)
    assert [chunk.heading for chunk in chunks] == ["Setup", "Setup > Linux", "Usage"]
    assert chunks[1].body == para("linux", 400)
    assert_nothing_lost(note, chunks)


def test_small_sections_merge_with_the_following_section_keeping_their_headings() -> None:
    note = parse(
        f"# Intro\nShort.\n## Details\nAlso short.\n### Deep\n{para('deep', 400)}\n"
        f"# Next\n{para('next', 400)}"
    )
    chunks = chunk_note(note, CHARS)
    assert [chunk.heading for chunk in chunks] == ["Intro", "Next"]
    assert chunks[0].body.startswith("Short.\n\n## Details\n\nAlso short.\n\n### Deep\n\nThe deep")
    assert_nothing_lost(note, chunks)


def test_a_small_last_section_merges_into_the_previous_one() -> None:
    note = parse(f"# Main\n{para('main', 500)}\n## Footer\nThe end.")
    chunks = chunk_note(note, CHARS)
    assert len(chunks) == 1
    assert chunks[0].heading == "Main"
    assert chunks[0].body.endswith("## Footer\n\nThe end.")


def test_small_sections_do_not_merge_past_max_chars() -> None:
    note = parse(f"# Tiny\nSmall.\n# Big\n{para('big', 1480)}")
    chunks = chunk_note(note, CHARS)
    assert [chunk.heading for chunk in chunks] == ["Tiny", "Big"]
    assert chunks[0].body == "Small."


def test_text_before_the_first_heading_has_an_empty_heading() -> None:
    note = parse(f"{para('preamble', 400)}\n# Later\n{para('later', 400)}")
    assert [chunk.heading for chunk in chunk_note(note, CHARS)] == ["", "Later"]


def test_note_without_body_gets_one_title_chunk() -> None:
    for text in ("", "---\ntags: [x]\n---\n", "   \n\n"):
        chunks = chunk_note(parse(text, "Ideas/Quiet Note.md"), CHARS)
        assert chunks == [Chunk(chunk_index=0, heading="", body="", embed_text="Ideas\nQuiet Note")]


def test_properties_are_embedded_after_the_title_and_kept_with_the_first_chunk() -> None:
    note = parse(
        '---\ntags: [film]\ncssclasses: [wide]\ndirector: "[[Ridley Scott]]"\n'
        'cast:\n  - "[[Harrison Ford]]"\n  - Rutger Hauer\nlast: 2023-09-14\nwatched: true\n'
        "cover: https://example.com/poster.jpg\nrating:\nextra: {a: 1}\n---\n"
        f"# Plot\n{para('plot', 400)}\n# Notes\n{para('notes', 400)}",
        "Films/Blade Runner.md",
    )
    chunks = chunk_note(note, CHARS)
    facts = [
        "director: Ridley Scott",
        "cast: Harrison Ford, Rutger Hauer",
        "last: 2023-09-14",
        "watched: yes",
        "rating:",
    ]
    # Links read as their text; tags, display settings, URLs and nested data are no facts.
    assert chunks[0].properties == facts
    assert chunks[0].embed_text.startswith("\n".join(["Films", "Blade Runner", *facts, "Plot", ""]))
    assert [chunk.properties for chunk in chunks[1:]] == [[]]
    assert "director" not in chunks[1].embed_text
    # A note of properties alone is found by them.
    [only] = chunk_note(parse("---\nlast: 2023-09-14\n---\n", "Films/Alien.md"), CHARS)
    assert (only.embed_text, only.properties) == (
        "Films\nAlien\nlast: 2023-09-14",
        ["last: 2023-09-14"],
    )


def test_properties_take_at_most_a_quarter_of_the_chunk() -> None:
    values = "\n".join(f"field{i}: {para('value', 80)}" for i in range(40))
    chunks = chunk_note(parse(f"---\n{values}\n---\n{para('body', 300)}"), CHARS)
    facts = "\n".join(chunks[0].properties)
    assert 0 < len(facts) <= CHARS.max_size // 4
    assert_nothing_lost(parse(f"---\n{values}\n---\n{para('body', 300)}"), chunks)


def test_a_lone_empty_heading_still_gets_a_chunk() -> None:
    chunks = chunk_note(parse("# Only a heading\n"), CHARS)
    assert [(chunk.heading, chunk.body) for chunk in chunks] == [("Only a heading", "")]
    assert chunks[0].embed_text == "Notes\nTopic\nOnly a heading"


def test_embed_text_holds_folder_title_heading_path_and_body() -> None:
    note = parse(
        f"# Setup\n{para('a', 400)}\n## Linux\nUse apt. {para('b', 400)}",
        "Docs/Guides/Install.md",
    )
    chunk = chunk_note(note, CHARS)[1]
    # Only the innermost folder: outer ones are filing, and keyword search reads them all.
    assert chunk.embed_text == f"Guides\nInstall\nSetup > Linux\n\n{chunk.body}"
    assert chunk.body.startswith("Use apt.")


def test_a_note_at_the_root_or_from_a_url_embeds_no_folder() -> None:
    text = f"# Setup\n{para('a', 100)}"
    for file in ("Install.md", "https://example.com/docs/Install.md"):
        [chunk] = chunk_note(parse(text, file), CHARS)
        assert chunk.embed_text.startswith("Install\nSetup\n\n"), file
    assert innermost_folder("https://example.com/docs/Install.md") == ""
    assert innermost_folder("Mobile/v1.4.2.md") == "Mobile"


# -- splitting --------------------------------------------------------------------------------


def test_long_sections_split_at_paragraphs() -> None:
    paragraphs = [para(word, 600) for word in ("one", "two", "three", "four")]
    note = parse("# Long\n" + "\n\n".join(paragraphs))
    chunks = chunk_note(note, CHARS)
    assert [chunk.body for chunk in chunks] == [
        paragraphs[0] + "\n\n" + paragraphs[1],
        paragraphs[2] + "\n\n" + paragraphs[3],
    ]
    assert {chunk.heading for chunk in chunks} == {"Long"}


def test_long_paragraphs_split_at_sentences() -> None:
    text = " ".join(f"Sentence number {n} says something useful about bread." for n in range(60))
    pieces = split_text(text, 300)
    assert all(len(piece) <= 300 for piece in pieces)
    assert all(piece.endswith(".") and piece[0].isupper() for piece in pieces)
    assert " ".join(pieces) == text


def test_a_full_stop_inside_a_version_or_a_file_name_ends_no_sentence() -> None:
    # A table row or a changelog line too long for one chunk was cut at "1.9." and "main.",
    # leaving "4 behaviour" and "js" in the next chunk: neither half found by the name.
    row = "| tags | Obsidian 1.9.4 reads main.js from the plugin folder, e.g. on start |"
    pieces = split_text(" ".join([row] * 3), 60)
    assert len(pieces) > 3
    assert sum(piece.count("1.9.4") for piece in pieces) == 3
    assert sum(piece.count("main.js") for piece in pieces) == 3
    assert " ".join(pieces) == " ".join([row] * 3)


def test_cjk_full_stops_end_sentences_without_a_space() -> None:
    text = "これはパンについての文です。" * 60
    pieces = split_text(text, 100)
    assert len(pieces) > 1
    assert all(piece.endswith("。") and piece.startswith("これ") for piece in pieces)
    assert "".join(pieces) == text


@pytest.mark.parametrize(
    ("sentence", "whole"),
    [
        # A link to a heading that asks ends no sentence of the note's, nor does code.
        ("見出し[[同步常见问题#可以吗？可以。]]を参照。", "[[同步常见问题#可以吗？可以。]]"),
        (
            "See [[Sync FAQ#Is it free? Yes|the FAQ]] for details. ",
            "[[Sync FAQ#Is it free? Yes|the FAQ]]",
        ),
        ("Read [the guide. Part two](Guide.md) first. ", "[the guide. Part two](Guide.md)"),
        (
            "Run `app.emulateMobile(true). Then reload` now. ",
            "`app.emulateMobile(true). Then reload`",
        ),
    ],
)
def test_no_cut_falls_inside_a_link_or_code(sentence: str, whole: str) -> None:
    text = sentence * 20
    # Room for one to three sentences: some chunks would end in a link's middle.
    for size in range(len(sentence) + 1, 3 * len(sentence)):
        pieces = split_text(text, size)
        assert len(pieces) > 1
        assert sum(piece.count(whole) for piece in pieces) == 20, pieces
        assert "".join(pieces).replace(" ", "") == text.replace(" ", "")


def test_long_paragraphs_split_at_a_danda_too() -> None:
    text = " ".join(f"वाक्य संख्या {n} रोटी के बारे में कुछ उपयोगी बताता है।" for n in range(60))
    pieces = split_text(text, 300)
    assert all(len(piece) <= 300 for piece in pieces)
    assert all(piece.endswith("।") and piece.startswith("वाक्य") for piece in pieces)
    assert " ".join(pieces) == text


def test_long_lists_split_at_lines_keeping_items_whole() -> None:
    items = [f"- item {n}: water the beds and check the timer" for n in range(80)]
    pieces = split_text("\n".join(items), 500)
    assert all(len(piece) <= 500 for piece in pieces)
    assert [line for piece in pieces for line in piece.split("\n")] == items


def test_a_short_lead_in_starts_the_chunk_of_what_it_introduces() -> None:
    step = "Step {n}: fold the dough over once more and rest it."
    steps = "\n".join(f"{n}. {step.format(n=n)}" for n in range(30))
    note = parse(f"# Method\n\nMaking the dough\n\n{steps}\n\nThe loaf is done.\n\n{steps}")
    chunks = chunk_note(note, CHARS)
    assert_nothing_lost(note, chunks)
    # Closed alone, the label would be a chunk that says nothing and its steps would lose it.
    assert chunks[0].body.startswith("Making the dough\n\n0. Step 0:")
    # A finished sentence is no lead-in: it is not pulled into the next paragraph's lines.
    assert any(chunk.body.endswith("The loaf is done.") for chunk in chunks)
    # Before one long paragraph of prose, too: the label starts its first window.
    prose = " ".join(f"Sentence {n} says something about the dough." for n in range(60))
    pieces = split_text(f"Making the dough\n\n{prose}", 300)
    assert pieces[0].startswith("Making the dough\n\nSentence 0 says")


def test_only_a_word_longer_than_max_chars_is_cut_mid_word() -> None:
    long_word = "x" * 700
    pieces = split_text(f"short words here {long_word} and more", 300)
    assert pieces == ["short words here", "x" * 300, "x" * 300, "x" * 100, "and more"]


def test_sizes_are_configurable() -> None:
    note = parse("\n\n".join(para(word, 150) for word in ("a", "b", "c", "d")))
    sizes = ChunkSizes(max_size=200, min_size=50, overlap=0, measure=len)
    chunks = chunk_note(note, sizes)
    assert len(chunks) == 4
    assert_nothing_lost(note, chunks, sizes)


# -- real notes -------------------------------------------------------------------------------


def test_example_vault_notes_chunk_without_losing_text() -> None:
    for path in sorted(EXAMPLE_VAULT.rglob("*.md")):
        note = parse_note(path.relative_to(EXAMPLE_VAULT).as_posix(), path.read_bytes())
        chunks = chunk_note(note, CHARS)
        assert_nothing_lost(note, chunks)
        named = "\n".join(filter(None, [innermost_folder(note.file), note.title]))
        assert all(chunk.embed_text.startswith(named) for chunk in chunks)


def test_irrigation_decision_stays_in_one_chunk_under_its_heading() -> None:
    path = EXAMPLE_VAULT / "Projects" / "Garden" / "Garden Irrigation.md"
    chunks = chunk_note(
        parse_note("Projects/Garden/Garden Irrigation.md", path.read_bytes()), CHARS
    )
    decision = [chunk for chunk in chunks if "We decided on drip lines" in chunk.body]
    assert len(decision) == 1
    assert "Decision" in decision[0].heading or "## Decision" in decision[0].body


@pytest.mark.parametrize("vault", ["obsidian-help-en", "obsidian-tasks", "kepano-obsidian"])
def test_real_vault_notes_chunk_within_limits_without_losing_text(vault: str) -> None:
    root = shared_data("vaults", vault)
    for path in sorted(root.rglob("*.md")):
        note = parse_note(path.relative_to(root).as_posix(), path.read_bytes())
        assert_nothing_lost(note, chunk_note(note, CHARS))


_PIECES = st.sampled_from(
    ["# A\n", "## B\n", "### C\n", "\n\n", "\n", ". ", "! ", " ", "- item\n", "```\n", "word",
     "x" * 50, "Sentence here.", "é", "\t"]
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_PIECES, max_size=120).map("".join),
    st.integers(min_value=0, max_value=120),
    st.integers(min_value=20, max_value=300),
)
def test_any_note_chunks_within_max_chars_without_losing_text(
    text: str, min_chars: int, max_chars: int
) -> None:
    note = parse(text)
    sizes = ChunkSizes(max_size=max_chars, min_size=min_chars, overlap=0, measure=len)
    assert_nothing_lost(note, chunk_note(note, sizes), sizes)


# -- sized by the embedder's tokenizer ---------------------------------------------------------


@pytest.fixture(scope="module")
def tokens(embedder: MiniLmEmbedder) -> ChunkSizes:
    """The sizes the index chunks with: MiniLM's word-pieces, title and heading path counted."""
    return ChunkSizes(
        max_size=embedder.max_tokens, min_size=64, overlap=32, measure=embedder.count_tokens
    )


@pytest.mark.parametrize(
    "vault", ["obsidian-help-en", "obsidian-tasks", "obsidian-release-notes", "obsidian-hub"]
)
def test_no_chunk_of_a_real_vault_is_cut_by_the_encoder(vault: str, tokens: ChunkSizes) -> None:
    # With 1,500-character chunks, 19% of the help vault's chunks (42% of the hub's) were longer
    # than the 256 word-pieces MiniLM reads: their tails were never embedded.
    root = shared_data("vaults", vault)
    for path in sorted(root.rglob("*.md"))[:400]:
        note = parse_note(path.relative_to(root).as_posix(), path.read_bytes())
        chunks = chunk_note(note, tokens)
        assert_nothing_lost(note, chunks, tokens)


def test_a_long_section_is_embedded_in_overlapping_windows(tokens: ChunkSizes) -> None:
    sentences = [f"Step {n}: the starter gets {n} grams of rye flour." for n in range(80)]
    note = parse("# Feeding\n" + " ".join(sentences), "Recipes/Starter.md")
    chunks = chunk_note(note, tokens)
    assert len(chunks) >= 3
    assert all(tokens.measure(chunk.embed_text) <= tokens.max_size for chunk in chunks)
    # Bodies hold no overlap: joined, they are the section again.
    assert " ".join(chunk.body for chunk in chunks) == " ".join(sentences)
    for before, after in pairwise(chunks):
        last_sentence = before.body.rsplit(". ", 1)[-1]
        context = after.embed_text.removeprefix("Recipes\nStarter\nFeeding\n\n")
        assert context.startswith(tuple(s for s in before.body.split(". ")[-3:]))
        assert last_sentence in context and not after.body.startswith(last_sentence)


def test_a_window_opening_inside_a_table_embeds_and_records_its_header(
    tokens: ChunkSizes,
) -> None:
    rows = "".join(f"| `--swatch-{n}` | Colour {n} of the palette |\n" for n in range(90))
    header = "| Variable | Description |\n| --- | --- |"
    note = parse(f"# Palette\n\nThe swatches.\n\n{header}\n{rows}\nAfter the table.\n")
    chunks = chunk_note(note, tokens)
    assert len(chunks) >= 3
    assert all(tokens.measure(chunk.embed_text) <= tokens.max_size for chunk in chunks)
    inside = [chunk for chunk in chunks if chunk.body.startswith("| `--swatch-")]
    assert inside  # windows cut from the table, below its header
    for chunk in inside:
        # Its rows alone don't say what their cells are: the header is embedded before them
        # and recorded, never added to the body (the chunks rebuild the note).
        assert chunk.table_header == header
        assert "Variable | Description" in chunk.embed_text.split("--swatch-")[0]
        assert "Variable" not in chunk.body
    assert not chunks[0].table_header  # the header's own window
    assert_nothing_lost(note, chunks, tokens)


def test_what_is_embedded_is_the_text_a_reader_sees() -> None:
    text = (
        "# Venom\n%% do not edit this section %%\n"
        "![Downloads](https://img.shields.io/badge/downloads-2028)\n"
        "Repository: [GitHub](https://github.com/x/venom) by [[fatiger92|Fatiger]]\n"
        "<span class='git-footer'>Edit</span> https://example.com/raw\n"
    )
    (chunk,) = chunk_note(parse(text, "Themes/Venom.md"), CHARS)
    assert "Repository: GitHub by Fatiger" in chunk.embed_text
    assert "Edit" in chunk.embed_text
    for noise in ("do not edit", "shields.io", "https", "span", "Downloads", "%%"):
        assert noise not in chunk.embed_text
    assert "![Downloads](https://img.shields.io" in chunk.body  # the body keeps the markdown


def test_a_word_longer_than_many_chunks_is_cut_measuring_short_texts_only() -> None:
    # A pasted base64 image or a 5 MB line: each piece was sought among prefixes of the whole
    # rest of the word (250 KB took two minutes with MiniLM's tokenizer, 5 MB took 13 GB).
    measured: list[int] = []

    def measure(text: str) -> int:
        measured.append(len(text))
        return approximate_tokens(text)

    word = "iVBORw0KGgoAAAANSUhEUgAA" * 10_000  # 240,000 characters, no space
    sizes = ChunkSizes(max_size=256, min_size=64, overlap=0, measure=measure)
    chunks = chunk_note(parse_note("Screenshot.md", f"# Shot\n\n{word}\n".encode()), sizes)
    assert "".join(chunk.body for chunk in chunks).replace("\n", "").endswith(word[-1000:])
    assert all(approximate_tokens(chunk.embed_text) <= 256 for chunk in chunks)
    assert max(measured) <= len(word)  # the word is measured whole once, at most
    # Not every prefix of the rest (29 million characters measured; now about 300,000).
    assert sum(measured) < 5 * len(word), sum(measured)


def test_a_long_line_of_links_is_cut_in_linear_time() -> None:
    # Each cut is checked against the line's links and code spans: walked together, not every
    # span per cut (40,000 links and 200,000 spaces on one line would take minutes).
    line = "[[A note]] and `some code` here. " * 20_000
    started = time.process_time()
    pieces = split_text(line, 300)
    assert time.process_time() - started < 5.0
    assert sum(piece.count("[[A note]]") for piece in pieces) == 20_000
    assert sum(piece.count("`some code`") for piece in pieces) == 20_000


def test_code_spans_of_a_long_line_of_backtick_runs_are_found_in_linear_time() -> None:
    # Found reading the change again: each run of backticks sought its closing run to the
    # line's end, and runs of distinct lengths close nothing (1.3 MB: 10 s per cut list).
    line = "".join("`" * length + "a. " for length in range(1_600, 0, -1))
    started = time.process_time()
    cuts = list(cuts_outside_links(re.compile(r"\. "), line))
    assert time.process_time() - started < 1.0
    assert len(cuts) == 1_600  # no run closes another: every full stop cuts
