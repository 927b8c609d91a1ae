"""Watch mode: re-index the files that change on disk, as they change.

File events come from `watchfiles` (Rust notify underneath), debounced; each batch of changed
paths becomes one path sync of the indexer. A sync that fails (the store is down) is not lost:
its paths are tried again every `WATCH_RETRY_MS`, changed or not.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from watchfiles import Change, DefaultFilter, awatch

from vault_agent.index.sync.status import SyncReport
from vault_agent.vault.files import is_ignored

log = logging.getLogger(__name__)

#: How long after a failed sync (a store outage) its files are tried again.
WATCH_RETRY_MS = 2_000


async def watch_vault(
    root: Path,
    ignore: list[str],
    sync: Callable[[list[str]], SyncReport],
    stop: asyncio.Event | None = None,
    on_sync: Callable[[SyncReport], None] | None = None,
    debounce_ms: int = 150,
) -> None:
    """Call `sync` with the vault-relative paths under `root` that change (`ignore` globs
    left out), until `stop` is set."""
    watch_filter = _VaultFilter(root, ignore)
    retry: set[str] = set()
    async for changes in awatch(
        root,
        watch_filter=watch_filter,
        debounce=debounce_ms,
        step=30,
        stop_event=stop,
        rust_timeout=WATCH_RETRY_MS,
        yield_on_timeout=True,  # an empty set when nothing changed: time to retry
        recursive=True,
        # The watcher follows symlinked folders (the scan does not: `files.scan_paths` refuses
        # what it reports behind one); one reaching an unreadable tree (a link to `/`, with
        # `/proc`) must not stop it.
        ignore_permission_denied=True,
    ):
        changed = (_relative(root, Path(path)) for _, path in changes)
        paths = retry | {path for path in changed if path}
        if not paths:
            continue
        try:
            report = await asyncio.to_thread(sync, sorted(paths))
        except Exception:  # the watcher must outlive one bad sync; the error is in progress
            log.exception("sync after file change failed")
            retry = paths  # not lost: redone with the next change, or after a while
            continue
        retry = set()
        if on_sync is not None:
            on_sync(report)


class _VaultFilter(DefaultFilter):
    """Watch everything but hidden folders and configured ignores."""

    def __init__(self, root: Path, ignore: list[str]) -> None:
        super().__init__()
        self._root = root
        self._ignore = ignore

    def __call__(self, change: Change, path: str) -> bool:
        relative = _relative(self._root, Path(path))
        return relative is not None and not is_ignored(relative, self._ignore)


def _relative(root: Path, path: Path) -> str | None:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None
