"""Parse one note: the bytes of a vault file in, a `Note` (properties, links, tags, sections) out.

Owns the `Note` model every later stage reads (chunker, graph, indexer, agent tools) and the
per-file rules: text decoding, which files are not notes at all (`NoteError`), and how
frontmatter and inline facts combine into tags, aliases, `type`, `created` and `date`.
Markdown details live in `markdown.py`, YAML details in `frontmatter.py`.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date as Date
from pathlib import PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, Field

from vault_agent.vault.frontmatter import (
    frontmatter_aliases,
    frontmatter_created,
    frontmatter_tags,
    frontmatter_type,
    iso_date_or_datetime,
    load_frontmatter,
    split_frontmatter,
)
from vault_agent.vault.markdown import HeadingSpan, RawLink, parse_wikilink, scan_markdown


class NoteError(Exception):
    """A file that cannot be read as a note (binary, etc.); message is the per-file reason."""


class Link(BaseModel):
    """One link or embed, as written (resolution is `graph.LinkGraph`'s job)."""

    target: str = Field(description='Path as written, e.g. "Folder/Note"; "" for [[#Heading]].')
    subpath: str | None = Field(default=None, description='"Heading", "A#B" or "^blockid".')
    display: str | None = None
    embed: bool = False
    kind: Literal["wikilink", "markdown"] = "wikilink"


class Heading(BaseModel):
    """A top-level heading (not inside a list, quote or callout)."""

    level: int
    text: str
    line: int = Field(description="0-based line in the file, as in Obsidian's metadata cache.")


class Section(BaseModel):
    """The text under one heading, up to the next heading of any level."""

    heading_path: list[str] = Field(description='e.g. ["Setup", "Linux"]; [] before any heading')
    text: str = Field(description="The section's markdown, heading line excluded, stripped.")
    level: int = Field(default=0, description="The heading's level (1-6); 0 before any heading.")
    page: int | None = Field(default=None, description="PDFs: the 1-based page this text is on.")


class Note(BaseModel):
    """Everything the index knows about one markdown file."""

    file: str
    title: str
    frontmatter: dict[str, Any] = Field(default_factory=dict)
    frontmatter_error: str | None = None
    warnings: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    type: str | None = None
    created: str | None = None
    date: str | None = None
    links: list[Link] = Field(default_factory=list)
    headings: list[Heading] = Field(default_factory=list)
    sections: list[Section] = Field(default_factory=list)
    body: str = ""
    content_hash: str

    def link_targets(self) -> list[str]:
        """The targets of its links and embeds, as written: what the link graph resolves."""
        return [link.target for link in self.links]


def parse_note(file: str, raw: bytes) -> Note:
    """Parse the bytes of vault file `file` (vault-relative, '/'-separated) into a `Note`.

    Raises `NoteError` only when the bytes are not text (NUL bytes, mostly control
    characters). Malformed YAML or odd markdown never raise: the YAML problem goes to
    `frontmatter_error` and the note is still indexed as text; decoding fallbacks go to
    `warnings`.

    `date` rule: a file named like a date (`Daily/2026-11-03.md`) is a daily note of that
    date; otherwise a note whose `type` is "daily" or that is tagged #daily takes the date
    part of its frontmatter `date`; any other note has no date.
    """
    text, warnings = _decode(raw)
    text = text.replace("\r\n", "\n").replace("\r", "\n")

    frontmatter: dict[str, Any] = {}
    frontmatter_error: str | None = None
    body, body_line = text, 0
    block = split_frontmatter(text)
    if block is not None:
        frontmatter, frontmatter_error = load_frontmatter(block.yaml_text)
        body, body_line = text[block.body_start :], block.body_line

    facts = scan_markdown(body)
    tags = expand_tags([*frontmatter_tags(frontmatter), *facts.tags])
    aliases = frontmatter_aliases(frontmatter)
    # Every chunk's payload repeats these: a hostile note must not multiply its own size.
    for kind, values, most in (("tags", tags, MAX_TAGS), ("aliases", aliases, MAX_ALIASES)):
        if len(values) > most:
            warnings.append(f"{len(values):,} {kind}: only the first {most} are indexed")
            del values[most:]
    note_type = frontmatter_type(frontmatter)
    title = PurePosixPath(file).stem
    links = [*_frontmatter_links(frontmatter), *facts.links]
    return Note(
        file=file,
        title=title,
        frontmatter=frontmatter,
        frontmatter_error=frontmatter_error,
        warnings=warnings,
        tags=tags,
        aliases=aliases,
        type=note_type,
        created=frontmatter_created(frontmatter),
        date=_daily_date(title, frontmatter, note_type, tags),
        links=[Link(**vars(link)) for link in links],
        headings=[
            Heading(level=span.level, text=span.text, line=body_line + span.start)
            for span in facts.headings
        ],
        sections=_sections(body, facts.headings),
        body=body,
        content_hash=hashlib.sha256(raw).hexdigest(),
    )


def expand_tags(raw_tags: list[str]) -> list[str]:
    """Lower-case, '#'-less, sorted unique tags; "a/b/c" also yields "a" and "a/b".

    Like Obsidian, a tag made only of digits ("#1984") is not a tag; nor, here, is one longer
    than `MAX_TAG_CHARS` (its parents would add up to the square of its length).
    """
    tags: set[str] = set()
    for raw in raw_tags:
        name = raw.strip().lstrip("#").lower()
        if len(name) > MAX_TAG_CHARS:
            continue
        parts = [part for part in name.split("/") if part]
        if not any(not char.isdigit() for part in parts for char in part):
            continue
        tags.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    return sorted(tags)


#: Most tags (parents included) and aliases a note keeps, and the longest tag.
MAX_TAGS = 256
MAX_ALIASES = 64
MAX_TAG_CHARS = 128
_DAILY_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_FRONTMATTER_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+)\]\]")
_CONTROL = re.compile(r"[\x01-\x08\x0e-\x1a\x1c-\x1f\x7f]")
_C1_CONTROL = re.compile(r"[\x80-\x9f]")


def _decode(raw: bytes) -> tuple[str, list[str]]:
    """Text of `raw` plus warnings; UTF-8 first, then UTF-32 or UTF-16 (BOM), or
    cp1252/latin-1."""
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):  # before UTF-16's, its prefix
        try:
            return raw.decode("utf-32"), ["not UTF-8: decoded as UTF-32"]
        except UnicodeDecodeError as exc:
            raise NoteError(f"not a text file: invalid UTF-32 ({exc.reason})") from exc
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16"), ["not UTF-8: decoded as UTF-16"]
        except UnicodeDecodeError as exc:
            raise NoteError(f"not a text file: invalid UTF-16 ({exc.reason})") from exc
    if b"\x00" in raw:
        raise NoteError("not a text file: contains NUL bytes (binary content)")
    warnings: list[str] = []
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text, warning = _damaged_utf8(raw) or _legacy(raw)
        warnings.append(warning)
    # Binary formats without NUL bytes are rare; they show up as runs of control characters.
    # Text in a legacy encoding has next to none: one that isn't UTF-8 (random bytes, a
    # compressed file) is judged with its C1 controls too, and on a lower share.
    sample = text[:4096]
    controls = len(_CONTROL.findall(sample))
    share = 0.3
    if warnings:
        controls += len(_C1_CONTROL.findall(sample))
        share = 0.05
    if controls >= 8 and controls > len(sample) * share:
        raise NoteError("not a text file: mostly control characters (binary content)")
    return text, warnings


def _damaged_utf8(raw: bytes) -> tuple[str, str] | None:
    """`raw` read as UTF-8 with its few invalid bytes replaced, when it is UTF-8 text with
    some damage (a character cut at the end, one byte of another encoding pasted in): more of
    its characters are UTF-8's multi-byte ones than it has invalid bytes. Read as cp1252, a
    Russian or Japanese note would be taken for binary, a German one garbled ("Ãœberblick")."""
    text = raw.decode("utf-8-sig", errors="replace")
    bad = text.count("\ufffd") - raw.count("\ufffd".encode())
    multibyte = sum(1 for char in text if char > "\x7f") - text.count("\ufffd")
    if multibyte <= bad:
        return None
    return text, f"not valid UTF-8: {bad} invalid byte sequence(s) replaced by \ufffd"


def _legacy(raw: bytes) -> tuple[str, str]:
    """`raw` in a legacy encoding: old Windows editors save cp1252; latin-1 maps every byte,
    so it never fails."""
    try:
        return raw.decode("cp1252"), "not UTF-8: decoded as cp1252"
    except UnicodeDecodeError:
        return raw.decode("latin-1"), "not UTF-8: decoded as latin-1"


def _frontmatter_links(frontmatter: dict[str, Any]) -> list[RawLink]:
    """`[[links]]` in property values (Obsidian counts them as links since 1.4)."""
    links: list[RawLink] = []
    stack: list[Any] = [frontmatter]
    values: list[str] = []
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            stack.extend(reversed(value))
        elif isinstance(value, str) and "[[" in value:
            values.append(value)
    for value in values:
        for match in _FRONTMATTER_WIKILINK.finditer(value):
            link = parse_wikilink(match.group(2), embed=bool(match.group(1)))
            if link is not None:
                links.append(link)
    return links


def _daily_date(
    title: str, frontmatter: dict[str, Any], note_type: str | None, tags: list[str]
) -> str | None:
    if _DAILY_NAME.match(title):
        try:
            return Date.fromisoformat(title).isoformat()
        except ValueError:
            return None
    if (note_type or "").lower() == "daily" or "daily" in tags:
        value = iso_date_or_datetime(frontmatter.get("date"))
        return value[:10] if value else None
    return None


def _sections(body: str, headings: list[HeadingSpan]) -> list[Section]:
    """Split `body` at its headings; every heading gets a section, even an empty one."""
    lines = body.split("\n")
    sections: list[Section] = []
    first = headings[0].start if headings else len(lines)
    preamble = "\n".join(lines[:first]).strip()
    if preamble:
        sections.append(Section(heading_path=[], text=preamble))
    path: list[HeadingSpan] = []  # the enclosing headings, outermost first
    for index, heading in enumerate(headings):
        while path and path[-1].level >= heading.level:
            path.pop()
        path.append(heading)
        stop = headings[index + 1].start if index + 1 < len(headings) else len(lines)
        sections.append(
            Section(
                heading_path=[outer.text for outer in path],
                text="\n".join(lines[heading.end : stop]).strip(),
                level=heading.level,
            )
        )
    return sections
