"""The resolved link graph saved at shutdown, so a restart needn't build it again.

Building the graph from the link cache means decoding every note's row and resolving every
link: 2.2 s of a 4.2 s first sync at 50k notes. Saved with its links already resolved, it
loads in a fraction of that (`LinkGraph.restore` rebuilds only the lookup indexes).

It is never the source of truth, and it is trusted the way the state mirror is: it carries a
stamp, and the link cache holds the stamp of the graph saved from its current rows until any
row changes (`LinkCache.set_stamp`). A stamp that doesn't match, a file written by another
Python (marshal's format is Python's own), a damaged or missing file: the graph is built from
the cache as before. Each note's content hash is saved too, so the notes that changed in the
store since (a sync interrupted after writing the store, before committing the cache) are
caught up one by one (`links.py`).

marshal rather than pickle: plain lists, dicts and strings, loaded without running any code.
"""

from __future__ import annotations

import logging
import marshal
import os
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from vault_agent.private_files import private_file
from vault_agent.vault.graph import GraphState

log = logging.getLogger(__name__)

#: Bumped when what is saved changes: another version's file is ignored.
SNAPSHOT_VERSION = 2  # 2: link names compared composed (NFC)
_PYTHON = sys.version  # marshal's format may change between Python versions


@dataclass(frozen=True)
class SavedGraph:
    """The graph and what `IndexedLinks` keeps beside it."""

    graph: GraphState
    stored: dict[str, list[str] | None]
    """The `links` payload in the store of each indexed note (None: unknown)."""
    hashes: dict[str, str]
    """The content hash of the version of each indexed note that the graph holds."""
    to_check: list[str]
    """Notes whose stored `links` may differ from their resolved links."""


def save(path: Path, saved: SavedGraph) -> str:
    """Write `saved` to `path` (replacing it whole), and return its new stamp."""
    stamp = uuid.uuid4().hex
    # The same string object for a file wherever it appears: marshal then writes it once,
    # and the loaded graph shares it (about a third of the file and of the load time).
    canonical = {file: file for file in saved.graph.files}
    stored = {
        canonical.get(file, file): None if links is None else [canonical.get(x, x) for x in links]
        for file, links in saved.stored.items()
    }
    hashes = {canonical.get(file, file): value for file, value in saved.hashes.items()}
    data = marshal.dumps(
        (SNAPSHOT_VERSION, _PYTHON, stamp, tuple(saved.graph), stored, hashes, saved.to_check)
    )
    temporary = path.with_name(path.name + ".tmp")
    with private_file(temporary) as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())  # the stamp is committed next: the file must be there first
    temporary.replace(path)
    return stamp


def load(path: Path, stamp: str | None) -> SavedGraph | None:
    """The graph saved at `path` with `stamp`; None when there is none to trust."""
    if stamp is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        version, python, saved_stamp, graph, stored, hashes, to_check = marshal.loads(data)
        if (version, python, saved_stamp) != (SNAPSHOT_VERSION, _PYTHON, stamp):
            return None
        state = GraphState(*graph)
        if not (
            isinstance(stored, dict) and isinstance(hashes, dict) and isinstance(to_check, list)
        ):
            raise TypeError("not a saved graph")
    except (ValueError, EOFError, TypeError) as error:  # damaged: only costs time
        log.warning("saved link graph %s unreadable (%s): building it again", path, error)
        return None
    return SavedGraph(graph=state, stored=stored, hashes=hashes, to_check=to_check)
