"""Read notes back out of the index: find a note the model named, rebuild it from its chunks.

The agent never opens vault files: whatever it reads comes from the store, so it only ever sees
indexed notes, and a path the model invents (``../../etc/passwd``) is refused before anything is
looked up. Unsaved editor content (the active note) is passed in as an override and wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path, PurePosixPath

from vault_agent.agent.citations.documents import DocumentLookup
from vault_agent.index.note_text import note_markdown, rebuild_markdown
from vault_agent.index.search.searcher import Searcher
from vault_agent.index.store.protocol import VAULT_SOURCE, ChunkPayload, SearchFilter, Store
from vault_agent.index.vault_index import VaultIndex
from vault_agent.vault.chunker import HEADING_SEPARATOR
from vault_agent.vault.files import PathOutsideVaultError, is_note, resolve_in_vault
from vault_agent.vault.graph import LinkGraph
from vault_agent.vault.markdown import atx_heading


class ToolError(Exception):
    """A tool could not do what was asked; the message goes back to the model to act on."""


@dataclass
class ToolsContext:
    """What the tools read: one vault's store, searcher and link graph (shared by requests)."""

    store: Store
    searcher: Searcher
    graph: LinkGraph
    vault_root: Path
    today: date | None = None
    """Fixed "today" for recent_daily_notes (tests, benchmarks); None means the real date."""
    documents: DocumentLookup | None = None
    """Which sources and urls hold documents, for the citation check (None: unknown)."""

    @classmethod
    def from_index(cls, index: VaultIndex) -> ToolsContext:
        """The tools' view of an open vault index."""
        index.indexer.load_graph()  # links and backlinks even when no sync ran in this process
        return cls(
            store=index.store,
            searcher=index.searcher,
            graph=index.graph,
            vault_root=index.settings.vault_root,
            documents=index.documents,
        )

    def current_date(self) -> date:
        """Today, as the tools and the prompt see it."""
        return self.today or date.today()


@dataclass
class NoteReader:
    """Finds and reads indexed notes for one request."""

    context: ToolsContext
    overrides: Mapping[str, str] = field(default_factory=dict)
    """Unsaved content by vault path (the active note): it wins over the index."""
    source_file: str = ""
    """The note relative links are resolved from (the active note, if any)."""

    def find(self, path: str) -> str:
        """The vault path of the indexed note ``path`` names (a path, a name or a wikilink).

        Raises :class:`ToolError` for paths that leave the vault and for notes not indexed.
        """
        target = link_target(path)
        if not target:
            raise ToolError("give the note's path, e.g. 'Projects/Garden/Ideas'")
        try:
            resolve_in_vault(self.context.vault_root, target)
        except PathOutsideVaultError as error:
            raise ToolError(f"refused: {error}; only notes inside the vault can be read") from None
        candidates = [self.context.graph.resolve(target, self.source_file), target, f"{target}.md"]
        found = self.indexed_notes([file for file in candidates if file])
        if found:
            return found[0]
        raise ToolError(
            f"no indexed note '{target}'; use search_notes or list_notes to find its exact path"
        )

    def chunks(self, file: str) -> list[ChunkPayload]:
        """The stored chunks of ``file``, in order."""
        found = self.context.store.scroll(SearchFilter(files=[file]))
        return sorted(found, key=lambda chunk: chunk.chunk_index)

    def markdown(self, file: str) -> str:
        """The note's text: unsaved content if given, else rebuilt from its chunks (its
        properties first)."""
        if file in self.overrides:
            return self.overrides[file]
        return note_markdown(self.chunks(file))

    def headings(self, file: str) -> list[str] | None:
        """The heading paths of note ``file`` ("Setup > Linux"), its title heading included;
        None for anything but an indexed (or open) note, whose headings can't be told."""
        if not is_note(file):
            return None
        if file in self.overrides:
            text = self.overrides[file]
        else:
            chunks = self.chunks(file)
            if not chunks:
                return None
            text = rebuild_markdown(chunks)
        return [path for _, path in heading_paths(text)]

    def indexed_notes(self, files: Sequence[str]) -> list[str]:
        """Those of ``files`` that are indexed notes (or the open note), in order: one query,
        whatever their number."""
        notes = [file for file in files if is_note(file)]
        stored = self.context.store.file_states(VAULT_SOURCE, notes) if notes else {}
        return [file for file in notes if file in stored or file in self.overrides]


def link_target(path: str) -> str:
    """``path`` without wikilink brackets, ``|display`` and ``#heading``."""
    text = path.strip()
    text = text.removeprefix("!")
    if text.startswith("[[") and text.endswith("]]"):
        text = text[2:-2]
    return text.split("|", 1)[0].split("#", 1)[0].strip().replace("\\", "/")


def heading_paths(markdown: str) -> list[tuple[int, str]]:
    """(level, heading path) of every heading in ``markdown``, outside code blocks."""
    found: list[tuple[int, str]] = []
    stack: list[tuple[int, str]] = []
    fence = ""
    for line in markdown.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = "" if fence == marker else (fence or marker)
            continue
        heading = None if fence else atx_heading(line)
        if heading is None:
            continue
        level, text = heading
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        found.append((level, HEADING_SEPARATOR.join(t for _, t in stack)))
    return found


def clip(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters at a word boundary, saying what was cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(None, 1)[0] if " " in text[:limit] else text[:limit]
    return f"{cut} … [{len(text) - len(cut):,} more characters not shown]"


def folder_of(file: str) -> str:
    """The folder of a vault path ("" at the root)."""
    parent = PurePosixPath(file).parent.as_posix()
    return "" if parent == "." else parent
