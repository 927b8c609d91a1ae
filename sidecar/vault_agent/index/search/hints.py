"""Dates and tags written in a query, and whether a chunk carries them.

"What did I do on 5 November?" or "my #ideas notes" name the notes they want by a property the
text of those notes may not even contain (a daily note's date lives in its file name; most
tags live in frontmatter). Search boosts the hits that match (see `Searcher`); this module only
reads the query and compares payloads. Measured in docs/retrieval.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vault_agent.index.store.protocol import ChunkPayload

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(\d{4}))?"
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}{_YEAR}\b", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+{_DAY}{_YEAR}\b", re.IGNORECASE)
# Obsidian's tag syntax: '#' after whitespace (not a URL fragment or a [[Note#Heading]]),
# letters, digits, '_', '-', '/', and at least one character that is not a digit.
_TAG = re.compile(r"(?<!\S)#([\w/-]*[^\W\d][\w/-]*)")
_ISO_IN_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")
#: A date the query names without a year: matches that month and day in any year.
ANY_YEAR = "*"


@dataclass(frozen=True)
class QueryHints:
    """Tags (lower-case, no '#') and dates ("2026-11-05", or "*-11-05" without a year)."""

    tags: frozenset[str] = frozenset()
    dates: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.tags or self.dates)

    def matches(self, payload: ChunkPayload) -> bool:
        """True when the chunk's note has one of the tags, or one of the dates as its daily
        note date or in its title ("2026-11-05 Garden Committee")."""
        if self.tags & set(payload.tags):
            return True
        if not self.dates:
            return False
        stamps = set(_ISO_IN_TEXT.findall(payload.title))
        if payload.date:
            stamps.add(payload.date[:10])
        return any(_same_day(wanted, stamp) for wanted in self.dates for stamp in stamps)


def query_hints(query: str) -> QueryHints:
    """The tags and calendar dates written in `query` (impossible dates are ignored)."""
    tags = frozenset(tag.lower().strip("/") for tag in _TAG.findall(query))
    found: list[tuple[str | None, int, int]] = []
    found += [(y, int(m), int(d)) for y, m, d in _ISO.findall(query)]
    found += [(y or None, _month(m), int(d)) for d, m, y in _DAY_MONTH.findall(query)]
    found += [(y or None, _month(m), int(d)) for m, d, y in _MONTH_DAY.findall(query)]
    dates = frozenset(
        f"{year or ANY_YEAR}-{month:02d}-{day:02d}"
        for year, month, day in found
        if 1 <= month <= 12 and 1 <= day <= 31
    )
    return QueryHints(tags=tags, dates=dates)


def date_words(query: str) -> frozenset[str]:
    """The words of the calendar dates written in `query` ("12 September 2023" gives
    "12", "September", "2023"): a date is not a name the notes must spell the same way (a
    daily note writes it 2023-09-12, in its file name)."""
    words: set[str] = set()
    for pattern in (_DAY_MONTH, _MONTH_DAY):
        for match in pattern.finditer(query):
            words.update(re.findall(r"\w+", match.group()))
    return frozenset(words)


def _month(name: str) -> int:
    return _MONTHS.index(name.lower()[:3]) + 1


def _same_day(wanted: str, stamp: str) -> bool:
    if wanted.startswith(ANY_YEAR):
        return stamp[4:] == wanted[len(ANY_YEAR) :]
    return stamp == wanted
