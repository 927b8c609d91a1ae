"""The one write path of the index: a parsed note in, its chunks embedded and stored.

Every writer goes through here: the indexer (notes and PDFs of the vault) and the document
API (texts of other sources). `prepare` cuts a parsed `Note` into chunks and gives each the
payload keys its file shares (`FileKeys`); `write` embeds a batch of prepared files (dense and
BM25, all before anything is written) and replaces their points in the store: delete by file
first, so a file that shrank keeps no old tail, then upsert under ids derived from (vault,
file, chunk index), so writing the same file twice is idempotent.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from pydantic import BaseModel, Field

from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import Embedder
from vault_agent.index.store.protocol import (
    VAULT_SOURCE,
    ChunkPayload,
    DocumentInfo,
    EmbeddedChunk,
    Store,
    point_id,
)
from vault_agent.vault.chunker import CHUNKS_VERSION, Chunk, ChunkSizes, chunk_note
from vault_agent.vault.notes import Note
from vault_agent.vault.tasks import open_tasks

#: Sections smaller than this (in tokens) are merged with a neighbour.
MIN_CHUNK_TOKENS = 64
#: A window of a long section is embedded with this many tokens of the window before it.
OVERLAP_TOKENS = 32


class FileKeys(BaseModel):
    """The payload keys every chunk of one file carries (see `ChunkPayload`)."""

    file: str
    title: str
    tags: list[str] = Field(default_factory=list)
    type: str | None = None
    folders: list[str] = Field(default_factory=list)
    source: str = VAULT_SOURCE
    mtime: float = 0.0
    size: int = 0
    created: str | None = None
    date: str | None = None
    links: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    content_hash: str
    document: DocumentInfo | None = None

    @classmethod
    def of_note(cls, note: Note, *, mtime: float, size: int, links: list[str]) -> FileKeys:
        """The keys of a vault note (or PDF): its own facts, its folders and resolved links."""
        parents = PurePosixPath(note.file).parents
        return cls(
            file=note.file,
            title=note.title,
            tags=note.tags,
            type=note.type,
            folders=[p.as_posix() for p in reversed(list(parents)) if p.as_posix() != "."],
            mtime=mtime,
            size=size,
            created=note.created,
            date=note.date,
            links=links,
            aliases=note.aliases,
            content_hash=note.content_hash,
        )


@dataclass(frozen=True)
class Prepared:
    """One file cut into chunks, ready to embed."""

    keys: FileKeys
    chunks: list[Chunk]
    replaces: bool = True
    """The store may hold an older version of the file: its points are deleted first."""

    @property
    def file(self) -> str:
        """The file's `file` key."""
        return self.keys.file


class Ingest:
    """Prepares and writes files for one vault's store."""

    def __init__(
        self, store: Store, embedder: Embedder, sparse: Bm25Encoder, vault_id: uuid.UUID
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.sparse = sparse
        self.vault_id = vault_id
        # Chunks are sized by the embedder's own tokenizer, title and heading path included.
        self.sizes = ChunkSizes(
            max_size=embedder.max_tokens,
            min_size=MIN_CHUNK_TOKENS,
            overlap=OVERLAP_TOKENS,
            measure=embedder.count_tokens,
        )

    @property
    def model_name(self) -> str:
        """What every written chunk records as `embedding_model`: the dense model, the BM25
        terms and the chunk recipe it was written with. Another value means it must be redone."""
        return f"{self.embedder.model_name}+{self.sparse.name}+chunks-v{CHUNKS_VERSION}"

    def prepare(self, note: Note, keys: FileKeys, *, replaces: bool = True) -> Prepared:
        """`note` cut into chunks under `keys`."""
        return Prepared(keys=keys, chunks=chunk_note(note, self.sizes), replaces=replaces)

    def write(self, batch: Sequence[Prepared]) -> int:
        """Embed every chunk of `batch`, then replace those files' points; the number of
        chunks written. Nothing is written when embedding fails."""
        texts = [chunk.embed_text for prepared in batch for chunk in prepared.chunks]
        if not texts:
            return 0
        dense = self.embedder.embed_documents(texts)
        # Keyword search also reads the note's other names: its aliases and its folders
        # ("Mobile/v1.4.2" is the mobile app's release). The dense text stays the reading.
        sparse = self.sparse.embed_documents(
            [
                f"{_other_names(prepared.keys)}\n{chunk.embed_text}"
                for prepared in batch
                for chunk in prepared.chunks
            ]
        )
        points: list[EmbeddedChunk] = []
        for prepared in batch:
            for chunk in prepared.chunks:
                payload = self._payload(prepared, chunk)
                position = len(points)
                points.append(
                    EmbeddedChunk.model_construct(
                        id=point_id(self.vault_id, payload.file, payload.chunk_index),
                        dense=dense[position].tolist(),
                        sparse=sparse[position],
                        payload=payload,
                    )
                )
        # Files the store didn't hold have nothing to delete; skipping them keeps a first index
        # of a big vault from filtering the whole growing collection once per batch.
        stored = [prepared.file for prepared in batch if prepared.replaces]
        if stored:
            self.store.delete_files(stored)
        self.store.upsert(points)
        return len(points)

    def _payload(self, prepared: Prepared, chunk: Chunk) -> ChunkPayload:
        keys = dict(prepared.keys)
        if chunk.chunk_index:
            # A note's resolved links are stored once, on its first chunk, which is where
            # every reader looks (`ChunkPayload.links`): Qdrant Edge converts a list payload
            # at ~4 us an element, and a hub note's 600 links on each of its chunks made the
            # store's writes a third of a stand-in index of obsidian-hub.
            keys["links"] = []
        return ChunkPayload(
            **keys,
            heading=chunk.heading,
            chunk_index=chunk.chunk_index,
            chunk_count=len(prepared.chunks),
            body=chunk.body,
            embedding_model=self.model_name,
            page=chunk.page,
            properties=chunk.properties,
            table_header=chunk.table_header,
            open_tasks=open_tasks(chunk.body),
        )


def _other_names(keys: FileKeys) -> str:
    """A note's aliases and the names of the outer folders it sits in, one line (the
    innermost one is in every chunk's text already: `chunker.innermost_folder`)."""
    folders = () if "://" in keys.file else PurePosixPath(keys.file).parent.parts[:-1]
    return " ".join([*keys.aliases, *folders])
