"""A search result as every caller sees it, built in one place from a stored chunk.

The CLI, the HTTP API, the agent's tools and the extractive answerer all get `SearchHit`s from
`hit_of`: the note, the section, the score and a snippet of the sentences sharing the most
words with the query.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from vault_agent.index.store.protocol import StoredHit
from vault_agent.vault.pdf_note import page_subpath

SNIPPET_CHARS = 240
_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")


class SearchHit(BaseModel):
    """One ranked result, as the CLI, the HTTP API and the agent's tools see it."""

    file: str
    title: str
    heading: str
    score: float
    snippet: str
    chunk_index: int
    tags: list[str]
    type: str | None
    date: str | None
    source: str
    page: int | None = None  # PDFs: the page of the hit
    url: str | None = None  # documents of other sources: their web page, when they have one

    @property
    def wikilink(self) -> str:
        """`[[path/Note#Heading]]`: opens this hit's note at its section in Obsidian
        (`[[paper.pdf#page=3]]` for a PDF: its viewer opens at that page)."""
        if self.page is not None:
            return f"[[{self.file}#{page_subpath(self.page)}]]"
        target = self.file.removesuffix(".md")
        section = self.heading.split(" > ")[-1] if self.heading else ""
        if section == self.title:  # the note's own H1: linking to the note says the same
            section = ""
        return f"[[{target}#{section}]]" if section else f"[[{target}]]"


def make_snippet(body: str, query: str, max_chars: int = SNIPPET_CHARS) -> str:
    """The passage of `body` sharing the most words with `query`, trimmed to `max_chars`."""
    terms = {w.lower() for w in _WORD.findall(query) if len(w) > 2}
    sentences = [s.strip() for s in _SENTENCE_END.split(body) if s.strip()]
    if not sentences:
        return ""
    best = max(
        range(len(sentences)),
        key=lambda i: (len(terms & {w.lower() for w in _WORD.findall(sentences[i])}), -i),
    )
    snippet = sentences[best]
    for following in sentences[best + 1 :]:
        if len(snippet) + len(following) + 1 > max_chars:
            break
        snippet = f"{snippet} {following}"
    if len(snippet) > max_chars:
        snippet = snippet[: max_chars - 1].rsplit(" ", 1)[0] + "…"
    return snippet


def hit_of(hit: StoredHit, query: str) -> SearchHit:
    """The search result for a stored chunk found for `query`."""
    payload = hit.payload
    return SearchHit(
        file=payload.file,
        title=payload.title,
        heading=payload.heading,
        score=hit.score,
        snippet=make_snippet(payload.body, query),
        chunk_index=payload.chunk_index,
        tags=payload.tags,
        type=payload.type,
        date=payload.date,
        source=payload.source,
        page=payload.page,
        url=payload.document.url if payload.document is not None else None,
    )
