"""Ranking metrics, as BEIR and TREC define them (graded nDCG with linear gains).

Every function takes one query's ranked document ids and its judgments (`{doc_id: grade}`,
grade > 0 meaning relevant) and returns a value in [0, 1]; averaging over queries is the
caller's job. A query with no relevant document scores 0, as in pytrec_eval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Normalised discounted cumulative gain of the top `k`."""
    gains = [relevant.get(doc, 0) for doc in _unique(ranked)[:k]]
    dcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(gains))
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    idcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Share of the relevant documents found in the top `k`."""
    wanted = {doc for doc, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    return len(wanted & set(_unique(ranked)[:k])) / len(wanted)


def mrr_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Reciprocal rank of the first relevant document in the top `k` (0 if none)."""
    for rank, doc in enumerate(_unique(ranked)[:k], start=1):
        if relevant.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def hit_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """1 when any relevant document is in the top `k`, else 0 (note-level "recall@k" for a
    question that one of several notes answers)."""
    return 1.0 if mrr_at_k(ranked, relevant, k) > 0 else 0.0


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; 0 for no values."""
    return sum(values) / len(values) if values else 0.0


def _unique(ranked: Sequence[str]) -> list[str]:
    """`ranked` without repeats: a document counts once, at its best rank."""
    seen: set[str] = set()
    unique = []
    for doc in ranked:
        if doc not in seen:
            seen.add(doc)
            unique.append(doc)
    return unique
