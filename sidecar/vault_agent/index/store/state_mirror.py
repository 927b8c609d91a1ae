"""A copy of every point's bookkeeping keys in SQLite, so a restart needn't scroll the shard.

Each full sync starts from `file_states()`. Read from Qdrant Edge, that scrolls every point:
the engine decodes each whole payload (bodies included) to hand back six keys, 2.7 s at 67k
points with a cold page cache, at every start of the sidecar. The mirror keeps one row per
point (its id, `source` and the `STATE_FIELDS`), written by the store itself after each of its
writes, and folds them into file states in SQL, as `FileStateBuilder` folds a scroll.

It is never the source of truth. After each write it records the shard's generation (a value
that every applied write changes, read from the engine), and a process trusts it only if that
stamp equals the shard's generation when the store opens, before the process writes anything:
so a crash between a write and the mirror's commit, a shard deleted or rebuilt, an older
version of the sidecar writing without the mirror, or a damaged file all make it fall back to
the scroll, which then rebuilds it. SQLite errors only ever cost that fallback.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from vault_agent.index.store.file_states import STATE_FIELDS
from vault_agent.index.store.protocol import EmbeddedChunk, FileState
from vault_agent.private_files import open_private_db

log = logging.getLogger(__name__)

#: Bumped when the table changes: another version's file is started again (1: keyed by id).
MIRROR_VERSION = 2
# Rows are stored in (file, id) order: reading states groups by file in one pass, with no
# lookups (keyed by id, with an index on file, every file's states at 50k notes took 0.8 s
# instead of 0.5 s), and a file's points are one range. The id stays unique: an upsert
# replaces the row of its id.
#: The payload keys mirrored, in the table's column order after `id`: the source that reads
#: filter on, then the keys `FileStateBuilder` folds.
MIRRORED_KEYS = ("source", *STATE_FIELDS)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS points (
    id TEXT NOT NULL UNIQUE,
    source TEXT,
    file TEXT NOT NULL,
    content_hash TEXT,
    mtime REAL,
    size INTEGER,
    chunk_count INTEGER,
    embedding_model TEXT,
    PRIMARY KEY (file, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS stamp (generation TEXT NOT NULL);
"""
#: SQLite's default limit on the parameters of one statement is 32766; stay well under it.
_IN_LIST = 500

#: One point as the mirror stores it: its id and its payload (at least the state keys).
MirroredPoint = tuple[str, Mapping[str, Any]]
Row = tuple[Any, ...]


class StateMirror:
    """The mirror of one shard, at `path`. `generation` reads the shard's current generation
    (None when the engine can't tell: then the mirror is never trusted).

    Thread-safe: the store holds `writing()` around each write so that no other write or read
    of the mirror runs between the shard changing and the mirror following it."""

    def __init__(self, path: Path, generation: Callable[[], str | None]) -> None:
        self.path = path
        self._generation = generation
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self.live = False
        """True while the rows are exactly the shard's points: reads are served from them."""
        try:
            self._db = _open(path)
            row = self._db.execute("SELECT generation FROM stamp").fetchone()
            current = generation()
            self.live = row is not None and current is not None and row[0] == current
        except (sqlite3.Error, OSError) as error:  # the store works without it, only slower
            self._broken(error)

    @contextlib.contextmanager
    def writing(self) -> Iterator[StateMirror]:
        """Hold around one write to the shard, which then calls `upserted`, `deleted` or
        `payload_set`: on success the mirror is stamped with the new generation; when the
        write fails, what the shard applied is unknown, so the mirror stops serving reads."""
        with self._lock:
            try:
                yield self
            except BaseException:
                self.live = False
                raise
            if self.live:
                self._stamp()

    def upserted(self, chunks: Sequence[EmbeddedChunk]) -> None:
        """These points were written (inserted or replaced)."""
        rows = [
            (chunk.id, *(getattr(chunk.payload, column) for column in MIRRORED_KEYS))
            for chunk in chunks
        ]
        marks = ", ".join("?" * (len(MIRRORED_KEYS) + 1))
        self._change(f"INSERT OR REPLACE INTO points VALUES ({marks})", rows)

    def deleted(self, files: Sequence[str]) -> None:
        """Every point of these files was deleted."""
        self._change("DELETE FROM points WHERE file = ?", [(file,) for file in files])

    def payload_set(self, file: str, values: Mapping[str, Any]) -> None:
        """These payload keys were overwritten on every point of `file`."""
        changed = [column for column in MIRRORED_KEYS if column in values]
        if changed:
            assignments = ", ".join(f"{column} = ?" for column in changed)
            row = (*(values[column] for column in changed), file)
            self._change(f"UPDATE points SET {assignments} WHERE file = ?", [row])

    def states(
        self, source: str | None, files: Sequence[str] | None
    ) -> dict[str, FileState] | None:
        """What `Store.file_states(source, files)` returns, from the rows; None when the mirror
        isn't live (then the shard must be read)."""
        with self._lock:
            if not self.live:
                return None
            return {
                file: FileState(
                    # As FileStateBuilder folds a scroll: the first point's keys (SQLite takes
                    # the bare columns from the row of the one min()), and a file mixing two
                    # versions gets no hash a fresh one could match.
                    content_hash="" if mixed else str(content_hash or ""),
                    mtime=0.0 if mixed else float(mtime or 0.0),
                    size=int(size or 0),
                    chunk_count=int(chunk_count or 0),
                    stored_chunks=stored,
                    embedding_model=str(model or ""),
                )
                for file, content_hash, mtime, size, chunk_count, model, _, stored, mixed in (
                    self._grouped(source, files)
                )
                if isinstance(file, str)
            }

    def rebuild(self, points: Iterable[MirroredPoint]) -> None:
        """Replace every row with `points` (all of the shard's, read under `writing()`)."""
        if self._db is None:
            return
        marks = ", ".join("?" * (len(MIRRORED_KEYS) + 1))
        rows = (
            (point_id, *(payload.get(column) for column in MIRRORED_KEYS))
            for point_id, payload in points
        )
        try:
            self._db.execute("DELETE FROM points")
            self._db.executemany(f"INSERT OR REPLACE INTO points VALUES ({marks})", rows)
            self.live = True
        except sqlite3.Error as error:
            self._broken(error)

    def close(self) -> None:
        """Close the file (idempotent); the last stamp stays valid for the next process."""
        with self._lock:
            if self._db is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                self._db = None
            self.live = False

    def _grouped(self, source: str | None, files: Sequence[str] | None) -> Iterator[Row]:
        """One row per file: its first point's keys, the number of its points, and whether
        they mix versions (two hashes or chunk counts)."""
        assert self._db is not None  # only called while live, under the lock
        where, values = ([], []) if source is None else (["source = ?"], [source])
        batches: Iterable[Sequence[str] | None] = (
            [None]
            if files is None
            else (files[start : start + _IN_LIST] for start in range(0, len(files), _IN_LIST))
        )
        for batch in batches:
            clauses = list(where)
            if batch is not None:
                clauses.append(f"file IN ({', '.join('?' * len(batch))})")
            query = (
                "SELECT file, content_hash, mtime, size, chunk_count, embedding_model, MIN(id),"
                " COUNT(*), COUNT(DISTINCT content_hash) > 1 OR COUNT(DISTINCT chunk_count) > 1"
                " FROM points"
                + (f" WHERE {' AND '.join(clauses)}" if clauses else "")
                + " GROUP BY file"
            )
            yield from self._db.execute(query, [*values, *(batch or ())])

    def _change(self, statement: str, rows: list[tuple[Any, ...]]) -> None:
        if not self.live or self._db is None or not rows:
            return
        try:
            self._db.executemany(statement, rows)
        except sqlite3.Error as error:
            self._broken(error)

    def _stamp(self) -> None:
        assert self._db is not None  # live
        try:
            generation = self._generation()
            self._db.execute("DELETE FROM stamp")
            if generation is None:
                self.live = False
            else:
                self._db.execute("INSERT INTO stamp VALUES (?)", (generation,))
            self._db.commit()
        except sqlite3.Error as error:
            self._broken(error)

    def _broken(self, error: sqlite3.Error | OSError) -> None:
        """Stop serving reads; a damaged file is started again by the next process."""
        log.warning("file state mirror %s unusable (%s): reading the index", self.path, error)
        self.live = False
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.rollback()
                # An unstamped mirror is never trusted again, whatever its rows say.
                self._db.execute("DELETE FROM stamp")
                self._db.commit()


def _open(path: Path) -> sqlite3.Connection:
    try:
        return _connect(path)
    except sqlite3.DatabaseError:  # damaged: it is only a copy, start it again
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                Path(f"{path}{suffix}").unlink()
        return _connect(path)


def _connect(path: Path) -> sqlite3.Connection:
    # A commit lost to a power cut leaves an older stamp, which the shard no longer matches.
    drop = "DROP TABLE IF EXISTS points; DROP TABLE IF EXISTS stamp;"
    return open_private_db(path, MIRROR_VERSION, drop, _SCHEMA)
