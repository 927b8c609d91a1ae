"""Does a query name a note? Its title or one of its aliases, written inside the question.

"On what date did I clip the 'Buy wisely' article?" or "with the Things theme, which character
gives the fire status?" name the note they are about. BM25 sees the title's words like any
others, spread over notes that use them too, and the dense side sees a sentence about dates or
characters: the named note can fall below notes that merely talk alike. A title is the one
phrase its author chose to tell this note from the rest, so a query holding it is evidence
that this note is wanted.

A note is named when its title's (or an alias's) terms appear in the query's terms in the same
order, side by side: "the Things theme" holds "Things Theme" (both analyse to `thing theme`);
"Theme - ITS Theme" is not named by it. Terms are the BM25 analyzer's (stemmed, stop words
out, CJK character pairs), so case, plural and inflection don't matter and every language the
analyzer reads works alike. A one-term title ("Canvas") says less than a phrase, so it earns a
smaller boost. Measured in docs/retrieval.md (`eval --mode hybrid-no-titles`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache

from vault_agent.index.embed.terms import Analyzer
from vault_agent.index.store.protocol import ChunkPayload

#: Score multiplier for a note whose title (or alias) of two or more terms the query holds.
PHRASE_BOOST = 1.5
#: ... whose one-term title the query holds.
WORD_BOOST = 1.2
#: Distinct titles whose terms are remembered (a title is analysed once per searcher).
TITLE_CACHE = 16_384


class TitleMatcher:
    """Which notes a query names, for one analyzer."""

    def __init__(self, analyzer: Analyzer) -> None:
        self._terms = lru_cache(maxsize=TITLE_CACHE)(self._analyse)
        self._analyzer = analyzer

    def boost(self, query_terms: Sequence[str], payload: ChunkPayload) -> float:
        """The multiplier the chunk's note earns because `query_terms` name it (1.0: not
        named)."""
        best = 1.0
        for name in (payload.title, *payload.aliases):
            terms = self._terms(name)
            if terms and _contains(query_terms, terms):
                best = max(best, PHRASE_BOOST if len(terms) > 1 else WORD_BOOST)
        return best

    def named_as(self, names: Collection[str], payload: ChunkPayload) -> bool:
        """True when one of `names` (a query's names, analysed) is the note's one-term title
        or alias ("Tomás"): written as a name, one word says which note, as a phrase does."""
        return any(
            len(terms) == 1 and terms[0] in names
            for terms in map(self._terms, (payload.title, *payload.aliases))
        )

    def _analyse(self, name: str) -> tuple[str, ...]:
        return tuple(self._analyzer.terms(name, query=True))


def _contains(text: Sequence[str], phrase: Sequence[str]) -> bool:
    """True when `phrase` occurs in `text` as consecutive items."""
    size, wanted = len(phrase), tuple(phrase)
    return any(tuple(text[start : start + size]) == wanted for start in range(len(text) - size + 1))
