"""Render evaluation results: rich tables for the terminal, JSON for files."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel
from rich.table import Table

from vault_agent.evaluation.beir_eval import BeirResult
from vault_agent.evaluation.questions import QuestionsResult

#: How each search mode is labelled for people ("sparse" is BM25 in this product).
MODE_LABELS = {"dense": "dense", "sparse": "BM25", "hybrid": "hybrid"}


def beir_table(result: BeirResult) -> Table:
    """One row per mode: nDCG@10, recall@10, recall@100, MRR@10."""
    table = Table(
        "mode",
        "nDCG@10",
        "recall@10",
        "recall@100",
        "MRR@10",
        title=f"{result.dataset} ({result.split}): {result.queries} queries, "
        f"{result.documents} documents as notes ({result.chunks} chunks)",
        caption=f"indexing {result.index_seconds:.0f} s, querying {result.query_seconds:.0f} s",
    )
    for mode, scores in result.modes.items():
        table.add_row(
            MODE_LABELS.get(mode, mode),
            f"{scores.ndcg_at_10:.4f}",
            f"{scores.recall_at_10:.4f}",
            f"{scores.recall_at_100:.4f}",
            f"{scores.mrr_at_10:.4f}",
        )
    return table


def questions_table(result: QuestionsResult) -> Table:
    """One row per mode: note-level recall@1/@5, MRR, and the low-confidence signal."""
    first = next(iter(result.modes.values()), None)
    counts = f"{first.answerable} answerable, {first.unanswerable} unanswerable" if first else ""
    table = Table(
        "mode",
        "recall@1",
        "recall@5",
        "MRR",
        "null flagged",
        "answerable flagged",
        title=f"{Path(result.questions_file).name}: {counts} ({result.notes} notes, "
        f"{result.chunks} chunks)",
        caption="low confidence: see index/search/confidence.py; "
        f"indexing {result.index_seconds:.0f} s, querying {result.query_seconds:.0f} s",
    )
    for mode, scores in result.modes.items():
        table.add_row(
            MODE_LABELS.get(mode, mode),
            f"{scores.recall_at_1:.3f}",
            f"{scores.recall_at_5:.3f}",
            f"{scores.mrr:.3f}",
            f"{scores.unanswerable_flagged:.2f}" if scores.unanswerable else "-",
            f"{scores.answerable_flagged:.2f}" if scores.answerable else "-",
        )
    return table


def misses_table(result: QuestionsResult, mode: str = "hybrid", k: int = 5) -> Table | None:
    """Answerable questions whose note is not in the top `k` (None when there are none)."""
    scores = result.modes.get(mode)
    if scores is None:
        return None
    missed = [o for o in scores.outcomes if o.expected and (o.rank is None or o.rank > k)]
    if not missed:
        return None
    table = Table("question", "expected", f"top {k}", title=f"Missed in the top {k} ({mode})")
    for outcome in missed:
        table.add_row(outcome.q, "\n".join(outcome.expected), "\n".join(outcome.top[:k]))
    return table


def write_json(path: Path, results: list[BaseModel]) -> None:
    """Write `{"results": [...]}` to `path` (parent folders created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"results": [result.model_dump(mode="json") for result in results]}
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
