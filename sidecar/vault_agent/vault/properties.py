"""A note's properties (its frontmatter) as the lines a reader sees: facts the note holds.

Many notes say what they know in properties, not prose: a film's `director` and when it was
`last` watched, a trip's `start` and `end`, a person's `twitter`. Obsidian shows them above the
note; here they become lines like ``last: 2023-09-14`` that are embedded, searched and quoted
with the note's first chunk. Values read as their words: links by their text, URLs left out
(an image URL says nothing), lists joined by commas. Properties Obsidian reads for itself
(`tags`, which the index keeps apart, and display settings such as `cssclasses`) are no
facts of the note and are left out; `aliases` stay, as the other names the note goes by.
"""

from __future__ import annotations

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
#: A longer value is cut (at a word) to this many characters.
MAX_VALUE_CHARS = 300
#: Properties named longer than this are machine-made (ids, hashes): left out.
MAX_KEY_CHARS = 60


def property_lines(frontmatter: dict[str, Any]) -> list[str]:
    """``key: value`` for each of the note's properties a reader would take as a fact, in
    the note's order; an empty value keeps its key (``producer:``: a template's field)."""
    lines = []
    for key, value in frontmatter.items():
        name = key.strip()
        if not name or len(name) > MAX_KEY_CHARS or name.lower() in NOT_FACTS:
            continue
        text = _value_text(value)
        if text is not None:
            lines.append(f"{name}: {text}" if text else f"{name}:")
    return lines


def is_bookkeeping(line: str) -> bool:
    """True for a property line (``created: 2023-09-12``) that dates the note itself."""
    key = line.split(":", 1)[0].strip().lower().replace("_", " ").replace("-", " ")
    return key in BOOKKEEPING


def _value_text(value: Any) -> str | None:
    """`value` as words; None when it has none worth showing (only a URL, nested data)."""
    if value is None or value == "" or value == []:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return _clip(" ".join(reading_text(value).split())) or None
    if isinstance(value, list):
        items = [_value_text(item) for item in value if not isinstance(item, dict | list)]
        words = [item for item in items if item]
        return _clip(", ".join(words)) if words else None
    return None  # a nested object: structure for a plugin, not a fact to quote


def _clip(text: str) -> str:
    if len(text) <= MAX_VALUE_CHARS:
        return text
    return text[: MAX_VALUE_CHARS - 1].rsplit(" ", 1)[0] + "…"
