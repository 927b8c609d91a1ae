"""`open_store`: the one place where the store implementation is chosen from the settings.

No `store.url`: Qdrant Edge in this vault's data folder (the default, nothing to run).
With `store.url`: a Qdrant server or cluster, one collection per vault (docs/qdrant-server.md).
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from vault_agent.config import Settings
from vault_agent.index.store.errors import StoreLayoutError
from vault_agent.index.store.protocol import DENSE_DIM, Store

log = logging.getLogger(__name__)

#: Read when `store.api_key` is unset, the name Qdrant's own tools use.
API_KEY_ENV = "QDRANT_API_KEY"


def open_store(settings: Settings, dim: int = DENSE_DIM) -> Store:
    """Open (creating if needed) the store for `settings`' vault, for dense vectors of `dim`.

    An index built for another embedding model is rebuilt: every vector in it would have to be
    redone anyway, and the notes it was made from are still in the vault. Raises
    `StoreLockedError` when another process holds the Edge index, and `StoreUnavailableError`
    when the Qdrant server cannot be reached."""
    # Imported here so that a server-only setup never loads the Edge engine, and vice versa.
    if settings.store.url is None:
        from vault_agent.index.store.edge import EdgeStore

        try:
            return EdgeStore(settings.edge_path, dim)
        except StoreLayoutError:
            if not _is_edge_shard(settings.edge_path):
                raise
            log.warning("the index at %s was built for another model: rebuilt", settings.edge_path)
            shutil.rmtree(settings.edge_path)
            return EdgeStore(settings.edge_path, dim)

    from vault_agent.index.store.server import ServerStore

    key = settings.store.api_key
    api_key = key.get_secret_value() if key is not None else os.environ.get(API_KEY_ENV)
    return ServerStore.connect(
        settings.store.url,
        # An empty variable (`QDRANT_API_KEY=`) means no key, not an empty `api-key` header.
        api_key=api_key or None,
        collection=settings.collection_name,
        timeout_s=settings.store.timeout_s,
        ca_cert=settings.store.ca_cert,
        dim=dim,
        replace_other_model=True,
    )


def _is_edge_shard(path: Path) -> bool:
    """Only a folder holding exactly what Qdrant Edge writes is ever deleted."""
    try:
        names = {entry.name for entry in path.iterdir()}
    except OSError:
        return False
    return "edge_config.json" in names and names <= {"edge_config.json", "segments", "wal"}
