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
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Any

from vault_agent.index.documents.models import (
    CONTROL_CHARACTERS,
    SEPARATOR,
    SOURCE,
    Document,
    DocumentChanges,
    SourceInfo,
    StoredDocument,
    WriteReport,
    check_document_id,
    check_limits,
    check_source,
    check_text_size,
    document_file,
)
from vault_agent.index.ingest import FileKeys, Ingest, Prepared
from vault_agent.index.note_text import rebuild_markdown
from vault_agent.index.store.protocol import VAULT_SOURCE, ChunkPayload, DocumentInfo, SearchFilter
from vault_agent.vault.notes import expand_tags, parse_note


class Documents:
    """The documents of every source but the vault, in one vault's store. Thread-safe."""

    def __init__(self, ingest: Ingest) -> None:
        self.ingest = ingest
        self.store = ingest.store
        self._lock = threading.Lock()

    # ----------------------------------------------------------------- reads

    def sources(self) -> list[SourceInfo]:
        """The vault, then every other source by name, with counts and times."""
        vault = SourceInfo(
            source=VAULT_SOURCE,
            managed_by="indexer",
            documents=self.store.count(SearchFilter(sources=[VAULT_SOURCE], chunk_index=0)),
            chunks=self.store.count(SearchFilter(sources=[VAULT_SOURCE])),
            embedding_model=self.ingest.model_name,
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
                embedding_model=self.ingest.model_name,
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
        return _stored(chunks[0], rebuild_markdown(chunks), len(chunks))

    def is_source(self, name: str) -> bool:
        """True when `name` is a source holding documents (not the vault)."""
        if name == VAULT_SOURCE or not SOURCE.fullmatch(name):
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
                text=changes.text if changes.text is not None else rebuild_markdown(chunks),
                title=title,
                url=changes.url if "url" in sent else info.url,
                tags=list(changes.tags) if "tags" in sent else info.tags,
                created=_iso(changes.created) if "created" in sent else first.created,
                created_given=True,
                metadata=changes.metadata if "metadata" in sent else info.metadata,
            )
            now = time.time()
            if "text" in sent or title != first.title:
                prepared = _prepare(self.ingest, source, fields, _added(first), now)
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
                prepared = _prepare(self.ingest, source, _Fields.of(document), added, now)
                if first is None or state is None:
                    report.added.append(doc_id)
                    embed.append(prepared)
                elif (
                    not state.current(self.ingest.model_name)
                    or state.content_hash != prepared.ready.keys.content_hash
                ):
                    report.updated.append(doc_id)
                    embed.append(prepared)
                elif _same_meta(first, prepared.ready.keys):
                    report.unchanged.append(doc_id)
                else:
                    report.updated.append(doc_id)
                    rewrite.append(prepared)
            gone = sorted(set(states) - set(files)) if replace else []
            report.chunks_embedded = self._embed_and_write(embed, rewrite)
            if gone:
                self.store.delete_files(gone)
                report.deleted = sorted(file.split(SEPARATOR, 1)[1] for file in gone)
            report.documents = self.store.count(SearchFilter(sources=[source], chunk_index=0))
        return report

    def _embed_and_write(self, embed: list[_Prepared], rewrite: list[_Prepared]) -> int:
        """Embed and write `embed` (all embedded before anything is written); `rewrite` only
        gets its per-document keys rewritten. The number of chunks embedded."""
        written = self.ingest.write([prepared.ready for prepared in embed])
        for prepared in rewrite:
            self.store.set_payload(prepared.ready.file, prepared.meta)
        return written

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

    ready: Prepared
    meta: dict[str, Any]
    """The per-document payload keys, for a rewrite without re-embedding."""


def _prepare(ingest: Ingest, source: str, fields: _Fields, added: float, now: float) -> _Prepared:
    """Parse and chunk a document exactly as a note, under its own title."""
    file = document_file(source, fields.doc_id)
    text = CONTROL_CHARACTERS.sub(" ", fields.text)
    title = fields.title or fields.doc_id
    note = parse_note(file, _utf8(text)).model_copy(update={"title": title})
    created = fields.created if fields.created_given else note.created
    meta = _meta(replace(fields, created=created), note.tags, added, now, title=title)
    keys = FileKeys(
        file=file,
        title=title,
        tags=meta["tags"],
        type=note.type,
        source=source,
        mtime=now,
        size=len(_utf8(fields.text)),
        created=created,
        content_hash=hashlib.sha256(_utf8(f"{title}\x00{fields.text}")).hexdigest(),
        document=DocumentInfo.model_validate(meta["document"]),
    )
    return _Prepared(ingest.prepare(note, keys), meta)


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


def _same_meta(stored: ChunkPayload, new: FileKeys) -> bool:
    """True when a write would change nothing but the times."""

    def key(payload: ChunkPayload | FileKeys) -> tuple[Any, ...]:
        info = payload.document.model_dump(exclude={"added"}) if payload.document else None
        return (payload.title, payload.tags, payload.created, payload.type, info)

    return key(stored) == key(new)


def _stored(first: ChunkPayload, text: str | None, chunks: int | None = None) -> StoredDocument:
    info = first.document or DocumentInfo(id=first.file.split(SEPARATOR, 1)[-1])
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


def _added(chunk: ChunkPayload) -> float:
    return chunk.document.added if chunk.document is not None else chunk.mtime


def _time(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def _iso(value: datetime | date | None) -> str | None:
    return value.isoformat() if value is not None else None


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "replace")  # a lone surrogate from JSON becomes "?"
