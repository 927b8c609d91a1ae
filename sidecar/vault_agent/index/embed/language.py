"""Which language a text is written in: a note's (to choose the vault's models) and a query's
(to know when keyword search compares words of two languages).

`py3langid` (a maintained langid.py, its model shipped in the package) names 97 languages.
Notes give it enough text to be right; queries are short, so a query's language is chosen
only among the languages people write vaults in here (those the multilingual encoder reads,
and the vault's own), and only when it is sure: on the 447 questions of our question sets in
seven languages that rule was never wrong and undecided on 4 (docs/multilingual.md).
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache
from pathlib import Path

import platformdirs
from py3langid.langid import LanguageIdentifier  # type: ignore[import-untyped]

from vault_agent.config import APP_NAME
from vault_agent.index.embed.langid_model import load_identifier

#: The languages a query may be in: those the multilingual encoder reads.
QUERY_LANGUAGES = frozenset(
    {"ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh"}
)
#: A query's language is named only above this probability (among the candidate languages).
QUERY_CONFIDENCE = 0.8


def text_language(text: str) -> str:
    """The language `text` is most likely written in (ISO 639-1), among all 97 known."""
    language, _ = _full().classify(text)
    return str(language)


def query_language(query: str, vault_languages: Collection[str] = ()) -> str | None:
    """The language of a (short) query, or None when that is not clear."""
    candidates = QUERY_LANGUAGES | frozenset(vault_languages)
    # The full model's probabilities, renormalised over the candidates, are exactly those of a
    # model restricted to them (a softmax over a subset of the scores), without copying the
    # candidates' columns out of the 28 MB table: that copy read all of it, 12 ms of every
    # cold search.
    ranked = [(language, p) for language, p in _full().rank(query) if language in candidates]
    total = sum(p for _, p in ranked)
    if not ranked or total <= 0.0:  # no candidate has any weight: not one of theirs
        return None
    language, probability = ranked[0]
    return str(language) if probability / total >= QUERY_CONFIDENCE else None


@cache
def _full() -> LanguageIdentifier:
    return load_identifier(Path(platformdirs.user_cache_dir(APP_NAME)) / "models")
