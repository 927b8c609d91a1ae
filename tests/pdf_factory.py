"""Real PDFs for the tests and the benchmark, drawn with reportlab (no files checked in).

Each page is drawn line by line at fixed positions, so the tests know exactly which text sits
on which page, where a word is hyphenated across a line break, and how a two-column page is
laid out.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from PIL import Image
from reportlab.lib.pagesizes import A4
from reportlab.lib.pdfencrypt import StandardEncryption
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

WIDTH, HEIGHT = A4
LEFT, TOP, LEADING = 72.0, HEIGHT - 72.0, 14.0

FILLER_WORDS = (
    *("the", "of", "vault", "notes", "index", "search", "embedding", "paragraph", "column"),
    *("garden", "recipe", "sourdough", "starter", "feeding", "schedule", "temperature"),
    *("flour", "water", "ratio", "meeting", "agenda", "project", "budget", "timeline"),
    *("compost", "harvest"),
)

# A page is a list of lines; these markers ask for something other than a line of text.
IMAGE_ONLY = "<image-only>"


def write_pdf(
    path: Path,
    pages: Sequence[Sequence[str] | str],
    password: str | None = None,
    columns: dict[int, tuple[list[str], list[str]]] | None = None,
) -> Path:
    """Write a PDF whose page i holds the lines `pages[i]` (one string: `IMAGE_ONLY` for a page
    that is just a picture). `columns[i]` draws page i as two columns, line by line across
    both (left line 1, right line 1, ...): the order in which naive extraction interleaves
    them. `password` encrypts the file with that user password ("" encrypts with an owner
    password only, which any reader opens)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    encrypt = None
    if password is not None:
        encrypt = StandardEncryption(password, ownerPassword="owner-secret", strength=128)
    canvas = Canvas(str(path), pagesize=A4, encrypt=encrypt)
    canvas.setCreator("vault-agent tests")
    for number, page in enumerate(pages):
        if columns and number in columns:
            _two_columns(canvas, *columns[number])
        elif page == IMAGE_ONLY:
            _picture(canvas)
        else:
            y = TOP
            for line in page:
                canvas.drawString(LEFT, y, line)
                y -= LEADING
        canvas.showPage()
    canvas.save()
    return path


def write_corrupt(path: Path) -> Path:
    """A file named .pdf that is not one: a PDF header, then garbage."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"%PDF-1.7\n" + bytes(random.Random(7).randrange(256) for _ in range(4096)))
    return path


def write_text_bomb(path: Path, lines: int, pages: int = 1) -> Path:
    """A small PDF drawing a lot of text: `lines` lines of 100 characters per page, in a
    1-point font, 500 to a stack (the page stream compresses to almost nothing: 60,000 lines
    are about 210 KB of file and 6 MB of text)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    canvas = Canvas(str(path), pagesize=A4, pageCompression=1)
    line = "bomb " * 20
    for _ in range(pages):
        canvas.setFont("Helvetica", 1)
        for index in range(lines):
            canvas.drawString(LEFT, TOP - index % 500, line)
        canvas.showPage()
    canvas.save()
    return path


def prose_pages(count: int, seed: int = 1, lines: int = 45) -> list[list[str]]:
    """`count` pages of filler text, 45 lines of about 90 characters each (a dense page)."""
    words = FILLER_WORDS
    rng = random.Random(seed)
    pages = []
    for _ in range(count):
        page = []
        for _ in range(lines):
            line = ""
            while len(line) < 85:
                line += rng.choice(words) + " "
            page.append(line.strip())
        pages.append(page)
    return pages


def _two_columns(canvas: Canvas, left: list[str], right: list[str]) -> None:
    canvas.setFont("Helvetica-Bold", 14)
    canvas.drawString(LEFT, TOP + 20, "A Title Spanning Both Columns Of This Page")
    canvas.setFont("Helvetica", 10)
    gutter = WIDTH / 2
    y = TOP - 10
    for index in range(max(len(left), len(right))):
        if index < len(left):
            canvas.drawString(LEFT, y, left[index])
        if index < len(right):
            canvas.drawString(gutter + 10, y, right[index])
        y -= LEADING


def _picture(canvas: Canvas) -> None:
    """A page that is only an image, like a scanned page without OCR."""
    image = Image.new("RGB", (200, 120), "white")
    for x in range(0, 200, 4):  # some "ink" so it isn't a blank image
        for y in range(40, 60):
            image.putpixel((x, y), (0, 0, 0))
    canvas.drawImage(ImageReader(image), LEFT, TOP - 300, width=400, height=240)
