"""Errors raised by the stores, worded so that a user can act on them.

Callers (CLI, HTTP routes) catch `StoreError` and show its message as is: it names the index
path or server URL and says what to do, so no traceback is needed.
"""

from __future__ import annotations


class StoreError(Exception):
    """The index cannot be used (wrong schema, closed store, refused request, ...)."""


class StoreLockedError(StoreError):
    """The Edge index folder is held by another process (Qdrant Edge allows one per folder)."""


class StoreUnavailableError(StoreError):
    """The Qdrant server cannot be reached or refused the connection (timeout, DNS, TLS, auth)."""


class StoreLayoutError(StoreError):
    """The index was built for another embedding model (another dense vector size or name)."""
