"""What a sync reports: per-file status, live progress, and the summary of one sync.

These models cross to every client: `GET /v1/index`, the CLI's progress bar and summary, the
plugin's status bar.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

FileStateName = Literal["indexed", "skipped", "failed"]


class FileStatus(BaseModel):
    """Why a file is (or is not) in the index."""

    file: str
    state: FileStateName
    reason: str | None = None
    chunks: int = 0
    warnings: list[str] = Field(default_factory=list)


class IndexProgress(BaseModel):
    """What the indexer is doing now, for progress bars and `GET /v1/index`."""

    state: Literal["idle", "scanning", "indexing", "watching", "error"] = "idle"
    files_total: int = 0
    files_done: int = 0
    chunks_done: int = 0
    started_at: datetime | None = None
    finished_at: datetime | None = None
    last_error: str | None = None


class SyncReport(BaseModel):
    """The outcome of one sync."""

    scanned: int = 0
    unchanged: int = 0
    indexed: int = 0
    deleted: int = 0
    skipped: int = 0
    failed: int = 0
    chunks: int = 0
    pdf_extracted: int = Field(default=0, description="PDFs whose text was extracted (not cached).")
    seconds: float = 0.0


ProgressCallback = Callable[[IndexProgress], None]
