"""Repair the raw text of one PDF region: hyphenation, ligatures, wrapped lines, paragraphs.

A PDF has no paragraphs or words, only glyphs at positions; extractors hand back one line of
text per printed line. Left like that, a word split at a line end ("feed-" / "ing") is two
tokens for BM25 and the embedder, and every sentence is cut by newlines. This module turns the
lines of one region (a page, or one column of it) into paragraphs separated by blank lines,
which is also what the chunker splits at first. Pure text in, text out: no PDF library here.
"""

from __future__ import annotations

import re
import statistics

#: PDFium's marker for a hyphen it recognised at a line end (the line break is dropped too).
PDFIUM_LINE_HYPHEN = "\x02"
SOFT_HYPHEN = "\xad"

_LIGATURES = str.maketrans(
    {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
)
# Control characters besides \t and \n (PDF fonts without a Unicode map produce them).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u3000]+")
_HYPHENS = ("-", "\u2010")
_LIST_ITEM = re.compile(r"^(?:[•◦▪‣●○■□–—*-]\s|\(?(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)]\s)")
_SENTENCE_END = re.compile(r"[.!?:;\"”’)\]]$")


def repair_text(raw: str) -> str:
    """The text of one region, cleaned: paragraphs separated by a blank line, the lines of a
    paragraph joined by spaces, words broken at a line end joined again, ligatures spelled
    out, runs of spaces collapsed. Returns "" for a region without visible text."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n").translate(_LIGATURES)
    # PDFium already joined the two lines; only the marker (and a stray newline) remain.
    text = re.sub(PDFIUM_LINE_HYPHEN + r"\n?", "", text)
    text = text.replace(SOFT_HYPHEN, "")
    text = _CONTROL.sub("", text)
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return "\n\n".join(paragraph for paragraph in _paragraphs(lines) if paragraph)


def _paragraphs(lines: list[str]) -> list[str]:
    """Group lines into paragraphs.

    A blank line always ends a paragraph. Otherwise a line ends one when it ends a sentence
    and stops well short of the region's usual line length (the last line of a paragraph), or
    when it is very short (a heading, a label); a list item starts a new line of its own.
    A paragraph is kept as its pieces and joined once: joining line by line copied the
    paragraph so far at each line, quadratic in a page of one paragraph (a 3 MB page: 23 s).
    """
    width = _typical_width(lines)
    paragraphs: list[str] = []
    current: list[str] = []  # the paragraph's lines and the separators between them
    for index, line in enumerate(lines):
        if not line:
            paragraphs.append("".join(current))
            current = []
            continue
        if current and _LIST_ITEM.match(line):
            current += ["\n", line]  # keep a list a list: one item per line
        elif current:
            _join(current, line)
        else:
            current = [line]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if _ends_paragraph(line, following, width):
            paragraphs.append("".join(current))
            current = []
    paragraphs.append("".join(current))
    return paragraphs


def _join(current: list[str], line: str) -> None:
    """Append `line` to the paragraph's pieces, mending a word hyphenated across the break
    (`current` ends with the line before)."""
    if _broken_word(current[-1], line):
        current[-1] = current[-1][:-1]
        current.append(line)
    else:
        current += [" ", line]


def _broken_word(line: str, following: str) -> bool:
    """ "feed-" at a line end, then a lower-case continuation: one word broken by the
    typesetter. A letter must precede the hyphen, so "--" and "5-" stay; "well-known" split
    at its own hyphen loses it, which any extractor without a dictionary gets wrong too.
    Only the line's last two characters are looked at: paragraphs grow long."""
    return (
        line.endswith(_HYPHENS) and len(line) > 1 and line[-2].isalpha() and following[:1].islower()
    )


def _ends_paragraph(line: str, following: str, width: float) -> bool:
    if not following:
        return False  # a blank line (or the end) closes the paragraph anyway
    if _broken_word(line, following):
        return False  # a broken word continues on the next line
    if len(line) < 0.5 * width and not _LIST_ITEM.match(following):
        # A short line: a heading or the last line of a paragraph. Unless it ends a sentence
        # a lower-case start below still continues it (a short line in a narrow column).
        return bool(_SENTENCE_END.search(line)) or not following[:1].islower()
    return len(line) < 0.85 * width and bool(_SENTENCE_END.search(line))


def _typical_width(lines: list[str]) -> float:
    """The length of a full line in this region: a high percentile, so that the short last
    lines of paragraphs don't drag it down."""
    lengths = sorted(len(line) for line in lines if line)
    if len(lengths) < 3:
        return float(max(lengths, default=0))
    return float(statistics.quantiles(lengths, n=10)[7])  # the 80th percentile
