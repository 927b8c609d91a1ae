"""Dates and tags written in a query, and whether a chunk carries them.

"What did I do on 5 November?", "who did I meet in March 2024?", "what did I do yesterday?" or
"my #ideas notes" name the notes they want by a property the text of those notes may not even
contain (a daily note's date lives in its file name; most tags live in frontmatter). Search
boosts the hits that match and searches the notes of those days (see `Searcher`); this module
only reads the query and compares payloads. Measured in docs/retrieval.md.

A date is kept as an ISO 8601 pattern: a day "2026-11-05", a month "2026-11", a year "2026",
an interval "2026-11-16/2026-11-22" (last week), or a day without its year "*-11-05" ("5
November": that day in any year).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from functools import cache

from vault_agent.index.search.month_names import ENGLISH, abbreviations, month_names
from vault_agent.index.search.relative_dates import (
    Period,
    month_end,
    relative_periods,
    relative_words,
)
from vault_agent.index.store.protocol import ChunkPayload

_DAY = r"(\d{1,2})(?:st|nd|rd|th|\.)?"
# ", 2026", " 2026", " de 2026", " г." (Russian writes "5 марта 2026 г.").
_YEAR = r"(?:,?\s+(?:de\s+)?(\d{4}))?"
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_ISO_MONTH = re.compile(r"(?<![\d-])(\d{4})-(\d{2})(?![\d-])")
# Chinese and Japanese "2026年11月5日", Korean "2026년 11월 5일": months are numbers there.
_CJK = re.compile(r"(?:(\d{4})\s*[年년]\s*)?(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]")
_CJK_MONTH = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]")
# Obsidian's tag syntax: '#' after whitespace (not a URL fragment or a [[Note#Heading]]),
# letters, digits, '_', '-', '/', and at least one character that is not a digit.
_TAG = re.compile(r"(?<!\S)#([\w/-]*[^\W\d][\w/-]*)")
_ISO_IN_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")
_DIGIT = re.compile(r"\d")
#: A date the query names without a year: matches that month and day in any year.
ANY_YEAR = "*"
_INTERVAL = "/"


@dataclass(frozen=True)
class QueryHints:
    """Tags (lower-case, no '#') and dates (ISO patterns, see the module's docstring)."""

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
        return any(within(wanted, stamp) for wanted in self.dates for stamp in stamps)


def query_hints(
    query: str,
    today: datetime.date | None = None,
    languages: Collection[str] = ("en",),
    has_notes: Callable[[Period], bool] | None = None,
) -> QueryHints:
    """The tags and calendar dates written in `query` (impossible dates are ignored): days,
    months, and periods relative to `today` ("yesterday", "last week") in one of `languages`
    or English; a month alone the latest `has_notes` says a note is dated in, if any."""
    tags = frozenset(tag.lower().strip("/") for tag in _TAG.findall(query))
    days, rest = _days(query)
    dates = {f"{year or ANY_YEAR}-{month:02d}-{day:02d}" for year, month, day in days}
    dates |= {f"{year}-{month:02d}" for year, month in _months(rest)}
    today = today or datetime.date.today()
    relative = relative_periods(query, today, languages, has_notes)
    dates |= {_pattern(period) for period in relative}
    return QueryHints(tags=tags, dates=frozenset(dates))


def within(wanted: str, stamp: str) -> bool:
    """True when the day `stamp` ("2026-11-05") falls in the date pattern `wanted`."""
    if _INTERVAL in wanted:
        first, last = wanted.split(_INTERVAL)
        return first <= stamp <= last
    year, _, rest = wanted.partition("-")
    return (year == ANY_YEAR or stamp[:4] == year) and stamp[5 : 5 + len(rest)] == rest


def span(wanted: str, year: int | None = None) -> Period | None:
    """The days of the date pattern `wanted`, in `year` when it names none ("*-11-05"); None
    when that year lacks the day (29 February), or no year is known."""
    if _INTERVAL in wanted:
        start, end = wanted.split(_INTERVAL)
        return Period(datetime.date.fromisoformat(start), datetime.date.fromisoformat(end))
    written, *parts = wanted.split("-")
    if written != ANY_YEAR:
        year = int(written)
    if year is None:
        return None
    month, day = (int(part) for part in (*parts, "0", "0")[:2])
    try:
        if day:
            return Period(datetime.date(year, month, day), datetime.date(year, month, day))
        first = datetime.date(year, month or 1, 1)
    except ValueError:
        return None
    last = datetime.date(year, 12, 31) if not month else month_end(first)
    return Period(first, last)


def is_day(wanted: str) -> bool:
    """True for a pattern naming one day ("2026-11-05", "*-11-05"), not a longer period."""
    return _INTERVAL not in wanted and wanted.count("-") == 2


def any_year(wanted: str) -> bool:
    """True for a pattern without its year ("*-11-05")."""
    return wanted.startswith(ANY_YEAR)


def _days(query: str) -> tuple[list[tuple[str | None, int, int]], str]:
    """The days written in `query` as (year or None, month, day), and the query with them
    blanked out (where a month with its year is then read)."""
    found: list[tuple[str | None, int, int]] = []
    spans: list[tuple[int, int]] = []
    for match in _ISO.finditer(query):
        found.append((match[1], int(match[2]), int(match[3])))
        spans.append(match.span())
    for match in _CJK.finditer(query):
        found.append((match[1] or None, int(match[2]), int(match[3])))
        spans.append(match.span())
    if _DIGIT.search(query):  # a day is a number: a query without one names none
        day_month, month_day = _named_month_patterns()
        for match in day_month.finditer(query):
            found.append((match[3] or None, _month(match[2]), int(match[1])))
            spans.append(match.span())
        for match in month_day.finditer(query):
            found.append((match[3] or None, _month(match[1]), int(match[2])))
            spans.append(match.span())
    rest = query
    for start, end in spans:
        rest = rest[:start] + " " * (end - start) + rest[end:]
    return [(y, m, d) for y, m, d in found if _possible(y, m, d)], rest


def _months(rest: str) -> list[tuple[str, int]]:
    """The months named with their year and without a day in `rest`: "2026-11", "2026年11月",
    "November 2026". A month alone is not read: "in November" may be any year's, and "Obsidian
    October" or "the March release" name no date at all."""
    found = [(year, int(month)) for year, month in _ISO_MONTH.findall(rest)]
    found += [(year, int(month)) for year, month in _CJK_MONTH.findall(rest)]
    found += [(year, _month(name)) for name, year in _month_with_year().findall(rest)]
    return [(year, month) for year, month in found if 1 <= month <= 12]


def _pattern(period: Period) -> str:
    """The shortest pattern of `period`: a day, a whole month or year, else an interval."""
    first, last = period.first, period.last
    if first == last:
        return first.isoformat()
    if (first.month, first.day, last.month, last.day) == (1, 1, 12, 31) and first.year == last.year:
        return f"{first.year}"
    if first.day == 1 and last == month_end(first):
        return first.isoformat()[:7]
    return f"{first.isoformat()}{_INTERVAL}{last.isoformat()}"


def _possible(year: str | None, month: int, day: int) -> bool:
    """True for a day the calendar has ("2024-02-30", "0000-01-01" are none; 29 February
    without a year is: some year has it)."""
    try:
        datetime.date(int(year) if year else 2000, month, day)  # 2000: a leap year
    except ValueError:
        return False
    return True


def date_words(query: str, languages: Collection[str] = ("en",)) -> frozenset[str]:
    """The words of the dates written in `query` ("12 September 2023" gives "12",
    "September", "2023"; "Last week" gives "Last", "week"): a date is not a name the notes
    must spell the same way (a daily note writes it 2023-09-12, in its file name)."""
    words = set(relative_words(query, languages))
    patterns: Iterable[re.Pattern[str]] = ()
    if _DIGIT.search(query):
        patterns = (*_named_month_patterns(), _month_with_year())
    for pattern in patterns:
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


@cache
def _month_with_year() -> re.Pattern[str]:
    """A month and its year ("November 2026", "marzo de 2026")."""
    names = sorted(month_names(), key=len, reverse=True)
    free = [name for name in names if name not in abbreviations() or name in ENGLISH]
    month = rf"({'|'.join(map(re.escape, free))})\.?"
    return re.compile(rf"(?<!\w){month},?\s+(?:de\s+)?(\d{{4}})(?!\w)", re.IGNORECASE)


def _month(name: str) -> int:
    """The number of month `name` as the query writes it; 0 (no date) for a case the table
    doesn't hold (Turkish "EKİ" lower-cases to "eki̇")."""
    return month_names().get(name.lower(), 0)
