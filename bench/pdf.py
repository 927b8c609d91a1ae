"""PDF text extraction benchmark: pages/s per library, the worker pool, threads vs processes.

    uv run python -m bench.pdf [--pages 100] [--pdf extra.pdf ...] [--json out.json]
    # with the libraries that were compared before choosing PDFium:
    uv run --with pypdf --with pdfminer.six python -m bench.pdf

The PDFs are generated (reportlab, as in the tests): dense one-column prose, and two-column
pages drawn line by line across both columns (the layout that needs reordering). Times are
the best of three runs; a busy machine moves every row together, so compare rows, not runs.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
from rich.console import Console
from rich.table import Table

from vault_agent.index.sync.pdf_workers import PdfJob, PdfWorkerPool
from vault_agent.vault.pdf import extract_pdf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pdf_factory import FILLER_WORDS, prose_pages, write_pdf

Extractor = Callable[[Path], int]  # returns the number of pages read


def vault_agent(path: Path) -> int:
    """What the indexer runs: PDFium, column detection, text repair."""
    return len(extract_pdf(path.read_bytes(), max_pages=100_000, max_chars=10**9).pages or [])


def pdfium_plain(path: Path) -> int:
    """PDFium's text in content-stream order, nothing else (the floor of our cost)."""
    document = pdfium.PdfDocument(path)
    try:
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            textpage.get_text_bounded()
            textpage.close()
            page.close()
        return len(document)
    finally:
        document.close()


def pypdf_text(path: Path) -> int:
    """pypdf (BSD, pure Python), its default extraction mode."""
    import pypdf  # optional: only compared when installed

    reader = pypdf.PdfReader(path)
    for page in reader.pages:
        page.extract_text()
    return len(reader.pages)


def pdfminer_text(path: Path) -> int:
    """pdfminer.six (MIT, pure Python) with layout analysis: it reorders columns itself."""
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer

    count = 0
    for layout in extract_pages(path):
        "".join(el.get_text() for el in layout if isinstance(el, LTTextContainer))
        count += 1
    return count


def pymupdf_text(path: Path) -> int:
    """PyMuPDF (AGPL: not shippable here; for comparison only)."""
    import pymupdf

    with pymupdf.open(path) as document:
        for page in document:
            page.get_text("text")
        return int(document.page_count)


LIBRARIES: list[tuple[str, str, Extractor]] = [
    ("vault-agent (PDFium + layout + repair)", "pypdfium2", vault_agent),
    ("PDFium text only", "pypdfium2", pdfium_plain),
    ("pypdf", "pypdf", pypdf_text),
    ("pdfminer.six", "pdfminer", pdfminer_text),
    ("PyMuPDF (AGPL)", "pymupdf", pymupdf_text),
]


def best_of(runs: int, work: Callable[[], Any]) -> float:
    """The shortest wall time of `runs` calls of `work`, in seconds."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def make_documents(folder: Path, pages: int) -> dict[str, Path]:
    """The generated benchmark PDFs: prose and interleaved two-column pages."""
    left = [" ".join(FILLER_WORDS[i % 7 : i % 7 + 6]) for i in range(48)]
    right = [" ".join(FILLER_WORDS[i % 5 + 10 : i % 5 + 16]) for i in range(48)]
    columns = max(1, pages // 4)
    return {
        f"prose, {pages} pages": write_pdf(folder / "prose.pdf", prose_pages(pages)),
        f"two columns, {columns} pages": write_pdf(
            folder / "columns.pdf",
            [[] for _ in range(columns)],
            columns={n: (left, right) for n in range(columns)},
        ),
    }


def library_table(documents: dict[str, Path], console: Console) -> list[dict[str, Any]]:
    """Pages/s of each installed library on each document."""
    table = Table(title="Text extraction, one process (best of 3)")
    for column in ("library", "document", "pages", "seconds", "pages/s"):
        table.add_column(column, justify="left" if column in ("library", "document") else "right")
    rows: list[dict[str, Any]] = []
    for name, module, extractor in LIBRARIES:
        if importlib.util.find_spec(module) is None:
            table.add_row(name, "not installed", "", "", "")
            continue
        for label, path in documents.items():
            pages = extractor(path)  # warm-up: imports, font caches
            seconds = best_of(3, lambda e=extractor, p=path: e(p))
            rows.append({"library": name, "document": label, "pages": pages, "seconds": seconds})
            table.add_row(name, label, str(pages), f"{seconds:.3f}", f"{pages / seconds:,.0f}")
    console.print(table)
    return rows


def pool_table(documents: dict[str, Path], console: Console) -> list[dict[str, Any]]:
    """The indexer's path: jobs through `PdfWorkerPool`, worker start-up included."""
    paths = [path for path in documents.values() for _ in range(4)]
    pages = sum(vault_agent(path) for path in paths)
    table = Table(title=f"Worker pool: {len(paths)} PDFs, {pages} pages, start-up included")
    for column in ("workers", "seconds", "pages/s"):
        table.add_column(column, justify="right")
    rows: list[dict[str, Any]] = []
    for workers in (0, 1, 2):

        def run(workers: int = workers) -> None:
            with PdfWorkerPool(workers=workers, timeout_s=600) as pool:
                for number, path in enumerate(paths):
                    pool.submit(PdfJob(str(number), path, 100_000, 10**9))
                while pool.pending():
                    pool.collect(wait=True)

        seconds = best_of(2, run)
        label = "0 (inline)" if workers == 0 else str(workers)
        table.add_row(label, f"{seconds:.2f}", f"{pages / seconds:,.0f}")
        rows.append({"workers": workers, "seconds": seconds, "pages": pages})
    console.print(table)
    return rows


def gil_table(path: Path, console: Console) -> list[dict[str, Any]]:
    """Does PDFium in a thread slow the main thread's Python work (the GIL), and by how much
    compared with a worker process?"""

    def python_work() -> float:
        started = time.perf_counter()
        total = 0
        for number in range(3_000_000):
            total += number % 7
        return time.perf_counter() - started

    alone = min(python_work() for _ in range(2))
    # Both rows share two cores with the extraction, so both slow down; a thread costing no
    # more than a process means PDFium (ctypes) releases the GIL while it works.
    table = Table(title="Main thread's Python work while PDFs are extracted beside it")
    for column in ("extraction in", "main thread seconds", "slowdown"):
        table.add_column(column, justify="left" if column == "extraction in" else "right")
    table.add_row("(nothing)", f"{alone:.2f}", "1.00x")
    rows: list[dict[str, Any]] = [{"mode": "none", "seconds": alone}]

    def in_thread() -> None:
        stop = time.perf_counter() + 3 * alone
        while time.perf_counter() < stop:
            vault_agent(path)

    thread = threading.Thread(target=in_thread)
    thread.start()
    with_thread = python_work()
    thread.join()
    table.add_row("a thread", f"{with_thread:.2f}", f"{with_thread / alone:.2f}x")
    rows.append({"mode": "thread", "seconds": with_thread})

    with PdfWorkerPool(workers=1, timeout_s=600) as pool:
        pool.submit(PdfJob("warm", path, 100_000, 10**9))
        pool.collect(wait=True)  # the worker is up before the clock starts
        for number in range(20):
            pool.submit(PdfJob(str(number), path, 100_000, 10**9))
        with_process = python_work()
        while pool.pending():
            pool.collect(wait=True)
    table.add_row("a worker process", f"{with_process:.2f}", f"{with_process / alone:.2f}x")
    rows.append({"mode": "process", "seconds": with_process})
    console.print(table)
    return rows


def main(argv: list[str] | None = None) -> None:
    """Generate the PDFs, run the three measurements, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100, help="pages of the prose PDF")
    parser.add_argument("--pdf", type=Path, action="append", default=[], help="also measure")
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args(argv)
    console = Console()
    with tempfile.TemporaryDirectory(prefix="vault-agent-bench-pdf-") as folder:
        documents = make_documents(Path(folder), args.pages)
        for extra in args.pdf:
            documents[extra.name] = extra
        results = {
            "libraries": library_table(documents, console),
            "pool": pool_table(documents, console),
            "gil": gil_table(next(iter(documents.values())), console),
        }
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
