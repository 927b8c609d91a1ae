"""Dates and tags written in a query, and whether a chunk carries them.

"What did I do on 5 November?" or "my #ideas notes" name the notes they want by a property the
text of those notes may not even contain (a daily note's date lives in its file name; most
tags live in frontmatter). Search boosts the hits that match (see `Searcher`); this module only
reads the query and compares payloads. Measured in docs/retrieval.md.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from functools import cache

from vault_agent.index.search.month_names import ENGLISH, abbreviations, month_names
from vault_agent.index.store.protocol import ChunkPayload

_DAY = r"(\d{1,2})(?:st|nd|rd|th|\.)?"
# ", 2026", " 2026", " de 2026", " г." (Russian writes "5 марта 2026 г.").
_YEAR = r"(?:,?\s+(?:de\s+)?(\d{4}))?"
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
# Chinese and Japanese "2026年11月5日", Korean "2026년 11월 5일": months are numbers there.
_CJK = re.compile(r"(?:(\d{4})\s*[年년]\s*)?(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]")
# Obsidian's tag syntax: '#' after whitespace (not a URL fragment or a [[Note#Heading]]),
# letters, digits, '_', '-', '/', and at least one character that is not a digit.
_TAG = re.compile(r"(?<!\S)#([\w/-]*[^\W\d][\w/-]*)")
_ISO_IN_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")
_DIGIT = re.compile(r"\d")
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
    found += [(y or None, int(m), int(d)) for y, m, d in _CJK.findall(query)]
    if _DIGIT.search(query):  # a day is a number: a query without one names none
        day_month, month_day = _named_month_patterns()
        found += [(y or None, _month(m), int(d)) for d, m, y in day_month.findall(query)]
        found += [(y or None, _month(m), int(d)) for m, d, y in month_day.findall(query)]
    dates = frozenset(
        f"{year or ANY_YEAR}-{month:02d}-{day:02d}"
        for year, month, day in found
        if _possible(year, month, day)
    )
    return QueryHints(tags=tags, dates=dates)


def _possible(year: str | None, month: int, day: int) -> bool:
    """True for a day the calendar has ("2024-02-30", "0000-01-01" are none; 29 February
    without a year is: some year has it)."""
    try:
        datetime.date(int(year) if year else 2000, month, day)  # 2000: a leap year
    except ValueError:
        return False
    return True


def date_words(query: str) -> frozenset[str]:
    """The words of the calendar dates written in `query` ("12 September 2023" gives
    "12", "September", "2023"): a date is not a name the notes must spell the same way (a
    daily note writes it 2023-09-12, in its file name)."""
    words: set[str] = set()
    if not _DIGIT.search(query):
        return frozenset()
    for pattern in _named_month_patterns():
        for match in pattern.finditer(query):
            words.update(re.findall(r"\w+", match.group()))
    return frozenset(words)


@cache
def _named_month_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Day-month ("5 November", "5. März", "5 de marzo", "5 марта 2026") and month-day
    ("November 5th, 2026") dates, with the month names of every language `month_names`
    reads."""
    names = sorted(month_names(), key=len, reverse=True)  # "march" before "mar"
    # Another language's abbreviation may be an English word ("5 out of 10", "2 ago"): it
    # counts only written as one ("5 out.") or with a year ("5 set 2024").
    short = [name for name in names if name in abbreviations() and name not in ENGLISH]
    free = [name for name in names if name not in short]
    either = [f"(?:{'|'.join(map(re.escape, free))})"]
    if short:
        either.append(rf"(?:{'|'.join(map(re.escape, short))})(?=\.|,?\s+(?:de\s+)?\d{{4}})")
    month = rf"({'|'.join(either)})\.?"
    day_month = re.compile(rf"(?<!\w){_DAY}\s*(?:of\s+|de\s+)?{month}{_YEAR}(?!\w)", re.IGNORECASE)
    month_day = re.compile(rf"(?<!\w){month}\s+{_DAY}{_YEAR}(?!\w)", re.IGNORECASE)
    return day_month, month_day


def _month(name: str) -> int:
    """The number of month `name` as the query writes it; 0 (no date) for a case the table
    doesn't hold (Turkish "EKİ" lower-cases to "eki̇")."""
    return month_names().get(name.lower(), 0)


def _same_day(wanted: str, stamp: str) -> bool:
    if wanted.startswith(ANY_YEAR):
        return stamp[4:] == wanted[len(ANY_YEAR) :]
    return stamp == wanted
