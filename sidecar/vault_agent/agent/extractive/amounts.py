"""Whether a sentence states an amount: a number in digits, or written as a word.

A question asking how much, how many or how long is answered by a sentence holding a number
(`answerer.py` says "not covered" when nothing found holds one). Digits are the common case;
a journal writes numbers as words as often ("picked about two kilos", "fjorton grader",
"mười hai tiếng"). The words come from ICU's spell-out rules (CLDR data, through `icu4py`,
already used for word breaks and month names), for the languages a vault is written in: two to
twenty, the tens, a hundred and a thousand. One is left out: in most languages it is also the
article ("un", "ett", "ein"), as are spelled-out words of two letters or fewer (Vietnamese "ba",
three, is also "dad"), and the numerals of scripts written without spaces, which sit inside
other words (Thai "สาม", three, begins "สามารถ", can; Japanese "十分" is "enough").

Asked how often, a routine written without a number answers too: "once a day", "every
morning", "wöchentlich", "每天" (`FREQUENCY`, a table per language like the question words').
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection
from functools import cache

from icu4py.locale import Locale
from icu4py.messageformat import MessageFormat

from vault_agent.agent.extractive.question_words import UNSPACED, compiled
from vault_agent.index.embed.terms import UNSPACED_SCRIPTS, WORD_MARKS

log = logging.getLogger(__name__)

ISO_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
#: A number standing as one: digits no Latin, Greek or Cyrillic letter runs into. "tt0083658",
#: "sha256", "H1" and "mp3" name things; "425F", "3 kg", "約3時間" and "$5" count them.
_NUMBER = re.compile(r"(?<![A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff\d])\d")
#: A release's number: three parts ("7.20.0"), or "v" and two or more ("v1.4").
_RELEASE = re.compile(r"\bv\d+(?:\.\d+)+\b|\b\d+\.\d+\.\d+\b", re.IGNORECASE)
#: Nine digits or more in one unbroken run name a thing (an ISBN, a phone or an account
#: number): an amount that large is written with separators or in words. "How long is the
#: book?" is answered by its `pages: 528`, not its `isbn: 201483408`.
_LONG_DIGITS = re.compile(r"(?<!\d)\d{9,}(?!\d)")
#: Money: a currency's sign or code beside a number ("640 €", "$25", "EUR 40"), a currency
#: named after a number ("40 dollars"), or what costs nothing ("free"). A number is read from
#: its first digit only: read from each digit of a run, 8,000 digits took 4.7 s.
_CURRENCY = r"[$€£¥₹₽₩]|\b(?:USD|EUR|GBP|JPY|CNY|RMB|RUB|INR|CHF|CAD|AUD)\b"
_MONEY = re.compile(
    rf"(?:{_CURRENCY})\s?\d|(?<![\d.,])[.,]?\d[\d.,]*\s?(?:{_CURRENCY}|(?:dollars?|euros?|pounds?|yen|yuan|"
    r"rupees?|francs?|Euro|евро|рубл\w*|доллар\w*|円|元|원)\b)|"
    r"\b(?:free|gratis|gratuit\w*|kostenlos|gratuito|бесплатн\w*)\b|無料|免费|免費",
    re.IGNORECASE,
)
#: The numbers spelled out: two to twenty, the tens, a hundred, a thousand.
SPELLED = (*range(2, 21), *range(30, 100, 10), 100, 1000)
#: A spelled-out number this short is too often another word.
_SHORTEST = 3
_SOFT_HYPHEN = "\u00ad"
#: How often, in words: "once a day", "every morning", "weekly".
FREQUENCY = {
    "en": r"once|twice|thrice|daily|weekly|fortnightly|monthly|yearly|annually|hourly|"
    r"nightly|every|each (?:day|week|month|year|morning|evening|night)",
    "de": r"einmal|zweimal|dreimal|täglich|wöchentlich|monatlich|jährlich|stündlich|"
    r"jede[nmrs]?|pro (?:Tag|Woche|Monat|Jahr)",
    "fr": r"une fois|deux fois|trois fois|quotidien\w*|hebdomadaire\w*|mensuel\w*|annuel\w*|"
    r"chaque|tous les|toutes les|par (?:jour|semaine|mois|an)",
    "es": r"una vez|dos veces|tres veces|diari\w*|semanal\w*|mensual\w*|anual\w*|cada|"
    r"todos los|todas las|al (?:día|mes|año)|a la semana",
    "it": r"una volta|due volte|tre volte|ogni|quotidian\w*|settimanal\w*|mensil\w*|"
    r"al giorno|alla settimana|al mese|all'anno",
    "pt": r"uma vez|duas vezes|três vezes|diári\w*|semanal\w*|mensal\w*|anual\w*|cada|"
    r"todos os|todas as|por (?:dia|semana|mês|ano)",
    "nl": r"eenmaal|eens per|tweemaal|dagelijks|wekelijks|maandelijks|jaarlijks|elke|iedere|"
    r"per (?:dag|week|maand|jaar)",
    "pl": r"raz|dwa razy|trzy razy|codziennie|co (?:tydzień|miesiąc|rok|dzień)|każd\w*",
    "tr": r"günde|haftada|ayda|yılda|her (?:gün|hafta|ay|yıl|sabah|akşam)",
    "ru": r"раз в|дважды|трижды|ежедневно|еженедельно|ежемесячно|ежегодно|кажд\w*",
    "vi": r"mỗi|hằng ngày|hàng ngày|hằng tuần|hàng tuần|hàng tháng|một lần|hai lần",
    "id": r"sekali|dua kali|setiap|tiap|harian|mingguan|bulanan|tahunan",
    "sv": r"en gång|två gånger|dagligen|varje|per (?:dag|vecka|månad|år)|i veckan|om dagen",
    "da": r"en gang|to gange|dagligt?|hver|om (?:dagen|ugen|måneden|året)",
    "nb": r"en gang|to ganger|daglig|hver|om dagen|i uka|i uken|i måneden|i året",
    UNSPACED: r"每天|每日|每周|每週|每月|每年|毎日|毎週|毎月|毎年|매일|매주|매달|매년|ทุกวัน|ทุกสัปดาห์",
}


def holds_money(text: str) -> bool:
    """True when `text` states a price: money in a currency, or that it is free."""
    return bool(_MONEY.search(text))


def holds_amount(text: str, languages: Collection[str] = ("en",), often: bool = False) -> bool:
    """True when `text` writes a number other than a calendar date, a release or an
    identifier ("published: 2021-04-15" says when, "introduced in Tasks 7.20.0" in which
    version, "isbn13: 9780201483406" which book, none how much),
    in digits or as a word of one of `languages`; with `often`, also how often, in words."""
    if _NUMBER.search(_LONG_DIGITS.sub(" ", _RELEASE.sub(" ", ISO_DATE.sub(" ", text)))):
        return True
    if often and _FREQUENCY_WORDS.search(text):
        return True
    words = number_words(frozenset(languages))
    return words is not None and words.search(text) is not None


_FREQUENCY_WORDS = compiled(FREQUENCY)


@cache
def number_words(languages: frozenset[str]) -> re.Pattern[str] | None:
    """One case-insensitive pattern matching a spelled-out number of any of `languages` as
    whole words; None when ICU spells none."""
    words = {word for language in languages for word in _spelled(language)}
    if not words:
        return None
    letter = rf"[\w{WORD_MARKS}]"
    # Longest first: "mười hai" before "hai".
    spelled = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!{letter})(?:{spelled})(?!{letter})", re.IGNORECASE)


def _spelled(language: str) -> set[str]:
    """The numbers of `SPELLED` as `language` writes them in words (lower case)."""
    try:
        spell = MessageFormat("{n, spellout}", Locale(language))
        words = {spell.format({"n": n}).replace(_SOFT_HYPHEN, "").lower() for n in SPELLED}
    except Exception as error:  # an unknown locale, or ICU itself failing
        log.debug("no number words for %r: %s", language, error)
        return set()
    # ICU falls back to digits where it has no rules for a language.
    return {
        word
        for word in words
        if len(word) >= _SHORTEST
        and not any(char.isdigit() for char in word)
        and not UNSPACED_SCRIPTS.search(word)
    }
