"""What both Qdrant stores do alike, written once: batching, paging, filters, file states.

Qdrant Edge (`EdgeStore`) and qdrant-client (`ServerStore`) speak the same data model through
different classes. `QdrantStore` holds every behaviour of the `Store` protocol; a subclass only
maps a handful of primitives onto its engine: write a batch of points, delete or update by
filter, run a batch of single-vector queries, read one page of a scroll (payloads, or payloads
with dense vectors), count, and build a filter from neutral conditions (`conditions.py`). So
the two stores cannot drift apart on what a filter, a page or a file state means.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from vault_agent.index.store.conditions import Condition, conditions
from vault_agent.index.store.file_states import STATE_FIELDS, FileStateBuilder
from vault_agent.index.store.protocol import (
    ChunkPayload,
    EmbeddedChunk,
    FileState,
    Scored,
    SearchFilter,
    SparseVector,
    StoredHit,
    VectorQuery,
)

#: The engine's own filter class.
F = TypeVar("F")
#: A list of one query's results, with or without payloads.
R = TypeVar("R")

#: Points per scroll page. Larger pages cost memory, smaller ones more calls into the engine.
SCROLL_PAGE = 256
#: file_states() pages carry six small fields per point, so they can be much larger.
STATE_PAGE = 4096


def stored_hits(
    lists: Iterable[Iterable[tuple[Any, float, dict[str, Any] | None]]],
) -> list[list[StoredHit]]:
    """Engine results (id, score, payload) as `StoredHit` lists, each distinct point's payload
    validated once: a hybrid query's lists (dense, BM25, one probe per term) share most of
    their points, and validation was a third of a search's time."""
    payloads: dict[str, ChunkPayload] = {}
    result: list[list[StoredHit]] = []
    for points in lists:
        hits = []
        for point_id, score, payload in points:
            key = str(point_id)
            chunk = payloads.get(key)
            if chunk is None:
                chunk = payloads[key] = ChunkPayload.model_validate(payload)
            hits.append(StoredHit(id=key, score=score, payload=chunk))
        result.append(hits)
    return result


class QdrantStore(ABC, Generic[F]):
    """A `Store` on one Qdrant collection (or Edge shard); subclasses supply the engine."""

    #: Points per write request: bounds the size of one request handed to the engine.
    upsert_batch = 256

    # -- the Store protocol -----------------------------------------------------------------

    def upsert(self, chunks: Sequence[EmbeddedChunk]) -> None:
        """Insert or replace points (ids are deterministic, so this is idempotent)."""
        for start in range(0, len(chunks), self.upsert_batch):
            self._upsert(chunks[start : start + self.upsert_batch])

    def delete_files(self, files: Sequence[str]) -> None:
        """Delete every point whose `file` is in `files`."""
        if files:
            self._delete(self._must(SearchFilter(files=list(files))))

    def set_links(self, file: str, links: list[str]) -> None:
        """Rewrite `links` on the first chunk of `file` (the only one that holds them),
        leaving vectors and other keys alone."""
        flt = self._must(SearchFilter(files=[file], chunk_index=0))
        self._set_payload(flt, {"links": links})

    def set_payload(self, file: str, values: dict[str, Any]) -> None:
        """Overwrite these top-level keys on every chunk of `file`, vectors untouched."""
        self._set_payload(self._must(SearchFilter(files=[file])), values)

    def search(
        self, queries: Sequence[VectorQuery], search_filter: SearchFilter | None = None
    ) -> list[list[StoredHit]]:
        """Each query's hits, best first, among the points matching the filter (one call)."""
        return self._batch(self._search, queries, search_filter)

    def ranked(
        self, queries: Sequence[VectorQuery], search_filter: SearchFilter | None = None
    ) -> list[list[Scored]]:
        """Each query's (point id, score) pairs, best first, without payloads (one call):
        handing payloads over is most of a query's cost in the engine (Edge: 4.9 ms a
        hybrid query's lists with them, 0.35 ms without, on the developer docs vault)."""
        return self._batch(self._scored, queries, search_filter)

    def payloads(self, ids: Sequence[str]) -> dict[str, ChunkPayload]:
        """The validated payloads of these points by id; a point gone meanwhile is left out."""
        wanted = list(dict.fromkeys(ids))
        found = self._retrieve(wanted) if wanted else []
        return {str(point): ChunkPayload.model_validate(payload) for point, payload in found}

    def scroll(
        self, search_filter: SearchFilter | None = None, limit: int | None = None
    ) -> Iterator[ChunkPayload]:
        """Iterate payloads matching the filter, page by page, at most `limit` of them."""
        for payload in self._pages(self._filter(search_filter), None, SCROLL_PAGE, limit):
            yield ChunkPayload.model_validate(payload)

    def count(self, search_filter: SearchFilter | None = None) -> int:
        """Exact number of points matching the filter."""
        return self._count(self._filter(search_filter))

    def file_states(
        self, source: str | None = None, files: Sequence[str] | None = None
    ) -> dict[str, FileState]:
        """Every indexed file (of `source`; among `files`, when given) with its hash, mtime,
        size, embedding model and stored chunk count. Reads only those bookkeeping keys of
        each point, never bodies or vectors."""
        if files is not None and not files:
            return {}
        flt = self._filter(
            SearchFilter(sources=[source] if source else [], files=list(files or ()))
        )
        builder = FileStateBuilder()
        for payload in self._pages(flt, list(STATE_FIELDS), STATE_PAGE, None):
            builder.add(payload)
        return builder.build()

    def dense_vectors(self, file: str) -> list[list[float]]:
        """The stored dense vectors of `file`'s chunks, in chunk order (empty when it has
        none): a note's own vectors, to find notes like it without embedding it again."""
        return self.dense_vectors_of([file]).get(file, [])

    def dense_vectors_of(self, files: Sequence[str]) -> dict[str, list[list[float]]]:
        """Each of `files`' stored dense vectors, in chunk order, read in one scroll; a file
        with no chunks is left out."""
        if not files:
            return {}
        flt = self._must(SearchFilter(files=list(files)))
        chunks: dict[str, list[tuple[int, list[float]]]] = {}
        offset: Any = None
        while True:
            page, offset = self._dense_page(flt, ["file", "chunk_index"], SCROLL_PAGE, offset)
            for payload, vector in page:
                chunk = (int(payload.get("chunk_index", 0)), vector)
                chunks.setdefault(str(payload.get("file")), []).append(chunk)
            if offset is None or not page:
                break
        return {
            file: [vector for _, vector in sorted(found, key=lambda chunk: chunk[0])]
            for file, found in chunks.items()
        }

    # -- what each engine supplies ----------------------------------------------------------

    @abstractmethod
    def _upsert(self, chunks: Sequence[EmbeddedChunk]) -> None:
        """Write one batch of points, durably."""

    @abstractmethod
    def _delete(self, flt: F) -> None:
        """Delete the points matching `flt`."""

    @abstractmethod
    def _set_payload(self, flt: F, values: dict[str, Any]) -> None:
        """Overwrite top-level payload keys of the points matching `flt`."""

    @abstractmethod
    def _search(self, queries: Sequence[VectorQuery], flt: F | None) -> list[list[StoredHit]]:
        """Run single-vector queries (sparse ones have terms) under one filter."""

    @abstractmethod
    def _scored(self, queries: Sequence[VectorQuery], flt: F | None) -> list[list[Scored]]:
        """`_search` without payloads: each query's (point id, score) pairs."""

    @abstractmethod
    def _retrieve(self, ids: list[str]) -> list[tuple[Any, dict[str, Any]]]:
        """(point id, payload) of those of `ids` that exist."""

    @abstractmethod
    def _scroll_page(
        self, flt: F | None, keys: list[str] | None, limit: int, offset: Any
    ) -> tuple[list[dict[str, Any]], Any]:
        """One page of payloads (only `keys`, or all when None) and the next page's offset
        (None after the last page)."""

    @abstractmethod
    def _dense_page(
        self, flt: F, keys: list[str], limit: int, offset: Any
    ) -> tuple[list[tuple[dict[str, Any], list[float]]], Any]:
        """One page of points as (payload with only `keys`, dense vector), and the next page's
        offset (None after the last page)."""

    @abstractmethod
    def _count(self, flt: F | None) -> int:
        """Exact number of points matching `flt`."""

    @abstractmethod
    def _condition(self, condition: Condition) -> tuple[bool, Any]:
        """The engine's condition for `condition`, and whether it must hold (True) or must not."""

    @abstractmethod
    def _combine(self, must: list[Any], must_not: list[Any]) -> F:
        """The engine's filter from its conditions (at least one list is non-empty)."""

    # -- shared helpers ---------------------------------------------------------------------

    def _batch(
        self,
        run: Callable[[Sequence[VectorQuery], F | None], list[list[R]]],
        queries: Sequence[VectorQuery],
        search_filter: SearchFilter | None,
    ) -> list[list[R]]:
        """`run` on the queries that can match anything; an empty list for the others."""
        runnable = [
            index
            for index, query in enumerate(queries)
            # A sparse query of stop words only has no terms: nothing can match it.
            if not (isinstance(query.vector, SparseVector) and not query.vector.indices)
        ]
        results: list[list[R]] = [[] for _ in queries]
        if runnable:
            found = run([queries[i] for i in runnable], self._filter(search_filter))
            for index, hits in zip(runnable, found, strict=True):
                results[index] = hits
        return results

    def _filter(self, search_filter: SearchFilter | None) -> F | None:
        """The engine filter for `search_filter`, or None when it matches everything."""
        must: list[Any] = []
        must_not: list[Any] = []
        for condition in conditions(search_filter):
            holds, engine_condition = self._condition(condition)
            (must if holds else must_not).append(engine_condition)
        if not must and not must_not:
            return None
        return self._combine(must, must_not)

    def _must(self, search_filter: SearchFilter) -> F:
        """A filter that can't be empty (writes by file must never match every point)."""
        flt = self._filter(search_filter)
        if flt is None:
            raise ValueError("a write by filter needs a non-empty filter")
        return flt

    def _pages(
        self, flt: F | None, keys: list[str] | None, page: int, limit: int | None
    ) -> Iterator[dict[str, Any]]:
        """Payloads of the points matching `flt`, fetched `page` at a time."""
        offset: Any = None
        remaining = limit
        while remaining is None or remaining > 0:
            size = page if remaining is None else min(page, remaining)
            payloads, offset = self._scroll_page(flt, keys, size, offset)
            yield from payloads
            if remaining is not None:
                remaining -= len(payloads)
            if offset is None or not payloads:
                return
