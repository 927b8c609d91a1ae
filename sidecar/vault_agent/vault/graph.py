"""The vault's link graph: which file each link points to, outgoing links and backlinks.

Owns link resolution. The rule follows Obsidian's `metadataCache.getFirstLinkpathDest(linkpath,
sourcePath)`, matching names case-insensitively as Obsidian does, and composed (NFC):

1. `[[#Heading]]` (empty target) points at the source note itself. A `|display` or `#subpath`
   left on the target is ignored; a leading `/` means the vault root.
2. `./x` and `../x` are relative to the source's folder and must name an existing path.
3. An exact vault path, with or without `.md` ("Folder/Note", "Folder/Note.md", "a.pdf").
4. A path relative to the source's folder ("Sub/Note" from "A/B.md" -> "A/Sub/Note.md"),
   which is how markdown links are written with Obsidian's "relative path" link format.
5. By name: every file whose name is the link's last segment, as written or plus `.md`
   (so `[[paper]]` never reaches `paper.pdf`, but `[[paper.pdf]]` does), and whose path ends
   with the whole link ("Sub/Note" matches "X/Sub/Note.md", not "X/Other/Note.md").
   One candidate wins outright; of several, one in the source's folder wins, else the
   shortest path ("shortest path when possible"), then the alphabetically first.
6. Aliases (frontmatter `aliases`), same tie-breaks. Obsidian itself leaves `[[alias]]`
   unresolved; we resolve it because the writer plainly meant that note.
7. Percent-encoded targets ("Other%20Note.md") are tried decoded when the raw form fails.

Incremental: each link is resolved once, and a link is resolved again only when a file with
its name key (last segment, lower-case, `.md` dropped) or an alias equal to it appears or goes.
So adding "Ideas.md" revisits just the links whose last segment is "ideas", not the other
links of their notes: a hub note with 600 links would otherwise resolve all 600 again as each
of its targets is indexed.
"""

from __future__ import annotations

import posixpath
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple
from urllib.parse import unquote

from vault_agent.vault.graph_indexes import (
    Stale,
    add_dependents,
    add_new,
    among_namesakes,
    backrefs_of,
    discard,
    merge,
    path_and_name_indexes,
)
from vault_agent.vault.link_names import (
    bare_target,
    dependency_keys,
    ends_with,
    fold,
    name_key,
    pick,
    strip_md,
)

#: Past this many files of one name, a bare link's is found by path and remembered
#: (`graph_indexes.among_namesakes`), not looked for among them all.
FEW_NAMESAKES = 8


class GraphState(NamedTuple):
    """A graph as `LinkGraph.export` gives it: plain lists and dicts, for saving."""

    files: list[str]
    targets: list[tuple[str, ...]]
    """Per file (aligned with `files`): its link targets as written."""
    resolved: list[list[str | None]]
    """Per file: where each of its links resolves (None: nowhere)."""
    aliases: dict[str, tuple[str, ...]]
    """Folded (lower-case, NFC) aliases of the files that have some."""


class LinkGraph:
    """Knows every file in the vault (all files, including attachments like .pdf/.png) with its
    aliases and raw link targets; resolves links as Obsidian does; gives outgoing links and
    backlinks.

    Kept lean because it holds the whole vault in memory (about 100k links at 50k notes): a
    link is only its target string, paths and targets are interned, and the lookup indexes
    hold small lists rather than sets (name collisions are rare).
    """

    def __init__(self) -> None:
        self._aliases: dict[str, tuple[str, ...]] = {}  # lower-case; only files that have some
        self._targets: dict[str, tuple[str, ...]] = {}  # every file: its link targets as written
        self._resolved: dict[str, list[str | None]] = {}  # per file, aligned with _targets
        # Lookup indexes, all lower-case: key -> files. Path and name are built when first
        # needed after `restore` (`_lookups`), as are the backlinks (`_refs`) and dependents.
        self._by_path: dict[str, list[str]] | None = {}
        self._by_name: dict[str, list[str]] | None = {}  # name key -> files
        self._by_alias: dict[str, list[str]] = {}
        # Name key -> folded bare link -> the namesake it resolves to from a folder holding
        # none of them (`among_namesakes`); dropped with any change to that name's files.
        self._farthest: dict[str, dict[str, str | None]] = {}
        # Which links to re-resolve when a name or alias appears or goes: key -> file -> the
        # indexes of its links with that key. Name keys and alias keys share one map (a shared
        # key only costs a needless re-resolution). Derived from _targets alone, so it is built
        # when first needed (`_deps`): loading a vault that then changes nothing never pays.
        self._dependents: dict[str, dict[str, list[int]]] | None = None
        self._backrefs: dict[str, Counter[str]] | None = {}
        self._changed: set[str] = set()  # see take_changed()
        # A reader (backlinks for the API) and a sync may be first to need an index at once:
        # one builds it, so no update made to one copy is lost with the other.
        self._building = threading.Lock()

    # -- updates --------------------------------------------------------------------------

    def set_file(self, file: str, aliases: Sequence[str] = (), targets: Sequence[str] = ()) -> None:
        """Add or replace a file with its aliases and raw link targets (as written, e.g.
        "Folder/Note#Heading"; attachments have none)."""
        self._refresh(self._register(file, aliases, targets))

    def set_files(self, entries: Iterable[tuple[str, Sequence[str], Sequence[str]]]) -> None:
        """`set_file` for many (file, aliases, targets) at once, each link resolved once at
        the end rather than again as each new file arrives: for loading a whole vault."""
        stale: Stale = {}
        # Into an empty graph, every link is resolved at the end anyway: no need to look up
        # which links each new name or alias affects.
        fresh = not self._targets
        for file, aliases, targets in entries:
            for source, indexes in self._register(file, aliases, targets, mark=not fresh).items():
                merge(stale, source, indexes)
        self._refresh(stale)

    def take_changed(self) -> set[str]:
        """Files whose outgoing links may have changed since the last call (then forgotten)."""
        changed, self._changed = self._changed, set()
        return changed

    def _register(
        self, file: str, aliases: Sequence[str], targets: Sequence[str], mark: bool = True
    ) -> Stale:
        """Record a file, its aliases and targets; the links that must be resolved again
        (without `mark`, only the file's own: the caller resolves every link itself)."""
        file = sys.intern(file)
        self._changed.add(file)
        stale: Stale = {file: None}
        if file not in self._targets:  # so under no path, name or alias yet
            by_path, by_name = self._lookups()
            add_new(by_path, fold(file), file)
            add_new(by_name, name_key(file), file)
            self._farthest.pop(name_key(file), None)
            if mark:
                self._mark(stale, name_key(file))
        else:
            self._forget_links(file)
        old_aliases = set(self._aliases.get(file, ()))
        new_aliases = {fold(alias.strip()) for alias in aliases if alias.strip()}
        for alias in old_aliases - new_aliases:
            discard(self._by_alias, alias, file)
        for alias in new_aliases - old_aliases:  # under those it is not yet
            add_new(self._by_alias, alias, file)
        for alias in old_aliases ^ new_aliases if mark else ():
            self._mark(stale, alias)
        if new_aliases:
            self._aliases[file] = tuple(sorted(new_aliases))
        else:
            self._aliases.pop(file, None)
        self._targets[file] = tuple(sys.intern(target) for target in targets)
        self._resolved[file] = [None] * len(targets)
        if self._dependents is not None:  # else `_deps` builds it, this file included
            add_dependents(self._dependents, file, self._targets[file])
        return stale

    def remove_file(self, file: str) -> None:
        """Forget a file: its links go, and links that pointed at it are resolved again."""
        if file not in self._targets:
            return
        self._forget_links(file)
        by_path, by_name = self._lookups()
        discard(by_path, fold(file), file)
        discard(by_name, name_key(file), file)
        self._farthest.pop(name_key(file), None)
        aliases = self._aliases.pop(file, ())
        for alias in aliases:
            discard(self._by_alias, alias, file)
        del self._targets[file], self._resolved[file]
        self._changed.discard(file)
        # Only the links that reached it can change: a link to another file kept the best
        # of its candidates, and that one is still there. (Resolving every link of its name
        # again made removing 100 of 1,000 README.md, each linking `[[README]]`, take 146 s.)
        stale: Stale = {}
        for source in list(self._refs().get(file, ())):
            reached = {i for i, dest in enumerate(self._resolved[source]) if dest == file}
            merge(stale, source, reached)
        self._refresh(stale)

    def export(self) -> GraphState:
        """Every file's aliases, targets and resolved links: what `restore` needs."""
        files = list(self._targets)
        targets, resolved = [self._targets[f] for f in files], [self._resolved[f] for f in files]
        return GraphState(files, targets, resolved, dict(self._aliases))

    def restore(self, state: GraphState) -> None:
        """Load an exported graph into this empty one, its links already resolved: the
        lookup indexes and backlinks are built again when first needed, nothing is resolved
        again."""
        if self._targets:
            raise ValueError("restore needs an empty graph")
        files, targets, resolved, aliases = state
        # Checked whole before anything is kept: a bad state leaves the graph empty.
        if not len(files) == len(targets) == len(resolved) or any(
            len(file_targets) != len(file_resolved)
            for file_targets, file_resolved in zip(targets, resolved, strict=True)
        ):
            raise ValueError("the targets and resolved links of the files don't line up")
        self._targets = dict(zip(files, targets, strict=True))
        self._resolved = dict(zip(files, resolved, strict=True))
        # Built when first needed: a restart that changes nothing and shows no backlinks
        # never needs them (0.25 s at 50k notes and 117k links).
        self._by_path = self._by_name = self._backrefs = None
        for file, file_aliases in aliases.items():
            if file in self._targets and file_aliases:
                self._aliases[file] = tuple(file_aliases)
                for alias in dict.fromkeys(file_aliases):  # each file comes once
                    add_new(self._by_alias, alias, file)

    def pending_changes(self) -> set[str]:
        """What `take_changed` would return, left in place."""
        return set(self._changed)

    # -- queries --------------------------------------------------------------------------

    def files(self) -> set[str]:
        """Every file the graph knows (a copy: use `file in graph` for a cheap test)."""
        return set(self._targets)

    def __contains__(self, file: object) -> bool:
        return file in self._targets

    def resolve(self, target: str, source_file: str) -> str | None:
        """The file `target` (a link as written in `source_file`) points to, or None.

        The rule is Obsidian's, as set out in the module docstring.
        """
        target = bare_target(target)
        if not target:
            return source_file if source_file in self._targets else None
        found = self._resolve_path(target, source_file)
        if found is None and "%" in target:
            decoded = unquote(target)
            if decoded != target:
                found = self._resolve_path(decoded, source_file)
        return found

    def outgoing(self, file: str) -> list[str]:
        """Resolved link targets of `file`: unique, in document order, without `file` itself."""
        return list(dict.fromkeys(t for t in self._resolved.get(file, []) if t and t != file))

    def unresolved(self, file: str) -> list[str]:
        """Targets (as written) of the links in `file` that point to no file, unique."""
        targets, resolved = self._targets.get(file, ()), self._resolved.get(file, [])
        return list(
            dict.fromkeys(
                target for target, dest in zip(targets, resolved, strict=True) if not dest
            )
        )

    def backlinks(self, file: str) -> list[str]:
        """Files with at least one link that resolves to `file` (not `file` itself), sorted."""
        return sorted(source for source in self._refs().get(file, ()) if source != file)

    # -- internals ------------------------------------------------------------------------

    def _resolve_path(self, target: str, source_file: str) -> str | None:
        folder = posixpath.dirname(source_file)
        if target.startswith(("./", "../")):
            joined = posixpath.normpath(posixpath.join(folder, target))
            return None if joined.startswith("../") else self._exact(joined)
        absolute = target.startswith("/")
        target = target.lstrip("/")
        found = self._exact(target)
        if found is None and "/" in target and folder and not absolute:
            found = self._exact(posixpath.join(folder, target))
        if found is not None:
            return found
        lowered = fold(target)
        name = lowered.rsplit("/", 1)[-1]
        namesakes = self._lookups()[1].get(strip_md(name), ())
        if len(namesakes) > FEW_NAMESAKES and "/" not in lowered:
            by_path = self._lookups()[0]
            found = among_namesakes(lowered, namesakes, folder, by_path, self._farthest)
        else:
            found = pick([path for path in namesakes if ends_with(fold(path), lowered)], folder)
        return found or pick(self._by_alias.get(lowered, ()), folder)

    def _folder_free(self, target: str) -> bool:
        """True when `target` resolves to the same file from every note (a sufficient test):
        no relative path, no folder to join it to, no tie between candidates that the
        note's folder would break."""
        bare = bare_target(target)
        if not bare or "%" in bare or bare.startswith(("./", "../")):
            return False
        path = bare.lstrip("/")
        if "/" in path and not bare.startswith("/"):
            return False
        lowered = fold(path)
        name = strip_md(lowered.rsplit("/", 1)[-1])
        by_name = self._lookups()[1]
        return len(by_name.get(name, ())) <= 1 and len(self._by_alias.get(lowered, ())) <= 1

    def _exact(self, path: str) -> str | None:
        """The file at vault path `path` or `path.md`; exact case preferred."""
        for candidate in (path, path + ".md"):
            if candidate in self._targets:
                return sys.intern(candidate)  # the graph's own copy, not a new string
        for candidate in (path, path + ".md"):
            matches = self._lookups()[0].get(fold(candidate))
            if matches:
                return min(matches)
        return None

    def _deps(self) -> dict[str, dict[str, list[int]]]:
        """The `_dependents` map, built from every file's targets on first use."""
        if self._dependents is None:
            self._dependents = {}
            for file, targets in self._targets.items():
                add_dependents(self._dependents, file, targets)
        return self._dependents

    def _lookups(self) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """The path and name indexes, built from the files on first use after `restore`."""
        by_path, by_name = self._by_path, self._by_name
        if by_path is not None and by_name is not None:  # the usual case: no lock
            return by_path, by_name
        with self._building:
            if self._by_path is None or self._by_name is None:
                self._by_path, self._by_name = path_and_name_indexes(self._targets)
                self._farthest = {}
            return self._by_path, self._by_name

    def _refs(self) -> dict[str, Counter[str]]:
        """The backlinks (target -> linking files), built on first use after `restore`."""
        backrefs = self._backrefs
        if backrefs is not None:  # the usual case: no lock
            return backrefs
        with self._building:
            if self._backrefs is None:
                self._backrefs = backrefs_of(self._resolved)
            return self._backrefs

    def _mark(self, stale: Stale, key: str) -> None:
        """Add the links that depend on name or alias `key` to `stale`."""
        for source, indexes in self._deps().get(key, {}).items():
            merge(stale, source, set(indexes))

    def _refresh(self, stale: Mapping[str, set[int] | None]) -> None:
        """Resolve the stale links again and keep backlinks in step."""
        # Only _resolved and _backrefs change during a pass, so where a link points depends
        # on its target and its note's folder alone, and most targets on neither: loading a
        # vault resolves each distinct target once (117k links, 24k targets at 50k notes).
        seen: dict[str | tuple[str, str], str | None] = {}
        free: dict[str, bool] = {}
        for source, indexes in stale.items():
            resolved = self._resolved.get(source)
            if resolved is None:
                continue
            targets = self._targets[source]
            folder = posixpath.dirname(source)
            for index in range(len(targets)) if indexes is None else sorted(indexes):
                target = targets[index]
                folder_free = free.get(target)
                if folder_free is None:
                    folder_free = free[target] = self._folder_free(target)
                key = target if folder_free else (target, folder)
                if key in seen:
                    new = seen[key]
                else:
                    new = self.resolve(target, source)
                    if new != source:  # `[[#Heading]]` points at its own note: never shared
                        seen[key] = new
                old = resolved[index]
                if new == old:
                    continue
                if old is not None:
                    self._unref(old, source)
                if new is not None:
                    refs = self._refs().get(new)
                    if refs is None:
                        refs = self._refs()[new] = Counter()
                    refs[source] += 1
                resolved[index] = new
                self._changed.add(source)

    def _forget_links(self, file: str) -> None:
        all_dependents = self._deps()
        for key in dependency_keys(self._targets[file]):
            dependents = all_dependents.get(key)
            if dependents is not None:
                dependents.pop(file, None)
                if not dependents:
                    del all_dependents[key]
        for dest in self._resolved[file]:
            if dest is not None:
                self._unref(dest, file)
        self._targets[file], self._resolved[file] = (), []

    def _unref(self, target: str, source: str) -> None:
        backrefs = self._refs()
        refs = backrefs[target]
        refs[source] -= 1
        if refs[source] <= 0:
            del refs[source]
            if not refs:
                del backrefs[target]
