"""The vault index as the server holds it: opened at start-up, kept up to date in the background.

`IndexHolder` opens the index once; when it can't (Qdrant or the embedding server down, index
held by another process, vault folder missing) the server still starts, health says "degraded"
and every route that needs the index answers 503 with the reason. `BackgroundIndexer` re-tries
the opening, runs the start-up sync, then watches the vault; `POST /v1/index/sync` asks it for
another full sync.

Store and embedder calls block, so they run in worker threads: the event loop keeps answering
questions while a sync embeds notes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import Any

from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.choose import ModelChoice, text_models
from vault_agent.index.embed.errors import EmbeddingError
from vault_agent.index.embed.minilm import Embedder
from vault_agent.index.store.errors import StoreError
from vault_agent.index.sync.status import (
    IndexProgress,
    SyncReport,
)
from vault_agent.index.vault_index import VaultIndex
from vault_agent.server.errors import ApiError

log = logging.getLogger(__name__)

#: Seconds between attempts to open an index that could not be opened.
RETRY_S = 5.0
#: How long shutdown waits for a running sync to reach its next batch boundary.
STOP_TIMEOUT_S = 15.0


class SyncCancelledError(Exception):
    """Raised from the progress callback to stop a sync between two batches (shutdown)."""


class IndexHolder:
    """Owns (or borrows) the vault index and remembers why it could not be opened."""

    def __init__(
        self,
        settings: Settings,
        *,
        index: VaultIndex | None = None,
        embedder: Embedder | None = None,
        sparse: Bm25Encoder | None = None,
    ) -> None:
        self.settings = settings
        self.error: str | None = None
        self._index = index
        self._owned = index is None  # a borrowed index (tests, benchmarks) is not closed here
        self._embedder = embedder or (index.embedder if index is not None else None)
        self._sparse = sparse or (index.sparse if index is not None else None)
        self._choice: ModelChoice | None = index.models if index is not None else None
        self._lock = asyncio.Lock()

    @property
    def index(self) -> VaultIndex | None:
        """The open index, or None while it is unavailable."""
        return self._index

    @property
    def embedder(self) -> Embedder | None:
        """The dense embedder (loaded even when the store is down: the extractive model uses
        it)."""
        return self._embedder

    def require(self) -> VaultIndex:
        """The open index, or a 503 saying why there is none."""
        if self._index is None:
            raise ApiError(503, "index_unavailable", self.error or "the index is not open yet")
        return self._index

    async def open(self) -> VaultIndex | None:
        """Try to open the index (no-op when open); on failure keep the reason in `error`."""
        async with self._lock:
            if self._index is None:
                try:
                    self._index = await asyncio.to_thread(self._open)
                    self.error = None
                except (StoreError, EmbeddingError, FileNotFoundError) as error:
                    self.error = str(error)
                    log.warning("index unavailable: %s", error)
            return self._index

    async def close(self) -> None:
        """Release the store (and with Edge, its folder lock) if this holder opened it."""
        index, self._index = self._index, None
        if index is not None and self._owned:
            await asyncio.to_thread(index.close)

    def _open(self) -> VaultIndex:
        if self._embedder is None or self._sparse is None:
            # Chosen once (auto: from the vault's language) and kept across reopenings.
            chosen = text_models(self.settings)
            self._embedder = self._embedder or chosen.embedder
            self._sparse = self._sparse or chosen.sparse
            self._choice = chosen.choice
        index = VaultIndex(self.settings, embedder=self._embedder, sparse=self._sparse)
        index.models = self._choice
        return index


class BackgroundIndexer:
    """Start-up sync, then watch mode; full syncs on request, one at a time."""

    def __init__(self, holder: IndexHolder, *, watch: bool = True) -> None:
        self.holder = holder
        self.watch = watch
        self.watching = False
        self.last_report: SyncReport | None = None
        self.last_error: str | None = None
        self._stop = asyncio.Event()
        self._cancel = threading.Event()  # read by the sync's worker thread
        self._sync_lock = asyncio.Lock()
        self._queued: asyncio.Task[SyncReport] | None = None
        self._tasks: set[asyncio.Task[SyncReport]] = set()
        self._main: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Run the open/sync/watch cycle in the background."""
        self._main = asyncio.create_task(self._run(), name="vault-agent-indexer")

    async def stop(self) -> None:
        """Stop watching and syncing; returns once no worker thread touches the store."""
        self._stop.set()
        self._cancel.set()
        pending: list[asyncio.Task[Any]] = [*self._tasks]
        if self._main is not None:
            pending.append(self._main)
        if not pending:
            return
        _, late = await asyncio.wait(pending, timeout=STOP_TIMEOUT_S)
        for task in late:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*late, return_exceptions=True)

    def request_sync(self) -> tuple[asyncio.Task[SyncReport], bool]:
        """A full sync that starts after any running one; (task, joined). A request made
        while another sync is still waiting to start joins that one (`joined` is True): it
        scans the vault after this request anyway."""
        if self._queued is not None and not self._queued.done():
            return self._queued, True
        task = asyncio.create_task(self._full_sync(), name="vault-agent-sync")
        self._queued = task
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task, False

    def progress(self) -> IndexProgress:
        """What the indexer is doing now."""
        index = self.holder.index
        return index.indexer.progress if index is not None else IndexProgress()

    async def _run(self) -> None:
        while not self._stop.is_set():
            if await self.holder.open() is None:
                await self._sleep(RETRY_S)
                continue
            task, _ = self.request_sync()
            with contextlib.suppress(Exception):  # recorded in last_error by _full_sync
                await task
            if not self.watch:
                return
            await self._watch()

    async def _watch(self) -> None:
        index = self.holder.require()
        self.watching = True
        try:
            await index.indexer.watch(stop=self._stop, on_sync=self._record)
        except Exception as error:  # e.g. the vault folder vanished: say so, try again later
            reason = _reason(error)
            log.warning("watching the vault stopped: %s", reason)
            self.last_error = f"watching the vault stopped: {reason}"
            await self._sleep(RETRY_S)
        finally:
            self.watching = False

    async def _full_sync(self) -> SyncReport:
        async with self._sync_lock:
            self._queued = None  # from now on, a new request needs a sync of its own
            index = self.holder.require()
            try:
                report = await asyncio.to_thread(index.indexer.sync, None, self._check_cancel)
            except SyncCancelledError:
                raise
            except Exception as error:
                self.last_error = str(error)
                log.warning("index sync failed: %s", error)
                raise
            self._record(report)
            return report

    def _check_cancel(self, progress: IndexProgress) -> None:
        if self._cancel.is_set():
            raise SyncCancelledError("the sidecar is shutting down")

    def _record(self, report: SyncReport) -> None:
        self.last_report = report
        self.last_error = None

    def _finished(self, task: asyncio.Task[SyncReport]) -> None:
        self._tasks.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a failed background sync is in last_error, not lost

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), seconds)


def _reason(error: BaseException) -> str:
    """What went wrong, from the errors inside a task group too ("unhandled errors in a
    TaskGroup" says nothing; the watcher's "Unable to decode path" for a file named with bytes
    that are not UTF-8 does)."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(dict.fromkeys(_reason(inner) for inner in error.exceptions))
    return str(error) or type(error).__name__
