"""`EdgeStore`: the default `Store`, Qdrant Edge running inside the sidecar process.

One shard folder per vault, outside the vault. Qdrant Edge locks the shard's write-ahead log, so
only one process can hold a folder at a time; a second one gets `StoreLockedError`. The shard is
never `optimize()`d here: that builds HNSW and payload indexes and took 385 s at 100k points on
two busy cores, far too long for the sync path. Unoptimised queries stay in the low milliseconds
at vault sizes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from qdrant_edge import (
    CountRequest,
    Distance,
    EdgeConfig,
    EdgeShard,
    EdgeSparseVectorParams,
    EdgeVectorParams,
    FieldCondition,
    Filter,
    Fusion,
    MatchAny,
    MatchValue,
    Modifier,
    PayloadSchemaType,
    PayloadSelector,
    Point,
    Prefetch,
    Query,
    QueryRequest,
    RangeDateTime,
    ScrollRequest,
    UpdateOperation,
)
from qdrant_edge import SparseVector as EdgeSparseVector

from vault_agent.index.conditions import AnyOf, DateRange, IntEquals, NoneOf, conditions
from vault_agent.index.errors import StoreError, StoreLockedError
from vault_agent.index.file_states import STATE_FIELDS, FileStateBuilder
from vault_agent.index.store import (
    DATETIME_FIELDS,
    DENSE_DIM,
    DENSE_VECTOR,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    SPARSE_VECTOR,
    ChunkPayload,
    EmbeddedChunk,
    FileState,
    FusionMethod,
    SearchFilter,
    SparseVector,
    StoredHit,
)

if TYPE_CHECKING:
    from qdrant_edge import ConditionType, NamedVector

#: RRF constant; 60 is the usual choice from the RRF paper and what both stores use.
RRF_K = 60
#: Points per update call: bounds the size of one request handed to the engine.
UPSERT_BATCH = 512
#: Points per scroll page. Larger pages cost memory, smaller ones more calls into the engine.
SCROLL_PAGE = 256
#: file_states() pages carry five small fields per point, so they can be much larger.
STATE_PAGE = 4096


class EdgeStore:
    """A `Store` backed by a Qdrant Edge shard in the folder `path` (created if missing)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._shard: EdgeShard | None = _open_shard(path)

    # -- writes -----------------------------------------------------------------------------

    def upsert(self, chunks: Sequence[EmbeddedChunk]) -> None:
        """Insert or replace points; the WAL makes them durable without a flush."""
        shard = self._live()
        for start in range(0, len(chunks), UPSERT_BATCH):
            points = [_point(c) for c in chunks[start : start + UPSERT_BATCH]]
            shard.update(UpdateOperation.upsert_points(points))

    def delete_files(self, files: Sequence[str]) -> None:
        """Delete every point whose `file` is in `files`."""
        if files:
            flt = _filter(SearchFilter(files=list(files)))
            assert flt is not None
            self._live().update(UpdateOperation.delete_points_by_filter(flt))

    def set_links(self, file: str, links: list[str]) -> None:
        """Rewrite `links` on every chunk of `file`, leaving vectors and other keys alone."""
        flt = _filter(SearchFilter(files=[file]))
        assert flt is not None
        self._live().update(UpdateOperation.set_payload_by_filter(flt, {"links": links}))

    def set_payload(self, file: str, values: dict[str, Any]) -> None:
        """Overwrite these top-level keys on every chunk of `file`, vectors untouched."""
        flt = _filter(SearchFilter(files=[file]))
        assert flt is not None
        self._live().update(UpdateOperation.set_payload_by_filter(flt, values))

    # -- reads ------------------------------------------------------------------------------

    def query(
        self,
        dense: Sequence[float] | None,
        sparse: SparseVector | None,
        search_filter: SearchFilter | None = None,
        limit: int = 10,
        candidates: int = 50,
        fusion: FusionMethod = "rrf",
    ) -> list[StoredHit]:
        """Hybrid (`fusion` of a dense and a sparse prefetch) or single-vector query.

        A sparse vector without terms (a query made only of stop words) counts as absent;
        with no usable vector at all the result is empty."""
        if dense is None and sparse is None:
            raise ValueError("query needs a dense or a sparse vector")
        flt = _filter(search_filter)
        searches: list[Query] = []
        if dense is not None:
            searches.append(Query.Nearest(list(dense), using=DENSE_VECTOR))
        if sparse is not None and sparse.indices:
            searches.append(Query.Nearest(_sparse(sparse), using=SPARSE_VECTOR))
        if not searches:
            return []
        if len(searches) == 1:
            request = QueryRequest(limit=limit, query=searches[0], filter=flt, with_payload=True)
        else:
            fetch = max(candidates, limit)
            request = QueryRequest(
                limit=limit,
                # The filter goes into each prefetch (that is where candidates are chosen) and
                # on the fusion too, so a future prefetch without it cannot leak other points.
                prefetches=[Prefetch(limit=fetch, query=q, filter=flt) for q in searches],
                query=_fusion(fusion),
                filter=flt,
                with_payload=True,
            )
        return [
            StoredHit(id=str(p.id), score=p.score, payload=ChunkPayload.model_validate(p.payload))
            for p in self._live().query(request)
        ]

    def scroll(
        self, search_filter: SearchFilter | None = None, limit: int | None = None
    ) -> Iterator[ChunkPayload]:
        """Iterate payloads matching the filter, page by page, at most `limit` of them."""
        flt = _filter(search_filter)
        for payload in self._pages(flt, True, SCROLL_PAGE, limit):
            yield ChunkPayload.model_validate(payload)

    def count(self, search_filter: SearchFilter | None = None) -> int:
        """Exact number of points matching the filter."""
        return self._live().count(CountRequest(exact=True, filter=_filter(search_filter)))

    def dense_vectors(self, file: str) -> list[list[float]]:
        """The dense vectors of `file`'s chunks, in chunk order."""
        flt = _filter(SearchFilter(files=[file]))
        selector = PayloadSelector.Include(["chunk_index"])
        chunks: list[tuple[int, list[float]]] = []
        offset: Any = None
        while True:
            records, offset = self._live().scroll(
                ScrollRequest(
                    offset=offset,
                    limit=SCROLL_PAGE,
                    filter=flt,
                    with_payload=selector,
                    with_vector=[DENSE_VECTOR],
                )
            )
            for record in records:
                vectors = record.vector
                if isinstance(vectors, dict) and isinstance(vectors.get(DENSE_VECTOR), list):
                    index = int((record.payload or {}).get("chunk_index", 0))
                    chunks.append((index, cast(list[float], vectors[DENSE_VECTOR])))
            if offset is None or not records:
                return [vector for _, vector in sorted(chunks, key=lambda chunk: chunk[0])]

    def file_states(
        self, source: str | None = None, files: Sequence[str] | None = None
    ) -> dict[str, FileState]:
        """Every indexed file (of `source`; among `files`, when given) with its hash, mtime,
        size, embedding model and stored chunk count. Reads only those bookkeeping keys of
        each point, never bodies or vectors."""
        builder = FileStateBuilder()
        selector = PayloadSelector.Include(list(STATE_FIELDS))
        if files is not None and not files:
            return {}
        flt = _filter(SearchFilter(sources=[source] if source else [], files=list(files or ())))
        for payload in self._pages(flt, selector, STATE_PAGE, None):
            builder.add(payload)
        return builder.build()

    # -- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        """Flush segments to disk and release the folder lock (idempotent)."""
        if self._shard is not None:
            shard, self._shard = self._shard, None
            shard.flush()
            shard.close()

    def __enter__(self) -> EdgeStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _live(self) -> EdgeShard:
        if self._shard is None:
            raise StoreError(f"the index at {self.path} is closed")
        return self._shard

    def _pages(
        self,
        flt: Filter | None,
        with_payload: bool | PayloadSelector,
        page: int,
        limit: int | None,
    ) -> Iterator[dict[str, Any]]:
        """Payloads of the points matching `flt`, fetched `page` at a time."""
        offset: Any = None
        remaining = limit
        while remaining is None or remaining > 0:
            size = page if remaining is None else min(page, remaining)
            records, offset = self._live().scroll(
                ScrollRequest(
                    offset=offset,
                    limit=size,
                    filter=flt,
                    with_payload=with_payload,
                    with_vector=False,
                )
            )
            for record in records:
                yield record.payload or {}
            if remaining is not None:
                remaining -= len(records)
            if offset is None or not records:
                return


def _open_shard(path: Path) -> EdgeShard:
    """Load the shard at `path`, creating it (and its payload indexes) when the folder is new."""
    config = EdgeConfig(
        vectors={DENSE_VECTOR: EdgeVectorParams(size=DENSE_DIM, distance=Distance.Cosine)},
        sparse_vectors={SPARSE_VECTOR: EdgeSparseVectorParams(modifier=Modifier.Idf)},
    )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the index folder {path}: {exc}") from exc
    try:
        # With a config, load() also initialises an empty folder, and checks an existing
        # shard against our vector layout instead of silently using another one.
        shard = EdgeShard.load(str(path), config)
    except Exception as exc:  # qdrant-edge raises plain Exception with a message
        raise _open_error(path, exc) from exc
    _ensure_payload_indexes(shard)
    return shard


def _open_error(path: Path, exc: Exception) -> StoreError:
    """Turn qdrant-edge's untyped load failure into an error a user can act on."""
    message = str(exc)
    # The WAL is guarded by an exclusive non-blocking file lock; a second holder (another
    # process, or a second EdgeStore in this one) fails with "Can't init WAL: Kind(WouldBlock)".
    if "WouldBlock" in message:
        return StoreLockedError(
            f"the index at {path} is held by another vault-agent process (a running "
            "`vault-agent serve`?). Stop it, or send the request through the running sidecar."
        )
    if "incompatible" in message.lower():
        return StoreError(
            f"the index at {path} was built with a different vector layout ({message}). "
            "Delete that folder to rebuild the index."
        )
    return StoreError(f"cannot open the index at {path}: {message}")


def _ensure_payload_indexes(shard: EdgeShard) -> None:
    """Create the payload indexes a new shard needs (or an older one lacks)."""
    wanted = (
        [(k, PayloadSchemaType.Keyword) for k in KEYWORD_FIELDS]
        + [(k, PayloadSchemaType.Integer) for k in INTEGER_FIELDS]
        + [(k, PayloadSchemaType.Datetime) for k in DATETIME_FIELDS]
    )
    existing = shard.info().payload_schema
    for key, schema in wanted:
        if key not in existing:
            shard.update(UpdateOperation.create_field_index(key, schema))


def _point(chunk: EmbeddedChunk) -> Point:
    vectors: dict[str, NamedVector] = {
        DENSE_VECTOR: chunk.dense,
        SPARSE_VECTOR: _sparse(chunk.sparse),
    }
    return Point(id=chunk.id, vector=vectors, payload=chunk.payload.model_dump())


def _fusion(method: FusionMethod) -> Fusion:
    # Fusion.Rrf and Fusion.Dbsf subclass Fusion at runtime; the 0.9.0 stub doesn't say so.
    if method == "dbsf":
        return cast(Fusion, Fusion.Dbsf())
    return cast(Fusion, Fusion.Rrf(k=RRF_K))


def _sparse(vector: SparseVector) -> EdgeSparseVector:
    return EdgeSparseVector(indices=vector.indices, values=vector.values)


def _filter(search_filter: SearchFilter | None) -> Filter | None:
    """The Edge filter for `search_filter`, or None when it matches everything."""
    must: list[ConditionType] = []
    must_not: list[ConditionType] = []
    for cond in conditions(search_filter):
        if isinstance(cond, AnyOf):
            must.append(FieldCondition(key=cond.key, match=MatchAny(any=cond.values)))
        elif isinstance(cond, NoneOf):
            must_not.append(FieldCondition(key=cond.key, match=MatchAny(any=cond.values)))
        elif isinstance(cond, IntEquals):
            must.append(FieldCondition(key=cond.key, match=MatchValue(value=cond.value)))
        elif isinstance(cond, DateRange):
            rng = RangeDateTime(gte=cond.gte, lt=cond.lt)
            must.append(FieldCondition(key=cond.key, range=rng))
    if not must and not must_not:
        return None
    return Filter(must=must or None, must_not=must_not or None)
