"""Replay per-query list weights and note-level fusion over the dumped candidate lists.

The question behind it: when one list discriminates better for a query than the other (a
changelog question BM25 answers by an exact word while the dense side ranks near-identical
release notes), could fusion weigh that list more? Each setting weighs the two DBSF-normalised
lists by something measured on the query's own lists, then adds the rare-term bonus and keeps
one hit per note, as the searcher does (boosts aside: title, date and tag boosts are not
replayed, so numbers sit a little under `vault-agent eval`'s). None was kept; the measurements
with the real searcher are in docs/retrieval.md ("Fusion on vaults of many similar notes").

    uv run python -m bench.fusion_weights ../shared/data/bench/scifact --split train
    uv run python -m bench.fusion_weights tests/data/qa/obsidian-release-notes.dev.jsonl \
        --vault ../shared/data/vaults/obsidian-release-notes
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.levers import Judged, _Lists, load_or_dump
from vault_agent.evaluation.metrics import mean, mrr_at_k, ndcg_at_k, recall_at_k
from vault_agent.index.search.fusion import dbsf_scores
from vault_agent.index.search.rare_terms import RARE_SHARE, rare_term_matches
from vault_agent.index.store.protocol import StoredHit

#: Weights of the (dense, BM25) lists for one query, from their scores (best first).
Weights = Callable[[list[float], list[float]], tuple[float, float]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a BEIR folder or a question file")
    parser.add_argument("--vault", type=Path, help="the vault of a question file")
    parser.add_argument("--split", default="train")
    args = parser.parse_args()
    queries, dump = load_or_dump(args.path, args.vault, args.split, refresh=False)
    replayable = [_Lists.of(lists) for lists in dump]
    print(f"{args.path.name}: {len(queries)} queries")
    print("| weights | fusion | nDCG@10 | recall@5 | MRR@10 |\n| --- | --- | --- | --- | --- |")
    for name, weights in WEIGHTS.items():
        for by_note in (False, True):
            ndcg, recall, mrr = score(queries, replayable, weights, by_note)
            fusion = "notes" if by_note else "chunks"
            print(f"| {name} | {fusion} | {ndcg:.4f} | {recall:.4f} | {mrr:.4f} |")


def _z_top(scores: list[float]) -> float:
    """How far the best score stands above the list, in standard deviations."""
    if len(scores) < 3 or statistics.stdev(scores) == 0:
        return 1.0
    return max((scores[0] - statistics.mean(scores)) / statistics.stdev(scores), 0.1)


def _gap(scores: list[float], k: int) -> float:
    """The drop from the best score to the k-th, in standard deviations."""
    if len(scores) < 3 or statistics.stdev(scores) == 0:
        return 1.0
    return max((scores[0] - scores[min(k, len(scores)) - 1]) / statistics.stdev(scores), 0.05)


WEIGHTS: dict[str, Weights] = {
    "equal (shipped)": lambda dense, bm25: (1.0, 1.0),
    "BM25 x1.2": lambda dense, bm25: (1.0, 1.2),
    "BM25 x1.5": lambda dense, bm25: (1.0, 1.5),
    "BM25 x2": lambda dense, bm25: (1.0, 2.0),
    "top z-score": lambda dense, bm25: (_z_top(dense), _z_top(bm25)),
    "top z-score squared": lambda dense, bm25: (_z_top(dense) ** 2, _z_top(bm25) ** 2),
    "gap to 2nd": lambda dense, bm25: (_gap(dense, 2), _gap(bm25, 2)),
    "gap to 10th": lambda dense, bm25: (_gap(dense, 10), _gap(bm25, 10)),
}


def score(
    queries: list[Judged], dump: list[_Lists], weights: Weights, by_note: bool
) -> tuple[float, float, float]:
    """Mean nDCG@10, recall@5 and MRR@10 over the answerable queries."""
    rows = [
        (ndcg_at_k(top, q.grades, 10), recall_at_k(top, q.grades, 5), mrr_at_k(top, q.grades, 10))
        for q, lists in zip(queries, dump, strict=True)
        if q.answerable
        for top in [rank(lists, weights, by_note)]
    ]
    return tuple(mean([row[i] for row in rows]) for i in range(3))  # type: ignore[return-value]


def rank(lists: _Lists, weights: Weights, by_note: bool) -> list[str]:
    """The ten notes first, the lists weighed by `weights` (normalised to sum to two, as two
    equal lists do), a note scored by its best chunk per list when `by_note`."""
    dense, bm25 = [h.score for h in lists.dense], [h.score for h in lists.sparse]
    pair = weights(dense, bm25) if dense and bm25 else (1.0, 1.0)
    scale = 2.0 / sum(pair)
    key: Callable[[StoredHit], str] = (lambda h: h.payload.file) if by_note else (lambda h: h.id)
    scores: dict[str, float] = {}
    file_of: dict[str, str] = {}
    for weight, hits in zip(pair, (lists.dense, lists.sparse), strict=True):
        best: dict[str, float] = {}
        for hit, normalised in zip(hits, dbsf_scores([h.score for h in hits]), strict=True):
            file_of[key(hit)] = hit.payload.file
            best[key(hit)] = max(best.get(key(hit), float("-inf")), normalised)
        for item, normalised in best.items():
            scores[item] = scores.get(item, 0.0) + weight * scale * normalised
    limit = max(1, min(8, int(lists.total * RARE_SHARE)))
    rare = rare_term_matches(lists.probes, limit)
    extra: dict[str, float] = {}
    for point, bonus in rare.bonus.items():
        hit = rare.hits[point]
        file_of[key(hit)] = hit.payload.file
        extra[key(hit)] = max(extra.get(key(hit), 0.0), bonus)
    for item, bonus in extra.items():
        scores[item] = scores.get(item, 0.0) + bonus
    return _first_notes(sorted(scores, key=lambda item: scores[item], reverse=True), file_of)


def _first_notes(items: Sequence[str], file_of: dict[str, str]) -> list[str]:
    files: list[str] = []
    for item in items:
        if file_of[item] not in files:
            files.append(file_of[item])
        if len(files) == 10:
            break
    return files


if __name__ == "__main__":
    main()
