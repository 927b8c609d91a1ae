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
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from vault_agent.config import Settings
from vault_agent.index.embed.errors import EmbeddingError
from vault_agent.index.ingest import FileKeys, Ingest, Prepared
from vault_agent.index.store.errors import StoreError
from vault_agent.index.store.protocol import VAULT_SOURCE, FileState, Store
from vault_agent.index.sync.link_cache import LinkCache
from vault_agent.index.sync.links import IndexedLinks
from vault_agent.index.sync.pdf_pipeline import PdfPipeline, PdfReady
from vault_agent.index.sync.status import (
    FileStateName,
    FileStatus,
    FileStatuses,
    IndexProgress,
    ProgressCallback,
    SyncReport,
)
from vault_agent.vault.files import (
    RefusedFileError,
    VaultFile,
    is_note,
    is_pdf,
    read_vault_file,
    resolve_in_vault,
    scan_paths,
    scan_vault,
)
from vault_agent.vault.graph import LinkGraph
from vault_agent.vault.notes import Note, NoteError, parse_note

log = logging.getLogger(__name__)

#: Stored and on-disk mtimes this close are the same (the store keeps 16 significant digits).
MTIME_TOLERANCE_S = 1e-5


@dataclass(frozen=True)
class _Pending:
    """A parsed file waiting in the current embedding batch."""

    note: Note
    prepared: Prepared


class Indexer:
    """Indexes one vault into one store. Thread-safe: syncs are serialised by a lock."""

    def __init__(self, settings: Settings, ingest: Ingest, graph: LinkGraph | None = None) -> None:
        self.settings = settings
        self.root = settings.vault_root
        self.ingest = ingest
        self.store: Store = ingest.store
        self.links = IndexedLinks(
            self.root,
            graph or LinkGraph(),
            settings.vault_data_dir / "links.sqlite3",
            settings.index.ignore,
        )
        self.graph = self.links.graph
        self.progress = IndexProgress()
        self.statuses = FileStatuses()
        self._pdfs = PdfPipeline(settings, settings.vault_data_dir / "extract-cache")
        self._lock = threading.Lock()

    @property
    def link_cache(self) -> LinkCache:
        """The SQLite cache the link graph is loaded from."""
        return self.links.cache

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
        """Re-index files as they change on disk, until `stop` is set (see `watch.py`)."""
        # Imported for watch mode only: watchfiles and anyio are ~15 ms of every other start.
        from vault_agent.index.sync.watch import watch_vault

        await watch_vault(
            self.root, self.settings.index.ignore, self.sync, stop, on_sync, debounce_ms
        )

    def load_graph(self) -> None:
        """Fill the link graph from what is indexed, without syncing (cheap after the first
        call). Syncs do this themselves; readers that skip the sync call it."""
        if not self.links.loaded:
            self.links.ensure_loaded(self.store.file_states(VAULT_SOURCE))

    def close(self) -> None:
        """Save the link graph for the next start (not during a sync: it may be halfway
        through a change, and a long sync mustn't hold up the shutdown); close the cache."""
        idle = self._lock.acquire(blocking=False)
        try:
            self.links.close(save=idle)
        finally:
            if idle:
                self._lock.release()

    def file_status(self) -> list[FileStatus]:
        """Per-file status of the last sync, sorted by path."""
        return self.statuses.listed()

    # ----------------------------------------------------------------- sync steps

    def _sync_locked(
        self, paths: list[str] | None, report: SyncReport, on_progress: ProgressCallback | None
    ) -> None:
        problems: dict[str, str] = {}  # unfollowable symlinks, unreadable folders: why
        looked_at: set[str] = set()
        if paths is None:
            # The walk runs beside reading the states and loading the graph: its stat calls
            # and SQLite's query both release the GIL (docs/performance.md, restart at 50k).
            with ThreadPoolExecutor(1, "scan") as walk:
                scanning = walk.submit(self._scan, None, problems)
                states = self.store.file_states(VAULT_SOURCE)  # read once: graph and sync
                self.links.ensure_loaded(states)
                on_disk = scanning.result()
        else:
            if not self.links.loaded:
                self.links.ensure_loaded(self.store.file_states(VAULT_SOURCE))
            on_disk = self._scan(paths, problems)
            # A path that is or was a folder (renamed, moved in or out: one change to a
            # watcher) stands for every file under it, those on disk and those known.
            looked_at = set(paths) | {f.file for f in on_disk} | self._known_under(paths, on_disk)
            # A watcher's sync of a few paths reads only their states: in a big vault,
            # reading every file's state would dominate the time from save to searchable.
            states = self.store.file_states(VAULT_SOURCE, sorted(looked_at))
        notes_on_disk = {f.file: f for f in on_disk if is_note(f.file)}
        report.scanned = len(notes_on_disk)
        # What sits in a folder that can't be read now is unknown, not gone: kept as it was.
        unreadable = tuple(problem for problem in problems if problem.endswith("/"))

        if paths is None:
            gone = set(states) - set(notes_on_disk)
            vanished_files = self.graph.files() - {f.file for f in on_disk}
        else:
            gone = {p for p in looked_at if p in states and p not in notes_on_disk}
            vanished_files = {p for p in looked_at if p in self.graph} - {f.file for f in on_disk}
        if unreadable:
            gone = {file for file in gone if not file.startswith(unreadable)}
            vanished_files = {file for file in vanished_files if not file.startswith(unreadable)}
        self._delete(gone | {f for f in vanished_files if is_note(f)}, report)
        looked_at_all = self.statuses.files() if paths is None else looked_at
        for file in looked_at_all - set(notes_on_disk):
            if not file.startswith(unreadable) or file in problems:
                self.statuses.pop(file)
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
                self.statuses.keep(vault_file.file, state.chunk_count)
                if is_pdf(vault_file.file):
                    unchanged_pdfs.add(state.content_hash)
            else:
                changed.append(vault_file)
        report.unchanged += len(notes_on_disk) - len(changed)  # a model's field: set once

        self._set_progress(on_progress, state="indexing", files_total=len(changed))
        self._pdfs.begin_sync()
        try:
            self._index_files(changed, states, report, on_progress)
        finally:
            self._pdfs.close()  # no worker outlives its sync, even one that failed
        self.links.reconcile(self.store)
        self.links.commit()
        if paths is None:  # only a full scan knows every PDF still in the vault
            self._pdfs.cache.prune(unchanged_pdfs | self._pdfs.seen_hashes)

    def _scan(self, paths: list[str] | None, problems: dict[str, str]) -> list[VaultFile]:
        ignore = self.settings.index.ignore
        if paths is None:
            return list(scan_vault(self.root, ignore, problems))
        return scan_paths(self.root, paths, ignore, problems)

    def _known_under(self, paths: list[str], on_disk: list[VaultFile]) -> set[str]:
        """The files the graph or the statuses know under those of `paths` that may be
        folders: neither a file known nor one on disk (a folder renamed or moved away)."""
        found = {f.file for f in on_disk}
        folders = tuple(
            path.rstrip("/") + "/"
            for path in paths
            if path not in self.graph and path not in found and self.statuses.get(path) is None
        )
        if not folders:
            return set()
        known = self.graph.files() | self.statuses.files()
        return {file for file in known if file.startswith(folders)}

    def _delete(self, files: set[str], report: SyncReport) -> None:
        if not files:
            return
        self.store.delete_files(sorted(files))
        self.links.removed(files)
        for file in files:
            self.statuses.pop(file)
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
            if sum(len(p.prepared.chunks) for p in batch) >= self.settings.index.write_batch_chunks:
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
            # Read as the scan would index it: the file may have become a symlink since, or
            # grown (a log a script appends to): never more than the limit is read.
            raw = read_vault_file(self.root, file, self.settings.index.ignore, limit)
        except RefusedFileError as error:
            self._fail(file, "skipped", str(error), report, state)
            return None
        except (OSError, ValueError) as error:
            # Maybe for a moment only (a sync tool holding it): the old version stays.
            self._fail(file, "failed", f"could not read: {error}", report)
            return None
        if len(raw) > limit:
            reason = f"file grew past the {_mb(limit)} limit (index.max_file_bytes) as it was read"
            self._fail(file, "skipped", reason, report, state)
            return None
        content_hash = hashlib.sha256(raw).hexdigest()
        if state is not None and self._current(state) and state.content_hash == content_hash:
            self._touched(vault_file, state, report)
            return None
        try:
            note = parse_note(file, raw)
            pending = self._pending(note, vault_file.mtime, len(raw), state)
        except NoteError as error:
            self._fail(file, "skipped", str(error), report, state)
            return None
        except Exception as error:  # one bad note must never stop the vault: nor its chunking
            log.exception("parsing %s failed", file)
            self._fail(file, "failed", f"could not parse: {error!r}", report, state)
            return None
        self.links.parsed(note)
        return pending

    def _prepare_pdf(
        self, vault_file: VaultFile, state: FileState | None, report: SyncReport
    ) -> _Pending | None:
        """Hash a PDF; an unchanged one is kept, a changed one decided from the extract cache
        or queued for extraction."""
        file = vault_file.file
        try:
            path = resolve_in_vault(self.root, file)
            content_hash = self._pdfs.content_hash(vault_file)
        except RefusedFileError as error:
            self._fail(file, "skipped", str(error), report, state)
            return None
        except (OSError, ValueError) as error:
            self._fail(file, "failed", f"could not read: {error}", report)
            return None
        if state is not None and self._current(state) and state.content_hash == content_hash:
            self._touched(vault_file, state, report)  # no extraction either
            return None
        ready = self._pdfs.start(vault_file, path, content_hash)
        return None if ready is None else self._pdf_pending(ready, state, report)

    def _touched(self, vault_file: VaultFile, state: FileState, report: SyncReport) -> None:
        """`vault_file` was touched, not edited: kept, and its new mtime stored, or every
        later sync would read and hash it again (a checkout or a restore touches them all)."""
        report.unchanged += 1
        self.statuses.keep(vault_file.file, state.chunk_count)
        self.store.set_payload(vault_file.file, {"mtime": vault_file.mtime})

    def _pdf_pending(
        self, ready: PdfReady, state: FileState | None, report: SyncReport
    ) -> _Pending | None:
        """A decided PDF: its note and chunks, or its status when it can't be indexed."""
        file = ready.vault_file.file
        report.pdf_extracted += int(ready.extracted)
        if ready.note is None:
            self._fail(file, ready.state, ready.reason, report, state if ready.lasting else None)
            return None
        return self._pending(ready.note, ready.vault_file.mtime, ready.vault_file.size, state)

    def _pending(self, note: Note, mtime: float, size: int, state: FileState | None) -> _Pending:
        # The links are resolved again when the batch is written: notes parsed meanwhile
        # may be what they point to.
        keys = FileKeys.of_note(note, mtime=mtime, size=size, links=[])
        return _Pending(note, self.ingest.prepare(note, keys, replaces=state is not None))

    def _write_batch(self, batch: list[_Pending], report: SyncReport) -> None:
        prepared, links = [], []
        for pending in batch:
            resolved = self.graph.outgoing(pending.note.file)
            keys = pending.prepared.keys.model_copy(update={"links": resolved})
            prepared.append(replace(pending.prepared, keys=keys))
            links.append(resolved)
        try:
            chunks = self.ingest.write(prepared)
        except EmbeddingError as error:
            # Nothing of the batch was written, so each file keeps what the store held (an
            # older version stays searchable) and the next sync redoes it. This sync stops:
            # its next batch would only wait on the same server.
            for pending in batch:
                self._fail(pending.note.file, "failed", f"not embedded: {error}", report)
            raise
        except StoreError:
            raise  # the store is gone (a server down): no note of this sync would be written
        except Exception as error:
            # A note the model or the store can't take (a bug of ours or theirs): one note
            # must not stop the others. Written one by one, only it fails.
            if len(batch) > 1:
                for pending in batch:
                    self._write_batch([pending], report)
                return
            file = batch[0].note.file
            log.exception("%s could not be indexed", file)
            self._fail(file, "failed", f"could not be indexed: {type(error).__name__}", report)
            return
        for pending, resolved in zip(batch, links, strict=True):
            self.links.written(pending.note, resolved)
        self.links.commit()
        for pending in batch:
            note = pending.note
            warnings = list(note.warnings)
            if note.frontmatter_error:
                warnings.append(note.frontmatter_error)
            self.statuses.set(
                FileStatus(
                    file=note.file,
                    state="indexed",
                    chunks=len(pending.prepared.chunks),
                    warnings=warnings,
                )
            )
        report.indexed += len(batch)
        report.chunks += chunks
        self.progress.chunks_done += chunks

    # ----------------------------------------------------------------- status

    def _current(self, state: FileState) -> bool:
        return state.current(self.ingest.model_name)

    def _unchanged_on_disk(self, state: FileState, vault_file: VaultFile) -> bool:
        return (
            self._current(state)
            # Qdrant hands a float back with 16 significant digits: compared exactly, one
            # file in eight failed the shortcut and was read and hashed on every sync.
            and math.isclose(state.mtime, vault_file.mtime, rel_tol=0, abs_tol=MTIME_TOLERANCE_S)
            and state.size == vault_file.size
        )

    def _fail(
        self,
        file: str,
        state: FileStateName,
        reason: str,
        report: SyncReport,
        stored: FileState | None = None,
    ) -> None:
        """Record why `file` is not indexed. If the store still holds an older version of it
        (`stored`), that goes: the index must not answer from a file it now refuses."""
        if stored is not None:
            self.store.delete_files([file])
            self.links.unindexed(file)
        self.statuses.set(FileStatus(file=file, state=state, reason=reason))
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


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"
