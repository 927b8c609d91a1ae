"""A word's dictionary form (its lemma), before it is stemmed into a BM25 term.

A stemmer cuts regular endings ("planted" -> "plant") but knows nothing of irregular forms, and
journals are written in them: "Fed Gus", "met Steph", "bought the tickets", "went to Osaka",
where the question asks "when did I last *feed* Gus?", "*meet*", "*buy*", "*go*". German
("ging" / "gehen"), French ("fait" / "faire"), Spanish ("hizo" / "hacer") and Russian do the same.
simplemma's dictionaries (shipped in its wheel, 50 languages) give the lemma; a word they don't
hold (a name, an identifier, a typo) is left as it is, to be stemmed as before.

Dictionaries are read as streams (`StreamDictionaryFactory`: about 3 MB for English, 20 MB for
German, instead of 25 MB and 110 MB as Python dicts), and each word's lemma is cached.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache

from simplemma.strategies import DictionaryLookupStrategy
from simplemma.strategies.dictionaries import StreamDictionaryFactory
from simplemma.strategies.dictionaries.dictionary_factory import SUPPORTED_LANGUAGES

#: Distinct words whose lemma is kept per language (a vault's vocabulary, mostly).
CACHED_WORDS = 200_000
#: ISO 639-1 codes simplemma names otherwise (Norwegian: Bokmål's dictionary).
_NAMES = {"no": "nb"}


@cache
def lemmatizer(language: str) -> Callable[[str], str] | None:
    """The function giving a lower-case word of `language` its lower-case lemma (the word
    itself when the dictionary lacks it); None for a language simplemma has no dictionary of."""
    name = _NAMES.get(language, language)
    if name not in SUPPORTED_LANGUAGES:
        return None
    lookup = DictionaryLookupStrategy(StreamDictionaryFactory())

    @lru_cache(maxsize=CACHED_WORDS)
    def lemma(word: str) -> str:
        found = lookup.get_lemma(word, name)
        return found.lower() if found else word

    return lemma
