"""Rare query terms: exact lexical evidence that outranks what the dense side says.

A word that only a handful of chunks contain (a project's made-up name, an identifier, a
version, a person's name) is the strongest clue a query can carry, and the one a small dense
model sees worst: it splits an unknown word into sub-word pieces whose meaning is noise. In a
vault of many similar notes (5,000 generated ones, changelogs, daily notes), the dense side
then decides the fusion and the one note holding the word drowns.

So each term of the BM25 query is probed on its own (a sparse query of that term, limited to
`RARE_CHUNKS` + 1 hits, run in the same engine call as the search): a term that comes back
with at most `RARE_CHUNKS` chunks is rare, and the chunks holding it get a bonus in the fused
ranking (`RARE_BONUS`, scaled by the share of the query's rare terms they hold, weighted by
rarity). Its size is measured in docs/retrieval.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vault_agent.index.store.protocol import SparseVector, StoredHit, VectorQuery

#: A term held by at most this many chunks is rare.
RARE_CHUNKS = 8
#: At most this many query terms are probed (a long question has more; the rest are not).
MAX_PROBES = 24
#: What holding every rare term of the query adds to a chunk's fused score. Fused scores of a
#: two-list DBSF lie around 0 to 2, a list's best near 1: this puts such a chunk ahead of one
#: that only the dense side likes.
RARE_BONUS = 1.0


@dataclass(frozen=True)
class RareTermMatches:
    """The chunks holding rare query terms, with the bonus each one earns."""

    bonus: dict[str, float]
    """Point id -> bonus (0 < bonus <= RARE_BONUS)."""
    hits: dict[str, StoredHit]
    """Point id -> the chunk, for chunks the fused lists did not bring."""

    def __bool__(self) -> bool:
        return bool(self.bonus)


def probes(query: SparseVector) -> list[VectorQuery]:
    """One single-term sparse query per query term (at most `MAX_PROBES`)."""
    return [
        VectorQuery(SparseVector(indices=[term], values=[1.0]), RARE_CHUNKS + 1)
        for term in query.indices[:MAX_PROBES]
    ]


def rare_term_matches(probed: Sequence[Sequence[StoredHit]]) -> RareTermMatches:
    """The bonus of each chunk holding rare terms, from the probes' results (in order)."""
    rare = [hits for hits in probed if 0 < len(hits) <= RARE_CHUNKS]
    # A term in one chunk says more than a term in eight: weight by 1 / chunks holding it.
    weights = [1.0 / len(hits) for hits in rare]
    total = sum(weights)
    bonus: dict[str, float] = {}
    found: dict[str, StoredHit] = {}
    for hits, weight in zip(rare, weights, strict=True):
        for hit in hits:
            bonus[hit.id] = bonus.get(hit.id, 0.0) + RARE_BONUS * weight / total
            found.setdefault(hit.id, hit)
    return RareTermMatches(bonus=bonus, hits=found)
