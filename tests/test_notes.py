"""Parsing one note (`vault_agent.vault.notes`), over examples/vault and the real shared vaults.

examples/vault is the demo vault written for this project: a software engineer's personal
notes (work on the Tidepool buoy-data project, a community garden plot, a sourdough starter
called Gus, reading, a Kyoto trip). Its features, which these tests and test_graph.py rely on:

- 38 notes in Areas/, Daily/, Inbox/, Meetings/, People/, Projects/ (with Garden/ and
  Tidepool/ subfolders), Reading/, Recipes/, Templates/.
- Frontmatter with tags (lists and flow lists), `type` (person, project, book, meeting,
  recipe, daily, area, ideas, list), aliases ("Maya", "Gus", "Dan"...), `created` dates, and
  `[[links]]` in properties (`attendees`, `owner`, `team`).
- Nested tags (#project/garden, food/bread...) and inline tags (#sourdough, #garden/harvest).
- Ten daily notes Daily/2026-10-27.md .. Daily/2026-11-12.md; Daily/2026-11-05.md and
  Inbox/Quick Capture.md have no frontmatter. The last starter feed is on 2026-11-11.
- Heading links ([[Architecture#Ingestion]]), block links ([[Architecture#^retention-policy]],
  [[Sourdough Starter#^feeding-ratio]], [[Garden Irrigation#^irrigation-decision]]) whose
  ^ids exist in the targets, embeds (![[Sourdough Starter#Feeding schedule]]).
- Links to missing notes: [[Soil Test Results]], [[Tidepool Runbook]], [[JR Pass Notes]].
- Alias links: [[Dan]] (Daily/2026-11-05.md), [[Maya]] (Inbox/Quick Capture.md, the retro).
- A code block with #notatag and [[not a link]] (Projects/Tidepool/Architecture.md) and
  inline code with both (Inbox/Quick Capture.md).
- Markdown links with %20: [Gus, my starter](Sourdough%20Starter.md) (Recipes/Country Loaf.md)
  and a relative one, (../Projects/Garden/Garden%20Irrigation.md) (Areas/Community Garden.md).
- Two notes named Ideas.md (Projects/Garden/ and Projects/Tidepool/), linked as [[Ideas]] from
  each folder and as [[Garden/Ideas]] / [[Projects/Tidepool/Ideas#Alerting]] from elsewhere.
- A Templater template (Templates/Daily Template.md) full of `<% ... %>` commands.
"""

from __future__ import annotations

import hashlib
import json
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLE_VAULT, shared_data
from vault_agent.vault.notes import Note, NoteError, expand_tags, parse_note

REAL_VAULTS = (
    "kepano-obsidian",
    "obsidian-developer-docs",
    "obsidian-help-en",
    "obsidian-hub",
    "obsidian-release-notes",
    "obsidian-tasks",
)


def parse(text: str, file: str = "Note.md") -> Note:
    return parse_note(file, text.encode("utf-8"))


def example(file: str) -> Note:
    return parse_note(file, (EXAMPLE_VAULT / file).read_bytes())


def example_notes() -> list[Note]:
    return [
        parse_note(path.relative_to(EXAMPLE_VAULT).as_posix(), path.read_bytes())
        for path in sorted(EXAMPLE_VAULT.rglob("*.md"))
    ]


def targets(note: Note) -> list[str]:
    return [link.target for link in note.links]


# -- the example vault ------------------------------------------------------------------------


def test_example_vault_has_the_documented_features() -> None:
    notes = {note.file: note for note in example_notes()}
    assert len(notes) >= 30
    assert all(note.frontmatter_error is None and not note.warnings for note in notes.values())
    dailies = sorted(note.date for note in notes.values() if note.date)
    assert len(dailies) >= 8
    assert all("2026-10-01" <= day <= "2026-11-30" for day in dailies)
    assert sum(note.title == "Ideas" for note in notes.values()) == 2
    assert not notes["Inbox/Quick Capture.md"].frontmatter
    types = {note.type for note in notes.values()}
    assert {"person", "project", "book", "meeting", "recipe", "daily"} <= types
    assert any(link.embed for note in notes.values() for link in note.links)
    assert any(link.kind == "markdown" for note in notes.values() for link in note.links)


def test_frontmatter_fields_of_a_person_note_are_read() -> None:
    maya = example("People/Maya Okafor.md")
    assert maya.title == "Maya Okafor"
    assert maya.type == "person"
    assert maya.aliases == ["Maya"]
    assert maya.created == "2026-09-14"
    assert maya.frontmatter["role"] == "Senior data engineer"
    assert {"people", "people/work", "project", "project/tidepool", "sourdough"} == set(maya.tags)
    assert maya.date is None


def test_code_block_in_example_vault_yields_no_tag_or_link() -> None:
    architecture = example("Projects/Tidepool/Architecture.md")
    assert "notatag" not in architecture.tags
    assert "not a link" not in targets(architecture)
    assert "#notatag" in architecture.body  # the text itself is kept
    capture = example("Inbox/Quick Capture.md")
    assert set(capture.tags) == {"errands", "garden"}
    assert targets(capture) == ["Maya"]


def test_block_ids_linked_in_the_vault_exist_in_their_targets() -> None:
    notes = {note.title: note for note in example_notes()}
    block_links = [
        link for note in notes.values() for link in note.links if (link.subpath or "")[:1] == "^"
    ]
    assert len(block_links) >= 3
    for link in block_links:
        target = notes[link.target.rsplit("/", 1)[-1]]
        assert f" {link.subpath}" in target.body or f"\n{link.subpath}" in target.body


# -- tags -------------------------------------------------------------------------------------


def test_nested_tags_expand_to_every_prefix() -> None:
    assert expand_tags(["Project/Garden/Water"]) == [
        "project",
        "project/garden",
        "project/garden/water",
    ]
    assert parse("Text #a/b/c here").tags == ["a", "a/b", "a/b/c"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#start and middle #mid.", ["mid", "start"]),
        ("C#sharp and mail#host are not tags", []),
        ("#1984 is a number, #y1984 is a tag", ["y1984"]),
        ("see http://example.com/#anchor and https://x.org/a#b", []),
        ("escaped \\#nope stays text", []),
        ("case #MixedCase and #mixedcase", ["mixedcase"]),
        ("unicode #café-2026 and #日本", ["café-2026", "日本"]),
        ("punctuation #tag, #other! (#paren)", ["other", "tag"]),
        ("**#bold** and _#em_", ["bold", "em"]),
        ("# Heading #inheading", ["inheading"]),
        ("a `code` #after and `code`#glued", ["after"]),
        ("#under_score #dash-ed #slash/ed", ["dash-ed", "slash", "slash/ed", "under_score"]),
    ],
)
def test_inline_tags_follow_obsidian_rules(text: str, expected: list[str]) -> None:
    assert parse(text).tags == expected


def test_code_blocks_never_produce_tags_or_links() -> None:
    note = parse(
        "```\n#fenced [[Fenced]]\n```\n\n"
        "~~~markdown\n#tilde [[Tilde]] ![[Embed]]\n~~~\n\n"
        "    #indented [[Indented]]\n\n"
        "Inline `#code [[Code]]` and ``#double [[Double]]``.\n\n"
        "Math $#m [[Math]]$ and\n\n$$\n#block [[Block]]\n$$\n\n"
        "<div>#html [[Html]]</div>\n\n"
        "- list\n\n      ```\n      #listcode [[ListCode]]\n      ```\n\n"
        "Real #yes [[Yes]]"
    )
    assert note.tags == ["yes"]
    assert targets(note) == ["Yes"]


def test_dollar_amounts_are_not_math() -> None:
    note = parse("It cost $5 and #budget then $10 with [[Receipt]]")
    assert note.tags == ["budget"]
    assert targets(note) == ["Receipt"]


def test_tags_come_from_frontmatter_lists_strings_and_inline_text() -> None:
    note = parse("---\ntags: [Reading, '#book']\ntag: a/b, c d\n---\nBody #inline and #Reading\n")
    assert note.tags == ["a", "a/b", "book", "c", "d", "inline", "reading"]
    assert parse("---\ntags: 2024\n---\n").tags == []  # digits only is not a tag


# -- links ------------------------------------------------------------------------------------


def test_wikilinks_are_split_into_target_subpath_and_display() -> None:
    note = parse(
        "[[Folder/Note]] [[Note#Heading|shown]] [[Note#A#B]] [[Note#^block-1]] "
        "[[#Local heading]] ![[image.png]] ![[Note#Section|300]] [[ spaced | text ]]"
    )
    got = [(link.target, link.subpath, link.display, link.embed) for link in note.links]
    assert got == [
        ("Folder/Note", None, None, False),
        ("Note", "Heading", "shown", False),
        ("Note", "A#B", None, False),
        ("Note", "^block-1", None, False),
        ("", "Local heading", None, False),
        ("image.png", None, None, True),
        ("Note", "Section", "300", True),
        ("spaced", None, "text", False),
    ]
    assert {link.kind for link in note.links} == {"wikilink"}


def test_empty_or_broken_wikilinks_are_not_links() -> None:
    note = parse("[[]] [[ ]] [[|x]] [[unclosed and [[\nsplit]] \\[[escaped]]")
    assert note.links == []


def test_markdown_links_to_local_files_are_links_and_urls_are_not() -> None:
    note = parse(
        "[one](Other%20Note.md) [two](../up/x.md#Some%20Heading) ![alt](pics/a%20b.png) "
        "[three](<With Space.md>) [same](#Heading) [web](https://example.com/a.md) "
        "[mail](mailto:me@example.com) [app](obsidian://open?vault=x) <https://auto.link> "
        "[ref][r]\n\n[r]: Ref.md"
    )
    got = [(link.target, link.subpath, link.display, link.embed) for link in note.links]
    assert got == [
        ("Other Note.md", None, "one", False),
        ("../up/x.md", "Some Heading", "two", False),
        ("pics/a b.png", None, "alt", True),
        ("With Space.md", None, "three", False),
        ("", "Heading", "same", False),
        ("Ref.md", None, "ref", False),
    ]
    assert {link.kind for link in note.links} == {"markdown"}


def test_escaped_pipe_in_table_wikilink_splits_display() -> None:
    note = parse("| Who | Note |\n|---|---|\n| me | [[People/Maya Okafor\\|Maya]] #intable |\n")
    assert [(link.target, link.display) for link in note.links] == [("People/Maya Okafor", "Maya")]
    assert note.tags == ["intable"]


def test_links_are_in_document_order_with_frontmatter_links_first() -> None:
    note = parse(
        '---\nauthor: "[[Writer]]"\nrelated: ["[[A]]", "[[B|bee]]"]\n---\n[[C]] [d](D.md) ![[E]]'
    )
    assert targets(note) == ["Writer", "A", "B", "C", "D.md", "E"]
    assert note.links[2].display == "bee"


def test_callout_content_yields_tags_and_links() -> None:
    note = parse("> [!note]- Folded #callout\n> See [[Inside]] and\n> > nested [[Deeper]]\n")
    assert note.tags == ["callout"]
    assert targets(note) == ["Inside", "Deeper"]


# -- comments and templater -------------------------------------------------------------------


def test_obsidian_comments_hide_tags_links_and_headings() -> None:
    note = parse(
        "Visible #shown %%inline #hidden [[Hidden]]%% after [[After]]\n\n"
        "%%\n# Commented heading\n#alsohidden [[AlsoHidden]]\n%%\n\n"
        "# Real heading\nText #real"
    )
    assert note.tags == ["real", "shown"]
    assert targets(note) == ["After"]
    assert [heading.text for heading in note.headings] == ["Real heading"]
    assert "Commented heading" in note.body  # hidden from links, not deleted from the text


def test_unclosed_comment_hides_the_rest_of_the_note() -> None:
    note = parse("#before [[Before]]\n\n%% started\n\n#after [[After]]\n")
    assert note.tags == ["before"]
    assert targets(note) == ["Before"]


def test_comment_markers_inside_code_are_not_comments() -> None:
    note = parse("```mermaid\ngraph TD\n%% a mermaid comment\nA-->B\n```\n\n#kept [[Kept]] `%%`\n")
    assert note.tags == ["kept"]
    assert targets(note) == ["Kept"]


def test_templater_commands_produce_no_links_or_tags() -> None:
    note = example("Templates/Daily Template.md")
    assert note.frontmatter_error is None
    assert note.tags == ["daily"]
    assert note.links == []
    assert note.date is None  # `date` is a Templater command, not a date
    inline = parse("[[<% tp.file.title %>]] #<%tp.date.now()%> <%* tR += '[[X]] #y' %> #z")
    assert inline.links == []
    assert inline.tags == ["z"]


# -- frontmatter ------------------------------------------------------------------------------


def test_invalid_frontmatter_yaml_is_reported_with_line_and_body_still_parsed() -> None:
    note = parse("---\ntitle: fine\ntags: [a, b\nother: x\n---\n# Heading\nBody #tag [[Link]]\n")
    assert note.frontmatter == {}
    assert note.frontmatter_error is not None
    assert note.frontmatter_error.startswith("frontmatter YAML invalid at line ")
    assert note.tags == ["tag"]
    assert targets(note) == ["Link"]
    assert note.body.startswith("# Heading")
    assert note.headings[0].line == 5


def test_error_line_counts_from_the_opening_dashes() -> None:
    note = parse("---\na: 1\nb: : bad\n---\n")
    assert note.frontmatter_error is not None
    assert "at line 3" in note.frontmatter_error


def test_frontmatter_that_is_not_a_mapping_is_reported() -> None:
    note = parse("---\n- just\n- a list\n---\ntext")
    assert note.frontmatter == {}
    assert note.frontmatter_error is not None
    assert "list" in note.frontmatter_error
    assert note.body == "text"


def test_unclosed_or_late_frontmatter_is_body() -> None:
    unclosed = parse("---\ntags: [x]\nno closing line")
    assert unclosed.frontmatter == {}
    assert unclosed.body.startswith("---")
    late = parse("\n---\ntags: [x]\n---\n")
    assert late.frontmatter == {} and late.tags == []


def test_frontmatter_values_are_json_serialisable() -> None:
    note = parse(
        "---\ncreated: 2026-11-03\nwhen: 2026-11-03 10:22:33\nimpossible: 2026-02-30\n"
        "nested: {d: 2026-01-01, list: [2026-01-02]}\n1: numeric key\nnan: .nan\n---\n"
    )
    json.dumps(note.model_dump())
    assert note.frontmatter["created"] == "2026-11-03"
    assert note.frontmatter["when"] == "2026-11-03T10:22:33"
    assert note.frontmatter["impossible"] == "2026-02-30"
    assert note.frontmatter["nested"] == {"d": "2026-01-01", "list": ["2026-01-02"]}
    assert note.frontmatter["1"] == "numeric key"
    assert note.created == "2026-11-03"


@pytest.mark.parametrize(
    ("yaml", "aliases", "note_type", "created"),
    [
        (
            "aliases: [One, Two]\ntype: [project, extra]\ncreated: 2026-10-01",
            ["One", "Two"],
            "project",
            "2026-10-01",
        ),
        (
            "alias: One, Two\ntype: Book\ndate-created: 2026-10-01 08:30",
            ["One", "Two"],
            "Book",
            "2026-10-01T08:30:00",
        ),
        (
            "Aliases: Solo\nType: '[[Projects]]'\ncreated: 2026-10-01T08:30:00+02:00",
            ["Solo"],
            "Projects",
            "2026-10-01T08:30:00+02:00",
        ),
        ("aliases:\ntype:\ncreated: last Tuesday", [], None, None),
    ],
)
def test_aliases_type_and_created_are_normalised(
    yaml: str, aliases: list[str], note_type: str | None, created: str | None
) -> None:
    note = parse(f"---\n{yaml}\n---\n")
    assert note.frontmatter_error is None
    assert (note.aliases, note.type, note.created) == (aliases, note_type, created)


# -- daily notes ------------------------------------------------------------------------------


def test_daily_date_comes_from_a_date_file_name() -> None:
    assert parse("text", "Daily/2026-11-03.md").date == "2026-11-03"
    assert example("Daily/2026-11-05.md").date == "2026-11-05"  # no frontmatter at all
    assert parse("text", "Daily/2026-02-30.md").date is None
    assert parse("text", "Notes/2026-11-03 meeting.md").date is None


def test_daily_date_falls_back_to_frontmatter_for_daily_notes_only() -> None:
    assert parse("---\ntype: daily\ndate: 2026-11-04\n---\n", "Journal/Wed.md").date == "2026-11-04"
    assert parse("---\ntags: [daily]\ndate: 2026-11-04T07:00\n---\n", "J/x.md").date == "2026-11-04"
    meeting = example("Meetings/2026-11-05 Garden Committee.md")
    assert meeting.frontmatter["date"] == "2026-11-05"
    assert meeting.date is None


# -- structure --------------------------------------------------------------------------------


def test_headings_have_level_text_and_zero_based_file_line() -> None:
    note = parse("---\na: 1\n---\nintro\n# One\n\n## Two ##\ntext\n\nSetext\ntwo lines\n---\n")
    got = [(heading.level, heading.text, heading.line) for heading in note.headings]
    assert got == [(1, "One", 4), (2, "Two", 6), (2, "Setext two lines", 9)]


def test_sections_follow_the_heading_hierarchy() -> None:
    note = parse(
        "Preamble text.\n\n# Setup\nIntro.\n## Linux\nApt.\n### Arch\nPacman.\n"
        "## Mac\n> ## Quoted heading stays inside\nBrew.\n# Usage\n"
    )
    got = [(section.heading_path, section.text, section.level) for section in note.sections]
    assert got == [
        ([], "Preamble text.", 0),
        (["Setup"], "Intro.", 1),
        (["Setup", "Linux"], "Apt.", 2),
        (["Setup", "Linux", "Arch"], "Pacman.", 3),
        (["Setup", "Mac"], "> ## Quoted heading stays inside\nBrew.", 2),
        (["Usage"], "", 1),
    ]


def test_body_excludes_frontmatter_and_hash_covers_raw_bytes() -> None:
    raw = b"---\ntags: [x]\n---\nBody line\n"
    note = parse_note("Folder/My Note.md", raw)
    assert note.body == "Body line\n"
    assert note.title == "My Note"
    assert note.content_hash == hashlib.sha256(raw).hexdigest()


def test_crlf_files_parse_like_lf_files() -> None:
    text = "---\ntags: [x]\n---\n# Head\nBody #t [[L]]\n"
    crlf = parse_note("a.md", text.replace("\n", "\r\n").encode())
    lf = parse_note("a.md", text.encode())
    assert crlf.model_dump(exclude={"content_hash"}) == lf.model_dump(exclude={"content_hash"})


def test_empty_file_is_an_empty_note() -> None:
    note = parse_note("Empty.md", b"")
    assert (note.body, note.links, note.tags, note.sections) == ("", [], [], [])


# -- encodings and binary files ---------------------------------------------------------------


def test_binary_content_raises_note_error_with_a_reason() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    with pytest.raises(NoteError, match="NUL"):
        parse_note("image.md", png)
    with pytest.raises(NoteError, match="control characters"):
        parse_note("blob.md", bytes(range(1, 32)) * 20)
    # Random bytes with no NUL among them (a compressed or encrypted file): not UTF-8, and
    # decoded as latin-1 a fifth of them are controls, where legacy text has next to none.
    rng = random.Random(7)
    noise = bytes(rng.randrange(1, 256) for _ in range(100_000))
    with pytest.raises(NoteError, match="control characters"):
        parse_note("noise.md", noise)


def test_non_utf8_text_is_decoded_with_a_warning() -> None:
    note = parse_note("old.md", "Café notes #crème – “quoted”".encode("cp1252"))
    assert note.body == "Café notes #crème – “quoted”"
    assert note.tags == ["crème"]
    assert note.warnings == ["not UTF-8: decoded as cp1252"]
    latin = parse_note("odd.md", b"caf\xe9 \x81")  # 0x81 is undefined in cp1252
    assert latin.warnings == ["not UTF-8: decoded as latin-1"]


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        # A byte of another encoding at the end: read as cp1252, these were "binary".
        ("# Полив\nМы решили поливать сад капельным способом.\n".encode() + b"\xff", "Полив"),
        ("日本語のテキストです".encode()[:-1], "日本語のテキスト"),  # cut inside its last character
        # One latin-1 byte pasted into UTF-8: the rest is not garbled into "Ãœberblick".
        ("# Überblick\nBewässerung".encode() + " café".encode("latin-1"), "Überblick\nBewässerung"),
    ],
)
def test_utf8_with_a_few_invalid_bytes_is_read_as_utf8(raw: bytes, kept: str) -> None:
    note = parse_note("damaged.md", raw)
    assert kept in note.body
    assert note.warnings == ["not valid UTF-8: 1 invalid byte sequence(s) replaced by \ufffd"]


def test_byte_order_marks_are_honoured() -> None:
    text = "---\ntags: [bom]\n---\n# Title\n"
    utf8 = parse_note("a.md", b"\xef\xbb\xbf" + text.encode())
    assert (utf8.tags, utf8.warnings) == (["bom"], [])
    utf16 = parse_note("b.md", text.encode("utf-16"))
    assert utf16.tags == ["bom"]
    assert utf16.warnings == ["not UTF-8: decoded as UTF-16"]
    # UTF-32's little-endian mark begins with UTF-16's: read as UTF-16, every other
    # character was a NUL.
    utf32 = parse_note("c.md", text.encode("utf-32"))
    assert (utf32.tags, utf32.warnings) == (["bom"], ["not UTF-8: decoded as UTF-32"])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_any_bytes_parse_or_raise_note_error(raw: bytes) -> None:
    try:
        note = parse_note("Fuzz.md", raw)
    except NoteError as exc:
        assert str(exc)
    else:
        json.dumps(note.model_dump())


_PRINTABLE = st.characters(blacklist_categories=("Cc", "Cs"))
_MARKDOWN_BITS = st.sampled_from(
    ["---\n", "tags: [a]\n", "# H\n", "## H2\n", "```\n", "%%", "<%", "%>", "[[X", "]]", "|", "#t ",
     "$", "`", "> [!note]\n", "\n\n", "    code\n", "[l](", ")", "![[E]]", "\\", "^id", "- "]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_MARKDOWN_BITS | st.text(_PRINTABLE, max_size=5), max_size=40).map("".join))
def test_markdown_soup_always_parses(text: str) -> None:
    note = parse(text)
    json.dumps(note.model_dump())
    assert all(tag == tag.lower() and not tag.startswith("#") for tag in note.tags)


# -- the real vaults --------------------------------------------------------------------------


_PARSE_SECONDS: dict[str, float] = {}


@pytest.mark.parametrize("vault", REAL_VAULTS)
def test_every_file_of_a_real_vault_parses_or_gives_a_reason(vault: str) -> None:
    root = shared_data("vaults", vault)
    paths = sorted(path for path in root.rglob("*.md") if path.is_file())
    assert paths
    started = time.perf_counter()
    parsed = 0
    for path in paths:
        try:
            note = parse_note(path.relative_to(root).as_posix(), path.read_bytes())
        except NoteError as exc:
            assert str(exc), path
            continue
        parsed += 1
        assert note.title == path.stem
        assert all(link.target or link.subpath for link in note.links)
        assert note.tags == sorted(set(note.tags))
    _PARSE_SECONDS[vault] = time.perf_counter() - started
    assert parsed == len(paths)  # these vaults hold no binary .md files


def test_obsidian_hub_parses_in_seconds_not_minutes() -> None:
    root = shared_data("vaults", "obsidian-hub")
    seconds = _PARSE_SECONDS.get("obsidian-hub")
    if seconds is None:  # run alone: time it here
        raws = [(p.relative_to(root).as_posix(), p.read_bytes()) for p in root.rglob("*.md")]
        started = time.perf_counter()
        for file, raw in raws:
            parse_note(file, raw)
        seconds = time.perf_counter() - started
    # About 8 s for 6,571 notes on two busy cores; a quadratic slip would take minutes.
    assert seconds < 60


def test_template_with_unquoted_placeholders_reports_yaml_error_not_crash() -> None:
    root = shared_data("vaults", "kepano-obsidian")
    path = root / "Templates" / "Show Template.md"
    note = parse_note("Templates/Show Template.md", path.read_bytes())
    assert note.frontmatter_error == "frontmatter YAML invalid at line 8: found unhashable key"
    assert note.frontmatter == {}
    assert note.body == ""
    assert note.links == []  # the `[[Shows]]` property is lost with the invalid block


def test_real_vault_wikilinks_with_headings_and_embeds_are_found() -> None:
    root = shared_data("vaults", "obsidian-help-en")
    notes = [
        parse_note(path.relative_to(root).as_posix(), path.read_bytes())
        for path in root.rglob("*.md")
    ]
    links = [link for note in notes for link in note.links]
    assert sum(link.embed for link in links) > 50
    assert sum(link.subpath is not None for link in links) > 100
    assert all("\n" not in link.target and "]]" not in link.target for link in links)


def test_a_line_of_backtick_runs_after_a_comment_parses_in_linear_time() -> None:
    """Found by the complexity audit: with a comment in the note, each run of backticks
    sought the run that closes it to the line's end, runs of distinct lengths each a new
    pattern: a 1.3 MB line took 12 s to parse."""
    line = "%%c%% " + "".join("`" * k + "a" for k in range(1_600, 0, -1))
    started = time.thread_time()
    note = parse_note("Runs.md", line.encode())
    assert time.thread_time() - started < 2.0
    assert note.body.startswith("%%c%% ``")
