"""The `Store` protocol and the data that crosses it: one Qdrant point per chunk.

Two implementations sit behind this protocol: `EdgeStore` (Qdrant Edge, in-process, the
default) and `ServerStore` (qdrant-client against a Qdrant server or cluster). Everything
above the store (indexer, search, agent tools) only sees what is defined here.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from pydantic import BaseModel, Field

DENSE_VECTOR = "fast-all-minilm-l6-v2"
"""The dense vector's name for MiniLM's 384 dimensions; other sizes are named by their size."""
SPARSE_VECTOR = "bm25"
DENSE_DIM = 384
#: The vault's own source: its points are written by the indexer only (never the document API).
VAULT_SOURCE = "vault"

#: Payload keys that get a Qdrant payload index (filters and scrolls stay fast at scale).
KEYWORD_FIELDS = ("file", "tags", "type", "folders", "source", "content_hash")
INTEGER_FIELDS = ("chunk_index", "open_tasks")
DATETIME_FIELDS = ("date",)


def dense_vector_name(dim: int) -> str:
    """The name of a collection's dense vector of `dim` dimensions (one embedding model's)."""
    return DENSE_VECTOR if dim == DENSE_DIM else f"dense-{dim}"


class DocumentInfo(BaseModel):
    """What only chunks of a document from another source carry (`index/documents/`)."""

    id: str
    url: str | None = None
    tags: list[str] = Field(
        default_factory=list, description="The tags as sent; `tags` adds the text's own."
    )
    metadata: dict[str, Any] = Field(default_factory=dict)
    added: float = Field(default=0.0, description="When the document was first added (epoch s).")


class ChunkPayload(BaseModel):
    """The payload of one point. `file` (vault-relative, '/'-separated) is the join key;
    a document of another source has ``file = "<source>://<id>"``, which no vault path can be."""

    file: str
    title: str
    heading: str = Field(default="", description='Heading path, e.g. "Setup > Linux".')
    chunk_index: int = Field(ge=0)
    chunk_count: int = Field(ge=1, description="Chunks of this file; detects half-written files.")
    body: str
    tags: list[str] = Field(default_factory=list)
    type: str | None = None
    folders: list[str] = Field(default_factory=list)
    source: str = "vault"
    mtime: float = 0.0
    size: int = 0
    created: str | None = None
    date: str | None = Field(default=None, description="Daily note date (YYYY-MM-DD).")
    links: list[str] = Field(
        default_factory=list,
        description="Resolved outgoing link targets, on a note's first chunk (chunk_index 0) "
        "only; its other chunks hold none (indexes written before 2026-11-26 may repeat them "
        "there, never read).",
    )
    aliases: list[str] = Field(default_factory=list)
    content_hash: str
    embedding_model: str = Field(
        default="", description="The dense model that embedded it; another one's are redone."
    )
    page: int | None = Field(default=None, ge=1, description="PDFs: the chunk's 1-based page.")
    document: DocumentInfo | None = Field(default=None, description="Documents only.")
    properties: list[str] = Field(
        default_factory=list,
        description="Chunk 0: the note's properties as 'key: value' lines (vault/properties.py).",
    )
    open_tasks: int = Field(
        default=0, ge=0, description="Checkboxes of the chunk still open (`- [ ]`; vault/tasks.py)."
    )
    table_header: str = Field(
        default="",
        description="A body opening inside a table: the table's header row and rule (markdown).",
    )


class SparseVector(BaseModel):
    """A BM25 sparse vector (term ids and weights)."""

    indices: list[int]
    values: list[float]


@dataclass(frozen=True)
class VectorQuery:
    """One nearest-neighbour query: the `limit` points closest to a dense vector (cosine), or
    scoring highest on a sparse one (BM25 with the collection's IDF). Ranking several lists
    together (fusion) is the searcher's job, not the store's."""

    vector: Sequence[float] | SparseVector
    limit: int

    @property
    def is_sparse(self) -> bool:
        """True for a BM25 query."""
        return isinstance(self.vector, SparseVector)


class EmbeddedChunk(BaseModel):
    """A chunk ready for the store: its point id, vectors and payload."""

    id: str
    dense: list[float]
    sparse: SparseVector
    payload: ChunkPayload


class SearchFilter(BaseModel):
    """Filters shared by search, scroll and count. Every set field must match (AND);
    the values inside one list field are alternatives (OR)."""

    tags: list[str] = Field(default_factory=list)
    types: list[str] = Field(default_factory=list)
    exclude_types: list[str] = Field(
        default_factory=list,
        description='Leave out these types (e.g. ["pdf"]); notes without a type stay in.',
    )
    folders: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    exclude_files: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    exclude_sources: list[str] = Field(default_factory=list)
    urls: list[str] = Field(default_factory=list, description="Documents with one of these urls.")
    date_from: date | None = None
    date_to: date | None = None
    chunk_index: int | None = None
    open_tasks: bool = Field(
        default=False, description="Only passages holding a task still open (`- [ ] ...`)."
    )

    def is_empty(self) -> bool:
        """True when the filter matches everything."""
        return self == SearchFilter()


Scored = tuple[str, float]
"""A point id and its score in one query's list, best first."""


class StoredHit(BaseModel):
    """One scored point from a query."""

    id: str
    score: float
    payload: ChunkPayload


@dataclass(slots=True)
class FileState:
    """What the store knows about one indexed file, for incremental sync. A plain dataclass,
    built from values the store already typed: a restart's first sync makes one per file, and
    validating 50,000 models took 0.1 s of it at 50k notes."""

    content_hash: str
    mtime: float
    size: int
    chunk_count: int
    stored_chunks: int
    embedding_model: str = ""

    @property
    def complete(self) -> bool:
        """False when an interrupted write left only some of the file's chunks."""
        return self.stored_chunks == self.chunk_count

    def current(self, embedding_model: str) -> bool:
        """Complete, and embedded by `embedding_model` (else its vectors must be redone)."""
        return self.complete and self.embedding_model == embedding_model


class Store(Protocol):
    """A narrow view of a Qdrant collection holding one vault's chunks."""

    def upsert(self, chunks: Sequence[EmbeddedChunk]) -> None:
        """Insert or replace points (idempotent: ids are deterministic)."""

    def delete_files(self, files: Sequence[str]) -> None:
        """Delete every point whose `file` is in `files`."""

    def set_links(self, file: str, links: list[str]) -> None:
        """Rewrite the resolved `links` payload of `file`, on its first chunk, the one that
        holds them (no re-embedding)."""

    def set_payload(self, file: str, values: dict[str, Any]) -> None:
        """Overwrite these top-level payload keys on every chunk of `file` (no re-embedding)."""

    def search(
        self, queries: Sequence[VectorQuery], search_filter: SearchFilter | None = None
    ) -> list[list[StoredHit]]:
        """The hits of each query (best first) among the points matching the filter, in one
        call to the engine. A sparse query without terms (only stop words) has no hits."""

    def ranked(
        self, queries: Sequence[VectorQuery], search_filter: SearchFilter | None = None
    ) -> list[list[Scored]]:
        """What `search` finds, as (point id, score) pairs without payloads: a ranking that
        keeps only a few of its candidates fetches just theirs (`payloads`)."""

    def payloads(self, ids: Sequence[str]) -> dict[str, ChunkPayload]:
        """The payloads of these points by id (a point that no longer exists is left out)."""

    def scroll(
        self, search_filter: SearchFilter | None = None, limit: int | None = None
    ) -> Iterator[ChunkPayload]:
        """Iterate payloads matching the filter, in no particular order."""

    def count(self, search_filter: SearchFilter | None = None) -> int:
        """Exact number of points matching the filter."""

    def dense_vectors(self, file: str) -> list[list[float]]:
        """The stored dense vectors of `file`'s chunks, in chunk order (empty when it has
        none): a note's own vectors, to find notes like it without embedding it again."""

    def dense_vectors_of(self, files: Sequence[str]) -> dict[str, list[list[float]]]:
        """`dense_vectors` of several files in one call to the engine (a file with no chunks
        is left out)."""

    def file_states(
        self, source: str | None = None, files: Sequence[str] | None = None
    ) -> dict[str, FileState]:
        """Every indexed file (of `source`, and among `files`, when given) with its hash,
        mtime, size, embedding model and how many chunks are stored."""

    def close(self) -> None:
        """Flush and release the store (locks, connections)."""


def point_id(vault_id: uuid.UUID, file: str, chunk_index: int) -> str:
    """Deterministic point id: uuid5 of (vault id, file, chunk index)."""
    return str(uuid.uuid5(vault_id, f"{file}\x00{chunk_index}"))
