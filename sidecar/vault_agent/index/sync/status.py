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


class FileStatuses:
    """The status of each file, as the last sync that looked at it left it.

    A file found unchanged is only "indexed, with so many chunks": that is kept as a number and
    made a `FileStatus` when asked for, since a restart finds every file unchanged and building
    50,000 validated models was a tenth of its first sync."""

    def __init__(self) -> None:
        self._statuses: dict[str, FileStatus] = {}
        self._unchanged: dict[str, int] = {}  # file -> chunks; never also in _statuses

    def __contains__(self, file: object) -> bool:
        return file in self._statuses or file in self._unchanged

    def files(self) -> set[str]:
        """Every file with a status."""
        return set(self._statuses) | set(self._unchanged)

    def get(self, file: str) -> FileStatus | None:
        """The status of `file`, if it has one."""
        status = self._statuses.get(file)
        if status is None and file in self._unchanged:
            status = FileStatus(file=file, state="indexed", chunks=self._unchanged[file])
        return status

    def set(self, status: FileStatus) -> None:
        """Record `status` for its file."""
        self._unchanged.pop(status.file, None)
        self._statuses[status.file] = status

    def keep(self, file: str, chunks: int) -> None:
        """`file` is indexed and unchanged: an "indexed" status it has stays (its warnings
        with it), any other becomes "indexed"."""
        status = self._statuses.get(file)
        if status is None or status.state != "indexed":
            self._statuses.pop(file, None)
            self._unchanged[file] = chunks

    def pop(self, file: str) -> None:
        """Forget `file`'s status."""
        self._statuses.pop(file, None)
        self._unchanged.pop(file, None)

    def listed(self) -> list[FileStatus]:
        """Every status, sorted by file."""
        statuses = (self.get(file) for file in sorted(self.files()))
        return [status for status in statuses if status is not None]
