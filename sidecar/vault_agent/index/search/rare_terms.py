"""Rare query terms: exact lexical evidence that outranks what the dense side says.

A word that only a handful of chunks contain (a project's made-up name, an identifier, a
version, a person's name) is the strongest clue a query can carry, and the one a small dense
model sees worst: it splits an unknown word into sub-word pieces whose meaning is noise. In a
vault of many similar notes (5,000 generated ones, changelogs, daily notes), the dense side
then decides the fusion and the one note holding the word drowns.

So each term of the BM25 query is probed on its own (a sparse query of that term, limited to
`MAX_RARE_CHUNKS` + 1 hits, run in the same engine call as the search): a term held by no
more chunks than `rare_limit` allows for the index's size (one chunk in 2,500, at least one,
at most `MAX_RARE_CHUNKS`) is rare, and the chunks holding it get a bonus in the fused ranking
(`RARE_BONUS`, scaled by the share of the query's rare terms they hold, weighted by rarity).
Relative to the index, because in a small vault every word is in few chunks: there a fixed
count made "sourdough" rare and its bonus drowned the fusion. Measured in docs/retrieval.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vault_agent.index.store.protocol import SparseVector, StoredHit, VectorQuery

#: A term held by at most this share of the index's chunks is rare...
RARE_SHARE = 1 / 2_500
#: ...and by at most this many (also the most a probe fetches, minus one).
MAX_RARE_CHUNKS = 8
#: At most this many query terms are probed (a long question has more; the rest are not).
MAX_PROBES = 24
#: What holding every rare term of the query adds to a chunk's fused score (fused scores of a
#: two-list DBSF lie around 0 to 2, a list's best near 1).
RARE_BONUS = 0.5


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
        VectorQuery(SparseVector(indices=[term], values=[1.0]), MAX_RARE_CHUNKS + 1)
        for term in query.indices[:MAX_PROBES]
    ]


def rare_limit(total_chunks: int) -> int:
    """How many chunks may hold a term that is rare in an index of `total_chunks`."""
    return max(1, min(MAX_RARE_CHUNKS, int(total_chunks * RARE_SHARE)))


def rare_term_matches(
    probed: Sequence[Sequence[StoredHit]],
    rare_chunks: int,
    rare_bonus: float = RARE_BONUS,
) -> RareTermMatches:
    """The bonus of each chunk holding rare terms, from the probes' results (in order): a term
    is rare when at most `rare_chunks` chunks hold it; holding all of them earns `rare_bonus`."""
    bonus = rare_term_bonus([[hit.id for hit in hits] for hits in probed], rare_chunks, rare_bonus)
    found = {hit.id: hit for hits in reversed(probed) for hit in reversed(hits) if hit.id in bonus}
    return RareTermMatches(bonus=bonus, hits=found)


def rare_term_bonus(
    probed: Sequence[Sequence[str]], rare_chunks: int, rare_bonus: float = RARE_BONUS
) -> dict[str, float]:
    """`rare_term_matches` on the probes' point ids: each chunk's bonus by id (the search
    scores before it fetches any payload)."""
    rare = [points for points in probed if 0 < len(points) <= rare_chunks]
    # A term in one chunk says more than a term in eight: weight by 1 / chunks holding it.
    weights = [1.0 / len(points) for points in rare]
    total = sum(weights)
    bonus: dict[str, float] = {}
    for points, weight in zip(rare, weights, strict=True):
        for point in points:
            bonus[point] = bonus.get(point, 0.0) + rare_bonus * weight / total
    return bonus
