"""The terms BM25 counts: words of any script, and the exact tokens notes are searched by.

One analyzer reads documents and queries alike, so a query term always meets the same term in
a note. It keeps what a plain word splitter loses:

- versions as one term ("2.3.1", "v2.3.1" -> "2.3.1"); a document also holds each shorter
  prefix ("2.3"), so a question about "2.3" finds the notes about "2.3.1";
- identifiers as one exact term (`registerMarkdownPostProcessor`, `app.vault.getFiles`,
  `cssclasses`, `snake_case`, `#nested/tag`) and also as their stemmed parts ("register",
  "markdown", "post", "processor"), so both the name and its words match;
- words lower-cased, stop words (function words only) dropped and Snowball-stemmed in the
  vault's language;
- Chinese, Japanese and Korean runs as overlapping character pairs (and a lone character as
  itself): those scripts write no spaces, and pairs match words without a dictionary (on the
  translated help vaults pairs beat ICU's dictionary words for zh and ja);
- symbols and emoji, each as itself (task markers like "📅" and "🔺" are searched for);
- Thai, Lao, Khmer and Myanmar runs (no spaces either, and no pairs: their letters combine
  with marks) as the words ICU's dictionary break engine finds.

A word keeps its combining marks: the vowel signs of Devanagari, Bengali, Tamil and the other
scripts of India are no word characters to a regular expression, which cut "करता" into "करत"
and "ा" (every Hindi word, at each vowel sign). Marks a question never writes (Hebrew points,
Arabic short vowels, leftover accents) are dropped instead.

Terms are hashed (murmur3) to sparse-vector indices, as fastembed's BM25 does.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache

import mmh3
from icu4py.breakers import WordBreaker
from icu4py.locale import Locale
from py_rust_stemmers import SnowballStemmer  # type: ignore[import-untyped]
from stop_words import get_stop_words
from stopwords import LanguageNotAvailable, get_stopwords

#: Languages with a Snowball stemmer (and stop words); other languages are only lower-cased.
STEMMED_LANGUAGES = {
    "ar": "arabic", "da": "danish", "de": "german", "el": "greek", "en": "english",
    "es": "spanish", "fi": "finnish", "fr": "french", "hu": "hungarian", "it": "italian",
    "nl": "dutch", "no": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sv": "swedish", "ta": "tamil", "tr": "turkish",
}  # fmt: skip
#: Terms longer than this are noise (hashes, base64, minified code): left out.
MAX_TERM_CHARS = 40

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u3131-\u318e"
#: Thai, Lao, Myanmar, Khmer: letters and their combining marks.
_UNSPACED = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
#: A character of a script written without spaces between words (Chinese, Japanese, Korean,
#: Thai and its neighbours): a word or phrase holding one sits inside others, not apart.
UNSPACED_SCRIPTS = re.compile(f"[{_CJK}{_UNSPACED}]")
#: Arrows, technical signs, shapes, dingbats and emoji: each one a term (notes use them as
#: markers: a task's "🔺" priority, "📅" due date, "⏩" in a plugin's docs).
_SYMBOLS = "\u2190-\u21ff\u2300-\u23ff\u25a0-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff"


#: Marks a query never writes, dropped before words are read: accents left over after NFKC
#: (a Russian dictionary's stress mark in "бо́льше"), Hebrew's vowel points and cantillation
#: and Arabic's short vowels (a learner's or a scripture's text writes them, everyday text and
#: questions do not: "שָׁלוֹם" is searched as "שלום"), and emoji variation selectors.
_STRIPPED = re.compile(
    "[\u0300-\u036f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u064b-\u065f"
    "\u0670\ufe00-\ufe0f]"
)
#: Marks for Latin letters and symbols, left to split words as before (no script needs them).
_LATIN_MARKS = "\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\U000e0100-\U000e01ef"
_NOT_LETTERS = re.compile(f"[{_CJK}{_UNSPACED}{_LATIN_MARKS}]")


def _combining_marks() -> str:
    """Unicode's combining marks (categories Mn, Mc, Me) that are part of a script's words,
    as the inside of a character class, from Python's Unicode database."""
    ranges: list[tuple[int, int]] = []
    for code in range(0x20000):
        char = chr(code)
        if unicodedata.category(char) in ("Mn", "Mc", "Me") and not _NOT_LETTERS.match(char):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(f"\\U{start:08x}-\\U{end:08x}" for start, end in ranges)


#: The combining marks that belong to words (the inside of a character class): a regular
#: expression's `\\w` lacks them, so a word boundary must add them.
WORD_MARKS = _combining_marks()
#: What a word starts with (a word character, no CJK, no Thai and kin), and what it goes on
#: with: those, or a combining mark of its script.
_START = f"[^\\W{_CJK}{_UNSPACED}]"
_LETTER = f"(?:{_START}|[{WORD_MARKS}])"
_TOKEN = re.compile(
    rf"(?P<version>\bv?\d+(?:\.\d+){{1,3}}\b)"
    rf"|(?P<cjk>[{_CJK}]+)"
    rf"|(?P<unspaced>[{_UNSPACED}]+)"
    rf"|(?P<symbol>[{_SYMBOLS}])"
    # An identifier: word characters joined by . _ - / # or with an inner capital.
    rf"|(?P<word>#?{_START}{_LETTER}*(?:[._/#-]{_START}{_LETTER}*)*)",
    re.UNICODE,
)
_ROOT = Locale("en")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_JOINERS = re.compile(r"[._/#-]+")


class Analyzer:
    """Text to BM25 terms for one language (an ISO 639-1 code, e.g. "en", "de", "zh")."""

    def __init__(self, language: str = "en") -> None:
        self.language = language
        name = STEMMED_LANGUAGES.get(language)
        self._stemmer = SnowballStemmer(name) if name else None
        self._stop_words = function_words(language)
        self._weak_words = _weak_words(language)

    def is_weak(self, term: str) -> bool:
        """True for a term of a generic word ("get", "list", "first", "show"): kept, since
        people do search by it, but a query weighs it less than the words it is about."""
        return term in self._weak_words

    def subject_terms(self, text: str, *, query: bool = False) -> list[str]:
        """The terms of `text` without generic words: what it is about."""
        return [term for term in self.terms(text, query=query) if not self.is_weak(term)]

    def terms(self, text: str, *, query: bool = False) -> list[str]:
        """The terms of `text`, in order (a query's are the same, without version prefixes)."""
        return list(self._terms(_STRIPPED.sub("", unicodedata.normalize("NFKC", text)), query))

    def _terms(self, text: str, query: bool) -> Iterator[str]:
        for match in _TOKEN.finditer(text):
            kind = match.lastgroup
            token = match.group()
            if kind == "version":
                version = token.lstrip("vV")
                yield version
                if not query:
                    parts = version.split(".")
                    yield from (".".join(parts[:n]) for n in range(2, len(parts)))
            elif kind == "cjk":
                yield from _pairs(token)
            elif kind == "symbol":
                yield token
            elif kind == "unspaced":
                # ICU picks its dictionary by script, so the locale does not matter here.
                yield from (w for w in WordBreaker(token, _ROOT) if w not in self._stop_words)
            else:
                yield from self._word_terms(token)

    def _word_terms(self, token: str) -> Iterator[str]:
        parts = [p for p in _JOINERS.split(token) if p]
        # camelCase is split in ASCII identifiers only: other scripts' capitals are words'.
        split = [_CAMEL.findall(part) if part.isascii() else [part] for part in parts]
        words = [word for part_words in split for word in part_words]
        whole = token.lower().lstrip("#")
        if len(words) > 1 and len(whole) <= MAX_TERM_CHARS:
            yield whole  # the identifier itself, exactly
        if len(parts) > 1:
            # Each joined part that is an identifier of its own ("getFiles" of
            # `app.vault.getFiles`, "gp5" of `gtp/gp/gp5`): what a query naming it alone holds.
            for part, part_words in zip(parts, split, strict=True):
                if len(part_words) > 1 and len(part) <= MAX_TERM_CHARS:
                    yield part.lower()
        for word in words:
            lower = word.lower()
            if lower in self._stop_words or len(lower) > MAX_TERM_CHARS:
                continue
            yield self._stemmer.stem_word(lower) if self._stemmer else lower


def term_id(term: str) -> int:
    """A term's index in the sparse vector."""
    return abs(mmh3.hash(term))


def _pairs(run: str) -> Iterator[str]:
    if len(run) == 1:
        yield run
        return
    for start in range(len(run) - 1):
        yield run[start : start + 2]


#: Words asking for an account of a subject, not naming one: "*summarize* my notes on the
#: Kyoto trip", "an *overview* of Tidepool", "what did I *write* about Maya?" ask about the
#: trip, Tidepool, Maya. The generic-word lists lack them. Writing only in English: Spanish
#: "escribiendo su nombre" is typing a note's name, which the Quick Switcher's help says
#: (the Spanish dev set lost a rank with it, every English set unchanged).
ACCOUNT_WORDS = {
    "en": "summarize summarise summary summaries overview recap write wrote written",
    "de": "zusammenfassen zusammenfassung überblick",
    "fr": "résumer résume résumé aperçu",
    "es": "resumir resume resumen",
    "it": "riassumere riassunto panoramica",
    "pt": "resumir resumo",
    "nl": "samenvatten samenvatting overzicht",
    "ru": "резюме обзор",
}


@cache
def _weak_words(language: str) -> frozenset[str]:
    """The stems of the long generic-word list (`stop-words`, 1,300 words in English), the
    function words excepted (those are dropped), and of the words asking for an account
    (`ACCOUNT_WORDS`)."""
    try:
        words = set(get_stop_words(language)) - function_words(language)
    except Exception:  # the package has no list for this language
        words = set()
    words |= set(ACCOUNT_WORDS.get(language, "").split())
    if not words:
        return frozenset()
    name = STEMMED_LANGUAGES.get(language)
    stemmer = SnowballStemmer(name) if name else None
    return frozenset(stemmer.stem_word(w) if stemmer else w for w in words)


@cache
def function_words(language: str) -> frozenset[str]:
    """The function words of `language` (lower case): words never worth matching alone."""
    # Short lists of function words (English: Snowball's 175). A long list drops words people
    # search by: the 1,300-word list used before held "first", "date", "buy", "fix", "things"
    # and "computer", so "the very first release" searched for "release" alone. Its other
    # words are kept as weak terms (`_weak_words`); a stop word is one never worth matching.
    try:
        return frozenset(get_stopwords(language))
    except LanguageNotAvailable:
        return frozenset()
