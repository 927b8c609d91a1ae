"""Hybrid search over the store: a query becomes ranked hits with a snippet each.

Dense (MiniLM) and sparse (BM25) candidates, 100 of each, come from the store in one call
and are fused here, by distribution-based score fusion (DBSF; measured better than RRF,
docs/retrieval.md). Chunks holding a rare query term get a bonus (`rare_terms.py`), so an
exact name, identifier or version wins whatever the dense side says. By default the best
chunk per note is kept, since users and the agent think in notes, not chunks. Hits from notes
linked to the active note, and hits carrying a date or tag the query names, are boosted
before that.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel

from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import Embedder
from vault_agent.index.search.fusion import FusionMethod, fuse
from vault_agent.index.search.hints import QueryHints, query_hints
from vault_agent.index.search.rare_terms import RareTermMatches, probes, rare_term_matches
from vault_agent.index.store.protocol import SearchFilter, Store, StoredHit, VectorQuery
from vault_agent.vault.pdf_note import page_subpath

SearchMode = Literal["hybrid", "dense", "sparse"]

#: Hybrid fusion: DBSF beat RRF (k=60) by about 0.02 nDCG@10 on SciFact (docs/retrieval.md).
FUSION: FusionMethod = "dbsf"
#: Candidates per vector before fusion; 80 to 200 score alike, 50 and below lose recall.
CANDIDATES = 100
#: Score multiplier for hits from notes linked to or from the active note (`near`).
NEAR_BOOST = 1.25
#: Score multiplier for hits carrying a tag or a date the query names ("#ideas", "5 November").
HINT_BOOST = 2.0
#: Chunks fetched when boosting, so a boosted note just below the top can still move up.
BOOST_POOL = 100

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
    page: int | None = None  # PDFs: the page of the hit
    url: str | None = None  # documents of other sources: their web page, when they have one

    @property
    def wikilink(self) -> str:
        """`[[path/Note#Heading]]`: opens this hit's note at its section in Obsidian
        (`[[paper.pdf#page=3]]` for a PDF: its viewer opens at that page)."""
        if self.page is not None:
            return f"[[{self.file}#{page_subpath(self.page)}]]"
        target = self.file.removesuffix(".md")
        section = self.heading.split(" > ")[-1] if self.heading else ""
        if section == self.title:  # the note's own H1: linking to the note says the same
            section = ""
        return f"[[{target}#{section}]]" if section else f"[[{target}]]"


@dataclass(frozen=True)
class SearchOptions:
    """The levers of a hybrid search; each can be switched off to measure it (`vault-agent
    eval` modes)."""

    fusion: FusionMethod = FUSION
    candidates: int = CANDIDATES
    """Candidates per vector before fusion."""
    boosts: bool = True
    """Neighbourhood, date and tag boosts."""
    rare_terms: bool = True
    """The bonus of chunks holding a rare query term (`rare_terms.py`)."""


class Searcher:
    """Runs hybrid queries against one store."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        sparse: Bm25Encoder,
        options: SearchOptions | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.sparse = sparse
        self.options = options or SearchOptions()

    def with_options(self, **changes: Any) -> Searcher:
        """The same searcher with some levers changed."""
        return Searcher(self.store, self.embedder, self.sparse, replace(self.options, **changes))

    def search(
        self,
        query: str,
        search_filter: SearchFilter | None = None,
        limit: int = 10,
        mode: SearchMode = "hybrid",
        one_per_note: bool = True,
        near: Collection[str] = (),
    ) -> list[SearchHit]:
        """The `limit` best hits for `query` (best chunk per note unless `one_per_note` is off).

        `near` lists the files around the note the user is looking at (its links and
        backlinks); their hits, and hits carrying a date or tag written in the query, are
        boosted (unless the searcher's options switch boosts off)."""
        boosts = self.options.boosts
        hints = query_hints(query) if boosts else QueryHints()
        near = near if boosts else ()
        # Over-fetch so that collapsing to one chunk per note still fills `limit`.
        fetch = limit * 4 if one_per_note else limit
        if hints or near:
            fetch = max(fetch, BOOST_POOL)
        stored = self._ranked(query, search_filter, mode, fetch)
        if hints or near:
            stored = _boosted(stored, hints, set(near))
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

    def _ranked(
        self, query: str, search_filter: SearchFilter | None, mode: SearchMode, fetch: int
    ) -> list[StoredHit]:
        """Chunks for `query`, best first: one list (dense or sparse mode), or both fused
        with the rare-term bonus (hybrid)."""
        if mode == "dense":
            dense = VectorQuery(self.embedder.embed_query(query).tolist(), fetch)
            return self.store.search([dense], search_filter)[0]
        sparse = self.sparse.embed_query(query)
        if mode == "sparse":
            return self.store.search([VectorQuery(sparse, fetch)], search_filter)[0]
        options = self.options
        queries = [
            VectorQuery(self.embedder.embed_query(query).tolist(), max(options.candidates, fetch)),
            VectorQuery(sparse, max(options.candidates, fetch)),
        ]
        if options.rare_terms:
            queries += probes(sparse)
        lists = self.store.search(queries, search_filter)
        fused = fuse(lists[:2], options.fusion)
        rare = rare_term_matches(lists[2:])
        if rare:
            fused = _with_bonus(fused, rare)
        return fused[:fetch]


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


def _with_bonus(fused: list[StoredHit], rare: RareTermMatches) -> list[StoredHit]:
    """`fused` plus the chunks holding rare terms that it lacked, re-scored with their bonus."""
    known = {hit.id for hit in fused}
    missing = [hit.model_copy(update={"score": 0.0}) for hit in rare.hits.values()]
    pool = fused + [hit for hit in missing if hit.id not in known]
    rescored = [
        hit.model_copy(update={"score": hit.score + rare.bonus.get(hit.id, 0.0)}) for hit in pool
    ]
    return sorted(rescored, key=lambda hit: hit.score, reverse=True)


def _boosted(stored: list[StoredHit], hints: QueryHints, near: set[str]) -> list[StoredHit]:
    """`stored` re-scored with the neighbourhood and query-hint boosts, best first."""
    rescored = []
    for hit in stored:
        factor = NEAR_BOOST if hit.payload.file in near else 1.0
        if hints.matches(hit.payload):
            factor *= HINT_BOOST
        # Scaled by |score| so that a negative score (a cosine can be one) still goes up.
        score = hit.score + abs(hit.score) * (factor - 1.0)
        rescored.append(hit.model_copy(update={"score": score}))
    return sorted(rescored, key=lambda hit: hit.score, reverse=True)


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
        page=payload.page,
        url=payload.document.url if payload.document is not None else None,
    )
