"""The quotable units of a chunk: sentences, list items and table rows, each under its heading.

An answer quotes units, never half a thought: a list item or a table row whole, prose sentence
by sentence (`.`, `!`, `?`, Hindi's danda `।`, Arabic's and Urdu's `؟` `۔`, and the CJK forms
`。！？` end one). Headings merged into a chunk's body (`## Details`, see `vault/chunker.py`)
start a new heading, so each unit cites the section it really sits under. Links read as their
text: a quote's links are the note's, not citations; inline HTML reads as its text (`<code>` as
code), comments are nobody's words, and a table row is its non-empty cells. A sentence that
introduces what follows it ("use the addRibbonIcon() method:") keeps the code block or the
first list items after it: quoted alone, it would stop where the answer starts. A short line
with no end punctuation right over a list ("Making and blind-baking the crust") is that list's
label: a heading in all but markup, read with each item and never an answer itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import zip_longest

from markdown_it.common.html_re import HTML_TAG_RE

from vault_agent.vault.chunker import (
    HEADING_SEPARATOR,
    SPACED_FULL_STOPS,
    WIDE_FULL_STOPS,
    wide_chars,
)
from vault_agent.vault.markdown import (
    MARKDOWN_LINK,
    WIKILINK,
    atx_heading,
    code_spans,
    cuts_outside_links,
    parse_wikilink,
)
from vault_agent.vault.tasks import CLOSED_MARKS

#: Where one sentence ends and the next begins.
SENTENCE_END = re.compile(rf"(?<=[{SPACED_FULL_STOPS}])\s+(?=\S)|(?<=[{WIDE_FULL_STOPS}])\s*(?=\S)")
_LIST_MARK = re.compile(r"^(?:[-*+]|\d+[.)])\s+(?:\[(.)\]\s+)?")
_TABLE_RULE = re.compile(r"^\|?[\s:|-]+\|?$")
# Links, separated by nothing but punctuation: a list of where to read on, or the trail of
# pages above this one ("[`Plugin`](Plugin) › [`addIcon`](Plugin/addIcon)").
_LINKS_ONLY = re.compile(
    r"(?:[\s,;|·/>›»→-]*(?:!?\[\[[^\]\n]*\]\]|!?\[[^\]\n]*\]\([^)\n]*\)))+[\s,;|·.-]*"
)
#: A block's id ("... Sydney ^geo-regions"), or a line holding only one (Obsidian reads it
#: as the id of the block above).
_BLOCK_ID = re.compile(r"(?:^|\s)\^[\w-]+\s*$")
#: A space left before a full stop or a comma by what reading took out ("with the Command
#: palette ![icon](icon.svg)." reads "...palette ."). Not before ":;!?", which French spaces.
_SPACE_BEFORE_STOP = re.compile(r"(?<=\S)\s+([.,])(?=\s|$)")
#: The word a sentence's cut is followed by (its letters).
_WORD_AFTER = re.compile(r"[^\W\d_]+")
#: A footnote's reference ("footnotes[^1]") and the label opening its text ("[^1]: ...").
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]+\]")
_FOOTNOTE_LABEL = re.compile(r"^\[\^[^\]\s]+\]:\s*")
_COMMENT = re.compile(r"%%.*?%%|<!--.*?-->", re.DOTALL)
#: Inline HTML notes use: code reads as code, a line break as a space, the rest as its text
#: (any tag CommonMark reads as HTML goes: a `<video>` shows no words, nor does a `<number>`
#: written outside code, which Obsidian's reading view hides as an unknown element).
#: Its text stops at another opening tag: "<code>" repeated was read to the line's end from
#: each (quadratic).
_HTML_CODE = re.compile(r"<(code|kbd)>((?:(?!<(?:code|kbd)>).)*?)</\1>", re.IGNORECASE)
_HTML_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_CALLOUT = re.compile(r"^\[![\w-]+\][+-]?\s*")
_TABLE_CELL = re.compile(r"(?<!\\)\|")
#: What a sentence ending in ":" keeps of the block after it.
SHOWN_LINES = 12
SHOWN_ITEMS = 5
_TAGS_ONLY = re.compile(r"#[\w/-]+")
_RULE = re.compile(r"^(?:-{3,}|\*{3,}|_{3,})$")
_FENCE = re.compile(r"^\s*(```|~~~)")
#: A label is one line of at most this many words (or CJK characters), ending in none of these.
LABEL_WORDS = 12
LABEL_WIDE_CHARS = 24
_LABEL_ENDS = (".", "!", "?", ":", ";", ",", "…", "。", "！", "？", "：", "；")

#: A unit says something: one of fewer words (or CJK characters) only supports an answer.
ANSWER_WORDS = 4
ANSWER_WIDE_CHARS = 8


@dataclass(frozen=True)
class Unit:
    """One quotable piece of a chunk."""

    text: str
    heading: str
    """The heading path it sits under ("" before the note's first heading)."""
    position: int
    """Its place in the chunk, from 0."""
    navigation: bool = False
    """A list item or row of nothing but links: it points elsewhere and answers nothing."""
    shows: str = ""
    """For a unit ending in ":", the code block or list items it introduces (markdown)."""
    fact: bool = False
    """One of the note's properties (``last: 2023-09-14``): short, yet it says something."""
    label: bool = False
    """A short line with no end punctuation over a list ("Making the crust"): a heading in
    all but markup. It names what follows and answers nothing itself."""
    under: str = ""
    """For a list item or table row, the label over its list: read with it, "Use a fork to
    poke holes" is about blind-baking the crust."""
    checkbox: str = ""
    """A task's mark ("- [ ] call Dan": " "; "- [x]": "x"); "" for anything else."""
    step: int = 0
    """For an item of a numbered list, its place in the list (1, 2...); 0 for anything else."""
    row: bool = False
    """A table row: its "?" is a column's name ("Works?: ✅"), never a question it asks."""

    @property
    def open_task(self) -> bool:
        """A checkbox not ticked off (nor cancelled): something still to do."""
        return bool(self.checkbox) and self.checkbox not in CLOSED_MARKS

    @property
    def closed_task(self) -> bool:
        """A checkbox ticked off or cancelled."""
        return self.checkbox in CLOSED_MARKS


def property_units(lines: list[str]) -> list[Unit]:
    """A note's properties (``key: value`` lines, `vault/properties.py`) as units: they sit
    above the note's first heading. A key with no value (a template's field) says nothing."""
    return [
        Unit(line, "", position, fact=True)
        for position, line in enumerate(lines)
        if not line.endswith(":")
    ]


def split_units(body: str, heading: str, table_header: str = "") -> list[Unit]:
    """`body` (a chunk under `heading`) as quotable units, in order. `table_header`: the
    header row and rule of the table the body opens inside of (a chunk cut from a long
    table), whose columns name the cells of its first rows."""
    text = _COMMENT.sub(" ", body)
    path = heading.split(HEADING_SEPARATOR) if heading else []
    units: list[Unit] = []
    paragraph: list[str] = []
    code: list[str] = []
    in_code = in_item = False
    # The unit ending in ":" that the next block belongs to, while nothing else came between.
    intro: int | None = None
    # The one-line paragraph that labels a list if one comes next, and the label of the
    # list being read.
    may_label: int | None = None
    label = ""
    table: _Table | None = None  # the table being read
    if table_header and body.lstrip().startswith("|"):
        columns = table_cells(table_header.split("\n", 1)[0])
        table = _Table(columns, first_unit=0, columns=columns, rows=2)

    def add(
        piece: str,
        navigation: bool = False,
        under: str = "",
        checkbox: str = "",
        numbered: bool = False,
        row: bool = False,
    ) -> None:
        nonlocal intro
        piece = " ".join(_as_read(piece).split())
        piece = _outside_code(_SPACE_BEFORE_STOP, lambda m: m.group(1), piece)
        if piece and _TAGS_ONLY.sub("", piece).strip(" .,;:|-"):
            heading = HEADING_SEPARATOR.join(path)
            # A numbered item goes on the list of the one right before it, under one heading.
            step = 0
            if numbered:
                before = units[-1] if units else None
                going_on = before is not None and before.step and before.heading == heading
                step = before.step + 1 if going_on and before is not None else 1
            unit = Unit(
                piece,
                heading,
                len(units),
                navigation,
                under=under,
                checkbox=checkbox,
                step=step,
                row=row,
            )
            units.append(unit)
            intro = len(units) - 1 if piece.endswith(":") else None

    def flush() -> None:
        nonlocal may_label, label
        if not paragraph:
            return
        count = len(units)
        for sentence in sentences(" ".join(paragraph)):
            add(sentence, navigation=_only_links(sentence))
        one_line = len(paragraph) == 1 and len(units) == count + 1
        text = units[-1].text if one_line else ""
        may_label, label = (count if one_line and _reads_as_label(text) else None), ""
        paragraph.clear()

    def labelled() -> str:
        """The label over the list item or row being read, taking a waiting one up."""
        nonlocal may_label, label
        if may_label is not None:
            units[may_label] = replace(units[may_label], label=True)
            label, may_label = units[may_label].text, None
        return label

    def show(block: str) -> None:
        """Keep `block` with the unit introducing it."""
        if intro is not None and "[[" not in block:
            before = units[intro].shows
            units[intro] = replace(units[intro], shows=f"{before}\n{block}" if before else block)

    for raw in text.splitlines():
        if _FENCE.match(raw):
            flush()
            may_label = None
            code.append(raw.rstrip())
            if in_code:
                if len(code) <= SHOWN_LINES + 2:
                    show("\n".join(code))
                code.clear()
                intro = None
            in_code = not in_code
            continue
        if in_code:
            code.append(raw.rstrip())
            continue
        line = _FOOTNOTE_LABEL.sub("", _BLOCK_ID.sub("", raw).strip())
        if not line.startswith("|"):
            table = None  # a table ends at the first line that is not one of its rows
        heading_line = atx_heading(line)
        item = _LIST_MARK.match(line)
        if in_item and line and raw[:1].isspace() and not item and units:
            last = units[-1]  # a list item wrapped onto the next line
            units[-1] = replace(last, text=f"{last.text} {_as_read(line)}")
            continue
        in_item = False
        if heading_line:
            flush()
            intro, may_label, label = None, None, ""
            path = _descend(path, *heading_line)
        elif not line or _RULE.match(line):
            flush()
            if line:  # a rule ends what a label was over
                may_label, label = None, ""
        elif item:
            flush()
            content = line[item.end() :]
            opened = intro
            navigation = _only_links(content)
            numbered = line[:1].isdigit()
            add(content, navigation, labelled(), checkbox=item.group(1) or "", numbered=numbered)
            in_item = True
            if opened is not None and opened != len(units) - 1:
                intro = opened  # the items after it are what it introduces
                if len(units[opened].shows.splitlines()) < SHOWN_ITEMS:
                    show(f"- {units[-1].text}")
        elif line.startswith("|"):
            flush()
            intro = None
            cells = table_cells(line)
            if table is None:  # a table's first row: its columns' names if a rule follows
                table = _Table(cells, first_unit=len(units))
                if not _TABLE_RULE.match(line):
                    _add_row(add, cells, None, labelled())
            elif _TABLE_RULE.match(line):
                if table.rows == 1:
                    # The row above the rule names the columns: read with each row below
                    # it, it is a label itself ("| | Sync Standard | Sync Plus |").
                    table = replace(table, columns=table.header_row)
                    if table.first_unit < len(units):
                        units[table.first_unit] = replace(units[table.first_unit], label=True)
            else:
                _add_row(add, cells, table.columns, labelled())
            table = replace(table, rows=table.rows + 1)
        else:
            quoted = line.lstrip("> ").strip()
            callout = _CALLOUT.match(quoted)
            if callout:  # "> [!tip] Title": the marker is markup, the title a label of its own
                flush()
                may_label, label = None, ""
                count = len(units)
                add(quoted[callout.end() :])
                if len(units) > count and _reads_as_label(units[-1].text):
                    # "Hinweis", "Note", "Before you start": names the box, answers nothing
                    units[-1] = replace(units[-1], label=True)
                continue
            paragraph.append(quoted)
    flush()
    return units


@dataclass(frozen=True)
class _Table:
    """A table being read: its first row (the unit made of it, `first_unit`), its columns'
    names once a rule right under that row confirms them, and how many lines it has so far."""

    header_row: list[str]
    first_unit: int
    columns: list[str] | None = None
    rows: int = 0


def table_cells(row: str) -> list[str]:
    """A table row's cells in place, empty ones kept ("| | a |" is "", "a"); "\\|" is text."""
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return [cell.strip() for cell in _TABLE_CELL.split(inner)]


def _add_row(
    add: Callable[..., None], cells: list[str], columns: list[str] | None, under: str
) -> None:
    """Add a table row as one unit: its cells, each after its column's name when the table
    names its columns: "Maximum file size — Sync Standard: 5 MB; Sync Plus: 200 MB", where
    the row alone ("Maximum file size | 5 MB | 200 MB") would not say which value is whose."""
    plain = " | ".join(cell for cell in cells if cell)
    navigation = _only_links(plain)
    if not columns or not any(columns):
        add(plain, navigation=navigation, under=under, row=True)
        return
    named = [
        f"{column}: {cell}" if column and column != cell else cell
        for column, cell in zip_longest(columns[1:], cells[1:], fillvalue="")
        if cell
    ]
    # The first cell names the row ("Maximum file size", "`--file-line-width`"): it leads.
    content = "; ".join(named)
    if cells[0]:
        content = f"{cells[0]} — {content}" if content else cells[0]
    add(content, navigation=navigation, under=under, row=True)


def _reads_as_label(text: str) -> bool:
    """A line short enough, and ending in no punctuation, to name what follows it."""
    short = len(text.split()) <= LABEL_WORDS and wide_chars(text) <= LABEL_WIDE_CHARS
    return bool(text) and short and not text.endswith(_LABEL_ENDS)


def _only_links(text: str) -> bool:
    """True when `text` holds links and nothing else, inline HTML aside: an icon before a
    link (`<span class="icon-notion"></span> [[Notion]]`) says nothing either."""
    return bool(_LINKS_ONLY.fullmatch(HTML_TAG_RE.sub("", text).strip()))


def sentences(text: str) -> list[str]:
    """`text` cut at its sentences' ends, never inside a link or code: a heading linked to
    ("[[FAQ#Can I use both？]]", "[[FAQ#Is it free? Yes|...]]") or a command in code ends no
    sentence of the note's."""
    pieces: list[str] = []
    start = 0
    for end in cuts_outside_links(SENTENCE_END, text):
        # A full stop before a word all in lower case ends an abbreviation, not a sentence:
        # "decrypt your data, e.g. in a case where..." ("iOS" and "macOS" may open one).
        word = _WORD_AFTER.match(text, end.end())
        if word and word.group().islower() and text[end.start() - 1] in SPACED_FULL_STOPS:
            continue
        if end.start() > start:
            pieces.append(text[start : end.start()])
            start = end.end()
    pieces.append(text[start:])
    return pieces


def _as_read(text: str) -> str:
    """`text` with its links as their words (a quote's links are the note's, not citations)
    and its inline HTML as its text; code shows what it holds as written ("not processed
    inside `<div>`", "type `[[` to link")."""
    text = _outside_code(WIKILINK, _link_text, text)
    text = _outside_code(_FOOTNOTE_REF, lambda m: "", text)
    text = _outside_code(MARKDOWN_LINK, lambda m: "" if m.group("image") else m.group("text"), text)
    text = _outside_code(_HTML_CODE, lambda m: f"`{m.group(2)}`", text)
    text = _outside_code(_HTML_BREAK, lambda m: " ", text)
    return _outside_code(HTML_TAG_RE, lambda m: "", text)


def _outside_code(pattern: re.Pattern[str], read: Callable[[re.Match[str]], str], text: str) -> str:
    """`text` with each match of `pattern` that starts outside its code spans replaced."""
    spans = code_spans(text) if "`" in text else []

    def replace_outside(match: re.Match[str]) -> str:
        if any(start <= match.start() < end for start, end in spans):
            return match.group(0)
        return read(match)

    return pattern.sub(replace_outside, text)


def _link_text(link: re.Match[str]) -> str:
    """A link as the words a reader sees; an embed shows another note's text: none of this."""
    if link.group("embed"):
        return ""
    parsed = parse_wikilink(link.group("inner"), embed=False)
    return parsed.shown if parsed is not None else ""


def _descend(path: list[str], level: int, text: str) -> list[str]:
    """The heading path after a heading line of `level`: headings merged into a chunk are
    deeper than or level with the chunk's own, so they replace its tail from that depth."""
    keep = max(0, min(len(path), level - 1))
    return [*path[:keep], text]


def says_something(unit: Unit) -> bool:
    """A sentence or a property, not a label: enough words, or enough CJK characters."""
    if unit.fact:
        return True
    if unit.label:
        return False
    text = unit.text
    return len(text.split()) >= ANSWER_WORDS or wide_chars(text) >= ANSWER_WIDE_CHARS
