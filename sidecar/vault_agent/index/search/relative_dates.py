"""Days a question names relative to today: "yesterday", "last week", "diesen Monat", "上周".

A journal is asked about its days as people speak of them: "what did I do yesterday?", "who did
I meet last week?". The phrases come from CLDR's relative date fields, through Babel (the
library made for CLDR's data), in the vault's languages and English: today, yesterday and the
day before; this and last week, month and year; this and last Monday to Sunday. A weekday
alone is read where a question's tense says it is about the past, in English, German,
French, Spanish, Italian and Dutch ("what did I do on Monday?", "was habe ich am Montag
gemacht?", "qu'ai-je fait lundi ?", "¿qué hice el lunes?", "cosa ho fatto lunedì?":
the latest Monday before today): "every Monday", "on Mondays", "le lundi" or "what do I do on
Monday?" name no one day. So is a month alone ("what did I do in March?", "im März", "en
mars", "en marzo": the latest March, this one while it lasts; asked of a journal, the latest
March it holds notes of, so a journal kept until 2023 is asked about its own last March);
"in March 2024" names its year.
Only those languages: one language's word for yesterday is another's for here (French and
German "hier"). The future is left out: no note is written yet, and CLDR's "tomorrow" is also
"morning" in German ("morgen") and Spanish ("mañana"). A week runs Monday to Sunday, as ISO
8601 counts it.
"""

from __future__ import annotations

import calendar
import logging
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from typing import NamedTuple

from babel import Locale, UnknownLocaleError

from vault_agent.index.embed.terms import UNSPACED_SCRIPTS, WORD_MARKS

#: CLDR's weekday fields, Monday first (as `date.weekday()` counts).
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: CLDR's fields, and the offsets read: none in the future.
_OFFSETS = {
    "day": (0, -1, -2),
    "week": (0, -1),
    "month": (0, -1),
    "year": (0, -1),
    **{weekday: (0, -1) for weekday in WEEKDAYS},
}
#: Languages written in more than one way.
_VARIANTS = {"zh": ("zh", "zh_Hant"), "no": ("nb", "nn"), "sr": ("sr", "sr_Latn")}


class Relative(NamedTuple):
    """What a phrase names: a CLDR field ("day", "week", "mon"...) and an offset from today's;
    for "last Monday" in a language whose phrase doesn't name the week (English, German
    "letzten Montag"), also the latest Monday before today, as it is as often meant."""

    field: str
    offset: int
    latest: bool = False
    alone: str = ""
    """For a weekday or a month alone ("on Monday", "am Montag", "in March"), the language
    whose tense says the question is about the past (`_ALONE`): then it is the latest one
    (a weekday before today; a month up to this one)."""


class Alone(NamedTuple):
    """How one language writes a weekday or a month alone, and says it is in the past."""

    phrase: str
    """The phrase, around the weekday's name ("am {day}")."""
    past: re.Pattern[str]
    """Words only a question about the past holds ("did", "habe", "ai")."""
    habit: re.Pattern[str] | None = None
    """What, right before the phrase, makes it a habit ("le lundi": on Mondays)."""
    month: str = ""
    """The phrase around a month's name ("im {month}")."""


#: A weekday or a month alone is read where its tense is: "what *did* I do on Monday?", "was
#: *habe* ich am Montag gemacht?", "qu'*ai*-je fait lundi ?" ("le lundi" is every Monday),
#: "what *did* I do in March?".
_ALONE = {
    "en": Alone(
        "on {day}",
        re.compile(r"\b(?:did|was|were|had|happened|went|met)\b", re.I),
        month="in {month}",
    ),
    "de": Alone(
        "am {day}",
        re.compile(r"\b(?:habe|hast|hat|haben|hatte|hatten|war|waren)\b", re.I),
        month="im {month}",
    ),
    "fr": Alone(
        "{day}",
        re.compile(r"\b(?:ai|as|avons|avez|ont|étais|était|étaient)\b", re.I),
        re.compile(r"\b(?:le|les|chaque|tous les)\s+$", re.I),
        month="en {month}",
    ),
    # Spanish and Italian write the past with an auxiliary or a common irregular form ("qué
    # *hice* el lunes?", "cosa *ho* fatto lunedì?"); Italian "è" is also the present's "is".
    "es": Alone(
        "el {day}",
        re.compile(
            r"\b(?:he|has|ha|hemos|habéis|han|había|habías|habíamos|habían|hice|hiciste|hizo|"
            r"hicimos|fui|fuiste|fue|fuimos|estuve|estuvo|tuve|tuvo)\b",
            re.I,
        ),
        month="en {month}",
    ),
    "it": Alone(
        "{day}",
        re.compile(r"\b(?:ho|hai|ha|abbiamo|avete|hanno|sono stat[oaie]|ero|era|erano)\b", re.I),
        re.compile(r"\b(?:il|i|ogni|tutti i)\s+$", re.I),
        month="a {month}",
    ),
    "nl": Alone(
        "{day}",
        re.compile(r"\b(?:heb|hebt|heeft|hebben|had|hadden|was|waren)\b", re.I),
        re.compile(r"\b(?:elke|iedere)\s+$", re.I),
        month="in {month}",
    ),
}
#: A month alone followed by a year ("in March 2024", "en noviembre de 2024") is that year's
#: (`hints.py` reads it).
#: Matched where a month's name ends (`match(text, pos)`: no "^", which `pos` does not satisfy).
_YEAR_AFTER = re.compile(r"[\s,]*(?:(?:de|del|di|van)\s+)?\d{4}\b", re.IGNORECASE)
#: More than the longest habit's words ("tous les") before the spaces that end it.
_HABIT_CHARS = 16
#: CLDR-style fields of the months alone: "m01" to "m12".
MONTHS = tuple(f"m{number:02d}" for number in range(1, 13))
#: A day or a month without its year is looked for in a journal's notes this many years back.
YEARS_BACK = 30


def _normal(phrase: str) -> str:
    """Lower case, one space between words, a typographic apostrophe as typed ("aujourd'hui")."""
    return " ".join(phrase.replace("\u2019", "'").lower().split())


def _alone_phrases(
    language: str, names: Sequence[str], months: Sequence[str] = ()
) -> dict[str, Relative]:
    """The phrases of a weekday or a month alone in `language` (`_ALONE`), from its weekdays'
    `names`, Monday first, and its `months`' names, January first."""
    alone = _ALONE[language]
    table = {
        _normal(alone.phrase.format(day=names[number])): Relative(weekday, -1, alone=language)
        for number, weekday in enumerate(WEEKDAYS)
    }
    for number, name in enumerate(months):
        table[_normal(alone.month.format(month=name))] = Relative(
            MONTHS[number], -1, alone=language
        )
    return table


#: English, also when Babel fails (a question in English over any vault is common).
_ENGLISH = {
    "today": Relative("day", 0),
    "yesterday": Relative("day", -1),
    "this week": Relative("week", 0),
    "last week": Relative("week", -1),
    "this month": Relative("month", 0),
    "last month": Relative("month", -1),
    "this year": Relative("year", 0),
    "last year": Relative("year", -1),
    **{
        f"{which} {calendar.day_name[number].lower()}": Relative(weekday, offset, bool(offset))
        for number, weekday in enumerate(WEEKDAYS)
        for which, offset in (("this", 0), ("last", -1))
    },
    **_alone_phrases("en", list(calendar.day_name), list(calendar.month_name)[1:]),
}


log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Period:
    """Days from `first` to `last`, both included."""

    first: date
    last: date


def relative_periods(
    question: str,
    today: date,
    languages: Collection[str] = ("en",),
    has_notes: Callable[[Period], bool] | None = None,
) -> list[Period]:
    """The periods `question` names relative to `today` in one of `languages` (and English),
    in the order written; a month alone is the latest one `has_notes` says holds notes, if any
    in `YEARS_BACK` years does."""
    found = []
    phrases = _phrases(_with_english(languages))
    past: dict[Alone, bool] = {}  # each language's tense, read once per question
    for match in _pattern(_with_english(languages)).finditer(question):
        named = phrases[_normal(match.group())]
        if named.alone and not _in_past(question, match.start(), _ALONE[named.alone], past):
            continue  # "what do I do on Monday?", "le lundi": a routine, no one day
        if named.field in MONTHS and _YEAR_AFTER.match(question, match.end()):
            continue  # "in March 2024" names its year
        try:
            found += _periods(named, today, has_notes)
        except (ValueError, OverflowError):  # "last year" in year 1: off the calendar
            continue
    return found


def relative_words(question: str, languages: Collection[str] = ("en",)) -> frozenset[str]:
    """The words of the relative dates in `question` ("Last", "Week"): a date, not a name the
    notes must write."""
    found = _pattern(_with_english(languages)).finditer(question)
    return frozenset(word for match in found for word in re.findall(r"\w+", match[0]))


def without_relative_dates(question: str, languages: Collection[str] = ("en",)) -> str:
    """`question` with its relative dates blanked out: the "last" of "last week" does not ask
    for the newest note, as "when did I last..." does."""
    return _pattern(_with_english(languages)).sub(" ", question)


def _in_past(question: str, start: int, alone: Alone, past: dict[Alone, bool]) -> bool:
    """True when the weekday alone at `start` of `question` names one day of the past.
    `past` keeps whether the question is in each language's past tense: sought through the
    whole question (and the habit through all before it) for each of a run of weekdays, it
    was quadratic."""
    if alone.habit is not None:
        # The habit's words end where the spaces before `start` begin: only they are read.
        spaces = start
        while spaces > 0 and question[spaces - 1].isspace():
            spaces -= 1
        if alone.habit.search(question, max(0, spaces - _HABIT_CHARS), start):
            return False
    if alone not in past:
        past[alone] = bool(alone.past.search(question))
    return past[alone]


def month_end(day: date) -> date:
    """The last day of `day`'s month (December 9999 too: no day after it is computed)."""
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


def _with_english(languages: Collection[str]) -> frozenset[str]:
    return frozenset(languages) | {"en"}


def _periods(
    named: Relative, today: date, has_notes: Callable[[Period], bool] | None = None
) -> list[Period]:
    field, offset, latest, alone = named
    if field in MONTHS:  # "what did I do in March?": the latest March, this one if it is
        month = MONTHS.index(field) + 1
        year = today.year - (month > today.month)
        newest = _month(year, month)
        if has_notes is None:
            return [newest]
        years = range(year, max(year - YEARS_BACK, 0), -1)
        months = (_month(past, month) for past in years)
        return [next((held for held in months if has_notes(held)), newest)]
    if field not in WEEKDAYS:
        return [_period(field, offset, today)]
    weekday = WEEKDAYS.index(field)
    if alone:
        return [Period(*[today - timedelta(days=(today.weekday() - weekday) % 7 or 7)] * 2)]
    # "This Monday" is this week's, "last Monday" last week's (上周一, "måndag förra veckan"),
    # and where the phrase doesn't say which week, also the latest Monday before today.
    monday = today - timedelta(days=today.weekday())
    days = {monday + timedelta(days=weekday, weeks=offset)}
    if latest:
        days.add(today - timedelta(days=(today.weekday() - weekday) % 7 or 7))
    return [Period(day, day) for day in sorted(days)]


def _month(year: int, month: int) -> Period:
    first = date(year, month, 1)
    return Period(first, month_end(first))


def _period(field: str, offset: int, today: date) -> Period:
    if field == "day":
        day = today + timedelta(days=offset)
        return Period(day, day)
    if field == "week":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=offset)
        return Period(monday, monday + timedelta(days=6))
    if field == "month":
        first = today.replace(day=1)
        if offset:
            first = (first - timedelta(days=1)).replace(day=1)
        return Period(first, month_end(first))
    year = today.year + offset
    return Period(date(year, 1, 1), date(year, 12, 31))


@cache
def _pattern(languages: frozenset[str]) -> re.Pattern[str]:
    """Every phrase, longest first ("la semaine dernière" before a shorter one inside it); a
    phrase of a spaced script only as whole words."""
    letter = rf"[\w{WORD_MARKS}]"
    alternatives = []
    for phrase in sorted(_phrases(languages), key=len, reverse=True):
        words = (re.escape(word).replace("'", "['\u2019]") for word in phrase.split())
        written = r"\s+".join(words)
        if UNSPACED_SCRIPTS.search(phrase):
            alternatives.append(written)
        else:
            alternatives.append(rf"(?<!{letter}){written}(?!{letter})")
    return re.compile("|".join(alternatives), re.IGNORECASE)


@cache
def _phrases(languages: frozenset[str]) -> dict[str, Relative]:
    """Every phrase of `languages` (normalised) and the field and offset it names."""
    table = dict(_ENGLISH)
    for language in sorted(languages):
        table.update(_phrases_of(language))
    return table


@cache
def _phrases_of(language: str) -> dict[str, Relative]:
    """The phrases of `language` (Chinese: both scripts); none where Babel has none."""
    table: dict[str, Relative] = {}
    for locale in _VARIANTS.get(language, (language,)):
        try:
            table.update(_cldr_phrases(locale))
        except (UnknownLocaleError, KeyError, TypeError, ValueError) as error:
            # An unknown language code, or a Babel with CLDR laid out otherwise.
            log.debug("no relative dates for %s: %s", locale, error)
    return table


def _cldr_phrases(locale: str) -> dict[str, Relative]:
    # CLDR's date fields are in Babel's locale data; it formats with them but offers no
    # accessor (a Babel upgrade that moves them falls back to English, `_phrases`).
    parsed = Locale.parse(locale)
    fields = parsed._data["date_fields"]
    last_week = _normal(fields["week"]["relative"].get(-1) or "")
    table = {}
    for field, offsets in _OFFSETS.items():
        relative = fields[field]["relative"]
        for offset in offsets:
            phrase = _normal(relative.get(offset) or "")
            if phrase:
                # "上周一" holds "上周" (last week): it says which Monday; "last Monday" doesn't.
                latest = (
                    field in WEEKDAYS and offset < 0 and not (last_week and last_week in phrase)
                )
                table[phrase] = Relative(field, offset, latest)
    language = locale.split("_")[0]
    if language in _ALONE and language != "en":  # English's are in `_ENGLISH`
        days = parsed.days["format"]["wide"]
        names = [days[number] for number in range(len(WEEKDAYS))]
        wide = parsed.months["format"]["wide"]
        months = [wide[number] for number in range(1, 13)]
        for phrase, named in _alone_phrases(language, names, months).items():
            table.setdefault(phrase, named)
    return table
