"""Does the vault hold an answer at all? A retrieval-side signal, before any model reads a hit.

The signal is the cosine similarity between the query and its closest chunk (MiniLM, dense
only). Ranks and fused scores can't say this: RRF always ranks something first. A cosine under
`LOW_CONFIDENCE_COSINE` means no chunk is about the question, and the caller should say the
notes may not cover it instead of forcing an answer out of weak hits. The threshold and how
well it separates answerable from unanswerable questions are measured in docs/retrieval.md.
"""

from __future__ import annotations

from vault_agent.index.search.searcher import Searcher
from vault_agent.index.store.protocol import SearchFilter

#: Below this top-chunk cosine, retrieval reports low confidence (see docs/retrieval.md).
LOW_CONFIDENCE_COSINE = 0.40


def top_dense_cosine(
    searcher: Searcher, query: str, search_filter: SearchFilter | None = None
) -> float:
    """Cosine similarity of the query and its nearest chunk; 0 for an empty index."""
    hits = searcher.search(query, search_filter, limit=1, mode="dense", one_per_note=False)
    return hits[0].score if hits else 0.0


def is_low_confidence(
    searcher: Searcher, query: str, search_filter: SearchFilter | None = None
) -> bool:
    """True when retrieval has nothing close to `query` (see the module docstring)."""
    return top_dense_cosine(searcher, query, search_filter) < LOW_CONFIDENCE_COSINE
