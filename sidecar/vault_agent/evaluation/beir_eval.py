"""Evaluate retrieval on a BEIR dataset: index its corpus as notes, run every judged query.

Each query is asked twice per mode, as users ask: a top-10 search gives nDCG@10, recall@10 and
MRR@10, and a top-100 search gives recall@100. Hits are notes (one per document), so the
numbers are comparable with published document-level BEIR results.
"""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import BaseModel

from vault_agent.evaluation.beir import BeirDataset, write_vault
from vault_agent.evaluation.indexing import index_folder
from vault_agent.evaluation.metrics import mean, mrr_at_k, ndcg_at_k, recall_at_k
from vault_agent.evaluation.modes import DEFAULT_MODES, EvalMode, searcher_for
from vault_agent.evaluation.progress import OnProgress, no_progress
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import Embedder
from vault_agent.index.search.searcher import Searcher


class BeirScores(BaseModel):
    """Mean metrics of one search mode over the queries of a split."""

    ndcg_at_10: float
    recall_at_10: float
    recall_at_100: float
    mrr_at_10: float


class BeirResult(BaseModel):
    """One evaluation run on a BEIR dataset."""

    dataset: str
    split: str
    documents: int
    chunks: int
    queries: int
    index_seconds: float
    query_seconds: float
    modes: dict[str, BeirScores]


def evaluate_beir(
    dataset: BeirDataset,
    split: str,
    work_dir: Path,
    embedder: Embedder,
    sparse: Bm25Encoder,
    modes: tuple[EvalMode, ...] = DEFAULT_MODES,
    on_progress: OnProgress = no_progress,
) -> BeirResult:
    """Index `dataset`'s corpus under `work_dir` and score each of `modes` on its queries."""
    started = time.perf_counter()
    doc_of = write_vault(dataset.corpus, work_dir / "vault")
    vault_index, _ = index_folder(
        work_dir / "vault", work_dir / "data", embedder, sparse, on_progress
    )
    with vault_index:
        indexed = time.perf_counter()
        scores = score_modes(dataset, doc_of, vault_index.searcher, modes, on_progress)
        chunks = vault_index.store.count()
    return BeirResult(
        dataset=dataset.name,
        split=split,
        documents=len(dataset.corpus),
        chunks=chunks,
        queries=len(dataset.queries),
        index_seconds=round(indexed - started, 1),
        query_seconds=round(time.perf_counter() - indexed, 1),
        modes=scores,
    )


def score_modes(
    dataset: BeirDataset,
    doc_of: dict[str, str],
    searcher: Searcher,
    modes: tuple[EvalMode, ...] = DEFAULT_MODES,
    on_progress: OnProgress = no_progress,
) -> dict[str, BeirScores]:
    """Run every query of `dataset` in each mode; `doc_of` maps a note's file to its doc id."""
    total = len(dataset.queries) * len(modes)
    done = 0
    result: dict[str, BeirScores] = {}
    for mode in modes:
        runner, search_mode = searcher_for(searcher, mode)
        per_query: list[tuple[float, float, float, float]] = []
        for query_id, text in dataset.queries.items():
            relevant = dataset.qrels[query_id]
            top10 = [doc_of[h.file] for h in runner.search(text, limit=10, mode=search_mode)]
            top100 = [doc_of[h.file] for h in runner.search(text, limit=100, mode=search_mode)]
            per_query.append(
                (
                    ndcg_at_k(top10, relevant, 10),
                    recall_at_k(top10, relevant, 10),
                    recall_at_k(top100, relevant, 100),
                    mrr_at_k(top10, relevant, 10),
                )
            )
            done += 1
            on_progress("querying", done, total)
        columns = list(zip(*per_query, strict=True)) if per_query else [(), (), (), ()]
        result[mode] = BeirScores(
            ndcg_at_10=mean(columns[0]),
            recall_at_10=mean(columns[1]),
            recall_at_100=mean(columns[2]),
            mrr_at_10=mean(columns[3]),
        )
    return result
