"""A PDF as a note: `type: pdf`, titled by its file name, one section per page with text.

Also owns how a page is named and linked. A chunk's heading is "Page 3"; Obsidian opens a
PDF at a page with the subpath `#page=3` (`[[paper.pdf#page=3]]`), so citations translate one
into the other here. This module needs no PDF library: the text comes from `pdf.py`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from vault_agent.vault.notes import Note, Section

PDF_TYPE = "pdf"
# At most 9 digits: no PDF has more pages, and Python refuses to turn more than 4,300 digits
# into an int (a model's `[[paper.pdf#page=999...]]` made the citation check raise).
_PAGE_HEADING = re.compile(r"^page (\d{1,9})$", re.IGNORECASE)
_PAGE_SUBPATH = re.compile(r"^page=(\d{1,9})$", re.IGNORECASE)


def pdf_note(
    file: str, pages: Sequence[str], content_hash: str, created: str | None = None
) -> Note:
    """The note for the PDF `file` whose page texts are `pages` (page 1 first).

    Pages without text get no section; the note's warnings name them, since a PDF that is
    partly scanned is only partly searchable.
    """
    sections = [
        Section(heading_path=[page_heading(number)], text=text, level=1, page=number)
        for number, text in enumerate(pages, start=1)
        if text
    ]
    empty = [number for number, text in enumerate(pages, start=1) if not text]
    warnings = []
    if sections and empty:
        warnings.append(f"no text layer on {_pages_phrase(empty)} of {len(pages)}")
    return Note(
        file=file,
        title=PurePosixPath(file).stem,
        type=PDF_TYPE,
        created=created,
        warnings=warnings,
        sections=sections,
        body="\n\n".join(section.text for section in sections),
        content_hash=content_hash,
    )


def page_heading(page: int) -> str:
    """The heading of a PDF page's chunks: "Page 3"."""
    return f"Page {page}"


def page_of_heading(heading: str) -> int | None:
    """3 for "Page 3" (or a heading path ending in it), or the subpath "page=3"; else None."""
    last = heading.rsplit(" > ", 1)[-1].strip()
    found = _PAGE_HEADING.match(last) or _PAGE_SUBPATH.match(last)
    return int(found.group(1)) if found else None


def page_subpath(page: int) -> str:
    """What follows `#` in a link that opens a PDF at `page`: "page=3"."""
    return f"page={page}"


def _pages_phrase(numbers: list[int]) -> str:
    """ "page 4", "pages 2-4, 7": consecutive pages as ranges."""
    ranges: list[list[int]] = []
    for number in numbers:
        if ranges and number == ranges[-1][-1] + 1:
            ranges[-1].append(number)
        else:
            ranges.append([number])
    parts = [f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in ranges]
    return ("page " if len(numbers) == 1 else "pages ") + ", ".join(parts)
