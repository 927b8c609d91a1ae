"""Cut a parsed note into chunks for embedding: one per heading section, sized to the encoder.

Owns the sizing rules. What a chunk embeds is its note's folder (the innermost one), title,
heading path and the reading text of its body (`reading_text.py`: the words a reader sees,
without comments, URLs or tags); sizes count exactly that, with `ChunkSizes.measure`: the
embedder's own tokenizer when the index chunks (MiniLM reads at most 256 word-pieces;
anything past them would never be embedded), characters in some tests. So every chunk's
embedded text fits whole.

The note's properties (`properties.py`: ``last: 2023-09-14``) are embedded after the title in
the first section's chunks, up to a quarter of the chunk, and kept with chunk 0 to be quoted.

Small sections are merged into a neighbour (their heading kept as a markdown heading line in
the body, so nothing is lost); long ones are split at paragraph, then line, then sentence,
then word boundaries into windows, each embedded with the tail of the window before it as
context (`overlap`). The stored body is markdown and has no overlap, so a note rebuilt from
its chunks is the note. Text is never dropped, only whitespace between pieces. Every note
yields at least one chunk, so a note with no body is still found by title.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import PurePosixPath

from pydantic import BaseModel

from vault_agent.vault.markdown import cuts_outside_links
from vault_agent.vault.notes import Note, Section
from vault_agent.vault.properties import property_lines
from vault_agent.vault.reading_text import reading_text

HEADING_SEPARATOR = " > "
#: Bump when what a chunk embeds or records changes: stored chunks record it, and another one
#: is redone.
#: 7: Hindi's, Arabic's and Urdu's sentence ends split a long paragraph as a full stop does.
#: 8: a chunk records how many of its tasks are still open (`open_tasks`, to filter on).
#: 9: a long line is no longer cut inside "1.9.4" or "main.js" (a full stop not followed by
#: a space ends no sentence).
#: 10: a window opening inside a table embeds that table's header, and records it.
#: (Not counted: no sentence or word cut falls inside a link or a code span, "[[FAQ#Can I
#: use both？]]". Of the 11,483 chunks of eight shared vaults at MiniLM's sizes none changed
#: (2 of 10,644 at the default sizes): not worth re-indexing every vault for; a note is cut
#: the new way when it next changes.)
CHUNKS_VERSION = 10
#: Markdown longer than this many characters per unit of the chunk size (more than any script
#: averages per token) is split without measuring it whole.
_TOO_LONG_FACTOR = 16
_TOO_LONG = 1 << 40
#: What ends a sentence in scripts written with spaces (Latin's, Hindi's danda, Arabic's and
#: Urdu's) and in CJK (no space after): chunks and the answer's quotes split at them.
SPACED_FULL_STOPS = ".!?।॥؟۔"
#: A table's rule, under its header row: "| --- | :-: |". Written so that one way matches a
#: line: with a quantifier on each side of its first "-", a long rule of a line that is no
#: rule ("|a" over "-----...x") was tried at every split (quadratic).
_TABLE_RULE = re.compile(r"^[\s:|]*-[\s:|-]*$")
WIDE_FULL_STOPS = "。！？"
#: A sentence's last mark, and the quotes or brackets that may close after it.
_END = f"[{SPACED_FULL_STOPS}…{WIDE_FULL_STOPS}]"
_CLOSERS = "[\"')\\]」』）]*"
# Boundaries to split at, coarsest first; each keeps its separator with the piece before it.
_BOUNDARIES = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraphs
    re.compile(r"\n"),  # lines (lists, tables, code)
    # sentences: a spaced script's full stop ends one only before a space ("1.9.4", "main.js"
    # and "e.g." go on); CJK's needs none
    re.compile(rf"(?<=[{SPACED_FULL_STOPS}…]){_CLOSERS}\s+|(?<=[{WIDE_FULL_STOPS}]){_CLOSERS}\s*"),
    re.compile(r"\s+"),  # words
)


#: The end of a finished sentence (a paragraph that is no lead-in).
_SENTENCE_DONE = re.compile(rf"{_END}{_CLOSERS}\s*$")


def wide_chars(text: str) -> int:
    """How many of `text`'s characters are CJK (or later in Unicode): scripts written without
    spaces, where a character says about as much as a word."""
    return sum(1 for char in text if char >= "\u2e80")


def approximate_tokens(text: str) -> int:
    """A stand-in for a word-piece count where no tokenizer is at hand: about four characters
    a token for alphabetic scripts, one a token for CJK, plus the two special tokens."""
    wide = wide_chars(text)
    return 2 + math.ceil((len(text) - wide) / 4) + wide


@dataclass(frozen=True)
class ChunkSizes:
    """How big chunks may be, in the units `measure` counts (tokens, or characters)."""

    max_size: int = 256
    """Of the whole embedded text (title, heading path and body)."""
    min_size: int = 64
    """Smaller sections are merged with a neighbour."""
    overlap: int = 32
    """How much of the window before a split window is embedded with it, as context."""
    measure: Callable[[str], int] = field(default=approximate_tokens)


class Chunk(BaseModel):
    """One unit of retrieval: a heading section (or part of one, or several small ones)."""

    chunk_index: int
    heading: str  # "Setup > Linux"; "" before the first heading
    body: str
    embed_text: str  # folder + title + heading path (+ the window before) + the body's text
    page: int | None = None  # PDFs: the page the chunk is on
    table_header: str = ""  # a body opening inside a table: that table's header row and rule
    properties: list[str] = []  # chunk 0: the note's properties as "key: value" lines


def chunk_note(note: Note, sizes: ChunkSizes | None = None) -> list[Chunk]:
    """Chunks of `note`, indexed 0..n-1, each one's embedded text within `sizes.max_size`.

    A section smaller than `min_size` is merged with the following section when the two fit,
    else with the previous one; the merged chunk keeps the first section's heading and carries
    the later headings as `## Heading` lines in its body.

    Sections that carry a page (PDFs) are never merged: a citation must name one page.
    """
    reader = _Reader(sizes or ChunkSizes())
    if note.sections and all(section.page is not None for section in note.sections):
        groups = [_Group.of(section, reader) for section in note.sections]
    else:
        groups = _merge_small(note, reader)
    facts = _fitted_facts(property_lines(note.frontmatter), reader)
    # The folder a note sits in says what it is about where its name alone doesn't: "v1.4.2"
    # in "Mobile" is the mobile app's release. Only the innermost one: outer folders are
    # filing ("02 - Community Expansions"), and keyword search reads them all anyway.
    named = [folder, note.title] if (folder := innermost_folder(note.file)) else [note.title]
    chunks: list[Chunk] = []
    for group in groups:
        # The note's properties follow its title, before the heading path.
        title = "\n".join([*named, *facts]) if group is groups[0] else "\n".join(named)
        head = _fitted_head(_head(title, group.heading), reader)
        # An empty section still gets its chunk: the heading alone is worth finding.
        for window in _windows(head, group, reader) or [_Window("", "", "")]:
            context, reading = window.context, window.reading
            text = f"{context}\n{reading}" if context else reading
            chunks.append(
                Chunk(
                    chunk_index=len(chunks),
                    heading=group.heading,
                    body=window.body,
                    embed_text=f"{head}\n\n{text}" if text else head,
                    page=group.page,
                    table_header=window.table_header,
                )
            )
    if not chunks:
        text = "\n".join([*named, *facts])
        chunks.append(Chunk(chunk_index=0, heading="", body="", embed_text=text))
    chunks[0].properties = facts
    return chunks


def innermost_folder(file: str) -> str:
    """The name of the folder `file` sits in ("" at the vault's root, or for a document
    fetched from a URL)."""
    return "" if "://" in file else PurePosixPath(file).parent.name


def split_text(text: str, max_size: int, measure: Callable[[str], int] = len) -> list[str]:
    """`text` cut into stripped pieces each measuring at most `max_size`, at the coarsest
    boundary that works; a single word too big on its own is the only thing cut mid-word."""
    text = text.strip()
    if not text:
        return []
    return _split(text, max_size, 0, measure)


@dataclass(frozen=True)
class _Part:
    """A piece of markdown, its reading text and that text's size."""

    markdown: str
    reading: str
    size: int


class _Reader:
    """Reading texts and their sizes, each worked out once per note (parsing and tokenizing
    are what chunking costs)."""

    def __init__(self, sizes: ChunkSizes) -> None:
        self.sizes = sizes
        self._parts: dict[str, _Part] = {}
        self._counts: dict[str, int] = {}
        # What `measure` adds to any text (a tokenizer's special tokens), and what a line break
        # between two texts adds to the sum of their sizes (a character; no token).
        self.overhead = sizes.measure("")
        self.line_break = sizes.measure("\n") - self.overhead

    def joined(self, *sizes: int) -> int:
        """The size of texts joined by line breaks, from their sizes."""
        parts = [size for size in sizes if size]
        return self.joined_sum(sum(parts), len(parts))

    def joined_sum(self, total: int, count: int) -> int:
        """The size of `count` texts (none of size 0) measuring `total` together, joined."""
        if not count:
            return 0
        return total + (self.line_break - self.overhead) * (count - 1)

    def measure(self, text: str) -> int:
        """`sizes.measure(text)`, once per text."""
        count = self._counts.get(text)
        if count is None:
            count = self._counts[text] = self.sizes.measure(text)
        return count

    def part(self, markdown: str) -> _Part:
        found = self._parts.get(markdown)
        if found is None and len(markdown) > _TOO_LONG_FACTOR * self.sizes.max_size:
            # Far too long for one chunk whatever its reading text: it is split anyway, and
            # reading it whole first would parse it twice.
            found = self._parts[markdown] = _Part(markdown, "", _TOO_LONG)
        if found is None:
            reading = reading_text(markdown) if markdown.strip() else ""
            size = self.measure(reading) if reading else 0
            found = self._parts[markdown] = _Part(markdown, reading, size)
        return found

    def size(self, markdown: str) -> int:
        """The size of `markdown`'s reading text."""
        return self.part(markdown).size


@dataclass
class _Group:
    heading: str
    level: int  # of the first section's heading; 0 before any heading
    parts: list[_Part] = field(default_factory=list)
    page: int | None = None
    # The sizes of `parts[:_summed]` that count (not 0), and their sum: parts are only ever
    # added, and a group that reads as nothing (empty headings) takes a whole note's
    # sections, so summing them all on every merge would be quadratic.
    _summed: int = 0
    _counted: int = 0
    _total: int = 0

    @classmethod
    def of(cls, section: Section, reader: _Reader) -> _Group:
        heading = HEADING_SEPARATOR.join(section.heading_path)
        return cls(heading, section.level, [reader.part(section.text)], section.page)

    def size(self, reader: _Reader) -> int:
        """The size of the parts' reading texts joined (parts joined by line breaks tokenize
        apart, so sizes add up)."""
        for part in self.parts[self._summed :]:
            if part.size:
                self._counted += 1
                self._total += part.size
        self._summed = len(self.parts)
        return reader.joined_sum(self._total, self._counted)

    def marker(self) -> str:
        """The first section's heading as a markdown line, for when it is merged into another."""
        if not self.heading:
            return ""
        return "#" * max(1, self.level) + " " + self.heading.split(HEADING_SEPARATOR)[-1]

    def body(self) -> str:
        return "\n\n".join(part.markdown for part in self.parts if part.markdown)

    def reading(self) -> str:
        return "\n".join(part.reading for part in self.parts if part.reading)

    def merged_into_another(self, reader: _Reader) -> list[_Part]:
        """This group's parts as they read once merged: its heading becomes a line of text."""
        marker = self.marker()
        return [reader.part(marker), *self.parts] if marker else list(self.parts)


def _merge_small(note: Note, reader: _Reader) -> list[_Group]:
    groups: list[_Group] = []
    current: _Group | None = None
    for section in note.sections:
        group = _Group.of(section, reader)
        if current is None:
            current = group
            continue
        if current.size(reader) < reader.sizes.min_size and _fits(
            note.title, current, group, reader
        ):
            current.parts += group.merged_into_another(reader)
            continue
        _close(note.title, current, groups, reader)
        current = group
    if current is not None:
        _close(note.title, current, groups, reader)
    return groups


def _close(title: str, group: _Group, groups: list[_Group], reader: _Reader) -> None:
    """Add a finished group; a still-small one joins the previous group if that fits."""
    previous = groups[-1] if groups else None
    small = group.size(reader) < reader.sizes.min_size
    if previous is not None and small and _fits(title, previous, group, reader):
        previous.parts += group.merged_into_another(reader)
        return
    groups.append(group)


def _fits(title: str, group: _Group, addition: _Group, reader: _Reader) -> bool:
    """True when `group` and `addition` fit in one chunk together."""
    head = reader.measure(_head(title, group.heading) + "\n")
    merged = reader.joined(
        group.size(reader), reader.size(addition.marker()), addition.size(reader)
    )
    return reader.joined(head, merged) <= reader.sizes.max_size


@dataclass(frozen=True)
class _Window:
    """One chunk's body, its reading text, the context embedded before it, and the header of
    the table it opens inside of ("" for none)."""

    body: str
    reading: str
    context: str
    table_header: str = ""


def _windows(head: str, group: _Group, reader: _Reader) -> list[_Window]:
    """The chunks of `group`: the whole group when it fits, else windows that leave room for
    `overlap` of the window before. A window opening inside a table has that table's header
    as its context instead (when it fits there): its rows alone don't say what their cells
    are ("| 5 MB | 200 MB |" of which plans?)."""
    body = group.body().strip()
    if not body:
        return []
    sizes = reader.sizes
    # The body's own size may take what the head and the blank line after it leave.
    budget = sizes.max_size - reader.measure(head + "\n\n") + reader.overhead
    if group.size(reader) <= budget:
        return [_Window(body, group.reading(), "")]
    if reader.size(body) <= budget:
        return [_Window(body, reader.part(body).reading, "")]
    # Pieces are measured as markdown, never shorter than its reading text: parsing every
    # candidate piece would cost more than the windows it saves.
    room = budget - sizes.overlap - reader.line_break if sizes.overlap else budget
    pieces = split_text(body, max(room, 1), reader.measure)
    headers = _table_headers(body)
    windows = [_Window(pieces[0], reader.part(pieces[0]).reading, "")]
    start = 0
    for before, piece in pairwise(pieces):
        start = body.find(piece, start + len(before))
        header = headers.get(body.rfind("\n", 0, start) + 1, "") if start >= 0 else ""
        context = reader.part(header).reading if header else ""
        if not context or reader.measure(context) > sizes.overlap:
            context = _tail(reader.part(before).reading, sizes.overlap, reader.measure)
        windows.append(_Window(piece, reader.part(piece).reading, context, header))
    return windows


def _table_headers(body: str) -> dict[int, str]:
    """Where each row of a table under a header starts in `body` -> that table's header row
    and rule (markdown). A table is lines opening with "|"; its header is the first, when a
    rule ("|---|---|") comes right under it."""
    headers: dict[int, str] = {}
    lines = body.splitlines(keepends=True)
    header = ""
    offset = 0
    for number, line in enumerate(lines):
        text = line.strip()
        if not text.startswith("|"):
            header = ""
        elif header:
            headers[offset] = header
        elif number + 1 < len(lines) and _TABLE_RULE.match(lines[number + 1].strip()):
            above = lines[number - 1].strip() if number else ""
            if not above.startswith("|"):
                header = f"{text}\n{lines[number + 1].strip()}"
        offset += len(line)
    return headers


def _tail(text: str, size: int, measure: Callable[[str], int]) -> str:
    """The end of `text` measuring at most `size`, starting at a sentence or word boundary."""
    if size <= 0:
        return ""
    for boundary in _BOUNDARIES[2:]:
        tail = ""
        for piece in reversed(_cut_after(text, boundary)):
            if measure((piece + tail).strip()) > size:
                break
            tail = piece + tail
        if tail.strip():
            return tail.strip()
    return ""


def _split(text: str, max_size: int, level: int, measure: Callable[[str], int]) -> list[str]:
    if measure(text) <= max_size:
        return [text]
    if level == len(_BOUNDARIES):
        return _cut_word(text, max_size, measure)
    pieces = _cut_after(text, _BOUNDARIES[level])
    if len(pieces) == 1:
        return _split(text, max_size, level + 1, measure)
    out: list[str] = []
    # A paragraph or a line may lead in to what follows (a label split from a long paragraph
    # is cut from it again at lines); sentences and words are cut where they must be.
    for packed in _pack(pieces, max_size, measure, lead_ins=level <= 1):
        out.extend(_split(packed, max_size, level + 1, measure))
    return out


def _cut_word(text: str, max_size: int, measure: Callable[[str], int]) -> list[str]:
    """A single word too big for one chunk, cut into the longest pieces that fit.

    A piece is sought within `_TOO_LONG_FACTOR` characters per unit of the size (more than
    any script averages per token), not in the whole rest of the word: measuring prefixes of
    the rest made a pasted base64 image of 250 KB take two minutes, a 5 MB line 13 GB."""
    out: list[str] = []
    window = max_size * _TOO_LONG_FACTOR
    start = 0
    while start < len(text):
        low, high = 1, min(len(text) - start, window)
        while low < high:  # the longest prefix that fits (at least one character)
            middle = (low + high + 1) // 2
            if measure(text[start : start + middle]) <= max_size:
                low = middle
            else:
                high = middle - 1
        out.append(text[start : start + low])
        start += low
    return out


def _cut_after(text: str, boundary: re.Pattern[str]) -> list[str]:
    """`text` cut at each boundary match, the separator staying with the piece before it, but
    never inside a link or code span: "[[FAQ#Can I use both？]]" ends no sentence, and a
    window cut between "[[Sync" and "FAQ]]" would embed neither half as the link."""
    pieces: list[str] = []
    start = 0
    for match in cuts_outside_links(boundary, text):
        if match.end() > start and match.start() > 0:
            pieces.append(text[start : match.end()])
            start = match.end()
    pieces.append(text[start:])
    return [piece for piece in pieces if piece]


def _pack(
    pieces: list[str], max_size: int, measure: Callable[[str], int], lead_ins: bool
) -> list[str]:
    """Greedily join consecutive pieces while the stripped result fits in `max_size` (and,
    with `lead_ins`, a short start that ends no sentence with whatever follows it).

    Sizes of pieces are added up rather than measured joined (one measure per piece, not per
    join); a joined result that still measures too big is split again by the caller."""
    packed: list[str] = []
    current, size = "", 0
    # What `measure` adds to any text (a tokenizer's special tokens), counted once per join.
    overhead = measure("")
    for piece in pieces:
        piece_size = measure(piece) - overhead
        too_big = overhead + size + piece_size - _trailing(piece, measure) > max_size
        # A short lead-in ("Making the crust", "Steps:") goes with what follows, the two
        # split finer: closed alone it would be a chunk that says nothing, and what it
        # introduces would lose it.
        leads_in = lead_ins and size <= max_size // 4 and not _SENTENCE_DONE.search(current)
        if current and too_big and not leads_in:
            packed.append(current.strip())
            current, size = piece, piece_size
        else:
            current += piece
            size += piece_size
    if current.strip():
        packed.append(current.strip())
    return packed


def _fitted_head(head: str, reader: _Reader) -> str:
    """`head`, cut to half the chunk when longer: a title and heading path that long would
    leave the body no room (the encoder cuts the end, which is the body)."""
    half = reader.sizes.max_size // 2
    if reader.measure(head) <= half:
        return head
    return _cut_word(head, half, reader.measure)[0]


def _fitted_facts(lines: list[str], reader: _Reader) -> list[str]:
    """The first of `lines` that fit in a quarter of the chunk (a note's properties: the
    section after them needs the rest)."""
    room = reader.sizes.max_size // 4
    fitted: list[str] = []
    for line in lines:
        if reader.measure("\n".join([*fitted, line])) > room:
            break
        fitted.append(line)
    return fitted


def _trailing(piece: str, measure: Callable[[str], int]) -> int:
    """What the separator at the end of `piece` measures (stripped when it ends a chunk)."""
    stripped = piece.rstrip()
    return measure(piece) - measure(stripped) if stripped != piece else 0


def _head(title: str, heading: str) -> str:
    """What every chunk of a group embeds first: the note's title and the heading path."""
    return f"{title}\n{heading}" if heading else title
