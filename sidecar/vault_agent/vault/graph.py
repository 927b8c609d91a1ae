"""The vault's link graph: which file each link points to, outgoing links and backlinks.

Owns link resolution. The rule follows Obsidian's `metadataCache.getFirstLinkpathDest(linkpath,
sourcePath)`, matching names case-insensitively as Obsidian does:

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

Incremental: each link is resolved once and re-resolved only when a file with the same name
key (last segment, lower-case, `.md` dropped) or an alias equal to the link appears or goes.
So adding "Ideas.md" revisits just the links whose last segment is "ideas".
"""

from __future__ import annotations

import posixpath
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from urllib.parse import unquote

from vault_agent.vault.notes import Link


class LinkGraph:
    """Knows every file in the vault (all files, including attachments like .pdf/.png) with its
    aliases and raw links; resolves links as Obsidian does; gives outgoing links and backlinks.
    """

    def __init__(self) -> None:
        self._aliases: dict[str, list[str]] = {}
        self._links: dict[str, list[Link]] = {}
        self._resolved: dict[str, list[str | None]] = {}  # per file, aligned with _links
        # Lookup indexes, all lower-case.
        self._by_path: dict[str, set[str]] = defaultdict(set)
        self._by_name: dict[str, set[str]] = defaultdict(set)  # name key -> files
        self._by_alias: dict[str, set[str]] = defaultdict(set)
        # Which links to revisit when a name or alias appears: key -> {source: link indexes}.
        self._name_deps: dict[str, dict[str, set[int]]] = defaultdict(dict)
        self._alias_deps: dict[str, dict[str, set[int]]] = defaultdict(dict)
        self._backrefs: dict[str, Counter[str]] = defaultdict(Counter)

    # -- updates --------------------------------------------------------------------------

    def set_file(self, file: str, aliases: Sequence[str] = (), links: Sequence[Link] = ()) -> None:
        """Add or replace a file with its aliases and raw links (attachments: no links)."""
        stale: set[tuple[str, int]] = set()
        if file not in self._links:
            self._by_path[file.lower()].add(file)
            self._by_name[_name_key(file)].add(file)
            stale |= self._dependents(self._name_deps, [_name_key(file)])
        else:
            self._forget_links(file)
        old_aliases = set(map(str.lower, self._aliases.get(file, [])))
        new_aliases = {alias.strip().lower() for alias in aliases if alias.strip()}
        for alias in old_aliases - new_aliases:
            self._by_alias[alias].discard(file)
        for alias in new_aliases - old_aliases:
            self._by_alias[alias].add(file)
        stale |= self._dependents(self._alias_deps, old_aliases ^ new_aliases)
        self._aliases[file] = sorted(new_aliases)
        self._links[file] = list(links)
        self._resolved[file] = [None] * len(links)
        for index, link in enumerate(links):
            name_keys, alias_keys = _dependency_keys(link.target)
            for key in name_keys:
                self._name_deps[key].setdefault(file, set()).add(index)
            for key in alias_keys:
                self._alias_deps[key].setdefault(file, set()).add(index)
            stale.add((file, index))
        self._refresh(stale)

    def remove_file(self, file: str) -> None:
        """Forget a file: its links go, and links that pointed at it are resolved again."""
        if file not in self._links:
            return
        self._forget_links(file)
        self._by_path[file.lower()].discard(file)
        self._by_name[_name_key(file)].discard(file)
        aliases = self._aliases.pop(file, [])
        for alias in aliases:
            self._by_alias[alias].discard(file)
        del self._links[file], self._resolved[file]
        stale = self._dependents(self._name_deps, [_name_key(file)])
        self._refresh(stale | self._dependents(self._alias_deps, aliases))

    # -- queries --------------------------------------------------------------------------

    def files(self) -> set[str]:
        """Every file the graph knows (a copy: use `file in graph` for a cheap test)."""
        return set(self._links)

    def __contains__(self, file: object) -> bool:
        return file in self._links

    def resolve(self, target: str, source_file: str) -> str | None:
        """The file `target` (a link as written in `source_file`) points to, or None.

        The rule is Obsidian's, as set out in the module docstring.
        """
        target = target.split("|", 1)[0].split("#", 1)[0].strip().replace("\\", "/")
        if not target:
            return source_file if source_file in self._links else None
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
        links, resolved = self._links.get(file, []), self._resolved.get(file, [])
        return list(
            dict.fromkeys(
                link.target for link, dest in zip(links, resolved, strict=True) if not dest
            )
        )

    def backlinks(self, file: str) -> list[str]:
        """Files with at least one link that resolves to `file` (not `file` itself), sorted."""
        return sorted(source for source in self._backrefs.get(file, ()) if source != file)

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
        lowered = target.lower()
        name = lowered.rsplit("/", 1)[-1]
        candidates = [
            path
            for path in self._by_name.get(_strip_md(name), ())
            if _ends_with(path.lower(), lowered)
        ]
        return _pick(candidates, folder) or _pick(self._by_alias.get(lowered, ()), folder)

    def _exact(self, path: str) -> str | None:
        """The file at vault path `path` or `path.md`; exact case preferred."""
        for candidate in (path, path + ".md"):
            if candidate in self._links:
                return candidate
        for candidate in (path, path + ".md"):
            matches = self._by_path.get(candidate.lower())
            if matches:
                return min(matches)
        return None

    def _refresh(self, stale: Iterable[tuple[str, int]]) -> None:
        """Resolve the given (file, link index) pairs again and keep backlinks in step."""
        for source, index in stale:
            resolved = self._resolved.get(source)
            if resolved is None or index >= len(resolved):
                continue
            new = self.resolve(self._links[source][index].target, source)
            old = resolved[index]
            if new == old:
                continue
            if old is not None:
                self._unref(old, source)
            if new is not None:
                self._backrefs[new][source] += 1
            resolved[index] = new

    def _forget_links(self, file: str) -> None:
        for link, dest in zip(self._links[file], self._resolved[file], strict=True):
            name_keys, alias_keys = _dependency_keys(link.target)
            for key in name_keys:
                self._name_deps.get(key, {}).pop(file, None)
            for key in alias_keys:
                self._alias_deps.get(key, {}).pop(file, None)
            if dest is not None:
                self._unref(dest, file)
        self._links[file], self._resolved[file] = [], []

    def _unref(self, target: str, source: str) -> None:
        refs = self._backrefs[target]
        refs[source] -= 1
        if refs[source] <= 0:
            del refs[source]

    @staticmethod
    def _dependents(
        deps: dict[str, dict[str, set[int]]], keys: Iterable[str]
    ) -> set[tuple[str, int]]:
        return {
            (source, index)
            for key in keys
            for source, indexes in deps.get(key, {}).items()
            for index in indexes
        }


def _strip_md(name: str) -> str:
    return name[:-3] if name.endswith(".md") else name


def _name_key(path: str) -> str:
    """Lower-case last segment without `.md`: links and files meet on this key."""
    return _strip_md(path.rsplit("/", 1)[-1].lower())


def _dependency_keys(target: str) -> tuple[set[str], set[str]]:
    """Name keys and alias keys whose files can decide where `target` resolves."""
    target = target.split("|", 1)[0].split("#", 1)[0].strip().replace("\\", "/")
    if not target:
        return set(), set()
    forms = {target, unquote(target)}
    return {_name_key(form) for form in forms}, {form.lstrip("/").lower() for form in forms}


def _ends_with(path: str, link: str) -> bool:
    """`path` (lower-case) is the file `link` (lower-case) names: whole trailing segments."""
    return any(path == form or path.endswith("/" + form) for form in (link, link + ".md"))


def _pick(candidates: Iterable[str], folder: str) -> str | None:
    """Obsidian's tie-break: the one candidate; else one in `folder`; else the shortest path."""
    ranked = sorted(
        candidates, key=lambda path: (posixpath.dirname(path) != folder, len(path), path)
    )
    return ranked[0] if ranked else None
