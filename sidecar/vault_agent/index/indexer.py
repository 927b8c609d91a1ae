"""Keeps the store in step with the vault: full and incremental sync, watch mode, status.

A sync compares the vault on disk with what the store holds (`Store.file_states`): files whose
mtime and size are unchanged cost one `stat`; changed files are hashed, and only a changed hash
is parsed, chunked and embedded. Each file's old points are deleted before its new ones are
written, and every chunk records how many chunks its file has, so a sync interrupted at any
point (Ctrl-C, kill -9) leaves files that the next sync sees as missing or incomplete and
redoes: the index converges with no duplicate and no missing chunk. A sync only ever looks at
the vault's own points (`source` "vault"): documents of other sources share the store, and their
`file` ids ("clips://a1") can't be vault paths, so no sync deletes or rewrites them.

PDFs are notes too (`type: pdf`, one section per page). Their text is extracted once per
content hash, in worker processes (`pdf_pipeline.py`), while the markdown notes keep flowing:
a PDF joins an embedding batch when its extraction finishes.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel, Field
from watchfiles import Change, DefaultFilter, awatch

from vault_agent.config import Settings
from vault_agent.index.embedder import Embedder
from vault_agent.index.link_cache import CachedNote, LinkCache
from vault_agent.index.pdf_pipeline import PdfPipeline, PdfReady
from vault_agent.index.sparse import Bm25Encoder
from vault_agent.index.store import (
    VAULT_SOURCE,
    ChunkPayload,
    EmbeddedChunk,
    FileState,
    Store,
    point_id,
)
from vault_agent.vault.chunker import Chunk, chunk_note
from vault_agent.vault.files import (
    VaultFile,
    is_ignored,
    is_note,
    is_pdf,
    resolve_in_vault,
    scan_vault,
    symlink_problem,
)
from vault_agent.vault.graph import LinkGraph
from vault_agent.vault.notes import Note, NoteError, parse_note

log = logging.getLogger(__name__)

FileState_ = Literal["indexed", "skipped", "failed"]
#: Watch mode: how long after a failed sync (a store outage) its files are tried again.
WATCH_RETRY_MS = 2_000
#: Stored and on-disk mtimes this close are the same (the store keeps 16 significant digits).
MTIME_TOLERANCE_S = 1e-5


class FileStatus(BaseModel):
    """Why a file is (or is not) in the index."""

    file: str
    state: FileState_
    reason: str | None = None
    chunks: int = 0
    warnings: list[str] = Field(default_factory=list)


class IndexProgress(BaseModel):
    """What the indexer is doing now, for progress bars and `GET /v1/index`."""

    state: Literal["idle", "scanning", "indexing", "watching", "error"] = "idle"
    files_total: int = 0
    files_done: int = 0
    chunks_done: int = 0
    started_at: datetime | None = None
    finished_at: datetime | None = None
    last_error: str | None = None


class SyncReport(BaseModel):
    """The outcome of one sync."""

    scanned: int = 0
    unchanged: int = 0
    indexed: int = 0
    deleted: int = 0
    skipped: int = 0
    failed: int = 0
    chunks: int = 0
    pdf_extracted: int = Field(default=0, description="PDFs whose text was extracted (not cached).")
    seconds: float = 0.0


ProgressCallback = Callable[[IndexProgress], None]


class _Pending(BaseModel):
    """A parsed note waiting in the current embedding batch."""

    note: Note
    chunks: list[Chunk]
    mtime: float
    size: int
    stored: bool = Field(description="The store held some version of it when the sync began.")


class Indexer:
    """Indexes one vault into one store. Thread-safe: syncs are serialised by a lock."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        embedder: Embedder,
        sparse: Bm25Encoder,
        graph: LinkGraph | None = None,
    ) -> None:
        self.settings = settings
        self.root = settings.vault_root
        self.store = store
        self.embedder = embedder
        self.sparse = sparse
        self.graph = graph or LinkGraph()
        self.progress = IndexProgress()
        self.statuses: dict[str, FileStatus] = {}
        self.link_cache = LinkCache(settings.vault_data_dir / "links.sqlite3")
        # The `links` payload in the store of each indexed note (None: unknown, rewritten),
        # and the notes whose resolved links may since have moved away from it.
        self._stored_links: dict[str, list[str] | None] = {}
        self._links_to_check: set[str] = set()
        self._pdfs = PdfPipeline(settings, settings.vault_data_dir / "extract-cache")
        self._lock = threading.Lock()
        self._graph_lock = threading.Lock()
        self._graph_loaded = False

    # ----------------------------------------------------------------- public API

    def sync(
        self, paths: Iterable[str] | None = None, on_progress: ProgressCallback | None = None
    ) -> SyncReport:
        """Bring the store in line with the vault. With `paths` (vault-relative), only those
        files are looked at (watch mode); otherwise the whole vault is scanned."""
        wanted = None if paths is None else sorted(set(paths))
        with self._lock:
            started = time.perf_counter()
            report = SyncReport()
            self._set_progress(
                on_progress,
                state="scanning",
                files_done=0,
                chunks_done=0,
                started_at=datetime.now(UTC),
                finished_at=None,
                last_error=None,
            )
            try:
                self._sync_locked(wanted, report, on_progress)
            except Exception as error:
                self._set_progress(on_progress, state="error", last_error=str(error))
                raise
            report.seconds = time.perf_counter() - started
            self._set_progress(on_progress, state="idle", finished_at=datetime.now(UTC))
            return report

    async def watch(
        self,
        stop: asyncio.Event | None = None,
        on_sync: Callable[[SyncReport], None] | None = None,
        debounce_ms: int = 150,
    ) -> None:
        """Re-index files as they change on disk, until `stop` is set. Files whose sync failed
        (the store was down) are tried again every `WATCH_RETRY_MS`, changed or not."""
        watch_filter = _VaultFilter(self.root, self.settings.index.ignore)
        retry: set[str] = set()
        async for changes in awatch(
            self.root,
            watch_filter=watch_filter,
            debounce=debounce_ms,
            step=30,
            stop_event=stop,
            rust_timeout=WATCH_RETRY_MS,
            yield_on_timeout=True,  # an empty set when nothing changed: time to retry
            recursive=True,
        ):
            changed = (self._relative(Path(path)) for _, path in changes)
            paths = retry | {path for path in changed if path}
            if not paths:
                continue
            try:
                report = await asyncio.to_thread(self.sync, sorted(paths))
            except Exception:  # the watcher must outlive one bad sync; the error is in progress
                log.exception("sync after file change failed")
                retry = paths  # not lost: redone with the next change, or after a while
                continue
            retry = set()
            if on_sync is not None:
                on_sync(report)

    def load_graph(self) -> None:
        """Fill the link graph from what is indexed, without syncing (cheap after the first
        call). Syncs do this themselves; readers that skip the sync call it."""
        if not self._graph_loaded:
            self._ensure_graph(self.store.file_states(VAULT_SOURCE))

    def close(self) -> None:
        """Commit and close the link cache."""
        self.link_cache.close()

    def file_status(self) -> list[FileStatus]:
        """Per-file status of the last sync, sorted by path."""
        return [self.statuses[file] for file in sorted(self.statuses)]

    # ----------------------------------------------------------------- sync steps

    def _sync_locked(
        self, paths: list[str] | None, report: SyncReport, on_progress: ProgressCallback | None
    ) -> None:
        problems: dict[str, str] = {}  # notes that are unfollowable symlinks, and why
        if paths is None:
            states = self.store.file_states(VAULT_SOURCE)  # read once: graph and sync
            self._ensure_graph(states)
            on_disk = self._scan(None, problems)
        else:
            if not self._graph_loaded:
                self._ensure_graph(self.store.file_states(VAULT_SOURCE))
            on_disk = self._scan(paths, problems)
            # A watcher's sync of a few paths reads only their states (and those of the
            # files under a path that is a folder): in a big vault, reading every file's
            # state would dominate the time from save to searchable.
            wanted = sorted(set(paths) | {f.file for f in on_disk})
            states = self.store.file_states(VAULT_SOURCE, wanted)
        notes_on_disk = {f.file: f for f in on_disk if is_note(f.file)}
        report.scanned = len(notes_on_disk)

        if paths is None:
            gone = set(states) - set(notes_on_disk)
            vanished_files = self.graph.files() - {f.file for f in on_disk}
        else:
            looked_at = set(paths)
            gone = {p for p in looked_at if p in states and p not in notes_on_disk}
            vanished_files = {p for p in looked_at if p in self.graph} - {f.file for f in on_disk}
        self._delete(gone | {f for f in vanished_files if is_note(f)}, report)
        looked_at_all = set(self.statuses) if paths is None else set(paths)
        for file in looked_at_all - set(notes_on_disk):
            self.statuses.pop(file, None)
        for file, reason in sorted(problems.items()):
            self._fail(file, "skipped", reason, report)
        for file in vanished_files:
            self.graph.remove_file(file)
            self._pdfs.forget(file)
        for vault_file in on_disk:
            # Every file is a link target, indexed or not: `![[scan.pdf]]` must resolve even
            # when the PDF is skipped. Notes get their own links when they are parsed.
            if vault_file.file not in self.graph:
                self.graph.set_file(vault_file.file)

        changed = []
        unchanged_pdfs: set[str] = set()  # their content hashes: cached text still in use
        for vault_file in notes_on_disk.values():
            state = states.get(vault_file.file)
            if state is not None and self._unchanged_on_disk(state, vault_file):
                report.unchanged += 1
                self._keep_status(vault_file.file, state)
                if is_pdf(vault_file.file):
                    unchanged_pdfs.add(state.content_hash)
            else:
                changed.append(vault_file)

        self._set_progress(on_progress, state="indexing", files_total=len(changed))
        self._pdfs.begin_sync()
        try:
            self._index_files(changed, states, report, on_progress)
        finally:
            self._pdfs.close()  # no worker outlives its sync, even one that failed
        self._reconcile_links()
        self.link_cache.commit()
        if paths is None:  # only a full scan knows every PDF still in the vault
            self._pdfs.cache.prune(unchanged_pdfs | self._pdfs.seen_hashes)

    def _scan(self, paths: list[str] | None, problems: dict[str, str]) -> list[VaultFile]:
        ignore = self.settings.index.ignore
        if paths is None:
            return list(scan_vault(self.root, ignore, problems))
        found = []
        for file in paths:
            if is_ignored(file, ignore):
                continue
            link = self.root / file
            problem = symlink_problem(link, self.root) if link.is_symlink() else None
            if problem is not None:
                if is_note(file):
                    problems[file] = problem
                continue
            try:
                path = resolve_in_vault(self.root, file)
                stat = path.stat()
            except (OSError, ValueError):
                continue
            if path.is_file():
                found.append(VaultFile(file=file, mtime=stat.st_mtime, size=stat.st_size))
        return found

    def _delete(self, files: set[str], report: SyncReport) -> None:
        if not files:
            return
        self.store.delete_files(sorted(files))
        self.link_cache.remove(files)
        for file in files:
            self.statuses.pop(file, None)
            self._stored_links.pop(file, None)
            self.graph.remove_file(file)
            self._pdfs.forget(file)
        report.deleted += len(files)

    def _index_files(
        self,
        files: list[VaultFile],
        states: dict[str, FileState],
        report: SyncReport,
        on_progress: ProgressCallback | None,
    ) -> None:
        batch: list[_Pending] = []

        def add(pending: _Pending | None) -> None:
            nonlocal batch
            self.progress.files_done += 1
            if pending is not None:
                batch.append(pending)
            if sum(len(p.chunks) for p in batch) >= self.settings.index.write_batch_chunks:
                self._write_batch(batch, report)
                batch = []
                self._notify(on_progress)

        for vault_file in files:
            pending = self._prepare(vault_file, states.get(vault_file.file), report)
            if not self._pdfs.is_waiting(vault_file.file):  # a queued PDF is counted when done
                add(pending)
            for ready in self._pdfs.ready():
                add(self._pdf_pending(ready, states.get(ready.vault_file.file), report))
        while self._pdfs.pending():  # the notes are done; what's left are PDFs in workers
            for ready in self._pdfs.ready(wait=True):
                add(self._pdf_pending(ready, states.get(ready.vault_file.file), report))
        if batch:
            self._write_batch(batch, report)
        self._notify(on_progress)

    def _prepare(
        self, vault_file: VaultFile, state: FileState | None, report: SyncReport
    ) -> _Pending | None:
        """Read, hash, parse and chunk one file; None when nothing needs embedding (or, for a
        PDF, when its extraction was queued: it comes back through `self._pdfs.ready`)."""
        file = vault_file.file
        pdf = is_pdf(file)
        limit = self.settings.index.pdf_max_bytes if pdf else self.settings.index.max_file_bytes
        if vault_file.size > limit:
            setting = "index.pdf_max_bytes" if pdf else "index.max_file_bytes"
            self._fail(
                file,
                "skipped",
                f"file is {_mb(vault_file.size)}, over the {_mb(limit)} limit ({setting})",
                report,
                state,
            )
            return None
        if pdf:
            return self._prepare_pdf(vault_file, state, report)
        try:
            raw = resolve_in_vault(self.root, file).read_bytes()
        except (OSError, ValueError) as error:
            # Maybe for a moment only (a sync tool holding it): the old version stays.
            self._fail(file, "failed", f"could not read: {error}", report)
            return None
        content_hash = hashlib.sha256(raw).hexdigest()
        if state is not None and self._current(state) and state.content_hash == content_hash:
            report.unchanged += 1  # touched, not edited
            self._keep_status(file, state)
            return None
        try:
            note = parse_note(file, raw)
        except NoteError as error:
            self._fail(file, "skipped", str(error), report, state)
            return None
        except Exception as error:  # one bad note must never stop the vault
            log.exception("parsing %s failed", file)
            self._fail(file, "failed", f"could not parse: {error!r}", report, state)
            return None
        self.graph.set_file(file, note.aliases, note.link_targets())
        return _Pending(
            note=note,
            chunks=chunk_note(note),
            mtime=vault_file.mtime,
            size=len(raw),
            stored=state is not None,
        )

    def _prepare_pdf(
        self, vault_file: VaultFile, state: FileState | None, report: SyncReport
    ) -> _Pending | None:
        """Hash a PDF; an unchanged one is kept, a changed one decided from the extract cache
        or queued for extraction."""
        file = vault_file.file
        try:
            path = resolve_in_vault(self.root, file)
            content_hash = self._pdfs.content_hash(vault_file, path)
        except (OSError, ValueError) as error:
            self._fail(file, "failed", f"could not read: {error}", report)
            return None
        if state is not None and self._current(state) and state.content_hash == content_hash:
            report.unchanged += 1  # touched, not edited: no extraction either
            self._keep_status(file, state)
            return None
        ready = self._pdfs.start(vault_file, path, content_hash)
        return None if ready is None else self._pdf_pending(ready, state, report)

    def _pdf_pending(
        self, ready: PdfReady, state: FileState | None, report: SyncReport
    ) -> _Pending | None:
        """A decided PDF: its note and chunks, or its status when it can't be indexed."""
        file = ready.vault_file.file
        report.pdf_extracted += int(ready.extracted)
        if ready.note is None:
            self._fail(file, ready.state, ready.reason, report, state if ready.lasting else None)
            return None
        return _Pending(
            note=ready.note,
            chunks=chunk_note(ready.note),
            mtime=ready.vault_file.mtime,
            size=ready.vault_file.size,
            stored=state is not None,
        )

    def _write_batch(self, batch: list[_Pending], report: SyncReport) -> None:
        texts = [chunk.embed_text for pending in batch for chunk in pending.chunks]
        dense = self.embedder.embed_documents(texts)
        sparse = self.sparse.embed_documents(texts)
        points: list[EmbeddedChunk] = []
        position = 0
        cached = []
        for pending in batch:
            note = pending.note
            links = self.graph.outgoing(note.file)
            self._stored_links[note.file] = links
            cached.append(
                CachedNote(
                    file=note.file,
                    content_hash=note.content_hash,
                    aliases=note.aliases,
                    links=note.link_targets(),
                    stored_links=links,
                )
            )
            for chunk in pending.chunks:
                payload = self._payload(pending, chunk, links)
                points.append(
                    EmbeddedChunk.model_construct(
                        id=point_id(self.settings.vault_id, payload.file, chunk.chunk_index),
                        dense=dense[position].tolist(),
                        sparse=sparse[position],
                        payload=payload,
                    )
                )
                position += 1
        # Delete first: a file that shrank must not keep its old tail chunks. Files the store
        # didn't hold have nothing to delete, and skipping them keeps a first index of a big
        # vault from filtering the whole growing collection once per batch.
        stored = [pending.note.file for pending in batch if pending.stored]
        if stored:
            self.store.delete_files(stored)
        self.store.upsert(points)
        for entry in cached:
            self.link_cache.put(entry)
        self.link_cache.commit()
        for pending in batch:
            note = pending.note
            warnings = list(note.warnings)
            if note.frontmatter_error:
                warnings.append(note.frontmatter_error)
            self.statuses[note.file] = FileStatus(
                file=note.file, state="indexed", chunks=len(pending.chunks), warnings=warnings
            )
        report.indexed += len(batch)
        report.chunks += len(points)
        self.progress.chunks_done += len(points)

    def _payload(self, pending: _Pending, chunk: Chunk, links: list[str]) -> ChunkPayload:
        note = pending.note
        parents = PurePosixPath(note.file).parents
        folders = [p.as_posix() for p in reversed(list(parents)) if p.as_posix() != "."]
        return ChunkPayload(
            file=note.file,
            title=note.title,
            heading=chunk.heading,
            chunk_index=chunk.chunk_index,
            chunk_count=len(pending.chunks),
            body=chunk.body,
            tags=note.tags,
            type=note.type,
            folders=folders,
            mtime=pending.mtime,
            size=pending.size,
            created=note.created,
            date=note.date,
            links=links,
            aliases=note.aliases,
            content_hash=note.content_hash,
            embedding_model=self.embedder.model_name,
            page=chunk.page,
        )

    # ----------------------------------------------------------------- link graph

    def _ensure_graph(self, states: dict[str, FileState]) -> None:
        """Fill the graph once per process from the link cache (re-parsing stale entries)."""
        with self._graph_lock:
            if not self._graph_loaded:
                self._load_graph_locked(states)

    def _load_graph_locked(self, states: dict[str, FileState]) -> None:
        self.graph.set_files(self._indexed_notes_links(states))
        self._graph_loaded = True

    def _indexed_notes_links(
        self, states: dict[str, FileState]
    ) -> Iterator[tuple[str, list[str], list[str]]]:
        """(file, aliases, link targets) of every indexed note, from the link cache, re-parsed
        where the cache is stale; notes the store no longer holds leave the cache."""
        gone = []
        for cached in self.link_cache.notes():
            state = states.get(cached.file)
            if state is None:
                gone.append(cached.file)
            elif cached.content_hash == state.content_hash:
                self._stored_links[cached.file] = cached.stored_links
                yield cached.file, cached.aliases, cached.links
        self.link_cache.remove(gone)
        for file, state in states.items():
            if file in self._stored_links:
                continue
            reparsed = self._reparse_for_graph(file, state)
            if reparsed is not None:
                self._stored_links[file] = None
                self.link_cache.put(reparsed)
                yield file, reparsed.aliases, reparsed.links
        self.link_cache.commit()

    def _reparse_for_graph(self, file: str, state: FileState) -> CachedNote | None:
        if is_pdf(file):
            return CachedNote(file=file, content_hash=state.content_hash)  # PDFs link nowhere
        try:
            note = parse_note(file, resolve_in_vault(self.root, file).read_bytes())
        except Exception:  # gone or unreadable: the sync that follows deals with it
            return None
        # Links stored with the old content are unknown (None): the reconcile rewrites them.
        return CachedNote(
            file=file,
            content_hash=state.content_hash,
            aliases=note.aliases,
            links=note.link_targets(),
        )

    def _reconcile_links(self) -> None:
        """Adding or removing a note can change how other notes' links resolve: rewrite the
        stored `links` payload (no re-embedding) wherever the resolution moved. Only notes the
        graph reports as changed are looked at, so an edit costs the same in any vault size."""
        self._links_to_check |= self.graph.take_changed()
        moved = {}
        for file in self._links_to_check:
            if file in self._stored_links:
                links = self.graph.outgoing(file)
                if links != self._stored_links[file]:
                    moved[file] = links
        self._links_to_check = set(moved)  # left to check if a rewrite fails
        if not moved:
            return
        # Say on disk first that these are being rewritten: a crash between the rewrites and
        # the commit that follows must not leave the cache vouching for old links.
        self.link_cache.set_stored_links(dict.fromkeys(moved))
        self.link_cache.commit()
        for file, links in sorted(moved.items()):
            self.store.set_links(file, links)
            self._stored_links[file] = links
            self._links_to_check.discard(file)
        self.link_cache.set_stored_links(dict(moved))

    # ----------------------------------------------------------------- status

    def _current(self, state: FileState) -> bool:
        return state.current(self.embedder.model_name)

    def _unchanged_on_disk(self, state: FileState, vault_file: VaultFile) -> bool:
        return (
            self._current(state)
            # Qdrant hands a float back with 16 significant digits: compared exactly, one
            # file in eight failed the shortcut and was read and hashed on every sync.
            and math.isclose(state.mtime, vault_file.mtime, rel_tol=0, abs_tol=MTIME_TOLERANCE_S)
            and state.size == vault_file.size
        )

    def _keep_status(self, file: str, state: FileState) -> None:
        previous = self.statuses.get(file)
        if previous is None or previous.state != "indexed":
            self.statuses[file] = FileStatus(file=file, state="indexed", chunks=state.chunk_count)

    def _fail(
        self,
        file: str,
        state: FileState_,
        reason: str,
        report: SyncReport,
        stored: FileState | None = None,
    ) -> None:
        """Record why `file` is not indexed. If the store still holds an older version of it
        (`stored`), that goes: the index must not answer from a file it now refuses."""
        if stored is not None:
            self.store.delete_files([file])
            self.link_cache.remove([file])
            self._stored_links.pop(file, None)
            self.graph.set_file(file)  # still a link target, but its links are unknown now
        self.statuses[file] = FileStatus(file=file, state=state, reason=reason)
        if state == "skipped":
            report.skipped += 1
        else:
            report.failed += 1

    def _set_progress(self, on_progress: ProgressCallback | None, **changes: object) -> None:
        self.progress = self.progress.model_copy(update=changes)
        self._notify(on_progress)

    def _notify(self, on_progress: ProgressCallback | None) -> None:
        if on_progress is not None:
            on_progress(self.progress)

    def _relative(self, path: Path) -> str | None:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return None


class _VaultFilter(DefaultFilter):
    """Watch everything but hidden folders and configured ignores."""

    def __init__(self, root: Path, ignore: list[str]) -> None:
        super().__init__()
        self._root = root
        self._ignore = ignore

    def __call__(self, change: Change, path: str) -> bool:
        try:
            relative = Path(path).relative_to(self._root).as_posix()
        except ValueError:
            return False
        return not is_ignored(relative, self._ignore)


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"
