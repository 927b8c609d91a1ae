"""Reading order of a PDF page: find two text columns and read them one after the other.

PDF text comes in content-stream order, which is the reading order for most pages but not
for all: some producers draw a two-column page line by line across both columns, and an
extractor then interleaves them ("left line 1, right line 1, left line 2..."). This module
looks only at the boxes of the page's text runs (PDF user space: x to the right, y up) and
returns the regions to read, in order. One region, the whole page, unless it finds a
vertical gutter with text on both sides; then the page is cut into horizontal bands at text
that spans the gutter (a title, a wide figure caption, a footer), and each band is read left
column first. Pure geometry: the PDF library stays in `pdf.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class Box(NamedTuple):
    """A rectangle in PDF user space (y grows upwards)."""

    left: float
    bottom: float
    right: float
    top: float

    @property
    def width(self) -> float:
        """Horizontal extent."""
        return self.right - self.left


#: Narrowest gap between two columns, in points (typical gutters are 12-30 pt).
MIN_GUTTER = 6.0
#: A run of text wider than this share of the text area spans the columns (a title).
SPANNING_SHARE = 0.6
#: Text runs per column before a page counts as two-column.
MIN_RUNS_PER_COLUMN = 4
#: Most bands of columns between spanning text a page is read as; a page with more (text
#: drawn to defeat the layout: thousands of lines alternating across the gutter) is read in
#: PDFium's own order, since each band is a search of the whole page: quadratic.
MAX_BANDS = 50


def reading_regions(runs: Sequence[Box]) -> list[Box]:
    """The regions of a page to read, in order, given the boxes of its text runs.

    A page without a clear two-column layout gives one region covering all its text, so the
    caller keeps the extractor's own order there.
    """
    if not runs:
        return []
    area = Box(
        min(r.left for r in runs),
        min(r.bottom for r in runs),
        max(r.right for r in runs),
        max(r.top for r in runs),
    )
    gutter = _find_gutter(runs, area)
    if gutter is None:
        return [area]
    spanning = [r for r in runs if r.left < gutter < r.right]
    return _bands(runs, spanning, area, gutter)


def _find_gutter(runs: Sequence[Box], area: Box) -> float | None:
    """The x of an empty vertical strip in the middle of the text with columns on both
    sides, or None for a one-column page."""
    if area.width <= 0:
        return None
    narrow = [r for r in runs if r.width < SPANNING_SHARE * area.width]
    # Where the strip may lie: the middle of the text area (a wide left margin note is not
    # a column). The widest stretch of it that no narrow run covers is the candidate.
    low, high = area.left + 0.3 * area.width, area.left + 0.7 * area.width
    inside = [r for r in narrow if r.right > low and r.left < high]
    spans = sorted((max(r.left, low), min(r.right, high)) for r in inside)
    best: tuple[float, float] | None = None  # (width, centre) of the widest empty strip
    reached = low
    for start, end in [*spans, (high, high)]:
        if start > reached and (best is None or start - reached > best[0]):
            best = (start - reached, (start + reached) / 2)
        reached = max(reached, end)
    if best is None or best[0] < MIN_GUTTER:
        return None
    gutter = best[1]
    left = [r for r in narrow if r.right <= gutter]
    right = [r for r in narrow if r.left >= gutter]
    if len(left) < MIN_RUNS_PER_COLUMN or len(right) < MIN_RUNS_PER_COLUMN:
        return None
    # Side by side, not one above the other (a block of text then an indented one).
    overlap = min(_top(left), _top(right)) - max(_bottom(left), _bottom(right))
    shorter = min(_top(left) - _bottom(left), _top(right) - _bottom(right))
    if shorter <= 0 or overlap < 0.3 * shorter:
        return None
    return gutter


def _bands(runs: Sequence[Box], spanning: Sequence[Box], area: Box, gutter: float) -> list[Box]:
    """Cut the page at the spanning runs: full-width regions for them, and between them a
    left and a right column region."""
    blocks: list[tuple[float, float]] = []  # (top, bottom) of merged spanning runs, top first
    for run in sorted(spanning, key=lambda r: -r.top):
        if blocks and run.top >= blocks[-1][1]:
            blocks[-1] = (blocks[-1][0], min(blocks[-1][1], run.bottom))
        else:
            blocks.append((run.top, run.bottom))
    if len(blocks) > MAX_BANDS:
        return [area]
    regions: list[Box] = []
    ceiling = area.top
    for top, bottom in [*blocks, (area.bottom, area.bottom)]:
        if ceiling > top:  # a band of columns above this spanning block
            for left, right in ((area.left, gutter), (gutter, area.right)):
                if any(_inside(r, left, right, top, ceiling) for r in runs):
                    regions.append(Box(left, top, right, ceiling))
        if top > bottom:
            regions.append(Box(area.left, bottom, area.right, top))
        ceiling = min(ceiling, bottom)
    return regions


def _inside(run: Box, left: float, right: float, bottom: float, top: float) -> bool:
    middle_x, middle_y = (run.left + run.right) / 2, (run.bottom + run.top) / 2
    return left <= middle_x <= right and bottom <= middle_y <= top


def _top(runs: Sequence[Box]) -> float:
    return max(r.top for r in runs)


def _bottom(runs: Sequence[Box]) -> float:
    return min(r.bottom for r in runs)
