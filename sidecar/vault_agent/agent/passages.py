"""How search results are written for the model, and read back by the extractive profile.

A search_notes result is a line of introduction, then one block per passage::

    [1] [[Recipes/Sourdough Starter#Feeding schedule]] (recipe; #food/bread)
    At room temperature I feed him once a day, ...

The header carries the rank, the exact link to cite and compact facts (type, date, tags); the
passage's text follows. A document of another source is cited its own way (``[Title](url)``
or ``[Title (source)]``, see :mod:`vault_agent.agent.citations.documents`). The extractive
model answers from these blocks, so both directions live here, in one place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vault_agent.agent.citations.links import (
    note_link,
)
from vault_agent.agent.reader import clip

PASSAGE_CHARS = 1_200
"""Per passage: enough for a section (chunks are at most 1,500), bounded for small models."""

_PASSAGE_HEADER = re.compile(
    r"(?m)^\[(?P<rank>\d+)\] (?P<link>\[\[[^\]\n]+\]\]"  # [[Note#Heading]]
    r"|\[[^\[\]\n]*\]\([^\s)]*\)"  # [Title](url): a document with a web page
    r"|\[[^\[\]\n]+ \([a-z0-9_-]+\)\])"  # [Title (source)]: a document without one
    r"(?P<facts>[^\n]*)$"
)
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


@dataclass(frozen=True)
class Passage:
    """One passage of a search_notes result."""

    rank: int
    link: str
    body: str
    date: str | None = None
    """The daily note's date, for daily notes."""


def format_passage(
    rank: int, file: str, heading: str, facts: str, body: str, link: str | None = None
) -> str:
    """``[rank] [[link]]`` (or the given ``link``) and the facts on one line, then the
    passage's text."""
    link = link or note_link(file, heading)
    return f"[{rank}] {link}{facts}\n{clip(body.strip(), PASSAGE_CHARS)}"


def parse_passages(content: str) -> list[Passage]:
    """The passages in a search_notes result (the inverse of :func:`format_passage`)."""
    headers: list[re.Match[str]] = []
    for match in _PASSAGE_HEADER.finditer(content):
        # Ranks count up from 1: a line of note text that looks like a header is body text.
        if int(match.group("rank")) == len(headers) + 1:
            headers.append(match)
    passages = []
    for index, match in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(content)
        day = _DATE.search(match.group("facts"))
        passages.append(
            Passage(
                rank=int(match.group("rank")),
                link=match.group("link"),
                body=content[match.end() : end].strip(),
                date=day.group(0) if day else None,
            )
        )
    return passages
