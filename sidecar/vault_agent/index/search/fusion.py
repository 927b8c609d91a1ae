"""Merging ranked candidate lists (dense, BM25) into one ranking.

Two methods, as Qdrant defines them, so numbers stay comparable with the engine's own fusion:

- `dbsf`, distribution-based score fusion: each list's scores are mapped through the range
  mean +- 3 sample standard deviations onto [0, 1] (a one-element list scores 0.5), then a
  point's normalised scores are summed. It keeps how far ahead a candidate is, which ranks do
  not: measured better than RRF on SciFact (docs/retrieval.md).
- `rrf`, reciprocal rank fusion: 1 / (k + rank), ranks counted from 0.

Fusion runs here rather than inside the engine because the searcher needs the lists
themselves (rare exact terms, per-note scoring; see `searcher.py`).

`fuse_notes` fuses notes rather than chunks, for a search that shows one hit per note: a note
takes, from each list, the normalised score of its best chunk there. Fusing chunks, a note whose
best dense chunk and best BM25 chunk differ (a long note: the question's meaning in one
section, its exact words in another) counts only one of the two, and loses to a note whose one
chunk is merely second-best in both. Measured in docs/retrieval.md (`eval --mode
hybrid-chunks` fuses chunks).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
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
        for point, score in normalised(ranked, method):
            scores[point] = scores.get(point, 0.0) + score
    return _best_first(scores)


def fuse_notes(
    lists: Sequence[Sequence[Scored]],
    chunks: Sequence[Scored],
    file_of: Mapping[str, str],
    bonus: Mapping[str, float] | None = None,
    method: FusionMethod = "dbsf",
) -> list[Scored]:
    """One (chunk id, score) per note, best first. A note scores the sum, over `lists`, of its
    best chunk's normalised score in each, plus the largest `bonus` (rare terms) any of its
    chunks earned. Its chunk is the first of its chunks in `chunks` (the chunk-level fusion,
    bonus included): the passage that matches best on its own. Points `file_of` lacks (gone
    from the store since they were ranked) are left out."""
    scores: dict[str, float] = {}
    for ranked in lists:
        best: dict[str, float] = {}
        for point, score in normalised(ranked, method):
            file = file_of.get(point)
            if file is not None and score > best.get(file, -math.inf):
                best[file] = score
        for file, score in best.items():
            scores[file] = scores.get(file, 0.0) + score
    extra: dict[str, float] = {}
    for point, earned in (bonus or {}).items():
        file = file_of.get(point)
        if file is not None:
            extra[file] = max(extra.get(file, 0.0), earned)
    chunk_of: dict[str, str] = {}
    for point, _ in chunks:
        file = file_of.get(point)
        if file is not None:
            chunk_of.setdefault(file, point)
    notes = {file: scores.get(file, 0.0) + extra.get(file, 0.0) for file in chunk_of}
    return [(chunk_of[file], score) for file, score in _best_first(notes)]


def normalised(ranked: Sequence[Scored], method: FusionMethod = "dbsf") -> list[Scored]:
    """One list's scores mapped as `method` fuses them (DBSF or RRF), in the list's order."""
    values = [score for _, score in ranked]
    scaled = dbsf_scores(values) if method == "dbsf" else rrf_scores(values)
    return [(point, score) for (point, _), score in zip(ranked, scaled, strict=True)]


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


def _best_first(scores: dict[str, float]) -> list[Scored]:
    order = sorted(scores, key=lambda key: scores[key], reverse=True)
    return [(key, scores[key]) for key in order]
