"""Related notes: the notes closest in meaning to one note, from the index alone.

The note is not embedded again: its chunks' stored dense vectors are the queries (a long note
is sampled: at most `MAX_QUERY_CHUNKS` of them), all sent to the store in one call. Each query
returns the nearest chunks of the vault (documents of other sources are left out); a candidate
note's score is the mean, over the query chunks, of its best chunk's cosine similarity to that
chunk (0 where it had none among the candidates). So a note close to the whole note beats one
that shares a single passage.
The note itself never comes back; notes it links to, or that link to it, are marked.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection
from typing import Literal

from pydantic import BaseModel, Field

from vault_agent.index.search.hits import (
    make_snippet,
)
from vault_agent.index.store.protocol import (
    VAULT_SOURCE,
    SearchFilter,
    Store,
    StoredHit,
    VectorQuery,
)

#: Query chunks per note at most (a long note is sampled evenly): bounds the cost per request.
MAX_QUERY_CHUNKS = 12
#: Nearest chunks fetched per query chunk, before grouping them by note.
CANDIDATES_PER_CHUNK = 50
SNIPPET_CHARS = 160

Linked = Literal["link", "backlink", "both"]

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s.*$", re.MULTILINE)
# Each part ends at the next "[[" (no link holds one): read from each "[[" of a run to the end
# of the passage, a passage of them was quadratic (9,000 characters: 0.3 s; a passage of
# comments under empty headings may be megabytes).
_NOT_OPENING = r"(?:[^\[\]{}]|\[(?!\[))*"
_WIKILINK = re.compile(
    r"!?\[\[(" + _NOT_OPENING.format("|#") + r")(?:#" + _NOT_OPENING.format("|") + r")?"
    r"(?:\|(" + _NOT_OPENING.format("") + r"))?\]\]"
)
# Spaces before a marker within its line: from each line of a run of blank lines, "\s*" read
# all that followed.
_LIST_MARK = re.compile(r"^[^\S\n]*(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?", re.MULTILINE)
#: Emphasis marks, longest first (`**` before `*`).
_EMPHASIS_MARKS = ("**", "__", "*", "_", "`")


class RelatedNote(BaseModel):
    """A note close in meaning to the one asked about, with its closest passage."""

    file: str
    title: str
    heading: str = Field(description="The section of its closest passage (a heading path).")
    score: float = Field(description="Mean best cosine similarity over the note's chunks.")
    snippet: str
    linked: Linked | None = Field(
        description="link: the note links to it; backlink: it links to the note; both; "
        "null: not linked either way."
    )


def related_notes(
    store: Store,
    file: str,
    limit: int = 10,
    links_to: Collection[str] = (),
    linked_from: Collection[str] = (),
) -> list[RelatedNote] | None:
    """The `limit` notes closest to `file`, best first; None when `file` is not indexed.

    `links_to` and `linked_from` are the note's outgoing links and backlinks (from the link
    graph), used only to mark the notes found."""
    vectors = _sampled(store.dense_vectors(file), MAX_QUERY_CHUNKS)
    if not vectors:
        return None
    best: dict[str, dict[int, StoredHit]] = {}
    # Other notes only: a long note's own chunks would fill every chunk's candidates.
    others = SearchFilter(sources=[VAULT_SOURCE], exclude_files=[file])
    queries = [VectorQuery(vector, CANDIDATES_PER_CHUNK) for vector in vectors]
    for position, hits in enumerate(store.search(queries, others)):
        for hit in hits:
            per_chunk = best.setdefault(hit.payload.file, {})
            if position not in per_chunk or hit.score > per_chunk[position].score:
                per_chunk[position] = hit
    ranked = sorted(
        best.items(),
        key=lambda item: (-sum(h.score for h in item[1].values()) / len(vectors), item[0]),
    )
    return [_related(hits, len(vectors), links_to, linked_from) for _, hits in ranked[:limit]]


def _related(
    hits: dict[int, StoredHit],
    queries: int,
    links_to: Collection[str],
    linked_from: Collection[str],
) -> RelatedNote:
    closest = max(hits.values(), key=lambda hit: hit.score)
    payload = closest.payload
    out, back = payload.file in links_to, payload.file in linked_from
    linked: Linked | None = None
    if out or back:
        linked = "both" if out and back else "link" if out else "backlink"
    return RelatedNote(
        file=payload.file,
        title=payload.title,
        heading=payload.heading,
        score=round(sum(hit.score for hit in hits.values()) / queries, 4),
        snippet=make_snippet(plain_text(payload.body), "", SNIPPET_CHARS),
        linked=linked,
    )


def plain_text(markdown: str) -> str:
    """A passage as words to read in a list: headings dropped, links as their text, no list
    markers or emphasis marks ("[[Gus|my starter]]" -> "my starter")."""
    text = _HEADING.sub("", markdown)
    text = _WIKILINK.sub(lambda m: (m.group(2) or m.group(1).rsplit("/", 1)[-1]).strip(), text)
    text = _LIST_MARK.sub("", text)
    return _without_emphasis(text).strip()


def _without_emphasis(text: str) -> str:
    """`text` with each emphasis ("**a**", "_a_", "`a`") as its words: from a mark, the first
    same mark on its line after a character that is no space closes it, as the pattern
    ``(\\*\\*|__|\\*|_|`)(?=\\S)(.+?)(?<=\\S)\\1`` reads it, but each closing mark is looked
    up, not sought from each opening one to its line's end (quadratic in a line's marks)."""
    closing = {
        mark: [m.start() for m in re.finditer(rf"(?<=\S)(?={re.escape(mark)})", text)]
        for mark in _EMPHASIS_MARKS
    }
    out: list[str] = []
    position = 0  # copied up to here
    for opening in re.finditer(r"[*_`]", text):
        at = opening.start()
        if at < position:
            continue  # inside an emphasis already read
        end = _emphasis_end(text, at, closing)
        if end is not None:
            mark, close = end
            out.append(text[position:at])
            out.append(text[at + len(mark) : close])
            position = close + len(mark)
    out.append(text[position:])
    return "".join(out)


def _emphasis_end(text: str, at: int, closing: dict[str, list[int]]) -> tuple[str, int] | None:
    """The mark opening at `at` and where its closing mark starts, or None."""
    line_end = text.find("\n", at)
    line_end = len(text) if line_end < 0 else line_end
    for mark in _EMPHASIS_MARKS:
        first = at + len(mark)  # the emphasis's first character: no space, not a line end
        if not text.startswith(mark, at) or first >= line_end or text[first].isspace():
            continue
        marks = closing[mark]
        index = bisect_left(marks, first + 1)
        if index < len(marks) and marks[index] + len(mark) <= line_end:
            return mark, marks[index]
    return None


def _sampled(vectors: list[list[float]], at_most: int) -> list[list[float]]:
    """At most `at_most` of `vectors`, evenly spread from the first to the last."""
    if len(vectors) <= at_most:
        return vectors
    step = (len(vectors) - 1) / (at_most - 1)
    return [vectors[round(i * step)] for i in range(at_most)]
