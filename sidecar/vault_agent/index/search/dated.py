"""The notes of the days a query names: which to search, and which days no note has.

In a journal of hundreds of daily notes alike in words, "what did I do on 3 June 2023?" or
"who did I meet last week?" names its notes by their date, which their text does not hold: a
search over the whole vault may not even fetch them as candidates, for the date boost to lift.
So each period the query names is also searched on its own, filtered to the notes dated in it
(`Searcher.retrieve` merges what that finds). A day without its year ("5 March") is searched
in the years that have a note of that day, newest first. The notes of a day or a week named
come before all others: the question is about them. A month or a year is a looser frame ("my
goals for this year" may be in an undated note), whose notes are only boosted.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from vault_agent.index.embed.terms import term_id
from vault_agent.index.search.hints import QueryHints, any_year, span
from vault_agent.index.search.relative_dates import YEARS_BACK, Period
from vault_agent.index.store.protocol import SearchFilter, SparseVector, Store, VectorQuery

#: At most this many periods are searched on their own for one query (the newest).
DATED_PERIODS = 6
#: At most this many of the dates a query names are looked up (the newest): a question
#: listing hundreds costs no more than one naming a dozen.
LOOKED_UP = 12
#: A period this long or shorter (a day, a week) is what a question is about.
FEW_DAYS = 7
#: The year a day without its own is measured in (it has 29 February).
LEAP_YEAR = 2000


def dated_filters(
    hints: QueryHints, store: Store, search_filter: SearchFilter | None, today: date
) -> list[SearchFilter]:
    """`search_filter` narrowed to each period `hints` names that has a dated note, newest
    first; none when the filter already bounds the dates, or no note is dated."""
    base = search_filter or SearchFilter()
    if not hints.dates or base.date_from or base.date_to or not _dates_notes(store):
        return []
    periods: list[Period] = []
    for wanted in _newest(hints.dates):
        if any_year(wanted):
            years = range(today.year + 1, today.year - YEARS_BACK, -1)  # and next year
            periods += [period for year in years if (period := span(wanted, year))]
        elif period := span(wanted):
            periods.append(period)
    filters = []
    for period in sorted(set(periods), key=lambda period: period.last, reverse=True):
        narrowed = _narrowed(base, period)
        if store.count(narrowed):
            filters.append(narrowed)
        if len(filters) == DATED_PERIODS:
            break
    return filters


def missing_dates(
    hints: QueryHints, store: Store, search_filter: SearchFilter | None, today: date
) -> tuple[str, ...]:
    """The past periods (with a year) the query names that no note is dated in, nor titled
    with or writes (for a day): "my daily note on 5 October 2023" when there is none. A period
    not over yet ("today", "this week") may have no note so far. In a vault that dates no note
    (documentation), a date is what the question is about, not a note it names: "a note
    created at 09:45 on 1 January 2024" is an example."""
    if not hints.dates or not _dates_notes(store):
        return ()
    missing = []
    for wanted in sorted(_newest(hints.dates)):
        period = span(wanted)
        if period is None or period.last >= today:
            continue
        if store.count(_narrowed(search_filter or SearchFilter(), period)):
            continue
        if period.first == period.last:
            # "2023-10-05" is one term wherever it is written (a title, a line of a note).
            day = period.first.isoformat()
            written = VectorQuery(SparseVector(indices=[term_id(day)], values=[1.0]), 1)
            if store.ranked([written], search_filter)[0]:
                continue
        missing.append(wanted)
    return tuple(missing)


def few_days(hints: QueryHints) -> QueryHints:
    """The dates of `hints` that are a day or a week (a day without its year is one)."""
    periods = ((wanted, span(wanted, LEAP_YEAR)) for wanted in hints.dates)
    return QueryHints(
        dates=frozenset(
            wanted
            for wanted, period in periods
            if period and (period.last - period.first).days < FEW_DAYS
        )
    )


def _newest(dates: frozenset[str]) -> list[str]:
    """The `LOOKED_UP` newest of `dates` (one without its year counts as the newest)."""
    return sorted(dates, key=lambda wanted: (any_year(wanted), wanted), reverse=True)[:LOOKED_UP]


def dated_in(store: Store) -> Callable[[Period], bool]:
    """Whether `store` holds a note dated in a period (asked only of a month named alone,
    "what did I do in March?": the latest March a journal has notes of)."""
    return lambda period: bool(store.count(_narrowed(SearchFilter(), period)))


def _dates_notes(store: Store) -> bool:
    return bool(store.count(SearchFilter(date_from=date.min)))


def _narrowed(search_filter: SearchFilter, period: Period) -> SearchFilter:
    return search_filter.model_copy(update={"date_from": period.first, "date_to": period.last})
