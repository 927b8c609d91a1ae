"""Hybrid search over the store: a query becomes ranked hits with a snippet each.

Dense (MiniLM) and sparse (BM25) candidates are fused with RRF inside Qdrant. By default the
best chunk per note is kept, since users and the agent think in notes, not chunks.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from vault_agent.index.embedder import Embedder
from vault_agent.index.sparse import Bm25Encoder
from vault_agent.index.store import SearchFilter, Store, StoredHit

SearchMode = Literal["hybrid", "dense", "sparse"]

SNIPPET_CHARS = 240
_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


class SearchHit(BaseModel):
    """One ranked result, as the CLI, the HTTP API and the agent's tools see it."""

    file: str
    title: str
    heading: str
    score: float
    snippet: str
    chunk_index: int
    tags: list[str]
    type: str | None
    date: str | None
    source: str

    @property
    def wikilink(self) -> str:
        """`[[path/Note#Heading]]`: opens this hit's note at its section in Obsidian."""
        target = self.file.removesuffix(".md")
        section = self.heading.split(" > ")[-1] if self.heading else ""
        if section == self.title:  # the note's own H1: linking to the note says the same
            section = ""
        return f"[[{target}#{section}]]" if section else f"[[{target}]]"


class Searcher:
    """Runs hybrid queries against one store."""

    def __init__(self, store: Store, embedder: Embedder, sparse: Bm25Encoder) -> None:
        self.store = store
        self.embedder = embedder
        self.sparse = sparse

    def search(
        self,
        query: str,
        search_filter: SearchFilter | None = None,
        limit: int = 10,
        mode: SearchMode = "hybrid",
        one_per_note: bool = True,
    ) -> list[SearchHit]:
        """The `limit` best hits for `query` (best chunk per note unless `one_per_note` is off)."""
        dense = self.embedder.embed_query(query).tolist() if mode != "sparse" else None
        sparse = self.sparse.embed_query(query) if mode != "dense" else None
        # Over-fetch so that collapsing to one chunk per note still fills `limit`.
        fetch = limit * 4 if one_per_note else limit
        stored = self.store.query(
            dense, sparse, search_filter, limit=fetch, candidates=max(50, fetch * 2)
        )
        hits: list[SearchHit] = []
        seen: set[str] = set()
        for hit in stored:
            if one_per_note and hit.payload.file in seen:
                continue
            seen.add(hit.payload.file)
            hits.append(_to_hit(hit, query))
            if len(hits) == limit:
                break
        return hits


def make_snippet(body: str, query: str, max_chars: int = SNIPPET_CHARS) -> str:
    """The passage of `body` sharing the most words with `query`, trimmed to `max_chars`."""
    terms = {w.lower() for w in _WORD.findall(query) if len(w) > 2}
    sentences = [s.strip() for s in _SENTENCE_END.split(body) if s.strip()]
    if not sentences:
        return ""
    best = max(
        range(len(sentences)),
        key=lambda i: (len(terms & {w.lower() for w in _WORD.findall(sentences[i])}), -i),
    )
    snippet = sentences[best]
    for following in sentences[best + 1 :]:
        if len(snippet) + len(following) + 1 > max_chars:
            break
        snippet = f"{snippet} {following}"
    if len(snippet) > max_chars:
        snippet = snippet[: max_chars - 1].rsplit(" ", 1)[0] + "…"
    return snippet


def _to_hit(hit: StoredHit, query: str) -> SearchHit:
    payload = hit.payload
    return SearchHit(
        file=payload.file,
        title=payload.title,
        heading=payload.heading,
        score=hit.score,
        snippet=make_snippet(payload.body, query),
        chunk_index=payload.chunk_index,
        tags=payload.tags,
        type=payload.type,
        date=payload.date,
        source=payload.source,
    )
