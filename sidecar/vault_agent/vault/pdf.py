"""Extract the text of a PDF, page by page, with PDFium (`pypdfium2`).

Why PDFium: measured on this project's PDFs (see `bench/pdf.py`), it reads text 4-10x faster
than pypdf and 15-25x faster than pdfminer.six, with the same text quality; it is the engine
of Chrome's PDF viewer, so damaged files rarely defeat it; and it is BSD/Apache licensed.
PyMuPDF is as fast but AGPL, which this MIT project cannot ship.

PDFium is not thread-safe and a hostile PDF can crash or hang it, so the indexer runs this
module in worker processes (`index/pdf_workers.py`); nothing here is shared between calls.
Outcomes that depend only on the bytes (encrypted, damaged, no text layer) come back as a
`PdfExtract` with a `problem`, never as an exception, so they can be cached by content hash.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from vault_agent.vault.pdf_extract import NO_TEXT_LAYER, PdfExtract
from vault_agent.vault.pdf_layout import Box, reading_regions
from vault_agent.vault.pdf_text import repair_text


def read_pdf(path: Path, max_pages: int, max_chars: int) -> tuple[str, PdfExtract]:
    """The sha256 of the file at `path` and its extracted text (see `extract_pdf`).

    The hash is of the bytes actually extracted, so a file changing during a sync can never
    pair one version's hash with another version's text.
    """
    data = path.read_bytes()
    return hashlib.sha256(data).hexdigest(), extract_pdf(data, max_pages, max_chars)


def extract_pdf(data: bytes, max_pages: int, max_chars: int) -> PdfExtract:
    """The text of each page of the PDF `data`, repaired (see `pdf_text.repair_text`).

    A document with more than `max_pages` pages is only counted, not read; one whose pages
    hold more than `max_chars` characters is read up to the page that passes it, then given
    up (`text_limit`): a small file can draw megabytes of text on every page. A document
    without any text is reported as having no text layer.
    """
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        return _load_problem(error)
    try:
        page_count = len(document)
        created = _iso_date(_metadata(document).get("CreationDate"))
        if page_count > max_pages:
            return PdfExtract(page_count=page_count, created=created)
        pages: list[str] = []
        room = max_chars
        for index in range(page_count):
            text = _page_text(document, index, room)
            if text is None:
                return PdfExtract(page_count=page_count, created=created, text_limit=max_chars)
            room -= len(text)
            pages.append(text)
    finally:
        document.close()
    extract = PdfExtract(page_count=page_count, pages=pages, created=created)
    if not any(pages):
        extract.problem, extract.problem_state = NO_TEXT_LAYER, "skipped"
    return extract


def _load_problem(error: Any) -> PdfExtract:
    """Why PDFium refused to open the document, in the user's terms."""
    code = getattr(error, "err_code", None)
    if code == pdfium_c.FPDF_ERR_PASSWORD:
        return PdfExtract(problem="encrypted: it needs a password to open", problem_state="skipped")
    if code == pdfium_c.FPDF_ERR_SECURITY:
        return PdfExtract(
            problem="encrypted with an unsupported security handler", problem_state="skipped"
        )
    return PdfExtract(problem=f"damaged or not a PDF ({_pdfium_reason(error)})")


def _page_text(document: Any, index: int, room: int) -> str | None:
    """One page's text, in reading order, repaired. "" for a page PDFium can't load; None
    when PDFium finds more than `room` characters on it (counted before any is read)."""
    try:
        page = document[index]
    except pdfium.PdfiumError:
        return ""
    try:
        textpage = page.get_textpage()
        try:
            if textpage.count_chars() > room:
                return None
            runs = [Box(*textpage.get_rect(i)) for i in range(textpage.count_rects())]
            regions = reading_regions(runs)
            if len(regions) <= 1:
                # One column: PDFium's own order is the reading order, and one call is cheap.
                return repair_text(textpage.get_text_bounded())
            parts = [repair_text(textpage.get_text_bounded(*region)) for region in regions]
            return "\n\n".join(part for part in parts if part)
        finally:
            textpage.close()
    finally:
        page.close()


def _metadata(document: Any) -> dict[str, str]:
    try:
        return dict(document.get_metadata_dict(skip_empty=True))
    except (pdfium.PdfiumError, UnicodeDecodeError):
        return {}


def _pdfium_reason(error: Any) -> str:
    """PDFium's own words ("Data format error") without pypdfium2's wrapping."""
    found = re.search(r"PDFium: ([^)]+)", str(error))
    return found.group(1) if found else str(error)


_PDF_DATE = re.compile(
    r"^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:(Z)|([+-])(\d{2})'?(\d{2})?'?)?"
)


def _iso_date(value: str | None) -> str | None:
    """A PDF date ("D:20240131123000+01'00'") as ISO 8601; None if it isn't one."""
    match = _PDF_DATE.match((value or "").strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, zulu, sign, tz_hours, tz_minutes = match.groups()
    try:
        tz = None
        if zulu:
            tz = UTC
        elif sign:
            offset = timedelta(hours=int(tz_hours), minutes=int(tz_minutes or 0))
            tz = timezone(offset if sign == "+" else -offset)
        moment = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=tz,
        )
    except ValueError:
        return None
    return moment.date().isoformat() if hour is None else moment.isoformat()
