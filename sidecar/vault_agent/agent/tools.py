"""The agent's read-only tools: typed arguments in, compact cited text out.

Each tool is a plain function whose docstring is the description the model reads and whose
pydantic argument model is the JSON schema it fills in (:func:`tool_specs`): written once.
A tool returns a :class:`ToolResult`: text for the model, where every note carries the exact
wikilink to cite; the notes and sections it showed (the citation check accepts only those);
and a one-line summary for the ``tool_result`` event. The arguments live in `tool_args.py`;
`toolbox.py` runs the calls.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from vault_agent.agent.citations.links import (
    NoteRef,
    cite,
    note_link,
    note_title,
)
from vault_agent.agent.passages import format_passage
from vault_agent.agent.reader import (
    NoteReader,
    clip,
    heading_paths,
)
from vault_agent.agent.tool_args import (
    ListNotesArgs,
    PathArgs,
    RecentDailyArgs,
    SearchNotesArgs,
)
from vault_agent.index.note_text import (
    note_markdown,
)
from vault_agent.index.search.hits import (
    SearchHit,
)
from vault_agent.index.store.protocol import VAULT_SOURCE, ChunkPayload, SearchFilter
from vault_agent.llm.messages import (
    ToolSpec,
)
from vault_agent.vault.chunker import (
    HEADING_SEPARATOR,
)

log = logging.getLogger(__name__)

SECTIONS_PER_NOTE = 2
NOTE_CHARS = 12_000
"""get_note: a long note is cut here; the model can search inside it instead."""
DAILY_CHARS = 8_000
"""recent_daily_notes: all notes together."""
DAILY_LISTED = 60
"""recent_daily_notes: notes named at most (their text only within DAILY_CHARS)."""
# Bounds for "any date" (date.max would overflow the filter's inclusive upper bound).
EARLIEST_DAY, LATEST_DAY = date(1900, 1, 1), date(9999, 12, 30)


@dataclass
class ToolResult:
    """What one tool call gave: ``content`` for the model, ``notes`` it showed, a summary."""

    content: str
    summary: str
    notes: list[NoteRef] = field(default_factory=list)
    ok: bool = True
    repeated: bool = False
    """The same call (tool and arguments) was made before in this request."""
    ranked: bool = False
    """``notes`` are numbered passages, [1] first (search_notes): answers may cite "[1]"."""

    @classmethod
    def error(cls, message: str) -> ToolResult:
        """A failed call: the model reads the message and may try again."""
        return cls(content=f"Error: {message}", summary=f"error: {message}", ok=False)


# --- the tools ----------------------------------------------------------------------------

A = TypeVar("A", bound=BaseModel)


@dataclass(frozen=True)
class Tool(Generic[A]):
    """A tool: its function (docstring = description) and its argument model (= schema)."""

    function: Callable[[NoteReader, A], ToolResult]
    arguments: type[A]

    @property
    def name(self) -> str:
        """The function's name is the tool's name."""
        return self.function.__name__

    def spec(self) -> ToolSpec:
        """The tool as the model sees it."""
        return ToolSpec(
            name=self.name,
            description=inspect.getdoc(self.function) or "",
            parameters=argument_schema(self.arguments),
        )


def search_notes(reader: NoteReader, args: SearchNotesArgs) -> ToolResult:
    """Hybrid (meaning + keyword) search over the notes: the best passages, best first, at
    most two per note, each with the link to cite. Filters narrow the search; dates only
    match daily notes. Documents of other sources (web clippings...) are searched too unless
    `sources` says otherwise; cite them with the link shown, as notes."""
    search_filter = SearchFilter(
        tags=args.tags or [],
        types=[args.type] if args.type else [],
        folders=args.folders or [],
        sources=args.sources or [],
        date_from=args.date_from,
        date_to=args.date_to,
        open_tasks=args.open_tasks,
    )
    hits = _best_sections(reader, args.query, search_filter, args.limit)
    if not hits:
        return ToolResult(
            content=f'No notes match "{args.query}"{_describe(search_filter)}. Try other words '
            "or fewer filters; if nothing matches, the notes don't say.",
            summary=f'no notes for "{args.query}"',
        )
    blocks = [
        f'{len(hits)} passages match "{args.query}"{_describe(search_filter)}, best first. '
        "Cite a passage with the link before it."
    ]
    notes: list[NoteRef] = []
    for rank, hit in enumerate(hits, start=1):
        stored = reader.context.store.scroll(
            SearchFilter(files=[hit.file], chunk_index=hit.chunk_index), limit=1
        )
        chunk = next(iter(stored), None)
        body = chunk.body if chunk is not None else hit.snippet
        if hit.source != VAULT_SOURCE:  # a document: cited by its url, or title and source
            ref = NoteRef(file=hit.file, title=hit.title, source=hit.source, url=hit.url)
            facts = _facts(f"from {hit.source}", hit.tags, None)
            blocks.append(format_passage(rank, hit.file, "", facts, body, link=cite(ref)))
            notes.append(ref)
            continue
        # A PDF's page is always cited, page 1 included: [[paper.pdf#page=1]].
        heading = hit.heading if hit.page is not None else _section(hit.chunk_index, hit.heading)
        facts = _facts(hit.type, hit.tags, hit.date)
        blocks.append(format_passage(rank, hit.file, heading, facts, body))
        notes.append(NoteRef(file=hit.file, title=hit.title, heading=heading))
    titles = ", ".join(dict.fromkeys(n.title for n in notes))
    return ToolResult(
        content="\n\n".join(blocks),
        summary=f'{len(hits)} passages for "{args.query}": {titles}',
        notes=notes,
        ranked=True,
    )


def get_note(reader: NoteReader, args: PathArgs) -> ToolResult:
    """One note in full (long notes are cut), with the links to cite each of its sections."""
    file = reader.find(args.path)
    chunks = [] if file in reader.overrides else reader.chunks(file)
    text = reader.markdown(file) if chunks or file in reader.overrides else ""
    # The title heading opens the note: [[Note]] already cites it.
    headings = [path for level, path in heading_paths(text) if level > 1]
    first = chunks[0] if chunks else None
    header = f"Note {note_link(file)}"
    if first is not None:
        header += _facts(first.type, first.tags, first.date, first.aliases)
    lines = [header]
    if headings:
        lines.append("Sections: " + ", ".join(note_link(file, h) for h in headings))
    lines += ["---", clip(text, NOTE_CHARS) or "(empty note)"]
    notes = [NoteRef(file=file, title=note_title(file))]
    notes += [NoteRef(file=file, title=note_title(file), heading=h) for h in headings]
    return ToolResult(
        content="\n".join(lines),
        summary=f"{file} ({len(headings)} sections, {len(text):,} characters)",
        notes=notes,
    )


def list_notes(reader: NoteReader, args: ListNotesArgs) -> ToolResult:
    """List notes by tag, type or folder, sorted by path. NOT ranked by relevance and shows no
    content: use it to see what exists, then get_note or search_notes to read."""
    search_filter = SearchFilter(
        tags=[args.tag] if args.tag else [],
        types=[args.type] if args.type else [],
        folders=[args.folder] if args.folder else [],
        sources=args.sources or [],
        chunk_index=0,  # every note has exactly one first chunk: one row per note
    )
    firsts = sorted(reader.context.store.scroll(search_filter), key=lambda chunk: chunk.file)
    what = _describe(search_filter) or " in the vault"
    if not firsts:
        return ToolResult(content=f"No notes{what}.", summary=f"no notes{what}")
    shown = firsts[: args.limit]
    lines = [f"{len(firsts)} notes{what} (sorted by path, not by relevance):"]
    refs = [_ref(chunk) for chunk in shown]
    lines += [f"- {cite(ref)}{_row_facts(c)}" for ref, c in zip(refs, shown, strict=True)]
    if len(firsts) > len(shown):
        lines.append(f"... and {len(firsts) - len(shown)} more: narrow with tag, type or folder.")
    return ToolResult(
        content="\n".join(lines),
        summary=f"{len(firsts)} notes{what}",
        notes=refs,
    )


def recent_daily_notes(reader: NoteReader, args: RecentDailyArgs) -> ToolResult:
    """Daily notes with their text, newest first: those of the last `days` days (today
    included), or those dated `date_from` to `date_to` when dates are given (any range, years
    back too). With `days` and none that recent, the `days` days up to the newest daily note."""
    if args.date_from is not None or args.date_to is not None:
        start, end = sorted((args.date_from or EARLIEST_DAY, args.date_to or LATEST_DAY))
        files = _daily_notes(reader, start, end)
        span = _span(start, end)
        if not files:
            return ToolResult(content=f"No daily notes {span}.", summary=f"no daily notes {span}")
        return _daily_result(reader, files, f"Daily notes {span}, newest first:")
    today = reader.context.current_date()
    start = today - timedelta(days=args.days - 1)
    files = _daily_notes(reader, start, today)
    if files:
        return _daily_result(
            reader, files, f"Daily notes from {start} to {today} (today), newest first:"
        )
    newest = _daily_notes(reader, EARLIEST_DAY, LATEST_DAY, limit=1)
    if not newest:
        return ToolResult(content="The vault has no daily notes.", summary="no daily notes")
    last = date.fromisoformat(newest[0][1])
    first = last - timedelta(days=args.days - 1)
    intro = (
        f"No daily notes between {start} and {today}. The newest is {last}; the daily notes "
        f"from {first} to {last}, newest first:"
    )
    return _daily_result(reader, _daily_notes(reader, first, last), intro)


def note_links(reader: NoteReader, args: PathArgs) -> ToolResult:
    """The notes a note links to and the notes linking to it (backlinks), as links to cite."""
    file = reader.find(args.path)
    graph = reader.context.graph
    # Indexed notes only: a link to a file the index skipped (too big, ignored, not a note)
    # names nothing the tools may read or an answer may cite.
    outgoing = reader.indexed_notes(graph.outgoing(file))
    backlinks = reader.indexed_notes(graph.backlinks(file))
    lines = [f"Note {note_link(file)}"]
    lines.append("Links to: " + (", ".join(note_link(f) for f in outgoing) or "nothing"))
    lines.append("Linked from: " + (", ".join(note_link(f) for f in backlinks) or "nothing"))
    related = dict.fromkeys([file, *outgoing, *backlinks])
    return ToolResult(
        content="\n".join(lines),
        summary=f"{note_title(file)}: {len(outgoing)} links, {len(backlinks)} backlinks",
        notes=[NoteRef(file=f, title=note_title(f)) for f in related],
    )


TOOLS: dict[str, Tool[Any]] = {
    tool.name: tool
    for tool in (
        Tool(search_notes, SearchNotesArgs),
        Tool(get_note, PathArgs),
        Tool(list_notes, ListNotesArgs),
        Tool(recent_daily_notes, RecentDailyArgs),
        Tool(note_links, PathArgs),
    )
}


def tool_specs() -> list[ToolSpec]:
    """Every tool, as sent to the model."""
    return [tool.spec() for tool in TOOLS.values()]


# --- helpers ------------------------------------------------------------------------------


def argument_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of an argument model, without pydantic's titles (tokens, no meaning)."""
    schema = model.model_json_schema(by_alias=True)
    schema.pop("title", None)
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return schema


def _best_sections(
    reader: NoteReader, query: str, search_filter: SearchFilter, limit: int
) -> list[SearchHit]:
    """The ``limit`` best passages, from the best notes, at most two per note.

    One passage per note misses answers that span sections (a trip's plan and its budget);
    more would let one long note crowd out the rest.
    """
    today = reader.context.current_date()
    ranked = reader.context.searcher.search(
        query, search_filter, limit * 4, one_per_note=False, today=today
    )
    taken: dict[str, int] = {}
    kept: list[SearchHit] = []
    for hit in ranked:
        if taken.get(hit.file, 0) >= SECTIONS_PER_NOTE:
            continue
        taken[hit.file] = taken.get(hit.file, 0) + 1
        kept.append(hit)
        if len(kept) == limit:
            break
    # Keep a note's passages together, in the order of its best one.
    order = {file: index for index, file in enumerate(taken)}
    return sorted(kept, key=lambda hit: order[hit.file])


def _section(chunk_index: int, heading: str) -> str:
    """The heading to cite a chunk by: none for the top of a note (its title heading),
    where ``[[Note]]`` opens the same place and reads better than ``[[Note#Note]]``."""
    top = chunk_index == 0 and HEADING_SEPARATOR not in heading
    return "" if top else heading


def _ref(chunk: ChunkPayload) -> NoteRef:
    """A note, or a document of another source, as the model may cite it."""
    if chunk.source == VAULT_SOURCE:
        return NoteRef(file=chunk.file, title=chunk.title)
    url = chunk.document.url if chunk.document is not None else None
    return NoteRef(file=chunk.file, title=chunk.title, source=chunk.source, url=url)


def _row_facts(chunk: ChunkPayload) -> str:
    """A list row's facts; a document's name its source instead of a type."""
    kind = chunk.type if chunk.source == VAULT_SOURCE else f"from {chunk.source}"
    return _facts(kind, chunk.tags, chunk.date)


def _describe(search_filter: SearchFilter) -> str:
    parts = []
    if search_filter.sources:
        parts.append("from " + " or ".join(search_filter.sources))
    if search_filter.tags:
        parts.append("tagged " + " or ".join(search_filter.tags))
    if search_filter.types:
        parts.append("of type " + " or ".join(search_filter.types))
    if search_filter.folders:
        parts.append("in " + " or ".join(search_filter.folders))
    if search_filter.date_from or search_filter.date_to:
        parts.append(f"dated {search_filter.date_from or '…'} to {search_filter.date_to or '…'}")
    if search_filter.open_tasks:
        parts.append("holding an open task")
    return (" " + ", ".join(parts)) if parts else ""


def _facts(
    note_type: str | None, tags: list[str], day: str | None, aliases: list[str] | None = None
) -> str:
    """Compact metadata after a link: "(recipe; 2026-11-03; #food/bread)"."""
    # Only the most specific tags: "food/bread" already says "food".
    shown = [t for t in tags if not any(o.startswith(t + "/") for o in tags)]
    parts = [p for p in (note_type, day) if p]
    if shown:
        parts.append(" ".join("#" + t for t in shown))
    if aliases:
        parts.append("aka " + ", ".join(aliases))
    return f" ({'; '.join(parts)})" if parts else ""


def _daily_notes(
    reader: NoteReader, start: date, end: date, limit: int | None = None
) -> list[tuple[str, str]]:
    """(file, date) of the daily notes dated start..end, newest first (the ``limit`` newest)."""
    firsts = reader.context.store.scroll(SearchFilter(date_from=start, date_to=end, chunk_index=0))
    found = [(chunk.file, chunk.date or "") for chunk in firsts if chunk.date]
    found.sort(key=lambda item: (item[1], item[0]), reverse=True)
    return found[:limit] if limit is not None else found


def _daily_result(reader: NoteReader, files: list[tuple[str, str]], intro: str) -> ToolResult:
    """The notes' text within DAILY_CHARS, newest first; the rest named, up to DAILY_LISTED."""
    shown_files = files[:DAILY_LISTED]
    chunks = _chunks_by_file(reader, [file for file, _ in shown_files])
    lines = [intro]
    budget = DAILY_CHARS
    notes: list[NoteRef] = []
    for file, day in shown_files:
        if budget <= 0:
            lines.append(f"\n## {note_link(file)} ({day}): not shown (over the size budget)")
            continue
        text = reader.overrides.get(file) or note_markdown(chunks.get(file, []))
        lines.append(f"\n## {note_link(file)} ({day})\n{clip(text, max(budget, 200))}")
        budget -= len(text)
        notes.append(NoteRef(file=file, title=note_title(file)))
    if len(files) > len(shown_files):
        rest = files[len(shown_files) :]
        lines.append(
            f"\n... and {len(rest)} older daily notes ({rest[-1][1]} to {rest[0][1]}): ask for "
            "a shorter range with date_from and date_to."
        )
    return ToolResult(
        content="\n".join(lines),
        summary=f"{len(files)} daily notes, {files[0][1]} back to {files[-1][1]}",
        notes=notes,
    )


def _span(start: date, end: date) -> str:
    """ "from 2023-03-01 to 2023-03-31", without the open bounds."""
    if start == EARLIEST_DAY:
        return f"up to {end}"
    if end == LATEST_DAY:
        return f"from {start} on"
    return f"from {start} to {end}"


def _chunks_by_file(reader: NoteReader, files: list[str]) -> dict[str, list[ChunkPayload]]:
    """The chunks of ``files``, each file's in order, in one store call."""
    by_file: dict[str, list[ChunkPayload]] = {}
    for chunk in reader.context.store.scroll(SearchFilter(files=files)):
        by_file.setdefault(chunk.file, []).append(chunk)
    return {file: sorted(chunks, key=lambda c: c.chunk_index) for file, chunks in by_file.items()}
