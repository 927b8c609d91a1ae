"""A rebuildable on-disk cache of each note's raw links and aliases, keyed by content hash.

Resolving links needs every note's links and aliases, but re-parsing a 50k-note vault at each
start would make a no-change re-sync slow. This cache lets the indexer rebuild the link graph
from disk in one read. It is never the source of truth: an entry whose hash no longer matches
the note is ignored and the note re-parsed, and a missing or corrupt file only costs time.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

#: 2: links are their targets as written (1 kept whole `Link` records).
CACHE_VERSION = 2


class CachedNote(BaseModel):
    """What the graph needs from one note, plus the links last written to the store."""

    content_hash: str
    aliases: list[str] = Field(default_factory=list)
    links: list[str] = Field(default_factory=list, description="Link targets, as written.")
    stored_links: list[str] | None = None
    """The `links` payload last written to the store; None when unknown (then rewritten)."""


class LinkCacheFile(BaseModel):
    """The file's schema (versioned so an upgrade simply rebuilds)."""

    version: int = CACHE_VERSION
    notes: dict[str, CachedNote] = Field(default_factory=dict)


def load_link_cache(path: Path) -> dict[str, CachedNote]:
    """Read the cache; an absent, corrupt or old-version file yields an empty cache."""
    try:
        data = LinkCacheFile.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError):
        return {}
    return data.notes if data.version == CACHE_VERSION else {}


def save_link_cache(path: Path, notes: dict[str, CachedNote]) -> None:
    """Write the cache atomically (a crash leaves the old file or the new one, never half)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    payload = LinkCacheFile(notes=notes).model_dump(mode="json", exclude_defaults=False)
    try:
        temporary.write_text(json.dumps(payload, separators=(",", ":")), encoding="utf-8")
        temporary.replace(path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
