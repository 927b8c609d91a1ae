"""A note's markdown rebuilt from its stored chunks.

Readers never open vault files: the agent's tools, `GET /v1/notes/{path}` and the document API
all read a note or a document back from the store, so they only ever see what is indexed.
"""

from __future__ import annotations

from vault_agent.index.store.protocol import ChunkPayload
from vault_agent.vault.chunker import HEADING_SEPARATOR


def rebuild_markdown(chunks: list[ChunkPayload]) -> str:
    """A note's markdown from its chunks (in `chunk_index` order): each new heading path starts
    with its heading line.

    Headings merged into a chunk's body are already there as ``## Heading`` lines, so nothing
    is lost; the level of a re-created heading is its depth in the heading path.
    """
    parts: list[str] = []
    previous = ""
    for chunk in chunks:
        if chunk.heading and chunk.heading != previous:
            depth = chunk.heading.count(HEADING_SEPARATOR) + 1
            parts.append("#" * min(depth, 6) + " " + chunk.heading.split(HEADING_SEPARATOR)[-1])
        previous = chunk.heading
        if chunk.body:
            parts.append(chunk.body)
    return "\n\n".join(parts)


def note_markdown(chunks: list[ChunkPayload]) -> str:
    """What a reader of the note sees: its properties (``key: value`` lines, between ``---``
    lines as Obsidian shows them above the note) and its markdown rebuilt from `chunks`."""
    markdown = rebuild_markdown(chunks)
    properties = chunks[0].properties if chunks else []
    if not properties:
        return markdown
    return "\n".join(["---", *properties, "---", markdown])
