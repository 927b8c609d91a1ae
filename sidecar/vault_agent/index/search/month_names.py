"""The names of the months in the languages vaults are written in, from ICU's CLDR data.

"What did I do on 5. November?", "le 5 novembre", "5 марта", "5 de noviembre": a daily note's
date lives in its file name, so a query naming a day must be read as one, in the query's
language. ICU (`icu4py`, already used for word breaks) formats a date in any locale; the month
names are read off its output: full and short, alone and inside a date, where Russian, Polish or
Czech use another case ("март" but "5 марта"). Built once, on the first query holding a digit
(about 10 ms).
"""

from __future__ import annotations

import datetime
import logging
import threading
from functools import cache

from icu4py.messageformat import MessageFormat

#: Locales whose month names are read: the languages of the multilingual encoder written with
#: a Latin or Cyrillic alphabet, and their neighbours (Chinese, Japanese and Korean write
#: months as numbers: `hints.py` reads those).
LOCALES = (
    "en", "en_GB", "de", "fr", "es", "it", "pt", "nl", "pl", "ru", "uk", "tr", "sv", "da", "nb",
)  # fmt: skip
#: ICU skeletons: full and short names, alone and in a date (the genitive, where there is one).
_SKELETONS = ("MMMM", "MMM", "dMMMM", "dMMM", "LLLL", "LLL")

#: Should ICU fail altogether, English dates are still read.
_ENGLISH_MONTHS = (
    "january february march april may june july august september october november december"
)
ENGLISH = {
    name: number
    for number, full in enumerate(_ENGLISH_MONTHS.split(), start=1)
    for name in (full, full[:3])
} | {"sept": 9}

_lock = threading.Lock()
log = logging.getLogger(__name__)


@cache
def month_names() -> dict[str, int]:
    """Every month name (lower case, no final dot) of `LOCALES`, and its number (1-12)."""
    return {name: month for name, (month, _) in name_table().items()}


@cache
def abbreviations() -> frozenset[str]:
    """The names that are only ever short forms ("févr", "out", "set"), in no locale a month's
    full name ("mai" is one in French and German)."""
    return frozenset(name for name, (_, full) in name_table().items() if not full)


@cache
def name_table() -> dict[str, tuple[int, bool]]:
    """Every month name, its number, and whether some locale writes it as a full name."""
    with _lock:
        table: dict[str, tuple[int, bool]] = {}
        for locale in LOCALES:
            try:
                found = _names_in(locale)
            except Exception as error:  # ICU without this locale's data: the others still work
                log.warning("no month names for %s: %s", locale, error)
                continue
            for name, month, full in found:
                known_month, known_full = table.get(name, (month, False))
                table[name] = (known_month, known_full or full)
        return table or {name: (month, True) for name, month in ENGLISH.items()}


def _names_in(locale: str) -> list[tuple[str, int, bool]]:
    """The month names of `locale`: each with its number and whether it is the full name."""
    found = []
    for skeleton in _SKELETONS:
        pattern = MessageFormat(f"{{day, date, ::{skeleton}}}", locale)
        full = skeleton.endswith(("MMMM", "LLLL"))
        for month in range(1, 13):
            written = pattern.format({"day": datetime.datetime(2026, month, 5)})
            name = "".join(c for c in written if not c.isdigit()).strip(" .").lower()
            # Spanish and Portuguese write "5 de marzo": the "de" is read by the pattern.
            name = name.removeprefix("de ").strip(" .")
            if name and any(c.isalpha() for c in name):
                found.append((name, month, full))
    return found
