"""The link graph of the indexed vault, and the `links` payload the store holds for each note.

The graph (`vault.graph.LinkGraph`) resolves every note's links as Obsidian would. It is
loaded once per process from the link cache (SQLite, one row per note: `link_cache.py`), so a
restart re-parses nothing; notes whose cache row is stale are parsed again. At shutdown the
resolved graph is saved (`graph_snapshot.py`), and a restart that finds it still matching the
cache loads it instead, catching up the notes whose content changed since. Adding or removing
a note can change where other notes' links resolve: `reconcile` rewrites the stored `links`
payload (no re-embedding) of exactly the notes the graph reports as changed, so an edit costs
the same in any vault size.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from vault_agent.index.store.protocol import FileState, Store
from vault_agent.index.sync import graph_snapshot
from vault_agent.index.sync.graph_snapshot import SavedGraph
from vault_agent.index.sync.link_cache import CachedNote, LinkCache
from vault_agent.vault.files import is_pdf, read_vault_file
from vault_agent.vault.graph import LinkGraph
from vault_agent.vault.notes import Note, parse_note

log = logging.getLogger(__name__)


class IndexedLinks:
    """The graph, the cache behind it, and which `links` payloads may be out of date."""

    def __init__(
        self, root: Path, graph: LinkGraph, cache_path: Path, ignore: Sequence[str] = ()
    ) -> None:
        self.root = root
        self.ignore = ignore
        self.graph = graph
        self.cache = LinkCache(cache_path)
        self.snapshot_path = cache_path.with_name("links-graph.marshal")
        # The `links` payload in the store of each indexed note (None: unknown, rewritten),
        # and the notes whose resolved links may since have moved away from it.
        self._stored: dict[str, list[str] | None] = {}
        self._to_check: set[str] = set()
        # The content hash of the version of each indexed note the graph holds: what a saved
        # graph is checked against at the next start.
        self._hashes: dict[str, str] = {}
        self._lock = threading.Lock()
        self._loaded = False
        self._closed = False
        self.restored = False
        """True when the graph was loaded from the saved graph rather than built."""

    @property
    def loaded(self) -> bool:
        """True once the graph holds every indexed note."""
        return self._loaded

    def ensure_loaded(self, states: dict[str, FileState]) -> None:
        """Fill the graph once per process from the link cache (re-parsing stale entries)."""
        with self._lock:
            if self._loaded:
                return
            saved = graph_snapshot.load(self.snapshot_path, self.cache.stamp)
            if saved is None or not self._restore(saved, states):
                self.cache.unstamp()  # whatever was saved is of no use: save it again
                self.graph.set_files(self._indexed_notes_links(states))
            self._loaded = True

    def save(self) -> None:
        """Save the graph for the next start, unless the saved one still matches the cache.
        Call with no sync running (the indexer holds its lock)."""
        with self._lock:
            if not self._loaded or self.cache.stamp is not None:
                return
            self.cache.commit()  # what is saved must be what the cache holds
            to_check = self._to_check | self.graph.pending_changes()
            saved = SavedGraph(
                graph=self.graph.export(),
                # A rewrite that failed left the cache saying "unknown": so does the save.
                stored={f: None if f in to_check else v for f, v in self._stored.items()},
                hashes=dict(self._hashes),
                to_check=sorted(to_check),
            )
            try:
                self.cache.set_stamp(graph_snapshot.save(self.snapshot_path, saved))
            except OSError as error:  # only the next start's time is lost
                log.warning("could not save the link graph: %s", error)

    def parsed(self, note: Note) -> None:
        """A note was parsed: its aliases and links go into the graph."""
        self._hashes[note.file] = note.content_hash
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
            self._hashes.pop(file, None)
            self.graph.remove_file(file)

    def unindexed(self, file: str) -> None:
        """`file` left the store but not the vault: still a link target, links unknown."""
        self.cache.remove([file])
        self._stored.pop(file, None)
        self._hashes.pop(file, None)
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

    def close(self, save: bool = True) -> None:
        """Save the graph (unless told not to), then commit and close the cache."""
        if save and not self._closed:
            self.save()
        self._closed = True
        self.cache.close()

    def _restore(self, saved: SavedGraph, states: dict[str, FileState]) -> bool:
        """Load the saved graph, then catch up the notes whose content changed in the store
        since it was saved; False (the graph left empty) when it doesn't fit."""
        try:
            self.graph.restore(saved.graph)
        except (ValueError, TypeError) as error:  # checked before the graph is touched
            log.warning("saved link graph unusable (%s): building it again", error)
            return False
        self._stored, self._hashes = saved.stored, saved.hashes
        self._to_check = set(saved.to_check)
        stale = [
            file
            for file, content_hash in self._hashes.items()
            if (state := states.get(file)) is None or state.content_hash != content_hash
        ]
        # As a build from the cache would: a note the store no longer holds is not in the
        # graph (the sync's scan adds it back as a plain file if it is still on disk), and one
        # whose content changed is parsed again.
        for file in stale:
            self._stored.pop(file, None)
            del self._hashes[file]
            self.graph.remove_file(file)
        self.cache.remove(file for file in stale if file not in states)
        self.graph.set_files(self._reparsed(states, [f for f in states if f not in self._hashes]))
        self.cache.commit()
        self.restored = True
        return True

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
                self._hashes[cached.file] = cached.content_hash
                yield cached.file, cached.aliases, cached.links
        self.cache.remove(gone)
        yield from self._reparsed(states, [f for f in states if f not in self._stored])
        self.cache.commit()

    def _reparsed(
        self, states: dict[str, FileState], files: list[str]
    ) -> Iterator[tuple[str, list[str], list[str]]]:
        """(file, aliases, link targets) of these notes, parsed again and cached."""
        for file in files:
            state = states[file]
            reparsed = self._reparse(file, state)
            if reparsed is not None:
                self._stored[file] = None
                self._hashes[file] = state.content_hash
                self.cache.put(reparsed)
                yield file, reparsed.aliases, reparsed.links

    def _reparse(self, file: str, state: FileState) -> CachedNote | None:
        if is_pdf(file):
            return CachedNote(file=file, content_hash=state.content_hash)  # PDFs link nowhere
        try:
            note = parse_note(file, read_vault_file(self.root, file, self.ignore))
        except Exception:  # gone, unreadable or refused: the sync that follows deals with it
            return None
        # Links stored with the old content are unknown (None): the reconcile rewrites them.
        return CachedNote(
            file=file,
            content_hash=state.content_hash,
            aliases=note.aliases,
            links=note.link_targets(),
        )
