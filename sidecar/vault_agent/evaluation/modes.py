"""The retrieval modes an evaluation compares, and the searcher each one runs.

`dense`, `sparse` (BM25) and `hybrid` are exactly what users get from `Searcher`. The extra
modes switch one lever off, so that lever can be re-measured in one run: `hybrid-rrf` fuses
with reciprocal rank fusion (k=60) instead of the shipped fusion; `hybrid-plain` has no
neighbourhood or date/tag boosts.
"""

from __future__ import annotations

from typing import Literal, get_args

from vault_agent.index.search import Searcher, SearchMode
from vault_agent.index.store import FusionMethod

EvalMode = Literal["dense", "sparse", "hybrid", "hybrid-rrf", "hybrid-plain"]
ALL_MODES: tuple[EvalMode, ...] = get_args(EvalMode)
DEFAULT_MODES: tuple[EvalMode, ...] = ("dense", "sparse", "hybrid")


def searcher_for(searcher: Searcher, mode: EvalMode) -> tuple[Searcher, SearchMode]:
    """The searcher and `Searcher.search` mode that implement `mode`."""
    if mode == "hybrid-rrf":
        return _variant(searcher, fusion="rrf"), "hybrid"
    if mode == "hybrid-plain":
        return _variant(searcher, boosts=False), "hybrid"
    return searcher, mode


def _variant(
    searcher: Searcher, fusion: FusionMethod | None = None, boosts: bool | None = None
) -> Searcher:
    return Searcher(
        searcher.store,
        searcher.embedder,
        searcher.sparse,
        fusion=searcher.fusion if fusion is None else fusion,
        candidates=searcher.candidates,
        boosts=searcher.boosts if boosts is None else boosts,
    )
