"""Cut a parsed note into chunks for embedding: one per heading section, sized min..max chars.

Owns the sizing rules. Tiny sections are merged into a neighbour (their heading kept as a
markdown heading line in the body, so nothing is lost); long ones are split at paragraph, then
line, then sentence, then word boundaries. Text is never dropped, only whitespace between
pieces. Every note yields at least one chunk, so a note with no body is still found by title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel

from vault_agent.vault.notes import Note

HEADING_SEPARATOR = " > "
# Boundaries to split at, coarsest first; each keeps its separator with the piece before it.
_BOUNDARIES = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraphs
    re.compile(r"\n"),  # lines (lists, tables, code)
    re.compile(r"(?<=[.!?…])[\"')\]]*\s+"),  # sentences
    re.compile(r"\s+"),  # words
)


class Chunk(BaseModel):
    """One unit of retrieval: a heading section (or part of one, or several small ones)."""

    chunk_index: int
    heading: str  # "Setup > Linux"; "" before the first heading
    body: str
    embed_text: str  # title + heading path + body: the title and path are embedded too
    page: int | None = None  # PDFs: the page the chunk is on


def chunk_note(note: Note, min_chars: int = 300, max_chars: int = 1500) -> list[Chunk]:
    """Chunks of `note`, indexed 0..n-1, each body at most `max_chars` characters.

    A section shorter than `min_chars` is merged with the following section when the two fit
    in `max_chars`, else with the previous one; the merged chunk keeps the first section's
    heading and carries the later headings as `## Heading` lines in its body.

    Sections that carry a page (PDFs) are never merged: a citation must name one page.
    """
    if note.sections and all(section.page is not None for section in note.sections):
        return _chunk_pages(note, max_chars)
    groups = _merge_small(note, min_chars, max_chars)
    # An empty section still gets its chunk: the heading alone is worth finding.
    pieces = [
        (group.heading, part)
        for group in groups
        for part in split_text(group.body(), max_chars) or [""]
    ]
    if not pieces:
        pieces = [("", "")]
    return [
        Chunk(
            chunk_index=index,
            heading=heading,
            body=body,
            embed_text=_embed_text(note.title, heading, body),
        )
        for index, (heading, body) in enumerate(pieces)
    ]


def split_text(text: str, max_chars: int) -> list[str]:
    """`text` cut into stripped pieces of at most `max_chars`, at the coarsest boundary that
    works; a single word longer than `max_chars` is the only thing cut mid-word."""
    text = text.strip()
    if not text:
        return []
    return _split(text, max_chars, 0)


def _chunk_pages(note: Note, max_chars: int) -> list[Chunk]:
    """One or more chunks per page, in page order, each with its page's heading."""
    pieces = [
        (section, part)
        for section in note.sections
        for part in split_text(section.text, max_chars) or [""]
    ]
    return [
        Chunk(
            chunk_index=index,
            heading=HEADING_SEPARATOR.join(section.heading_path),
            body=body,
            embed_text=_embed_text(note.title, HEADING_SEPARATOR.join(section.heading_path), body),
            page=section.page,
        )
        for index, (section, body) in enumerate(pieces)
    ]


@dataclass
class _Group:
    heading: str
    level: int  # of the first section's heading; 0 before any heading
    parts: list[str] = field(default_factory=list)

    def marker(self) -> str:
        """The first section's heading as a markdown line, for when it is merged into another."""
        if not self.heading:
            return ""
        return "#" * max(1, self.level) + " " + self.heading.split(HEADING_SEPARATOR)[-1]

    def body(self) -> str:
        return "\n\n".join(part for part in self.parts if part)

    def size(self) -> int:
        return len(self.body())


def _merge_small(note: Note, min_chars: int, max_chars: int) -> list[_Group]:
    groups: list[_Group] = []
    current: _Group | None = None
    for section in note.sections:
        heading = HEADING_SEPARATOR.join(section.heading_path)
        group = _Group(heading, section.level, [section.text])
        if current is None:
            current = group
            continue
        addition = f"{group.marker()}\n\n{section.text}".strip()
        if current.size() < min_chars and current.size() + len(addition) + 2 <= max_chars:
            current.parts.append(addition)
            continue
        _close(current, groups, min_chars, max_chars)
        current = group
    if current is not None:
        _close(current, groups, min_chars, max_chars)
    return groups


def _close(group: _Group, groups: list[_Group], min_chars: int, max_chars: int) -> None:
    """Add a finished group; a still-tiny one joins the previous group if that fits."""
    previous = groups[-1] if groups else None
    if previous is not None and group.size() < min_chars:
        merged = f"{group.marker()}\n\n{group.body()}".strip()
        if previous.size() + len(merged) + 2 <= max_chars:
            previous.parts.append(merged)
            return
    groups.append(group)


def _split(text: str, max_chars: int, level: int) -> list[str]:
    if len(text) <= max_chars:
        return [text]
    if level == len(_BOUNDARIES):
        return [text[start : start + max_chars] for start in range(0, len(text), max_chars)]
    pieces = _cut_after(text, _BOUNDARIES[level])
    if len(pieces) == 1:
        return _split(text, max_chars, level + 1)
    out: list[str] = []
    for packed in _pack(pieces, max_chars):
        out.extend(_split(packed, max_chars, level + 1))
    return out


def _cut_after(text: str, boundary: re.Pattern[str]) -> list[str]:
    """`text` cut at each boundary match, the separator staying with the piece before it."""
    pieces: list[str] = []
    start = 0
    for match in boundary.finditer(text):
        if match.end() > start and match.start() > 0:
            pieces.append(text[start : match.end()])
            start = match.end()
    pieces.append(text[start:])
    return [piece for piece in pieces if piece]


def _pack(pieces: list[str], max_chars: int) -> list[str]:
    """Greedily join consecutive pieces while the stripped result fits in `max_chars`."""
    packed: list[str] = []
    current = ""
    for piece in pieces:
        if current and len((current + piece).strip()) > max_chars:
            packed.append(current.strip())
            current = piece
        else:
            current += piece
    if current.strip():
        packed.append(current.strip())
    return packed


def _embed_text(title: str, heading: str, body: str) -> str:
    head = f"{title}\n{heading}" if heading else title
    return f"{head}\n\n{body}" if body else head
