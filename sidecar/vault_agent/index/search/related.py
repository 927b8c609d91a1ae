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
_WIKILINK = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?", re.MULTILINE)
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1")


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
    return _EMPHASIS.sub(r"\2", text).strip()


def _sampled(vectors: list[list[float]], at_most: int) -> list[list[float]]:
    """At most `at_most` of `vectors`, evenly spread from the first to the last."""
    if len(vectors) <= at_most:
        return vectors
    step = (len(vectors) - 1) / (at_most - 1)
    return [vectors[round(i * step)] for i in range(at_most)]
