"""The retrieval modes an evaluation compares, and the searcher each one runs.

`dense`, `sparse` (BM25) and `hybrid` are exactly what users get from `Searcher`. The extra
modes switch one lever off, so that lever can be re-measured in one run: `hybrid-rrf` fuses
with reciprocal rank fusion (k=60) instead of the shipped fusion; `hybrid-plain` has no
neighbourhood or date/tag boosts; `hybrid-no-rare` gives rare query terms no bonus;
`hybrid-no-titles` no boost to notes whose title the query names; `hybrid-no-notes` no
whole-note scores for a question in another language than the notes.
"""

from __future__ import annotations

from typing import Literal, get_args

from vault_agent.index.search.searcher import Searcher, SearchMode

EvalMode = Literal[
    "dense",
    "sparse",
    "hybrid",
    "hybrid-rrf",
    "hybrid-plain",
    "hybrid-no-rare",
    "hybrid-no-titles",
    "hybrid-no-notes",
]
ALL_MODES: tuple[EvalMode, ...] = get_args(EvalMode)
DEFAULT_MODES: tuple[EvalMode, ...] = ("dense", "sparse", "hybrid")

#: The levers each extra mode switches (see `SearchOptions`).
_LEVERS: dict[EvalMode, dict[str, object]] = {
    "hybrid-rrf": {"fusion": "rrf"},
    "hybrid-plain": {"boosts": False},
    "hybrid-no-rare": {"rare_terms": False},
    "hybrid-no-titles": {"titles": False},
    "hybrid-no-notes": {"note_vectors": False},
}


def searcher_for(searcher: Searcher, mode: EvalMode) -> tuple[Searcher, SearchMode]:
    """The searcher and `Searcher.search` mode that implement `mode`."""
    if mode in _LEVERS:
        return searcher.with_options(**_LEVERS[mode]), "hybrid"
    if mode in ("dense", "sparse"):
        return searcher, mode
    return searcher, "hybrid"
