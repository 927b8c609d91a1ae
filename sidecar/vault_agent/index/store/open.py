"""`open_store`: the one place where the store implementation is chosen from the settings.

No `store.url`: Qdrant Edge in this vault's data folder (the default, nothing to run).
With `store.url`: a Qdrant server or cluster, one collection per vault (docs/qdrant-server.md).
"""

from __future__ import annotations

import os

from vault_agent.config import Settings
from vault_agent.index.store.protocol import Store

#: Read when `store.api_key` is unset, the name Qdrant's own tools use.
API_KEY_ENV = "QDRANT_API_KEY"


def open_store(settings: Settings) -> Store:
    """Open (creating if needed) the store for `settings`' vault.

    Raises `StoreLockedError` when another process holds the Edge index, and
    `StoreUnavailableError` when the Qdrant server cannot be reached."""
    # Imported here so that a server-only setup never loads the Edge engine, and vice versa.
    if settings.store.url is None:
        from vault_agent.index.store.edge import EdgeStore

        return EdgeStore(settings.edge_path)

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
    )
