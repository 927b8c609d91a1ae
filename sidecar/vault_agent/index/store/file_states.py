"""Folding per-chunk bookkeeping into one `FileState` per file, shared by both stores.

Each point carries its file's `content_hash`, `mtime`, `size`, `chunk_count` and
`embedding_model`; the stores
scroll only those keys (plus `file`) and feed them here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vault_agent.index.store.protocol import FileState

#: The only payload keys file_states() reads: never bodies, never vectors.
STATE_FIELDS = ("file", "content_hash", "mtime", "size", "chunk_count", "embedding_model")


class FileStateBuilder:
    """Accumulates chunk payloads (with at least `STATE_FIELDS`) into file states."""

    def __init__(self) -> None:
        self._states: dict[str, FileState] = {}

    def add(self, payload: Mapping[str, Any]) -> None:
        """Count one stored chunk of `payload["file"]`."""
        file = payload.get("file")
        if not isinstance(file, str):
            return
        seen = self._states.get(file)
        if seen is None:
            self._states[file] = FileState(
                content_hash=str(payload.get("content_hash") or ""),
                mtime=float(payload.get("mtime") or 0.0),
                size=int(payload.get("size") or 0),
                chunk_count=int(payload.get("chunk_count") or 0),
                stored_chunks=1,
                embedding_model=str(payload.get("embedding_model") or ""),
            )
            return
        seen.stored_chunks += 1
        if (seen.content_hash, seen.chunk_count) != (
            payload.get("content_hash"),
            payload.get("chunk_count"),
        ):
            # Chunks from two versions of the file: no hash may match a fresh one, so
            # the indexer re-indexes it (and its delete-by-file clears the leftovers).
            seen.content_hash = ""
            seen.mtime = 0.0

    def build(self) -> dict[str, FileState]:
        """The states collected so far, keyed by vault-relative path."""
        return self._states
