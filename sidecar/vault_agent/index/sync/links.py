"""The link graph of the indexed vault, and the `links` payload the store holds for each note.

The graph (`vault.graph.LinkGraph`) resolves every note's links as Obsidian would. It is
loaded once per process from the link cache (SQLite, one row per note: `link_cache.py`), so a
restart re-parses nothing; notes whose cache row is stale are parsed again. Adding or removing
a note can change where other notes' links resolve: `reconcile` rewrites the stored `links`
payload (no re-embedding) of exactly the notes the graph reports as changed, so an edit costs
the same in any vault size.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from vault_agent.index.store.protocol import FileState, Store
from vault_agent.index.sync.link_cache import CachedNote, LinkCache
from vault_agent.vault.files import is_pdf, resolve_in_vault
from vault_agent.vault.graph import LinkGraph
from vault_agent.vault.notes import Note, parse_note


class IndexedLinks:
    """The graph, the cache behind it, and which `links` payloads may be out of date."""

    def __init__(self, root: Path, graph: LinkGraph, cache_path: Path) -> None:
        self.root = root
        self.graph = graph
        self.cache = LinkCache(cache_path)
        # The `links` payload in the store of each indexed note (None: unknown, rewritten),
        # and the notes whose resolved links may since have moved away from it.
        self._stored: dict[str, list[str] | None] = {}
        self._to_check: set[str] = set()
        self._lock = threading.Lock()
        self._loaded = False

    @property
    def loaded(self) -> bool:
        """True once the graph holds every indexed note."""
        return self._loaded

    def ensure_loaded(self, states: dict[str, FileState]) -> None:
        """Fill the graph once per process from the link cache (re-parsing stale entries)."""
        with self._lock:
            if not self._loaded:
                self.graph.set_files(self._indexed_notes_links(states))
                self._loaded = True

    def parsed(self, note: Note) -> None:
        """A note was parsed: its aliases and links go into the graph."""
        self.graph.set_file(note.file, note.aliases, note.link_targets())

    def written(self, note: Note, links: list[str]) -> None:
        """`note` is now stored with these resolved `links` (committed with the next commit)."""
        self._stored[note.file] = links
        self.cache.put(
            CachedNote(
                file=note.file,
                content_hash=note.content_hash,
                aliases=note.aliases,
                links=note.link_targets(),
                stored_links=links,
            )
        )

    def removed(self, files: Iterable[str]) -> None:
        """These files are gone from the vault and the store."""
        files = list(files)
        self.cache.remove(files)
        for file in files:
            self._stored.pop(file, None)
            self.graph.remove_file(file)

    def unindexed(self, file: str) -> None:
        """`file` left the store but not the vault: still a link target, links unknown."""
        self.cache.remove([file])
        self._stored.pop(file, None)
        self.graph.set_file(file)

    def reconcile(self, store: Store) -> None:
        """Rewrite the stored `links` of every note whose resolution moved."""
        self._to_check |= self.graph.take_changed()
        moved = {}
        for file in self._to_check:
            if file in self._stored:
                links = self.graph.outgoing(file)
                if links != self._stored[file]:
                    moved[file] = links
        self._to_check = set(moved)  # left to check if a rewrite fails
        if not moved:
            return
        # Say on disk first that these are being rewritten: a crash between the rewrites and
        # the commit that follows must not leave the cache vouching for old links.
        self.cache.set_stored_links(dict.fromkeys(moved))
        self.cache.commit()
        for file, links in sorted(moved.items()):
            store.set_links(file, links)
            self._stored[file] = links
            self._to_check.discard(file)
        self.cache.set_stored_links(dict(moved))

    def commit(self) -> None:
        """Make the cache's changes durable."""
        self.cache.commit()

    def close(self) -> None:
        """Commit and close the cache."""
        self.cache.close()

    def _indexed_notes_links(
        self, states: dict[str, FileState]
    ) -> Iterator[tuple[str, list[str], list[str]]]:
        """(file, aliases, link targets) of every indexed note, from the link cache, re-parsed
        where the cache is stale; notes the store no longer holds leave the cache."""
        gone = []
        for cached in self.cache.notes():
            state = states.get(cached.file)
            if state is None:
                gone.append(cached.file)
            elif cached.content_hash == state.content_hash:
                self._stored[cached.file] = cached.stored_links
                yield cached.file, cached.aliases, cached.links
        self.cache.remove(gone)
        for file, state in states.items():
            if file in self._stored:
                continue
            reparsed = self._reparse(file, state)
            if reparsed is not None:
                self._stored[file] = None
                self.cache.put(reparsed)
                yield file, reparsed.aliases, reparsed.links
        self.cache.commit()

    def _reparse(self, file: str, state: FileState) -> CachedNote | None:
        if is_pdf(file):
            return CachedNote(file=file, content_hash=state.content_hash)  # PDFs link nowhere
        try:
            note = parse_note(file, resolve_in_vault(self.root, file).read_bytes())
        except Exception:  # gone or unreadable: the sync that follows deals with it
            return None
        # Links stored with the old content are unknown (None): the reconcile rewrites them.
        return CachedNote(
            file=file,
            content_hash=state.content_hash,
            aliases=note.aliases,
            links=note.link_targets(),
        )
