"""Merging ranked candidate lists (dense, BM25) into one ranking.

Two methods, as Qdrant defines them, so numbers stay comparable with the engine's own fusion:

- `dbsf`, distribution-based score fusion: each list's scores are mapped through the range
  mean +- 3 sample standard deviations onto [0, 1] (a one-element list scores 0.5), then a
  point's normalised scores are summed. It keeps how far ahead a candidate is, which ranks do
  not: measured better than RRF on SciFact (docs/retrieval.md).
- `rrf`, reciprocal rank fusion: 1 / (k + rank), ranks counted from 0.

Fusion runs here rather than inside the engine because the searcher needs the lists
themselves (rare exact terms, per-note scoring; see `search.py`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from vault_agent.index.store.protocol import Scored, StoredHit

FusionMethod = Literal["dbsf", "rrf"]
#: RRF's constant: 60, the usual choice since the RRF paper.
RRF_K = 60


def fuse(lists: Sequence[Sequence[StoredHit]], method: FusionMethod = "dbsf") -> list[StoredHit]:
    """One ranking from several, best first; each hit carries its fused score."""
    hits = {hit.id: hit for ranked in reversed(lists) for hit in reversed(ranked)}
    scored = [[(hit.id, hit.score) for hit in ranked] for ranked in lists]
    return [
        hits[point].model_copy(update={"score": score})
        for point, score in fuse_scores(scored, method)
    ]


def fuse_scores(lists: Sequence[Sequence[Scored]], method: FusionMethod = "dbsf") -> list[Scored]:
    """`fuse` on (point id, score) pairs: the search fuses before it fetches any payload."""
    scores: dict[str, float] = {}
    for ranked in lists:
        values = [score for _, score in ranked]
        normalised = dbsf_scores(values) if method == "dbsf" else rrf_scores(values)
        for (point, _), score in zip(ranked, normalised, strict=True):
            scores[point] = scores.get(point, 0.0) + score
    order = sorted(scores, key=lambda point: scores[point], reverse=True)
    return [(point, scores[point]) for point in order]


def dbsf_scores(values: Sequence[float]) -> list[float]:
    """Each score mapped through [mean - 3 std, mean + 3 std] onto [0, 1] (not clipped: an
    outlier may score above 1)."""
    if len(values) < 2:
        return [0.5] * len(values)
    mean = sum(values) / len(values)
    deviation = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    low, high = mean - 3 * deviation, mean + 3 * deviation
    if high - low <= 0:
        return [0.5] * len(values)
    return [(v - low) / (high - low) for v in values]


def rrf_scores(ranked: Sequence[object], k: int = RRF_K) -> list[float]:
    """1 / (k + rank) for each hit, ranks counted from 0."""
    return [1.0 / (k + rank) for rank in range(len(ranked))]
