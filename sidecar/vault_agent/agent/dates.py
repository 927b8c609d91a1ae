"""Dates as models write them: "2023-10-05", "Oct 5 2023", "yesterday", "last week", "March 2023".

:func:`parse_period` reads one such text as the period it names, first and last day included
(a day is a one-day period; "last week" the Monday to Sunday before this week; "2023-10" the
month). A date argument takes the period's first day when it starts a range (``date_from``)
and its last day when it ends one (``date_to``), so "date_from: March 2023, date_to: March 2023"
is the whole month. Relative words count from ``today`` (the tools' today). Written here
rather than taken from a date-parsing library: these few forms are what tool calls contain,
and none of the sidecar's dependencies reads "last week".
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

Period = tuple[date, date]

_MONTHS = {
    name.lower(): number
    for number in range(1, 13)
    for name in (calendar.month_name[number], calendar.month_abbr[number])
}
_MONTHS["sept"] = 9
_WEEKDAYS = {name.lower(): number for number, name in enumerate(calendar.day_name)}
_UNITS = {"day": 1, "week": 7}
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"


def parse_period(text: str, today: date) -> Period | None:
    """The days ``text`` names, as (first, last); None when it is not a date this reads."""
    s = " ".join(text.strip().lower().replace(",", " ").split())
    if not s:
        return None
    for reader in (_iso, _relative, _named_period, _month_day_year, _numeric):
        try:
            period = reader(s, today)
        except (ValueError, OverflowError):  # "99999 years ago": before year 1
            return None
        if period is not None:
            return period
    return None


def _iso(s: str, today: date) -> Period | None:
    match = re.fullmatch(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[t ][\d:.]+z?)?", s)
    if match:
        return _day(int(match[1]), int(match[2]), int(match[3]))
    match = re.fullmatch(r"(\d{4})[-/](\d{1,2})", s)
    if match:
        return _month(int(match[1]), int(match[2]))
    if re.fullmatch(r"\d{4}", s) and 1900 <= int(s) <= 9999:
        return date(int(s), 1, 1), date(int(s), 12, 31)
    return None


def _relative(s: str, today: date) -> Period | None:
    words = {"today": 0, "now": 0, "yesterday": 1, "tomorrow": -1}
    if s in words:
        day = today - timedelta(days=words[s])
        return day, day
    match = re.fullmatch(r"(\d+|[a-z]+) (day|week|month|year)s? ago", s)
    if match:
        count = int(match[1]) if match[1].isdigit() else _NUMBER_WORDS.get(match[1])
        if count is None:
            return None
        day = _back(today, count, match[2])
        return day, day
    match = re.fullmatch(r"(last |this |past )?(" + "|".join(_WEEKDAYS) + ")", s)
    if match:
        back = (today.weekday() - _WEEKDAYS[match[2]]) % 7
        if match[1] == "last " and back == 0:
            back = 7
        day = today - timedelta(days=back)
        return day, day
    return None


def _named_period(s: str, today: date) -> Period | None:
    match = re.fullmatch(r"(this|last|past|previous) (week|month|year)", s)
    if match is None:
        return None
    last = match[1] != "this"
    if match[2] == "week":
        monday = today - timedelta(days=today.weekday() + (7 if last else 0))
        return monday, monday + timedelta(days=6)
    if match[2] == "month":
        year, month = (today.year, today.month)
        if last:
            year, month = (year - 1, 12) if month == 1 else (year, month - 1)
        return _month(year, month)
    year = today.year - (1 if last else 0)
    return date(year, 1, 1), date(year, 12, 31)


def _month_day_year(s: str, today: date) -> Period | None:
    """ "oct 5 2023", "october 5th 2023", "5 oct 2023", "october 2023", "oct 5"."""
    for pattern, order in (
        (rf"({_MONTH})\.? {_DAY}(?: (\d{{4}}))?", "mdy"),
        (rf"{_DAY} (?:of )?({_MONTH})\.?(?: (\d{{4}}))?", "dmy"),
        (rf"({_MONTH})\.?(?: of)? (\d{{4}})", "my"),
        (rf"({_MONTH})", "m"),
    ):
        match = re.fullmatch(pattern, s)
        if match is None:
            continue
        if order == "my":
            return _month(int(match[2]), _MONTHS[match[1]])
        if order == "m":
            return _latest_month(_MONTHS[match[1]], today)
        month_name, day = (match[1], match[2]) if order == "mdy" else (match[2], match[1])
        month = _MONTHS[month_name]
        if match[3]:
            return _day(int(match[3]), month, int(day))
        return _latest_day(month, int(day), today)
    return None


def _numeric(s: str, today: date) -> Period | None:
    """ "25/10/2023" or "10/25/2023": only when the day and month can't be swapped."""
    match = re.fullmatch(r"(\d{1,2})[/.](\d{1,2})[/.](\d{4})", s)
    if match is None:
        return None
    first, second, year = int(match[1]), int(match[2]), int(match[3])
    if first > 12 >= second:
        return _day(year, second, first)
    if second > 12 >= first:
        return _day(year, first, second)
    if first == second:
        return _day(year, first, first)
    return None  # 05/10/2023: May or October? Ambiguous: ask for YYYY-MM-DD


def _day(year: int, month: int, day: int) -> Period | None:
    try:
        found = date(year, month, day)
    except ValueError:
        return None
    return found, found


def _month(year: int, month: int) -> Period | None:
    if not (1 <= month <= 12 and 1 <= year <= 9999):
        return None
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _latest_day(month: int, day: int, today: date) -> Period | None:
    """ "Oct 5" without a year: the last Oct 5 on or before today."""
    this_year = _day(today.year, month, day)
    if this_year is not None and this_year[0] <= today:
        return this_year
    return _day(today.year - 1, month, day)


def _latest_month(month: int, today: date) -> Period | None:
    """ "October" without a year: the last October that has begun."""
    return _month(today.year if month <= today.month else today.year - 1, month)


def _back(today: date, count: int, unit: str) -> date:
    if unit in _UNITS:
        return today - timedelta(days=count * _UNITS[unit])
    months = count * (12 if unit == "year" else 1)
    year, month = divmod(today.year * 12 + today.month - 1 - months, 12)
    month += 1
    return date(year, month, min(today.day, calendar.monthrange(year, month)[1]))


def as_day(value: object, today: date, *, end: bool) -> object:
    """``value`` as a date when it is a text this reads; the period's last day when ``end``.

    Anything else (a date already, a text this doesn't read) is returned unchanged, for the
    argument's own validation to accept or explain.
    """
    if isinstance(value, datetime):
        return value.date()
    if not isinstance(value, str):
        return value
    period = parse_period(value, today)
    if period is None:
        return value
    return period[1] if end else period[0]
