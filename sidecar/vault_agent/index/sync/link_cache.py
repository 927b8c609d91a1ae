"""A rebuildable on-disk cache of each note's raw links and aliases, keyed by content hash.

Resolving links needs every note's links and aliases, but re-parsing a 50k-note vault at each
start would make a no-change re-sync slow. This cache lets the indexer rebuild the link graph
from disk in one read. It is never the source of truth: an entry whose hash no longer matches
the note is ignored and the note re-parsed, and a missing or corrupt file only costs time.

It is a SQLite table, one row per note, so that saving one edited note writes one row: the
watcher's save-to-searchable time must not grow with the vault. Writes collect in a
transaction until `commit()`; a crash before it loses only what a re-parse can rebuild.

A saved graph (`graph_snapshot.py`) is trusted only while the cache holds the stamp it was
saved with: the first change to any row deletes the stamp in the same transaction, so the
stamp and the rows it vouches for are committed, or lost, together.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, Field

from vault_agent.private_files import open_private_db, private_dir

log = logging.getLogger(__name__)

#: 3: a SQLite table (2 and 1 were whole-file JSON: links.json).
CACHE_VERSION = 3
_OLD_FILES = ("links.json",)
_PAGE = 2048
_SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    file TEXT PRIMARY KEY,
    content_hash TEXT NOT NULL,
    aliases TEXT NOT NULL,
    links TEXT NOT NULL,
    stored_links TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshot (stamp TEXT NOT NULL);
"""


class CachedNote(BaseModel):
    """What the graph needs from one note, plus the links last written to the store."""

    file: str
    content_hash: str
    aliases: list[str] = Field(default_factory=list)
    links: list[str] = Field(default_factory=list, description="Link targets, as written.")
    stored_links: list[str] | None = None
    """The `links` payload last written to the store; None when unknown (then rewritten)."""


class CachedRow(NamedTuple):
    """One cached note as read back (the fields of `CachedNote`)."""

    file: str
    content_hash: str
    aliases: list[str]
    links: list[str]
    stored_links: list[str] | None


class LinkCache:
    """The cache file of one vault (created, or rebuilt empty when unreadable or outdated).
    Safe to share between threads: every call holds the cache's own lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        private_dir(path.parent)
        for name in _OLD_FILES:
            with contextlib.suppress(OSError):
                (path.parent / name).unlink()
        try:
            self._db = _open(path)
        except sqlite3.DatabaseError as error:  # corrupt: it is only a cache
            self._db = _start_again(path, error)
        self._stamp = self._read_stamp()

    @property
    def stamp(self) -> str | None:
        """The stamp of the saved graph that matches the rows (None: no graph does)."""
        with self._lock:
            return self._stamp

    def set_stamp(self, stamp: str) -> None:
        """Commit the rows, vouched for by `stamp` (a graph saved from them)."""
        with self._lock:
            self._db.execute("DELETE FROM snapshot")
            self._db.execute("INSERT INTO snapshot VALUES (?)", (stamp,))
            self._db.commit()
            self._stamp = stamp

    def unstamp(self) -> None:
        """No saved graph matches the rows (one that did proved unusable): the next
        `commit` says so on disk, and the graph is saved again at shutdown."""
        with self._lock:
            self._changing()

    def notes(self) -> Iterator[CachedRow]:
        """Every cached note, streamed page by page. A damaged row is left out (its note gets
        re-parsed); a damaged file is started again, empty."""
        after = ""
        while True:
            try:
                with self._lock:
                    rows = self._db.execute(
                        "SELECT * FROM notes WHERE file > ? ORDER BY file LIMIT ?", (after, _PAGE)
                    ).fetchall()
            except sqlite3.DatabaseError as error:  # damage the header didn't show
                with self._lock:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.close()
                    self._db = _start_again(self.path, error)
                    self._stamp = None
                return
            for file, content_hash, aliases, links, stored_links in rows:
                try:
                    # A plain tuple, each list checked by _strings: at 50k notes, building
                    # and validating models took as long as reading the table.
                    yield CachedRow(
                        file,
                        content_hash,
                        _strings(aliases),
                        _strings(links),
                        None if stored_links is None else _strings(stored_links),
                    )
                except (ValueError, TypeError):
                    continue
            if len(rows) < _PAGE:
                return
            after = rows[-1][0]

    def put(self, note: CachedNote) -> None:
        """Add or replace one note's row (written at the next `commit`)."""
        stored = None if note.stored_links is None else _dump(note.stored_links)
        row = (note.file, note.content_hash, _dump(note.aliases), _dump(note.links), stored)
        with self._lock:
            self._changing()
            self._db.execute("INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?)", row)

    def set_stored_links(self, links: dict[str, list[str] | None]) -> None:
        """Record the `links` payload now in the store for these notes (None: unknown)."""
        rows = [(None if v is None else _dump(v), file) for file, v in links.items()]
        if not rows:
            return
        with self._lock:
            self._changing()
            self._db.executemany("UPDATE notes SET stored_links = ? WHERE file = ?", rows)

    def remove(self, files: Iterable[str]) -> None:
        """Forget these notes."""
        rows = [(file,) for file in files]
        if not rows:
            return
        with self._lock:
            self._changing()
            self._db.executemany("DELETE FROM notes WHERE file = ?", rows)

    def commit(self) -> None:
        """Make the writes since the last commit durable, all or none."""
        with self._lock:
            self._db.commit()

    def close(self) -> None:
        """Commit and close the file (idempotent)."""
        with self._lock, contextlib.suppress(sqlite3.ProgrammingError):  # already closed
            self._db.commit()
            self._db.close()

    def _changing(self) -> None:
        """A row is about to change: no saved graph matches the rows any more (in the same
        transaction as the change). Called under the lock."""
        if self._stamp is not None:
            self._db.execute("DELETE FROM snapshot")
            self._stamp = None

    def _read_stamp(self) -> str | None:
        try:
            row = self._db.execute("SELECT stamp FROM snapshot").fetchone()
        except sqlite3.DatabaseError:  # only costs the saved graph
            return None
        return None if row is None else str(row[0])


def _open(path: Path) -> sqlite3.Connection:
    # A cache: losing the last commit is fine, the notes are re-read.
    drop = "DROP TABLE IF EXISTS notes; DROP TABLE IF EXISTS snapshot;"
    return open_private_db(path, CACHE_VERSION, drop, _SCHEMA)


def _start_again(path: Path, error: sqlite3.DatabaseError) -> sqlite3.Connection:
    """A new, empty cache in place of a damaged one."""
    log.warning("link cache %s unreadable (%s): starting it again", path, error)
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            Path(f"{path}{suffix}").unlink()
    return _open(path)


def _dump(values: Sequence[str]) -> str:
    return json.dumps(values, ensure_ascii=False, separators=(",", ":"))


def _strings(text: str) -> list[str]:
    """A list of strings written by `_dump`; ValueError when the row holds anything else."""
    if text == "[]":  # most notes have no aliases: skip the decoder
        return []
    values = json.loads(text)
    if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
        raise ValueError(f"not a list of strings: {text[:80]!r}")
    return values
