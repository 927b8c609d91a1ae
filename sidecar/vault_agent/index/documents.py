"""Documents from other sources (web clippings, highlights, transcripts...) in the vault's index.

The vault is the first source; others come in through the document API (`/v1/sources/...`) or
`vault-agent sources add`, and live in the vault's own store under their `source` tag, so one
search covers them all and a filter on `source` narrows it. A document is chunked and embedded
exactly like a note: its markdown is parsed as a note (`parse_note`), cut by `chunk_note`, and
its title is embedded with every chunk.

A document's chunks carry the note payload keys, with:

- `file` = ``"<source>://<id>"``, unique across sources and never a vault path (vault paths
  have no empty segment, so no "//"): the indexer, which deletes by `file`, can't touch them;
- `title` the title sent (else the id); `tags` the tags sent plus the text's own #tags, expanded
  like a note's; `created` as sent (else the text's frontmatter `created`); `mtime` when it was
  last written; `content_hash` sha256 of title and text; `date`, `links`, `folders` and
  `aliases` empty (a document is no daily note and links nowhere in the vault);
- `document` = {id, url, tags as sent, metadata, added}.

Point ids are uuid5(vault id, file, chunk index), as for notes. Nothing lives outside the
store: sources survive a restart without re-embedding, each vault's collection (or Edge shard)
holds its own, and a document's text comes back rebuilt from its chunks, as notes do. Writes
are serialised by a lock, and everything is embedded before anything is written: a request
that fails leaves the store as it was. Unchanged documents are not embedded again; a change of
metadata only (url, tags, created, metadata) rewrites payloads, never vectors.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
    model_validator,
)

from vault_agent.index.embedder import Embedder
from vault_agent.index.sparse import Bm25Encoder
from vault_agent.index.store import (
    VAULT_SOURCE,
    ChunkPayload,
    DocumentInfo,
    EmbeddedChunk,
    SearchFilter,
    Store,
    point_id,
)
from vault_agent.vault.chunker import chunk_note
from vault_agent.vault.notes import expand_tags, parse_note

# Each pattern ends in "$(?!\n)": Python's "$" also matches before a final newline, and test
# generators (hypothesis, schemathesis) read the documented patterns with Python.
SOURCE_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$(?!\n)"
"""Source names: lower-case letters, digits, '-' and '_', at most 64 characters."""
DOCUMENT_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._~:@+=-]{0,199}$(?!\n)"
"""Document ids: at most 200 characters, no '/', '#', '|' or spaces (they go into URLs)."""
URL_PATTERN = r'^https?://[^\x00-\x20\x7f-\x9f<>"/][^\x00-\x20\x7f-\x9f<>"]*$(?!\n)'
"""Only web pages: a citation becomes a link the user clicks (no javascript:, file:...)."""

MAX_DOCUMENTS_PER_REQUEST = 100
MAX_DOCUMENT_BYTES = 1_000_000
"""A document's text, as UTF-8 (about 700 chunks, a minute of embedding on two cores)."""
MAX_METADATA_BYTES = 16_384
"""A document's metadata as JSON: it is stored with each of its chunks."""
MAX_TITLE_CHARS = 500
MAX_URL_CHARS = 2_048
MAX_TAGS = 50
MAX_TAG_CHARS = 100

# C0 controls but tab and newlines, and DEL: no meaning in markdown, and enough of them make
# parse_note take the text for a binary file.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SOURCE = re.compile(SOURCE_PATTERN)
_DOCUMENT_ID = re.compile(DOCUMENT_ID_PATTERN)
_URL = re.compile(URL_PATTERN)
_SEPARATOR = "://"

Tag = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TAG_CHARS)]


class DocumentError(ValueError):
    """A request the document store refuses; `code` is the API's error code."""

    def __init__(self, message: str, code: str = "invalid_request") -> None:
        super().__init__(message)
        self.code = code


class ReservedSourceError(DocumentError):
    """The `vault` source belongs to the indexer."""


class DocumentLimitError(DocumentError):
    """Too many documents at once, or one too large (the API's 413)."""


def _bounded_metadata(value: dict[str, Any]) -> dict[str, Any]:
    size = len(_utf8(json.dumps(value, ensure_ascii=False, separators=(",", ":"))))
    if size > MAX_METADATA_BYTES:
        raise ValueError(
            f"metadata is {size:,} bytes as JSON, over the {MAX_METADATA_BYTES:,}-byte limit"
        )
    return value


Metadata = Annotated[dict[str, Any], AfterValidator(_bounded_metadata)]


def _valid_id(value: str) -> str:
    check_document_id(value)
    return value


def _web_url(value: str) -> str:
    if len(value) > MAX_URL_CHARS or not _URL.fullmatch(value):
        raise ValueError(
            f"a url must be a web address (http:// or https://, no spaces) of at most "
            f"{MAX_URL_CHARS:,} characters: answers turn it into a link"
        )
    return value


# Patterns are documented; the checks say in words what is valid.
DocumentId = Annotated[
    str,
    AfterValidator(_valid_id),
    WithJsonSchema({"type": "string", "pattern": DOCUMENT_ID_PATTERN, "maxLength": 200}),
]
WebUrl = Annotated[
    str,
    AfterValidator(_web_url),
    WithJsonSchema({"type": "string", "pattern": URL_PATTERN, "maxLength": MAX_URL_CHARS}),
]


class Document(BaseModel):
    """A document as a client sends it."""

    model_config = ConfigDict(extra="forbid")

    id: DocumentId = Field(
        description="Stable within its source; sending it again replaces the document."
    )
    # Its limit is in bytes, checked by `check_limits` (a 413, like an oversized body): a JSON
    # schema can only count characters.
    text: str = Field(
        min_length=1,
        description=f"Markdown, at most {MAX_DOCUMENT_BYTES:,} bytes as UTF-8 (else 413).",
    )
    title: str | None = Field(
        default=None, min_length=1, max_length=MAX_TITLE_CHARS, description="Default: the id."
    )
    url: WebUrl | None = Field(
        default=None,
        description="Its web page (http or https): answers cite the document by this link.",
    )
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    created: datetime | date | None = None
    metadata: Metadata = Field(
        default_factory=dict,
        description=f"Free JSON, at most {MAX_METADATA_BYTES:,} bytes; returned as sent.",
    )


class DocumentChanges(BaseModel):
    """A partial update: only the fields sent change (at least one). A new text or title is
    embedded again; the other fields only rewrite the stored payload."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"minProperties": 1})

    text: Annotated[
        str | None,
        WithJsonSchema({"type": "string", "minLength": 1}),
    ] = Field(default=None, min_length=1)
    title: str | None = Field(
        default=None, min_length=1, max_length=MAX_TITLE_CHARS, description="null: the id."
    )
    url: WebUrl | None = Field(default=None, description="null: none.")
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    created: datetime | date | None = None
    metadata: Metadata = Field(default_factory=dict, description="Replaces the metadata.")

    @model_validator(mode="after")
    def _something_to_change(self) -> DocumentChanges:
        if not self.model_fields_set:
            raise ValueError("give at least one of text, title, url, tags, created, metadata")
        if "text" in self.model_fields_set and self.text is None:
            raise ValueError("text can't be null; send the new text")
        return self


class StoredDocument(BaseModel):
    """A document as the index holds it."""

    id: str
    source: str
    file: str = Field(description='Its `file` in search hits and payloads: "<source>://<id>".')
    title: str
    url: str | None
    tags: list[str] = Field(description="As sent (search also matches the text's own #tags).")
    created: str | None
    metadata: dict[str, Any]
    chunks: int
    size: int = Field(description="Bytes of text, as UTF-8.")
    added: datetime
    updated: datetime
    text: str | None = Field(
        default=None, description="Rebuilt from the chunks (one document only, not in lists)."
    )


class SourceInfo(BaseModel):
    """One source of the index."""

    source: str
    managed_by: Literal["indexer", "api"] = Field(
        description="indexer: the vault itself (read-only here); api: the document API."
    )
    documents: int
    chunks: int
    embedding_model: str
    created: datetime | None = Field(description="When its oldest document was added.")
    updated: datetime | None = Field(description="When a document of it was last written.")


class WriteReport(BaseModel):
    """What a write did, by document id."""

    source: str
    added: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)
    deleted: list[str] = Field(default_factory=list)
    chunks_embedded: int = 0
    documents: int = Field(default=0, description="Documents in the source after the write.")


def document_file(source: str, doc_id: str) -> str:
    """The `file` of a document's chunks: ``"<source>://<id>"``."""
    return f"{source}{_SEPARATOR}{doc_id}"


def is_document_file(file: str) -> bool:
    """True for a document's `file` (never true for a vault path)."""
    return _SEPARATOR in file


def check_source(source: str) -> None:
    """Raise `DocumentError` for a malformed name, `ReservedSourceError` for ``vault``."""
    if source == VAULT_SOURCE:
        raise ReservedSourceError(
            "the source 'vault' is reserved: the vault's notes are indexed from its files "
            "(edit the notes, or POST /v1/index/sync), never through the document API",
            "reserved_source",
        )
    if not _SOURCE.fullmatch(source):
        raise DocumentError(
            f"invalid source name {source[:80]!r}: use 1 to 64 lower-case letters, digits, "
            "'-' or '_', starting with a letter or digit",
            "invalid_source",
        )


def check_document_id(doc_id: str) -> None:
    """Raise `DocumentError` for a malformed document id."""
    if not _DOCUMENT_ID.fullmatch(doc_id):
        raise DocumentError(
            f"invalid document id {doc_id[:80]!r}: use 1 to 200 letters, digits or ._~:@+=- "
            "(no '/', '#', '|' or spaces), starting with a letter or digit",
            "invalid_document_id",
        )


def check_limits(documents: Sequence[Document]) -> None:
    """Raise `DocumentLimitError` (the API's 413) for too many documents or too large a text."""
    if len(documents) > MAX_DOCUMENTS_PER_REQUEST:
        raise DocumentLimitError(
            f"{len(documents)} documents in one request, over the limit of "
            f"{MAX_DOCUMENTS_PER_REQUEST}: send them in batches",
            "too_many_documents",
        )
    for document in documents:
        check_text_size(document.id, document.text)


def check_text_size(doc_id: str, text: str) -> None:
    """Raise `DocumentLimitError` for a text over `MAX_DOCUMENT_BYTES`."""
    size = len(_utf8(text))
    if size > MAX_DOCUMENT_BYTES:
        raise DocumentLimitError(
            f"document {doc_id!r} has {size:,} bytes of text, over the limit of "
            f"{MAX_DOCUMENT_BYTES:,} bytes per document: split it",
            "document_too_large",
        )


class Documents:
    """The documents of every source but the vault, in one vault's store. Thread-safe."""

    def __init__(
        self, store: Store, embedder: Embedder, sparse: Bm25Encoder, vault_id: uuid.UUID
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.sparse = sparse
        self.vault_id = vault_id
        self._lock = threading.Lock()

    # ----------------------------------------------------------------- reads

    def sources(self) -> list[SourceInfo]:
        """The vault, then every other source by name, with counts and times."""
        vault = SourceInfo(
            source=VAULT_SOURCE,
            managed_by="indexer",
            documents=self.store.count(SearchFilter(sources=[VAULT_SOURCE], chunk_index=0)),
            chunks=self.store.count(SearchFilter(sources=[VAULT_SOURCE])),
            embedding_model=self.embedder.model_name,
            created=None,
            updated=None,
        )
        firsts: dict[str, list[ChunkPayload]] = {}
        for chunk in self.store.scroll(SearchFilter(exclude_sources=[VAULT_SOURCE], chunk_index=0)):
            firsts.setdefault(chunk.source, []).append(chunk)
        others = [
            SourceInfo(
                source=source,
                managed_by="api",
                documents=len(chunks),
                chunks=self.store.count(SearchFilter(sources=[source])),
                embedding_model=self.embedder.model_name,
                created=_time(min(_added(chunk) for chunk in chunks)),
                updated=_time(max(chunk.mtime for chunk in chunks)),
            )
            for source, chunks in sorted(firsts.items())
        ]
        return [vault, *others]

    def list_documents(self, source: str) -> list[StoredDocument]:
        """The documents of `source` (without text), by id."""
        check_source(source)
        firsts = self.store.scroll(SearchFilter(sources=[source], chunk_index=0))
        return sorted((_stored(chunk, None) for chunk in firsts), key=lambda doc: doc.id)

    def get(self, source: str, doc_id: str) -> StoredDocument | None:
        """One document with its text, or None."""
        check_source(source)
        check_document_id(doc_id)
        chunks = self._chunks(document_file(source, doc_id))
        if not chunks:
            return None
        return _stored(chunks[0], _rebuild(chunks), len(chunks))

    def is_source(self, name: str) -> bool:
        """True when `name` is a source holding documents (not the vault)."""
        if name == VAULT_SOURCE or not _SOURCE.fullmatch(name):
            return False
        return self.store.count(SearchFilter(sources=[name], chunk_index=0)) > 0

    def is_document_url(self, url: str) -> bool:
        """True when a document of any source has this url."""
        return self.store.count(SearchFilter(urls=[url], chunk_index=0)) > 0

    # ----------------------------------------------------------------- writes

    def upsert(self, source: str, documents: Sequence[Document]) -> WriteReport:
        """Add documents to `source`, replacing those with the same id; the others stay.
        Within one call, a later document with an id already given wins."""
        return self._write(source, documents, replace=False)

    def replace(self, source: str, documents: Sequence[Document]) -> WriteReport:
        """Make `source` hold exactly `documents` (an empty list empties it)."""
        return self._write(source, documents, replace=True)

    def patch(self, source: str, doc_id: str, changes: DocumentChanges) -> StoredDocument | None:
        """Change some fields of one document; None when there is no such document."""
        check_source(source)
        check_document_id(doc_id)
        if changes.text is not None:
            check_text_size(doc_id, changes.text)
        sent = changes.model_fields_set
        with self._lock:
            file = document_file(source, doc_id)
            chunks = self._chunks(file)
            if not chunks:
                return None
            first = chunks[0]
            info = first.document or DocumentInfo(id=doc_id)
            title = (changes.title or doc_id) if "title" in sent else first.title
            fields = _Fields(
                doc_id=doc_id,
                text=changes.text if changes.text is not None else _rebuild(chunks),
                title=title,
                url=changes.url if "url" in sent else info.url,
                tags=list(changes.tags) if "tags" in sent else info.tags,
                created=_iso(changes.created) if "created" in sent else first.created,
                created_given=True,
                metadata=changes.metadata if "metadata" in sent else info.metadata,
            )
            now = time.time()
            if "text" in sent or title != first.title:
                prepared = _prepare(source, fields, _added(first), now)
                self._embed_and_write([prepared], [])
            else:
                # Same text and title: the chunks stay, the per-document keys are rewritten.
                # The text's own tags: those of its body, and those only it had (frontmatter).
                text_tags = {*parse_note(file, _utf8(fields.text)).tags}
                text_tags |= set(first.tags) - set(expand_tags(info.tags))
                self.store.set_payload(file, _meta(fields, text_tags, _added(first), now))
            return self.get(source, doc_id)

    def delete(self, source: str, doc_id: str) -> int:
        """Delete one document; the number of chunks deleted (0: there was none)."""
        check_source(source)
        check_document_id(doc_id)
        file = document_file(source, doc_id)
        with self._lock:
            chunks = self.store.count(SearchFilter(files=[file]))
            if chunks:
                self.store.delete_files([file])
            return chunks

    def delete_source(self, source: str) -> tuple[int, int]:
        """Delete a whole source: (documents, chunks) deleted."""
        check_source(source)
        with self._lock:
            files = sorted(self.store.file_states(source).items())
            for start in range(0, len(files), 256):
                self.store.delete_files([file for file, _ in files[start : start + 256]])
            return len(files), sum(state.stored_chunks for _, state in files)

    # ----------------------------------------------------------------- internals

    def _write(self, source: str, documents: Sequence[Document], *, replace: bool) -> WriteReport:
        check_source(source)
        check_limits(documents)
        wanted = {doc.id: doc for doc in documents}  # a later document with the same id wins
        report = WriteReport(source=source)
        with self._lock:
            states = self.store.file_states(source)
            files = [document_file(source, doc_id) for doc_id in wanted]
            stored = {
                chunk.file: chunk
                for chunk in self.store.scroll(SearchFilter(files=files, chunk_index=0))
            }
            now = time.time()
            embed: list[_Prepared] = []
            rewrite: list[_Prepared] = []
            for doc_id, document in wanted.items():
                file = document_file(source, doc_id)
                first, state = stored.get(file), states.get(file)
                added = _added(first) if first is not None else now
                prepared = _prepare(source, _Fields.of(document), added, now)
                if first is None or state is None:
                    report.added.append(doc_id)
                    embed.append(prepared)
                elif (
                    not state.current(self.embedder.model_name)
                    or state.content_hash != prepared.content_hash
                ):
                    report.updated.append(doc_id)
                    embed.append(prepared)
                elif _same_meta(first, prepared.payloads[0]):
                    report.unchanged.append(doc_id)
                else:
                    report.updated.append(doc_id)
                    rewrite.append(prepared)
            gone = sorted(set(states) - set(files)) if replace else []
            report.chunks_embedded = self._embed_and_write(embed, rewrite)
            if gone:
                self.store.delete_files(gone)
                report.deleted = sorted(file.split(_SEPARATOR, 1)[1] for file in gone)
            report.documents = self.store.count(SearchFilter(sources=[source], chunk_index=0))
        return report

    def _embed_and_write(self, embed: list[_Prepared], rewrite: list[_Prepared]) -> int:
        """Embed `embed` (all of it, before writing anything), then write; `rewrite` only gets
        its per-document keys rewritten. The number of chunks embedded."""
        texts = [text for prepared in embed for text in prepared.texts]
        points: list[EmbeddedChunk] = []
        if texts:
            dense = self.embedder.embed_documents(texts)
            sparse = self.sparse.embed_documents(texts)
            payloads = [payload for prepared in embed for payload in prepared.payloads]
            points = [
                EmbeddedChunk.model_construct(
                    id=point_id(self.vault_id, payload.file, payload.chunk_index),
                    dense=vector.tolist(),
                    sparse=terms,
                    payload=payload.model_copy(
                        update={"embedding_model": self.embedder.model_name}
                    ),
                )
                for payload, vector, terms in zip(payloads, dense, sparse, strict=True)
            ]
            # Delete first: a document that shrank must not keep its old tail chunks.
            self.store.delete_files([prepared.file for prepared in embed])
            self.store.upsert(points)
        for prepared in rewrite:
            self.store.set_payload(prepared.file, prepared.meta)
        return len(points)

    def _chunks(self, file: str) -> list[ChunkPayload]:
        found = self.store.scroll(SearchFilter(files=[file]))
        return sorted(found, key=lambda chunk: chunk.chunk_index)


@dataclass(frozen=True)
class _Fields:
    """A document's fields, from a request or merged from a patch and the stored document."""

    doc_id: str
    text: str
    title: str | None
    url: str | None
    tags: list[str]
    created: str | None
    created_given: bool
    """False: `created` comes from the text's frontmatter, if any."""
    metadata: dict[str, Any]

    @classmethod
    def of(cls, document: Document) -> _Fields:
        return cls(
            doc_id=document.id,
            text=document.text,
            title=document.title,
            url=document.url,
            tags=list(document.tags),
            created=_iso(document.created),
            created_given=document.created is not None,
            metadata=document.metadata,
        )


@dataclass(frozen=True)
class _Prepared:
    """One document parsed and chunked, ready to embed."""

    file: str
    content_hash: str
    payloads: list[ChunkPayload]
    texts: list[str]
    meta: dict[str, Any]
    """The per-document payload keys, for a rewrite without re-embedding."""


def _prepare(source: str, fields: _Fields, added: float, now: float) -> _Prepared:
    """Parse and chunk a document exactly as a note, under its own title."""
    file = document_file(source, fields.doc_id)
    text = _CONTROL.sub(" ", fields.text)
    title = fields.title or fields.doc_id
    note = parse_note(file, _utf8(text)).model_copy(update={"title": title})
    chunks = chunk_note(note)
    content_hash = hashlib.sha256(_utf8(f"{title}\x00{fields.text}")).hexdigest()
    created = fields.created if fields.created_given else note.created
    meta = _meta(replace(fields, created=created), note.tags, added, now, title=title)
    payloads = [
        ChunkPayload(
            file=file,
            title=title,
            heading=chunk.heading,
            chunk_index=chunk.chunk_index,
            chunk_count=len(chunks),
            body=chunk.body,
            tags=meta["tags"],
            type=note.type,
            source=source,
            mtime=now,
            size=len(_utf8(fields.text)),
            created=created,
            content_hash=content_hash,
            document=DocumentInfo.model_validate(meta["document"]),
        )
        for chunk in chunks
    ]
    return _Prepared(file, content_hash, payloads, [c.embed_text for c in chunks], meta)


def _meta(
    fields: _Fields, text_tags: Iterable[str], added: float, now: float, title: str | None = None
) -> dict[str, Any]:
    """The payload keys that belong to the document, not to one chunk (title excepted: a new
    title is embedded again)."""
    info = DocumentInfo(
        id=fields.doc_id,
        url=fields.url,
        tags=fields.tags,
        metadata=fields.metadata,
        added=added,
    )
    meta: dict[str, Any] = {
        "tags": expand_tags([*fields.tags, *text_tags]),
        "created": fields.created,
        "mtime": now,
        "document": info.model_dump(),
    }
    if title is not None:
        meta["title"] = title
    return meta


def _same_meta(stored: ChunkPayload, new: ChunkPayload) -> bool:
    """True when a write would change nothing but the times."""

    def key(payload: ChunkPayload) -> tuple[Any, ...]:
        info = payload.document.model_dump(exclude={"added"}) if payload.document else None
        return (payload.title, payload.tags, payload.created, payload.type, info)

    return key(stored) == key(new)


def _stored(first: ChunkPayload, text: str | None, chunks: int | None = None) -> StoredDocument:
    info = first.document or DocumentInfo(id=first.file.split(_SEPARATOR, 1)[-1])
    return StoredDocument(
        id=info.id,
        source=first.source,
        file=first.file,
        title=first.title,
        url=info.url,
        tags=info.tags,
        created=first.created,
        metadata=info.metadata,
        chunks=chunks if chunks is not None else first.chunk_count,
        size=first.size,
        added=_time(_added(first)),
        updated=_time(first.mtime),
        text=text,
    )


def _rebuild(chunks: list[ChunkPayload]) -> str:
    # Imported here: the agent's reader imports the index, which imports this module.
    from vault_agent.agent.reader import rebuild_markdown

    return rebuild_markdown(chunks)


def _added(chunk: ChunkPayload) -> float:
    return chunk.document.added if chunk.document is not None else chunk.mtime


def _time(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def _iso(value: datetime | date | None) -> str | None:
    return value.isoformat() if value is not None else None


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "replace")  # a lone surrogate from JSON becomes "?"
