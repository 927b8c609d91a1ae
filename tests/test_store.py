"""One behaviour suite for both `Store` implementations, plus what only one of them has.

Every test taking the `store` fixture runs twice: against Qdrant Edge in a temporary folder and
against `ServerStore` on `QdrantClient(":memory:")` (the client's in-process server API).
Vectors are synthetic and deterministic: dense ones are seeded random unit vectors, sparse ones
count the words of a chunk's body, so keyword matching and IDF behave as with real BM25.
"""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
import time
import uuid
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from qdrant_client import QdrantClient
from qdrant_client import models as m

from vault_agent.config import Settings, StoreSettings
from vault_agent.index.search.fusion import FusionMethod, fuse
from vault_agent.index.store.edge import EdgeStore
from vault_agent.index.store.errors import StoreError, StoreLockedError, StoreUnavailableError
from vault_agent.index.store.open import open_store
from vault_agent.index.store.protocol import (
    DENSE_DIM,
    ChunkPayload,
    EmbeddedChunk,
    FileState,
    SearchFilter,
    SparseVector,
    Store,
    StoredHit,
    VectorQuery,
    point_id,
)
from vault_agent.index.store.server import ServerStore

VAULT_ID = uuid.UUID("6f1c2a4e-0000-4000-8000-000000000001")


# -- a small synthetic vault ------------------------------------------------------------------


@dataclass
class Note:
    file: str
    bodies: list[str]
    tags: list[str] = field(default_factory=list)
    type: str | None = None
    date: str | None = None
    source: str = "vault"
    open_tasks: int = 0
    """Open tasks of its last chunk."""


NOTES = [
    Note(
        "Projects/Alpha/plan.md",
        ["alpha kickoff budget timeline", "alpha risks vendor contract", "alpha launch checklist"],
        tags=["project", "project/alpha"],
        type="project",
    ),
    Note(
        "Projects/Beta/notes.md",
        ["beta prototype sensor firmware", "beta field test results"],
        tags=["project", "project/beta"],
        type="project",
        open_tasks=2,
    ),
    Note("Daily/2024-05-01.md", ["standup coffee dentist"], ["daily"], "daily", "2024-05-01"),
    Note(
        "Daily/2024-05-02.md",
        ["gardening tomatoes compost"],
        ["daily"],
        "daily",
        "2024-05-02",
        open_tasks=1,
    ),
    Note("Daily/2024-05-03.md", ["kubernetes upgrade outage"], ["daily"], "daily", "2024-05-03"),
    Note("Daily/2024-05-10.md", ["birthday cake recipe"], ["daily"], "daily", "2024-05-10"),
    Note("Inbox/idea.md", ["solar powered bicycle lamp"], tags=["idea"]),
    Note(
        "Clippings/article.md",
        ["quantum error correction survey", "surface codes threshold"],
        tags=["reading"],
        source="web",
    ),
]
ALL_FILES = {n.file for n in NOTES}
DAILY = {n.file for n in NOTES if n.type == "daily"}
PLAN, BETA, IDEA, ARTICLE = (
    "Projects/Alpha/plan.md",
    "Projects/Beta/notes.md",
    "Inbox/idea.md",
    "Clippings/article.md",
)


def dense_vector(seed_text: str) -> list[float]:
    """A deterministic random unit vector for `seed_text`."""
    rng = np.random.default_rng(zlib.crc32(seed_text.encode()))
    vector = rng.standard_normal(DENSE_DIM)
    return (vector / np.linalg.norm(vector)).tolist()  # type: ignore[no-any-return]


def sparse_vector(text: str, *, query: bool = False) -> SparseVector:
    """Word counts (documents) or plain word presence (queries), one id per word."""
    counts: dict[int, float] = {}
    for word in text.lower().split():
        term = zlib.crc32(word.encode())
        counts[term] = 1.0 if query else counts.get(term, 0.0) + 1.0
    terms = sorted(counts)
    return SparseVector(indices=terms, values=[counts[t] for t in terms])


def query(
    store: Store,
    dense: list[float] | None,
    sparse: SparseVector | None,
    search_filter: SearchFilter | None = None,
    limit: int = 10,
    candidates: int = 50,
    fusion: FusionMethod = "rrf",
) -> list[StoredHit]:
    """A dense, sparse or hybrid query as the searcher makes it: both lists in one call, fused."""
    vectors: list[list[float] | SparseVector] = [v for v in (dense, sparse) if v is not None]
    if not vectors:
        raise ValueError("a query needs a dense or a sparse vector")
    fetch = max(candidates, limit) if len(vectors) == 2 else limit
    lists = store.search([VectorQuery(v, fetch) for v in vectors], search_filter)
    if len(lists) == 1:
        return lists[0]
    return fuse(lists, fusion)[:limit]


def folders_of(file: str) -> list[str]:
    parts = file.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def make_chunk(
    note: Note, index: int, *, chunk_count: int | None = None, content_hash: str | None = None
) -> EmbeddedChunk:
    payload = ChunkPayload(
        file=note.file,
        title=note.file.rsplit("/", 1)[-1].removesuffix(".md"),
        heading=f"Section {index}",
        chunk_index=index,
        chunk_count=chunk_count or len(note.bodies),
        body=note.bodies[index],
        tags=note.tags,
        type=note.type,
        folders=folders_of(note.file),
        source=note.source,
        mtime=1_700_000_000.0 + len(note.file),
        size=100 * len(note.bodies),
        date=note.date,
        links=[],
        content_hash=content_hash or f"hash-{note.file}",
        open_tasks=note.open_tasks if index == len(note.bodies) - 1 else 0,
    )
    return EmbeddedChunk(
        id=point_id(VAULT_ID, note.file, index),
        dense=dense_vector(f"{note.file}#{index}"),
        sparse=sparse_vector(note.bodies[index]),
        payload=payload,
    )


CHUNKS = [make_chunk(note, i) for note in NOTES for i in range(len(note.bodies))]
CHUNKS_PER_FILE = {n.file: len(n.bodies) for n in NOTES}


# -- fixtures ---------------------------------------------------------------------------------


def new_store(kind: str, tmp_path: Path) -> Store:
    if kind == "edge":
        return EdgeStore(tmp_path / "edge")
    return ServerStore(QdrantClient(":memory:"), "vault-agent-test")


@pytest.fixture(params=["edge", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """An empty store of each implementation."""
    opened = new_store(request.param, tmp_path)
    yield opened
    opened.close()


@pytest.fixture
def filled(store: Store) -> Store:
    """The store holding the synthetic vault."""
    store.upsert(CHUNKS)
    return store


def files_of(payloads: Any) -> set[str]:
    return {p.file for p in payloads}


# -- writes -----------------------------------------------------------------------------------


def test_upsert_twice_keeps_one_point_per_chunk(store: Store) -> None:
    store.upsert(CHUNKS)
    store.upsert(CHUNKS)
    assert store.count() == len(CHUNKS)


def test_upsert_replaces_the_payload_of_an_existing_point(filled: Store) -> None:
    changed = make_chunk(NOTES[0], 0, content_hash="new-hash")
    filled.upsert([changed])
    stored = list(filled.scroll(SearchFilter(files=[PLAN], chunk_index=0)))
    assert [p.content_hash for p in stored] == ["new-hash"]
    assert filled.count() == len(CHUNKS)


def test_payload_round_trips_unchanged(filled: Store) -> None:
    stored = {(p.file, p.chunk_index): p for p in filled.scroll()}
    assert stored == {(c.payload.file, c.payload.chunk_index): c.payload for c in CHUNKS}


def test_delete_files_removes_exactly_those_files(filled: Store) -> None:
    filled.delete_files([PLAN, IDEA, "Not/indexed.md"])
    assert files_of(filled.scroll()) == ALL_FILES - {PLAN, IDEA}
    assert filled.count() == len(CHUNKS) - CHUNKS_PER_FILE[PLAN] - CHUNKS_PER_FILE[IDEA]


def test_delete_files_with_no_files_deletes_nothing(filled: Store) -> None:
    filled.delete_files([])
    assert filled.count() == len(CHUNKS)


def test_set_links_rewrites_links_on_the_first_chunk_of_the_file(filled: Store) -> None:
    filled.set_links(PLAN, ["Projects/Beta/notes.md", "Inbox/idea.md"])
    by_file: dict[str, dict[int, list[str]]] = {}
    for payload in filled.scroll():
        by_file.setdefault(payload.file, {})[payload.chunk_index] = payload.links
    # The links live on chunk 0 only: the other chunks of the note keep none.
    assert by_file[PLAN] == {0: ["Projects/Beta/notes.md", "Inbox/idea.md"], 1: [], 2: []}
    others = [links for f, chunks in by_file.items() if f != PLAN for links in chunks.values()]
    assert all(links == [] for links in others)
    # Only the payload changed: the chunk is still found by its own vectors.
    hits = query(filled, CHUNKS[0].dense, sparse_vector(CHUNKS[0].payload.body, query=True))
    assert hits[0].id == CHUNKS[0].id
    assert hits[0].payload.body == CHUNKS[0].payload.body


# -- queries ----------------------------------------------------------------------------------


def test_ranked_lists_are_the_search_lists_without_payloads(filled: Store) -> None:
    note = CHUNKS[4].payload
    queries = [
        VectorQuery(CHUNKS[4].dense, 20),
        VectorQuery(sparse_vector(note.body, query=True), 20),
        VectorQuery(SparseVector(indices=[], values=[]), 5),  # stop words only: no hits
    ]
    for search_filter in (None, SearchFilter(folders=["Projects"])):
        searched = filled.search(queries, search_filter)
        ranked = filled.ranked(queries, search_filter)
        assert [[(hit.id, hit.score) for hit in hits] for hits in searched] == ranked
        assert ranked[0] and ranked[1] and ranked[2] == []


def test_payloads_are_fetched_by_id_and_missing_points_left_out(filled: Store) -> None:
    wanted = [CHUNKS[0].id, CHUNKS[7].id, CHUNKS[0].id]
    gone = point_id(VAULT_ID, "Nowhere.md", 0)
    found = filled.payloads([*wanted, gone])
    assert found == {CHUNKS[0].id: CHUNKS[0].payload, CHUNKS[7].id: CHUNKS[7].payload}
    assert filled.payloads([]) == {}


@pytest.mark.parametrize("chunk", CHUNKS, ids=lambda c: f"{c.payload.file}#{c.payload.chunk_index}")
def test_hybrid_query_ranks_the_exact_match_first(filled: Store, chunk: EmbeddedChunk) -> None:
    hits = query(filled, chunk.dense, sparse_vector(chunk.payload.body, query=True), limit=5)
    assert hits[0].id == chunk.id
    assert hits[0].payload == chunk.payload
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_hybrid_query_fuses_with_rrf_k60(filled: Store) -> None:
    chunk = CHUNKS[0]
    hits = query(filled, chunk.dense, sparse_vector(chunk.payload.body, query=True))
    # First in both lists. Qdrant counts ranks from 0, so each list adds 1/(60+0).
    assert hits[0].score == pytest.approx(2 / 60, rel=1e-5)


def test_hybrid_query_can_fuse_with_dbsf(filled: Store) -> None:
    chunk = CHUNKS[0]
    words = sparse_vector(chunk.payload.body, query=True)
    hits = query(filled, chunk.dense, words, fusion="dbsf")
    assert hits[0].id == chunk.id
    # Each list's scores are mapped through mean +- 3 std: a clear winner of both lists scores
    # between 1 and 2, where RRF would give it 2/60.
    assert 1.0 < hits[0].score <= 2.0
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_both_stores_fuse_with_dbsf_to_the_same_scores(tmp_path: Path) -> None:
    # DBSF is score-based: unlike RRF's ranks, it does not depend on how each engine orders
    # tied candidates, so the two stores must agree exactly.
    results = []
    for kind in ("edge", "server"):
        opened = new_store(kind, tmp_path)
        try:
            opened.upsert(CHUNKS)
            hits = query(
                opened,
                dense_vector("alpha query"),
                sparse_vector("alpha beta test", query=True),
                limit=8,
                candidates=6,
                fusion="dbsf",
            )
        finally:
            opened.close()
        results.append([(h.id, round(h.score, 4)) for h in hits])
    assert results[0] == results[1]
    assert len(results[0]) >= 6


@pytest.mark.parametrize("method", ["dbsf", "rrf"])
def test_our_fusion_scores_as_qdrants_own(tmp_path: Path, method: FusionMethod) -> None:
    # The searcher fuses in Python; the engine's fusion of the same two prefetches is the
    # reference its scores must reproduce (docs/retrieval.md compares with Qdrant's).
    from qdrant_edge import Fusion, Prefetch, Query, QueryRequest
    from qdrant_edge import SparseVector as EdgeSparse

    dense, words = dense_vector("alpha query"), sparse_vector("alpha beta test", query=True)
    with EdgeStore(tmp_path / "edge") as edge:
        edge.upsert(CHUNKS)
        ours = query(edge, dense, words, limit=8, candidates=8, fusion=method)
        engine_fusion = Fusion.Dbsf() if method == "dbsf" else Fusion.Rrf(k=60)
        reference = edge._live().query(
            QueryRequest(
                limit=8,
                prefetches=[
                    Prefetch(limit=8, query=Query.Nearest(dense, using="fast-all-minilm-l6-v2")),
                    Prefetch(
                        limit=8,
                        query=Query.Nearest(
                            EdgeSparse(indices=words.indices, values=words.values), using="bm25"
                        ),
                    ),
                ],
                query=engine_fusion,  # type: ignore[arg-type]
            )
        )
    expected = {str(point.id): point.score for point in reference}
    assert {hit.id for hit in ours} == set(expected)
    for hit in ours:
        assert hit.score == pytest.approx(expected[hit.id], abs=1e-5)


def test_dense_only_query_scores_by_cosine(filled: Store) -> None:
    chunk = CHUNKS[4]
    hits = query(filled, chunk.dense, None, limit=3)
    assert hits[0].id == chunk.id
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert len(hits) == 3


def test_sparse_only_query_finds_the_chunk_with_the_word(filled: Store) -> None:
    hits = query(filled, None, sparse_vector("tomatoes", query=True))
    assert [h.payload.file for h in hits] == ["Daily/2024-05-02.md"]


def test_sparse_query_prefers_the_rarer_word(filled: Store) -> None:
    # "alpha" is in three chunks, "vendor" in one: IDF must make "vendor" decide.
    hits = query(filled, None, sparse_vector("alpha vendor", query=True), limit=3)
    assert hits[0].payload.body == "alpha risks vendor contract"
    assert {h.payload.file for h in hits} == {PLAN}


def test_query_whose_sparse_vector_is_empty_is_dense_only(filled: Store) -> None:
    chunk = CHUNKS[2]
    empty = SparseVector(indices=[], values=[])
    assert query(filled, chunk.dense, empty)[0].id == chunk.id
    assert query(filled, None, empty) == []


def test_a_batch_of_queries_answers_each_in_order(filled: Store) -> None:
    chunk = CHUNKS[4]
    empty = SparseVector(indices=[], values=[])
    word = sparse_vector("tomatoes", query=True)
    dense, nothing, sparse = filled.search(
        [VectorQuery(chunk.dense, 2), VectorQuery(empty, 5), VectorQuery(word, 5)]
    )
    assert [h.id for h in dense][:1] == [chunk.id] and len(dense) == 2
    assert nothing == []
    assert [h.payload.file for h in sparse] == ["Daily/2024-05-02.md"]


def test_query_limit_caps_hits(filled: Store) -> None:
    assert len(query(filled, CHUNKS[0].dense, None, limit=4)) == 4
    assert len(query(filled, CHUNKS[0].dense, sparse_vector("alpha"), limit=2)) == 2


# -- filters ----------------------------------------------------------------------------------

FILTER_CASES: list[tuple[str, SearchFilter, set[str]]] = [
    ("tag", SearchFilter(tags=["project"]), {PLAN, BETA}),
    ("nested tag, hash and case", SearchFilter(tags=["#Project/Alpha"]), {PLAN}),
    ("tags are alternatives", SearchFilter(tags=["idea", "reading"]), {IDEA, ARTICLE}),
    ("type", SearchFilter(types=["daily"]), DAILY),
    ("folder and its subfolders", SearchFilter(folders=["Projects"]), {PLAN, BETA}),
    ("subfolder", SearchFilter(folders=["Projects/Beta/"]), {BETA}),
    ("files", SearchFilter(files=[IDEA, "Daily/2024-05-01.md"]), {IDEA, "Daily/2024-05-01.md"}),
    ("source", SearchFilter(sources=["web"]), {ARTICLE}),
    (
        "date range is inclusive",
        SearchFilter(date_from=date(2024, 5, 2), date_to=date(2024, 5, 3)),
        {"Daily/2024-05-02.md", "Daily/2024-05-03.md"},
    ),
    (
        "date_from only",
        SearchFilter(date_from=date(2024, 5, 3)),
        {"Daily/2024-05-03.md", "Daily/2024-05-10.md"},
    ),
    ("date_to only", SearchFilter(date_to=date(2024, 5, 1)), {"Daily/2024-05-01.md"}),
    ("empty date range", SearchFilter(date_from=date(2024, 5, 4), date_to=date(2024, 5, 9)), set()),
    (
        "the widest date range a date holds",
        SearchFilter(date_from=date.min, date_to=date.max),
        DAILY,
    ),
    ("chunk_index", SearchFilter(chunk_index=2), {PLAN}),
    ("open tasks", SearchFilter(open_tasks=True), {BETA, "Daily/2024-05-02.md"}),
    (
        "open tasks AND type",
        SearchFilter(open_tasks=True, types=["daily"]),
        {"Daily/2024-05-02.md"},
    ),
    ("tag AND folder", SearchFilter(tags=["project"], folders=["Projects/Alpha"]), {PLAN}),
    ("tag AND type, disjoint", SearchFilter(tags=["project"], types=["daily"]), set()),
    (
        "type AND date AND files",
        SearchFilter(
            types=["daily"],
            date_from=date(2024, 5, 2),
            files=["Daily/2024-05-01.md", "Daily/2024-05-10.md", PLAN],
        ),
        {"Daily/2024-05-10.md"},
    ),
    ("source AND chunk_index", SearchFilter(sources=["vault"], chunk_index=1), {PLAN, BETA}),
    ("empty filter matches all", SearchFilter(), ALL_FILES),
    ("exclude_types keeps untyped notes", SearchFilter(exclude_types=["daily"]), ALL_FILES - DAILY),
    (
        "exclude_types AND folder",
        SearchFilter(exclude_types=["daily"], folders=["Projects"]),
        {PLAN, BETA},
    ),
]


@pytest.mark.parametrize(
    ("search_filter", "files"), [c[1:] for c in FILTER_CASES], ids=[c[0] for c in FILTER_CASES]
)
def test_filter_selects_the_same_points_in_scroll_count_and_query(
    filled: Store, search_filter: SearchFilter, files: set[str]
) -> None:
    scrolled = list(filled.scroll(search_filter))
    assert files_of(scrolled) == files
    if search_filter.chunk_index is not None:
        assert {p.chunk_index for p in scrolled} == {search_filter.chunk_index}
    if search_filter.open_tasks:  # the chunks holding one, not their notes' others
        assert all(p.open_tasks for p in scrolled)
    assert filled.count(search_filter) == len(scrolled)
    if search_filter.chunk_index is None and not search_filter.open_tasks:
        assert len(scrolled) == sum(CHUNKS_PER_FILE[f] for f in files)
    # Dense prefetch returns every filtered point, so the fused hits cover them all.
    hits = query(
        filled,
        CHUNKS[0].dense,
        sparse_vector("alpha beta daily", query=True),
        search_filter,
        50,
        50,
    )
    assert files_of(h.payload for h in hits) == files
    assert len(hits) == len(scrolled)
    dense_hits = query(filled, CHUNKS[0].dense, None, search_filter, limit=50)
    assert files_of(h.payload for h in dense_hits) == files


def test_filter_applies_before_the_top_k_cut(filled: Store) -> None:
    # The best dense match is in plan.md; the filter must pick among daily notes before the
    # top-1 cut, not cut first and filter an empty list.
    hits = query(filled, CHUNKS[0].dense, None, SearchFilter(types=["daily"]), limit=1)
    assert len(hits) == 1
    assert hits[0].payload.file in DAILY


# -- scroll and count -------------------------------------------------------------------------


def test_scroll_stops_at_limit(filled: Store) -> None:
    assert len(list(filled.scroll(limit=5))) == 5
    assert len(list(filled.scroll(SearchFilter(types=["daily"]), limit=2))) == 2
    assert len(list(filled.scroll(limit=0))) == 0
    assert len(list(filled.scroll(limit=1000))) == len(CHUNKS)


def test_count_of_an_empty_store_is_zero(store: Store) -> None:
    assert store.count() == 0
    assert store.count(SearchFilter(tags=["project"])) == 0
    assert store.file_states() == {}
    assert list(store.scroll()) == []


def test_dense_vectors_are_a_files_stored_vectors_in_chunk_order(filled: Store) -> None:
    stored = filled.dense_vectors(PLAN)
    expected = [c.dense for c in CHUNKS if c.payload.file == PLAN]
    assert len(stored) == len(expected) == 3
    for got, want in zip(stored, expected, strict=True):
        assert np.allclose(got, want, atol=1e-6)
    assert filled.dense_vectors("Not/indexed.md") == []


def test_dense_vectors_of_several_files_come_in_one_call_in_chunk_order(filled: Store) -> None:
    wanted = [PLAN, BETA, "Not/indexed.md"]
    stored = filled.dense_vectors_of(wanted)
    assert set(stored) == {PLAN, BETA}  # a file with no chunks is left out
    for file in (PLAN, BETA):
        expected = [c.dense for c in CHUNKS if c.payload.file == file]
        assert len(stored[file]) == len(expected) == CHUNKS_PER_FILE[file]
        for got, want in zip(stored[file], expected, strict=True):
            assert np.allclose(got, want, atol=1e-6)
    assert filled.dense_vectors_of([]) == {}


# -- file states ------------------------------------------------------------------------------


def test_file_states_report_hash_mtime_size_and_chunks(filled: Store) -> None:
    states = filled.file_states()
    assert set(states) == ALL_FILES
    plan = states[PLAN]
    assert plan.content_hash == f"hash-{PLAN}"
    assert plan.mtime == 1_700_000_000.0 + len(PLAN)
    assert plan.size == 300
    assert (plan.chunk_count, plan.stored_chunks) == (3, 3)
    assert all(state.complete for state in states.values())


def test_file_states_of_some_files_only(filled: Store) -> None:
    other = sorted(ALL_FILES - {PLAN})[0]
    states = filled.file_states(files=[PLAN, other, "not/indexed.md"])
    assert set(states) == {PLAN, other}
    assert states == {file: filled.file_states()[file] for file in (PLAN, other)}
    assert filled.file_states(files=[]) == {}


def test_file_states_detect_a_half_written_file(store: Store) -> None:
    note = NOTES[0]
    store.upsert([make_chunk(note, 0), make_chunk(note, 1)])  # chunk 2 of 3 never arrived
    state = store.file_states()[note.file]
    assert (state.chunk_count, state.stored_chunks, state.complete) == (3, 2, False)


def test_file_states_never_match_a_file_mixing_two_versions(filled: Store) -> None:
    filled.upsert([make_chunk(NOTES[0], 1, content_hash="newer")])
    state = filled.file_states()[PLAN]
    assert state.content_hash == ""
    assert state.stored_chunks == 3


@pytest.fixture(scope="module")
def big_chunks() -> list[EmbeddedChunk]:
    """20,000 chunks in 2,000 files (built once; both stores read the same list)."""
    rng = np.random.default_rng(7)
    dense = rng.standard_normal((20_000, DENSE_DIM)).astype(np.float32)
    dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    rows = dense.tolist()
    chunks = []
    for i, row in enumerate(rows):
        note = i // 10
        file = f"folder{note % 37}/note{note}.md"
        terms = sorted({int(t) for t in rng.integers(0, 5000, 12)})
        payload = ChunkPayload(
            file=file,
            title=f"note{note}",
            chunk_index=i % 10,
            chunk_count=10,
            body="lorem ipsum dolor sit amet " * 20,
            tags=[f"tag{i % 7}"],
            folders=[f"folder{note % 37}"],
            mtime=float(note),
            size=note,
            content_hash=f"h{note}",
            embedding_model="model-a",
        )
        chunks.append(
            EmbeddedChunk(
                id=point_id(VAULT_ID, file, i % 10),
                dense=row,
                sparse=SparseVector(indices=terms, values=[1.0] * len(terms)),
                payload=payload,
            )
        )
    return chunks


@pytest.mark.slow
def test_file_states_at_20k_points(store: Store, big_chunks: list[EmbeddedChunk]) -> None:
    store.upsert(big_chunks)
    states = store.file_states()
    assert len(states) == 2_000
    assert all(s.complete and s.stored_chunks == 10 for s in states.values())
    assert states["folder5/note42.md"] == FileState(
        content_hash="h42",
        mtime=42.0,
        size=42,
        chunk_count=10,
        stored_chunks=10,
        embedding_model="model-a",
    )
    assert store.count() == len(big_chunks)
    # Scrolling crosses page boundaries without losing or repeating points.
    assert len({(p.file, p.chunk_index) for p in store.scroll(limit=700)}) == 700
    hits = query(store, big_chunks[123].dense, big_chunks[123].sparse, SearchFilter(tags=["tag4"]))
    assert hits[0].id == big_chunks[123].id


# -- lifecycle ----------------------------------------------------------------------------------


def test_a_closed_store_refuses_requests(store: Store) -> None:
    store.close()
    store.close()  # idempotent
    with pytest.raises(StoreError, match="closed"):
        store.count()


def test_edge_index_survives_close_and_reopen(tmp_path: Path) -> None:
    with EdgeStore(tmp_path / "edge") as first:
        first.upsert(CHUNKS)
        first.set_links(IDEA, [PLAN])
    with EdgeStore(tmp_path / "edge") as second:
        assert second.count() == len(CHUNKS)
        assert second.file_states()[PLAN].stored_chunks == 3
        assert next(second.scroll(SearchFilter(files=[IDEA]))).links == [PLAN]
        chunk = CHUNKS[5]
        hits = query(second, chunk.dense, sparse_vector(chunk.payload.body, query=True))
        assert hits[0].id == chunk.id
        assert second.count(SearchFilter(date_from=date(2024, 5, 2))) == 3


class CountingShard:
    """An Edge shard that counts its flushes."""

    def __init__(self, shard: Any) -> None:
        self.shard, self.flushes = shard, 0

    def flush(self) -> None:
        self.flushes += 1
        self.shard.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.shard, name)


@pytest.mark.parametrize("writes", [False, True])
def test_edge_flushes_on_close_only_what_it_wrote(tmp_path: Path, writes: bool) -> None:
    # A flush with nothing pending still syncs every mapped file: a read-only CLI run (a
    # search) closes without one; one that wrote flushes, and its writes are kept.
    with EdgeStore(tmp_path / "edge") as first:
        first.upsert(CHUNKS)
    store = EdgeStore(tmp_path / "edge")
    counting = CountingShard(store._shard)
    store._shard = counting  # type: ignore[assignment]
    assert store.count() == len(CHUNKS)
    if writes:
        store.set_links(IDEA, [PLAN])
    store.close()
    assert counting.flushes == (1 if writes else 0)
    with EdgeStore(tmp_path / "edge") as reopened:
        assert next(reopened.scroll(SearchFilter(files=[IDEA]))).links == ([PLAN] if writes else [])


HOLDER = """
import sys
from pathlib import Path
from vault_agent.index.store.edge import EdgeStore
store = EdgeStore(Path(sys.argv[1]))
if sys.argv[2] == "write":
    import os, pickle
    store.upsert(pickle.loads(sys.stdin.buffer.read()))
    os._exit(0)  # no close(): only the write-ahead log can have kept the points
print("ready", flush=True)
sys.stdin.read()
"""


def test_edge_index_held_by_another_process_is_locked(tmp_path: Path) -> None:
    path = tmp_path / "edge"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), "hold"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError) as raised:
            EdgeStore(path)
        assert str(path) in str(raised.value)
        assert "another vault-agent process" in str(raised.value)
    finally:
        holder.kill()  # a crash, not a clean close: the OS must still release the lock
        holder.wait()
    with EdgeStore(path) as store:
        assert store.count() == 0


def test_edge_index_opened_twice_in_one_process_is_locked(tmp_path: Path) -> None:
    with EdgeStore(tmp_path / "edge"), pytest.raises(StoreLockedError):
        EdgeStore(tmp_path / "edge")


def test_edge_writes_survive_a_process_exit_without_close(tmp_path: Path) -> None:
    import pickle

    path = tmp_path / "edge"
    subprocess.run(
        [sys.executable, "-c", HOLDER, str(path), "write"],
        input=pickle.dumps(CHUNKS),
        check=True,
        timeout=60,
    )
    with EdgeStore(path) as store:
        assert store.count() == len(CHUNKS)


def test_edge_refuses_an_index_with_another_vector_layout(tmp_path: Path) -> None:
    from qdrant_edge import Distance, EdgeConfig, EdgeShard, EdgeVectorParams

    path = tmp_path / "edge"
    other = EdgeConfig(vectors={"fast-all-minilm-l6-v2": EdgeVectorParams(8, Distance.Cosine)})
    EdgeShard.create(str(path), other).close()
    with pytest.raises(StoreError, match="different vector layout"):
        EdgeStore(path)


# -- server connection --------------------------------------------------------------------------


def test_unreachable_server_is_reported_quickly() -> None:
    started = time.monotonic()
    with pytest.raises(
        StoreUnavailableError, match=r"Qdrant at http://127\.0\.0\.1:1 is unreachable"
    ):
        ServerStore.connect("http://127.0.0.1:1", None, "vault-agent-test", timeout_s=2)
    assert time.monotonic() - started < 5


class _FakeQdrant(http.server.BaseHTTPRequestHandler):
    """Answers every request with the status in `server.status` after `server.delay` s."""

    server: Any

    def _answer(self) -> None:
        self.server.headers_seen.append(dict(self.headers))
        time.sleep(self.server.delay)
        body = b'{"status": {"error": "nope"}, "time": 0}'
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_PUT = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def fake_qdrant() -> Iterator[Any]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeQdrant)
    server.daemon_threads = True
    server.status, server.delay, server.headers_seen = 200, 0.0, []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    ("status", "message"),
    [(401, "check the API key"), (403, "check the API key"), (503, "is unavailable")],
)
def test_server_refusals_name_the_url_and_the_fix(
    fake_qdrant: Any, status: int, message: str
) -> None:
    fake_qdrant.status = status
    url = f"http://127.0.0.1:{fake_qdrant.server_address[1]}"
    with (
        pytest.warns(UserWarning, match="insecure connection"),
        pytest.raises(StoreUnavailableError, match=message) as raised,
    ):
        ServerStore.connect(url, "secret-key", "vault-agent-test", timeout_s=5)
    assert url in str(raised.value)
    assert fake_qdrant.headers_seen[0].get("api-key") == "secret-key"


def test_server_timeout_is_unavailable(fake_qdrant: Any) -> None:
    fake_qdrant.delay = 3.0
    url = f"http://127.0.0.1:{fake_qdrant.server_address[1]}"
    started = time.monotonic()
    with pytest.raises(StoreUnavailableError, match="unreachable"):
        ServerStore.connect(url, None, "vault-agent-test", timeout_s=1)
    assert time.monotonic() - started < 2.5


def test_server_refuses_a_collection_with_another_vector_layout() -> None:
    client = QdrantClient(":memory:")
    client.create_collection(
        "notes", vectors_config=m.VectorParams(size=8, distance=m.Distance.DOT)
    )
    with pytest.raises(StoreError, match="not made by vault-agent"):
        ServerStore(client, "notes")


def test_server_store_reopens_an_existing_collection() -> None:
    client = QdrantClient(":memory:")
    ServerStore(client, "notes").upsert(CHUNKS)
    assert ServerStore(client, "notes").count() == len(CHUNKS)


# -- choosing the implementation ------------------------------------------------------------------


def test_open_store_uses_edge_without_a_url(tmp_path: Path) -> None:
    settings = Settings(vault=tmp_path / "vault", data_dir=tmp_path / "data")
    store = open_store(settings)
    try:
        assert isinstance(store, EdgeStore)
        assert store.path == settings.edge_path
        assert settings.edge_path.is_relative_to(tmp_path / "data")
    finally:
        store.close()


def test_open_store_uses_the_server_with_a_url(tmp_path: Path) -> None:
    settings = Settings(vault=tmp_path / "vault", store=StoreSettings(url="http://127.0.0.1:1"))
    with pytest.raises(StoreUnavailableError, match=r"127\.0\.0\.1:1"):
        open_store(settings)
