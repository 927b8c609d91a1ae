"""Sparse BM25 term vectors: the term-frequency half of BM25, computed here.

A document's vector holds, per term (`terms.py`), tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| /
avg_len)); a query's holds 1 per term. Qdrant applies IDF over the collection (the sparse
vector is created with the IDF modifier), so adding notes never requires re-encoding old ones.
k1, b and avg_len are fastembed's `Qdrant/bm25` defaults, measured against other values in
docs/retrieval.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence

from vault_agent.index.embed.language import query_language
from vault_agent.index.embed.names import names_in
from vault_agent.index.embed.terms import Analyzer, term_id
from vault_agent.index.store.protocol import SparseVector

K1 = 1.2
B = 0.75
AVG_LEN = 256.0
#: A generic word's weight in a query ("how do I get a list of ..."): questions are full of
#: them, and at full weight they rank notes that share the question's phrasing, not its subject.
WEAK_TERM = 0.3
#: Bump when the terms change: stored chunks record it, and another version is re-indexed.
#: 4: a word keeps its combining marks (Hindi was cut at every vowel sign), and each part of a
#: joined identifier that is one itself is a term ("gp5" of `gtp/gp/gp5`).
VERSION = 4


class Bm25Encoder:
    """Encodes passages and queries as BM25 sparse vectors, for notes in `language` (and
    the other `languages` a vault's notes are written in, which are not stemmed)."""

    def __init__(self, language: str = "en", languages: Collection[str] = ()) -> None:
        self.analyzer = Analyzer(language)
        self.languages = frozenset(languages) | {language}
        self.name = f"bm25-{language}-v{VERSION}"

    def foreign_language(self, query: str) -> str | None:
        """The language of `query` when it is clearly one the notes are not written in (then
        its words can't match theirs, only its names can: `embed_names`), else None."""
        language = query_language(query, self.languages)
        return language if language is not None and language not in self.languages else None

    def question_languages(self, query: str) -> frozenset[str]:
        """The languages `query`'s words may be read in: the notes', and its own when it is
        written in another."""
        foreign = self.foreign_language(query)
        return self.languages | {foreign} if foreign else self.languages

    def embed_names(self, query: str, language: str) -> SparseVector:
        """The names, identifiers and quoted phrases of `query`, written in `language`."""
        return self.embed_query(" ".join(names_in(query, language)))

    def embed_documents(self, texts: Sequence[str]) -> list[SparseVector]:
        """BM25 term weights for each passage, in input order."""
        return [self._document(text) for text in texts]

    def embed_query(self, text: str) -> SparseVector:
        """Query terms, each weighted 1, a generic word's `WEAK_TERM` (Qdrant's IDF modifier
        supplies the rest)."""
        weights: dict[int, float] = {}
        for term in self.analyzer.terms(text, query=True):
            weight = WEAK_TERM if self.analyzer.is_weak(term) else 1.0
            weights[term_id(term)] = max(weight, weights.get(term_id(term), 0.0))
        indices = sorted(weights)
        return SparseVector(indices=indices, values=[weights[i] for i in indices])

    def _document(self, text: str) -> SparseVector:
        terms = self.analyzer.terms(text)
        counts = Counter(term_id(term) for term in terms)
        norm = K1 * (1 - B + B * len(terms) / AVG_LEN)
        indices = sorted(counts)
        values = [counts[i] * (K1 + 1) / (counts[i] + norm) for i in indices]
        return SparseVector(indices=indices, values=values)
