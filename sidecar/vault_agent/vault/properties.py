"""A note's properties (its frontmatter) as the lines a reader sees: facts the note holds.

Many notes say what they know in properties, not prose: a film's `director` and when it was
`last` watched, a trip's `start` and `end`, a person's `twitter`. Obsidian shows them above the
note; here they become lines like ``last: 2023-09-14`` that are embedded, searched and quoted
with the note's first chunk. Values read as their words: links by their text, URLs left out
(an image URL says nothing), lists joined by commas. Properties Obsidian reads for itself
(`tags`, which the index keeps apart, and display settings such as `cssclasses`) are no
facts of the note and are left out; `aliases` stay, as the other names the note goes by.

A line is shown as markdown (quoted by offline answers, inside the ``---`` block `get_note`
shows), yet Obsidian shows a property as plain text. Reading a value decodes its escapes,
entities and code spans (an escaped wikilink, ``&lt;img&gt;`` or an ``<img>`` in backticks
would come out as live markup), and a key is any YAML string, line breaks included. So every
line is one line of markdown that renders as exactly its words (`_shown`): line breaks, control
and bidi characters gone, the characters that make markup escaped.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from vault_agent.vault.reading_text import reading_text

#: Properties that are not facts of the note: kept elsewhere (tags) or settings.
NOT_FACTS = frozenset({"tags", "tag", "cssclasses", "cssclass", "publish", "permalink"})
#: Properties that date the note file, not what it is about (templates stamp them): they say
#: when a note was written, not when its subject happened.
BOOKKEEPING = frozenset(
    {
        "created", "creation date", "date created", "created at", "created on", "ctime",
        "updated", "modified", "last modified", "date modified", "updated at", "mtime",
    }
)  # fmt: skip
#: Properties that say what a note is called or filed as (other names, its kind), not what
#: it says: "type: person" is no answer to "who is Priya?".
FILING = frozenset({"aliases", "alias", "type", "types", "category", "categories"})
#: A longer value is cut (at a word) to this many characters.
MAX_VALUE_CHARS = 300
#: Properties named longer than this are machine-made (ids, hashes): left out.
MAX_KEY_CHARS = 60
#: Characters that start markup anywhere in a line: code, links and wikilinks, images, raw HTML
#: and autolinks, escapes, math, Obsidian comments. (Emphasis, highlights and tags only style
#: words, and `_` is part of names such as `date_created`.)
_INLINE_MARKUP = re.compile(r"([\\`\[\]<>$%])")
#: What makes a block when it starts a line: headings, quotes, lists, rules, tables.
_BLOCK_START = re.compile(r"[#>+*=~|-]|\d+(?=[.)])")
#: Bidi controls reorder what follows them on the line (a citation shown reversed).
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def property_lines(frontmatter: dict[str, Any]) -> list[str]:
    """``key: value`` for each of the note's properties a reader would take as a fact, in
    the note's order; an empty value keeps its key (``producer:``: a template's field)."""
    lines = []
    for key, value in frontmatter.items():
        name = _one_line(str(key))
        if not name or len(name) > MAX_KEY_CHARS or name.lower() in NOT_FACTS:
            continue
        text = _value_text(value)
        if text is not None:
            lines.append(_shown(f"{name}: {text}" if text else f"{name}:"))
    return lines


def is_bookkeeping(line: str) -> bool:
    """True for a property line (``created: 2023-09-12``) that dates the note itself."""
    return _key(line) in BOOKKEEPING


def is_filing(line: str) -> bool:
    """True for a property line naming or filing the note (``aliases: Priya``, ``type: person``)."""
    return _key(line) in FILING


def _key(line: str) -> str:
    return line.split(":", 1)[0].strip().lower().replace("_", " ").replace("-", " ")


def _value_text(value: Any) -> str | None:
    """`value` as words; None when it has none worth showing (only a URL, nested data)."""
    if value is None or value == "" or value == []:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return _clip(_one_line(reading_text(value))) or None
    if isinstance(value, list):
        items = [_value_text(item) for item in value if not isinstance(item, dict | list)]
        words = [item for item in items if item]
        return _clip(", ".join(words)) if words else None
    return None  # a nested object: structure for a plugin, not a fact to quote


def _one_line(text: str) -> str:
    """`text` without control, format-direction or line-breaking characters, its runs of
    whitespace one space."""
    kept = (
        " " if unicodedata.category(char) in ("Cc", "Zl", "Zp") else char
        for char in text
        if char not in _BIDI
    )
    return " ".join("".join(kept).split())


def _shown(line: str) -> str:
    """`line` (one line already) as markdown that renders as exactly its words."""
    line = _INLINE_MARKUP.sub(r"\\\1", line)
    start = _BLOCK_START.match(line)
    if start is None:
        return line
    at = start.end() if start.group().isdigit() else 0  # "3. x" -> "3\. x"; "# x" -> "\# x"
    return f"{line[:at]}\\{line[at:]}"


def _clip(text: str) -> str:
    if len(text) <= MAX_VALUE_CHARS:
        return text
    return text[: MAX_VALUE_CHARS - 1].rsplit(" ", 1)[0] + "…"
