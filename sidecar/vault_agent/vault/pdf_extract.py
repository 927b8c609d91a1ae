"""What extraction made of one PDF (`pdf.py` reads it with PDFium): the text of each page, or
why there is none. Kept apart from the reader so that the indexer, which caches and indexes
these, loads PDFium (0.1 s to import) only where PDFs are read."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

#: Bump when extraction or repair changes: cached results of older versions are redone.
EXTRACTOR_VERSION = 1
NO_TEXT_LAYER = "no text layer (a scanned or image-only PDF; text recognition is not supported)"


class PdfExtract(BaseModel):
    """What extraction made of one PDF: the text of each page, or why there is none.

    This is also the extract cache's entry, so it holds only what the bytes decide; limits
    that come from settings are applied by the caller.
    """

    page_count: int = Field(default=0, ge=0)
    pages: list[str] | None = Field(
        default=None, description="Repaired text of each page; None when not extracted."
    )
    problem: str | None = Field(default=None, description="Why the text can't be indexed.")
    problem_state: Literal["skipped", "failed"] = "failed"
    timeout_s: float | None = Field(
        default=None, description="Set when extraction was stopped after this many seconds."
    )
    text_limit: int | None = Field(
        default=None,
        description="Set when the text passed this many characters: reading stopped there.",
    )
    created: str | None = Field(default=None, description="The PDF's CreationDate, ISO 8601.")
    crashes: int = Field(
        default=0,
        ge=0,
        description="How many times running a worker died reading these bytes (PDFium "
        "crashing, or past the memory cap).",
    )
    memory_mb: int | None = Field(
        default=None, description="The memory cap in force when the worker last died on it."
    )

    @property
    def text_pages(self) -> list[int]:
        """1-based numbers of the pages that have text."""
        return [n for n, text in enumerate(self.pages or [], start=1) if text]
