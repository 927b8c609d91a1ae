"""`EdgeStore`: the default `Store`, Qdrant Edge running inside the sidecar process.

One shard folder per vault, outside the vault. Qdrant Edge locks the shard's write-ahead log, so
only one process can hold a folder at a time; a second one gets `StoreLockedError`. The shard is
never `optimize()`d here: that builds HNSW and payload indexes and took 385 s at 100k points on
two busy cores, far too long for the sync path. Unoptimised queries stay in the low milliseconds
at vault sizes.

File states are read from a mirror next to the shard (`state_mirror.py`), checked against the
shard's generation: the segments' versions, which every applied write advances.
"""

from __future__ import annotations

import json
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
    MatchAny,
    MatchValue,
    Modifier,
    PayloadSchemaType,
    PayloadSelector,
    Point,
    Query,
    QueryBatchRequest,
    QueryRequest,
    RangeDateTime,
    RangeFloat,
    ScrollRequest,
    UpdateOperation,
)
from qdrant_edge import SparseVector as EdgeSparseVector

from vault_agent.index.store.conditions import AnyOf, Condition, IntAtLeast, IntEquals, NoneOf
from vault_agent.index.store.errors import StoreError, StoreLayoutError, StoreLockedError
from vault_agent.index.store.protocol import (
    DATETIME_FIELDS,
    DENSE_DIM,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    SPARSE_VECTOR,
    EmbeddedChunk,
    FileState,
    Scored,
    SparseVector,
    StoredHit,
    VectorQuery,
    dense_vector_name,
)
from vault_agent.index.store.qdrant import STATE_PAGE, QdrantStore, stored_hits
from vault_agent.index.store.state_mirror import MIRRORED_KEYS, MirroredPoint, StateMirror
from vault_agent.private_files import private_dir, tighten_tree

if TYPE_CHECKING:
    from qdrant_edge import ConditionType, NamedVector

#: Points per update call: bounds the size of one request handed to the engine.
UPSERT_BATCH = 512


class EdgeStore(QdrantStore[Filter]):
    """A `Store` backed by a Qdrant Edge shard in the folder `path` (created if missing)."""

    upsert_batch = UPSERT_BATCH

    def __init__(self, path: Path, dim: int = DENSE_DIM) -> None:
        self.path = path
        self.dense = dense_vector_name(dim)
        self._shard: EdgeShard | None
        self._shard, created_indexes = _open_shard(path, dim)
        #: Whether this store changed the shard: only then does `close` flush it. A flush
        #: with nothing pending still syncs every mapped file (~0.1 s, a third of a cold
        #: `vault-agent search`), and closing syncs them again anyway.
        self._written = created_indexes
        #: Every point, counted once per change: each hybrid search asks (`rare_limit`), an
        #: exact count costs 0.5 ms at 2k points, and only this process writes the shard.
        #: Kept with the number of writes it was counted at, so a count that a write
        #: overtook (a search beside a sync) is never reused.
        self._writes = 0
        self._total: tuple[int, int] | None = None
        self._states = StateMirror(mirror_path(path), self._generation)

    # -- writes and file states, kept in the mirror ----------------------------------------

    def upsert(self, chunks: Sequence[EmbeddedChunk]) -> None:
        """Insert or replace points (ids are deterministic, so this is idempotent)."""
        with self._states.writing() as mirror:
            super().upsert(chunks)
            mirror.upserted(chunks)

    def delete_files(self, files: Sequence[str]) -> None:
        """Delete every point whose `file` is in `files`."""
        with self._states.writing() as mirror:
            super().delete_files(files)
            mirror.deleted(files)

    def set_links(self, file: str, links: list[str]) -> None:
        """Rewrite `links` on the first chunk of `file`, leaving vectors and other keys alone."""
        with self._states.writing():  # no state key changes, but the generation moves
            super().set_links(file, links)

    def set_payload(self, file: str, values: dict[str, Any]) -> None:
        """Overwrite these top-level keys on every chunk of `file`, vectors untouched."""
        with self._states.writing() as mirror:
            super().set_payload(file, values)
            mirror.payload_set(file, values)

    def file_states(
        self, source: str | None = None, files: Sequence[str] | None = None
    ) -> dict[str, FileState]:
        """As `QdrantStore.file_states`, from the mirror. A mirror that doesn't match the
        shard is rebuilt by the first call asking for every file (which would scroll every
        point anyway); calls for a few files read the shard meanwhile."""
        if files is None and not self._states.live:
            with self._states.writing() as mirror:
                mirror.rebuild(self._points_for_mirror())
        states = self._states.states(source, files)
        return super().file_states(source, files) if states is None else states

    def _points_for_mirror(self) -> Iterator[MirroredPoint]:
        offset: Any = None
        while True:
            records, offset = self._live().scroll(
                ScrollRequest(
                    offset=offset,
                    limit=STATE_PAGE,
                    with_payload=PayloadSelector.Include(list(MIRRORED_KEYS)),
                    with_vector=False,
                )
            )
            yield from ((str(record.id), record.payload or {}) for record in records)
            if offset is None or not records:
                return

    def _generation(self) -> str | None:
        """The segments' ids and versions: an applied write advances its segment's version
        (the WAL's operation number), a reload restores it. None if the engine won't say."""
        try:
            segments = self._live().snapshot_manifest()
        except Exception:  # qdrant-edge raises plain Exception: then no mirror is trusted
            return None
        if not isinstance(segments, dict) or not segments:
            return None
        versions = []
        for segment, info in segments.items():
            version = info.get("segment_version") if isinstance(info, dict) else None
            if not isinstance(version, int):
                return None
            versions.append((str(segment), version))
        return json.dumps(sorted(versions))

    # -- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        """Flush segments to disk and release the folder lock (idempotent)."""
        if self._shard is not None:
            shard, self._shard = self._shard, None
            if self._written:
                shard.flush()
            shard.close()
            if self._written:  # the segments the engine wrote meanwhile, in modes of its own
                tighten_tree(self.path)
        self._states.close()

    def __enter__(self) -> EdgeStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the engine's primitives (see QdrantStore) ------------------------------------------

    def _upsert(self, chunks: Sequence[EmbeddedChunk]) -> None:
        # The WAL makes the points durable without a flush.
        points = [_point(c, self.dense) for c in chunks]
        self._update(UpdateOperation.upsert_points(points))

    def _delete(self, flt: Filter) -> None:
        self._update(UpdateOperation.delete_points_by_filter(flt))

    def _set_payload(self, flt: Filter, values: dict[str, Any]) -> None:
        self._update(UpdateOperation.set_payload_by_filter(flt, values))

    def _update(self, operation: UpdateOperation) -> None:
        shard = self._live()
        self._written = True
        try:
            shard.update(operation)
        finally:
            self._writes += 1

    def _search(self, queries: Sequence[VectorQuery], flt: Filter | None) -> list[list[StoredHit]]:
        found = self._query_batch(queries, flt, with_payload=True)
        return stored_hits(((p.id, p.score, p.payload) for p in points) for points in found)

    def _scored(self, queries: Sequence[VectorQuery], flt: Filter | None) -> list[list[Scored]]:
        found = self._query_batch(queries, flt, with_payload=False)
        return [[(str(p.id), p.score) for p in points] for points in found]

    def _query_batch(
        self, queries: Sequence[VectorQuery], flt: Filter | None, *, with_payload: bool
    ) -> list[list[Any]]:
        """The engine's nearest points for each query, in one call."""
        requests = [
            QueryRequest(
                limit=query.limit,
                query=_nearest(query, self.dense),
                filter=flt,
                with_payload=with_payload,
            )
            for query in queries
        ]
        found: list[list[Any]] = self._live().query_batch(QueryBatchRequest(requests))
        return found

    def _retrieve(self, ids: list[str]) -> list[tuple[Any, dict[str, Any]]]:
        records = self._live().retrieve(list(ids), with_payload=True, with_vector=False)
        return [(record.id, record.payload or {}) for record in records]

    def _scroll_page(
        self, flt: Filter | None, keys: list[str] | None, limit: int, offset: Any
    ) -> tuple[list[dict[str, Any]], Any]:
        records, next_offset = self._live().scroll(
            ScrollRequest(
                offset=offset,
                limit=limit,
                filter=flt,
                with_payload=True if keys is None else PayloadSelector.Include(keys),
                with_vector=False,
            )
        )
        return [record.payload or {} for record in records], next_offset

    def _dense_page(
        self, flt: Filter, keys: list[str], limit: int, offset: Any
    ) -> tuple[list[tuple[dict[str, Any], list[float]]], Any]:
        records, next_offset = self._live().scroll(
            ScrollRequest(
                offset=offset,
                limit=limit,
                filter=flt,
                with_payload=PayloadSelector.Include(keys),
                with_vector=[self.dense],
            )
        )
        page = [(record.payload or {}, _dense_of(record.vector, self.dense)) for record in records]
        return [(payload, vector) for payload, vector in page if vector is not None], next_offset

    def _count(self, flt: Filter | None) -> int:
        if flt is not None:
            return self._live().count(CountRequest(exact=True, filter=flt))
        writes = self._writes
        if self._total is None or self._total[0] != writes:
            self._total = (writes, self._live().count(CountRequest(exact=True)))
        return self._total[1]

    def _condition(self, condition: Condition) -> tuple[bool, ConditionType]:
        if isinstance(condition, AnyOf | NoneOf):
            match = FieldCondition(key=condition.key, match=MatchAny(any=condition.values))
            return isinstance(condition, AnyOf), match
        if isinstance(condition, IntEquals):
            return True, FieldCondition(key=condition.key, match=MatchValue(value=condition.value))
        if isinstance(condition, IntAtLeast):
            return True, FieldCondition(key=condition.key, range=RangeFloat(gte=condition.value))
        span = RangeDateTime(gte=condition.gte, lt=condition.lt)
        return True, FieldCondition(key=condition.key, range=span)

    def _combine(self, must: list[Any], must_not: list[Any]) -> Filter:
        return Filter(must=must or None, must_not=must_not or None)

    def _live(self) -> EdgeShard:
        if self._shard is None:
            raise StoreError(f"the index at {self.path} is closed")
        return self._shard


def mirror_path(path: Path) -> Path:
    """Where the file state mirror of the shard at `path` lives: beside it, not in it (the
    shard's folder holds only what Qdrant Edge writes, see `open._is_edge_shard`)."""
    return path.with_name(f"{path.name}.states.sqlite3")


def _open_shard(path: Path, dim: int) -> tuple[EdgeShard, bool]:
    """Load the shard at `path`, creating it (and its payload indexes) when the folder is new;
    and whether payload indexes were created."""
    config = EdgeConfig(
        vectors={dense_vector_name(dim): EdgeVectorParams(size=dim, distance=Distance.Cosine)},
        sparse_vectors={SPARSE_VECTOR: EdgeSparseVectorParams(modifier=Modifier.Idf)},
    )
    try:
        # Qdrant Edge writes its files with modes of its own: this folder keeps them private.
        private_dir(path)
    except OSError as exc:
        raise StoreError(f"cannot create the index folder {path}: {exc}") from exc
    try:
        # With a config, load() also initialises an empty folder, and checks an existing
        # shard against our vector layout instead of silently using another one.
        shard = EdgeShard.load(str(path), config)
    except Exception as exc:  # qdrant-edge raises plain Exception with a message
        raise _open_error(path, exc) from exc
    tighten_tree(path)  # what an older version, or another umask, left readable
    return shard, _ensure_payload_indexes(shard)


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
        return StoreLayoutError(
            f"the index at {path} was built with a different vector layout ({message}). "
            "Delete that folder to rebuild the index."
        )
    return StoreError(f"cannot open the index at {path}: {message}")


def _ensure_payload_indexes(shard: EdgeShard) -> bool:
    """Create the payload indexes a new shard needs (or an older one lacks); whether any
    was missing."""
    wanted = (
        [(k, PayloadSchemaType.Keyword) for k in KEYWORD_FIELDS]
        + [(k, PayloadSchemaType.Integer) for k in INTEGER_FIELDS]
        + [(k, PayloadSchemaType.Datetime) for k in DATETIME_FIELDS]
    )
    existing = shard.info().payload_schema
    missing = [(key, schema) for key, schema in wanted if key not in existing]
    for key, schema in missing:
        shard.update(UpdateOperation.create_field_index(key, schema))
    return bool(missing)


def _point(chunk: EmbeddedChunk, dense: str) -> Point:
    vectors: dict[str, NamedVector] = {
        dense: chunk.dense,
        SPARSE_VECTOR: _sparse(chunk.sparse),
    }
    return Point(id=chunk.id, vector=vectors, payload=chunk.payload.model_dump())


def _sparse(vector: SparseVector) -> EdgeSparseVector:
    return EdgeSparseVector(indices=vector.indices, values=vector.values)


def _dense_of(vectors: object, dense: str) -> list[float] | None:
    """The dense vector of a scrolled record's named vectors (None when it has none)."""
    if isinstance(vectors, dict) and isinstance(vectors.get(dense), list):
        return cast(list[float], vectors[dense])
    return None


def _nearest(query: VectorQuery, dense: str) -> Query:
    if isinstance(query.vector, SparseVector):
        return Query.Nearest(_sparse(query.vector), using=SPARSE_VECTOR)
    return Query.Nearest(list(query.vector), using=dense)
