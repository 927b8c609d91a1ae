"""Files and folders only their owner can read: the index, its caches and the token hold the
text of the notes, or the key to them.

Whatever the umask (022 would make them readable by every local user, 000 writable too),
folders are created 0700 and files 0600; found wider (made by an older version, copied,
restored from a backup), they are tightened: the group and other bits are removed, nothing is
ever added. Files that a library writes itself (Qdrant Edge's segments) sit in a folder made
here, which no one else can enter; they are tightened too when the index opens, and when a
store that wrote closes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

log = logging.getLogger(__name__)

#: Permission bits of anyone but the owner.
_OTHERS = stat.S_IRWXG | stat.S_IRWXO


def private_dir(path: Path) -> Path:
    """``path`` as a folder only its owner can enter: made 0700 with any missing parents, or
    tightened when it exists. Returns ``path``."""
    missing: list[Path] = []
    current = path
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            continue  # made meanwhile (another process): tightened below if it is the leaf
        folder.chmod(0o700)  # mkdir's mode passes through the umask
    tighten(path)
    return path


@contextlib.contextmanager
def private_file(path: Path) -> Iterator[BinaryIO]:
    """``path`` opened for writing (emptied), as a file only its owner can read."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    _tighten_descriptor(descriptor)
    with os.fdopen(descriptor, "wb") as handle:
        yield handle


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``, a file only its owner can read."""
    with private_file(path) as handle:
        handle.write(data)


def touch_private(path: Path) -> None:
    """Make sure ``path`` exists (its content kept) and only its owner can read it: before a
    library creates it with its own, looser, mode (SQLite: 0644, minus the umask)."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _tighten_descriptor(descriptor)
    finally:
        os.close(descriptor)


def open_private_db(path: Path, version: int, drop: str, schema: str) -> sqlite3.Connection:
    """A private SQLite database at ``path`` (0600, so its -wal and -shm files too), in WAL
    mode, for a cache that may lose its last commit; when its ``user_version`` is not
    ``version``, the ``drop`` script runs first. ``schema`` creates what is missing."""
    # SQLite would create the file 0644 minus the umask; its -wal and -shm files take the
    # database file's mode.
    touch_private(path)
    # Callers use it from whichever thread runs a sync, behind a lock of their own.
    db = sqlite3.connect(path, check_same_thread=False)
    db.execute("PRAGMA journal_mode = WAL")  # a commit appends, it doesn't rewrite
    db.execute("PRAGMA synchronous = NORMAL")  # a power cut may lose the last commit
    (found,) = db.execute("PRAGMA user_version").fetchone()
    if found != version:
        db.executescript(drop)
        db.execute(f"PRAGMA user_version = {int(version)}")
    db.executescript(schema)
    db.commit()
    return db


def tighten(path: Path) -> None:
    """Remove the group and other permission bits of ``path`` (not followed if a symlink)."""
    try:
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode) or not mode & _OTHERS:
            return
        path.chmod(stat.S_IMODE(mode) & ~_OTHERS)
    except FileNotFoundError:
        return
    except OSError as error:  # not ours (a shared data dir?): say so, don't stop
        log.warning("could not make %s private: %s", path, error)


def tighten_tree(root: Path) -> None:
    """``root`` and everything in it made private (symlinks are not followed)."""
    if not root.is_dir():
        return
    tighten(root)
    for folder, folders, files in os.walk(root):
        for name in (*folders, *files):
            tighten(Path(folder, name))


def _tighten_descriptor(descriptor: int) -> None:
    mode = os.fstat(descriptor).st_mode
    if mode & _OTHERS:
        os.fchmod(descriptor, stat.S_IMODE(mode) & ~_OTHERS)
