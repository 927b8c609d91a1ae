"""Extracted PDF text on disk, keyed by the file's sha256: each PDF is read once per content.

PDF extraction is the slowest step before embedding, and PDFs rarely change. The store keeps
chunks, not whole pages, and loses a PDF entirely when it is skipped (no text layer), so the
pages live here: a renamed, copied or re-synced PDF, or one re-indexed after a store reset,
costs a file read and a hash, not an extraction. Outcomes decided by the bytes (encrypted,
damaged, no text layer, a timeout) are cached too, so a bad PDF isn't retried every sync.

One gzip'd JSON file per content hash under `extract-cache/ab/abcd...json.gz`, written
atomically. Never the source of truth: an unreadable or older-version entry is a miss.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import zlib
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ValidationError

from vault_agent.private_files import private_dir, write_private
from vault_agent.vault.pdf_extract import EXTRACTOR_VERSION, PdfExtract

_SUFFIX = ".json.gz"


class _Entry(BaseModel):
    version: int
    extract: PdfExtract


class ExtractCache:
    """Extracted PDFs by content hash, in the folder `root` (created when first written)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def get(self, content_hash: str) -> PdfExtract | None:
        """The cached extract of this content, or None."""
        try:
            entry = _Entry.model_validate_json(
                gzip.decompress(self._path(content_hash).read_bytes())
            )
        except (OSError, EOFError, zlib.error, ValidationError, ValueError):
            # zlib.error (damaged deflate data) is none of the others: it would stop the sync.
            return None
        return entry.extract if entry.version == EXTRACTOR_VERSION else None

    def put(self, content_hash: str, extract: PdfExtract) -> None:
        """Store an extract (atomically: a crash leaves the old entry or the new one)."""
        path = self._path(content_hash)
        private_dir(path.parent)
        data = _Entry(version=EXTRACTOR_VERSION, extract=extract).model_dump_json()
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            # Level 1: text compresses about 3x even so, and writing stays cheap.
            write_private(temporary, gzip.compress(data.encode("utf-8"), compresslevel=1))
            temporary.replace(path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()

    def prune(self, keep: Iterable[str]) -> int:
        """Delete every entry whose hash is not in `keep`; returns how many went."""
        wanted = set(keep)
        removed = 0
        for path in self.root.glob(f"??/*{_SUFFIX}"):
            if path.name.removesuffix(_SUFFIX) not in wanted:
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed += 1
        return removed

    def _path(self, content_hash: str) -> Path:
        if len(content_hash) < 3 or not content_hash.isalnum():
            raise ValueError(f"not a content hash: {content_hash!r}")
        return self.root / content_hash[:2] / f"{content_hash}{_SUFFIX}"
