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
import threading
from functools import cache

from icu4py.messageformat import MessageFormat

#: Locales whose month names are read: the languages of the multilingual encoder written with
#: a Latin or Cyrillic alphabet, and their neighbours (Chinese, Japanese and Korean write
#: months as numbers: `hints.py` reads those).
LOCALES = (
    "en",
    "en_GB",
    "de",
    "fr",
    "es",
    "it",
    "pt",
    "nl",
    "pl",
    "ru",
    "uk",
    "tr",
    "sv",
    "da",
    "nb",
)
#: ICU skeletons: full and short names, alone and in a date (the genitive, where there is one).
_SKELETONS = ("MMMM", "MMM", "dMMMM", "dMMM", "LLLL", "LLL")

_lock = threading.Lock()


@cache
def month_names() -> dict[str, int]:
    """Every month name (lower case, no final dot) of `LOCALES`, and its number (1-12)."""
    with _lock:
        names: dict[str, int] = {}
        for locale in LOCALES:
            for skeleton in _SKELETONS:
                pattern = MessageFormat(f"{{day, date, ::{skeleton}}}", locale)
                for month in range(1, 13):
                    written = pattern.format({"day": datetime.datetime(2026, month, 5)})
                    name = "".join(c for c in written if not c.isdigit()).strip(" .").lower()
                    # Spanish and Portuguese write "5 de marzo": the "de" is read by the pattern.
                    name = name.removeprefix("de ").strip(" .")
                    if name and any(c.isalpha() for c in name):
                        names.setdefault(name, month)
        return names
