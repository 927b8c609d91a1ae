"""How link targets and file paths meet: the name and alias keys of `graph.LinkGraph`.

Pure functions of strings, kept apart from the graph's bookkeeping.
"""

from __future__ import annotations

import functools
import posixpath
import unicodedata
from collections.abc import Iterable
from urllib.parse import unquote


def bare_target(target: str) -> str:
    """The path part of a link target: no `|display`, no `#subpath`, '/' separators."""
    return target.split("|", 1)[0].split("#", 1)[0].strip().replace("\\", "/")


def fold(text: str) -> str:
    """`text` as links and paths are compared: lower-case, and composed (NFC). A name macOS
    wrote decomposed ("Cafe\u0301") and a link typed composed ("Café") look the same, and
    macOS's file systems take one for the other."""
    return unicodedata.normalize("NFC", text).lower()


def strip_md(name: str) -> str:
    return name[:-3] if name.endswith(".md") else name


def name_key(path: str) -> str:
    """Folded last segment without `.md`: links and files meet on this key."""
    return strip_md(fold(path.rsplit("/", 1)[-1]))


def dependency_keys(targets: Iterable[str]) -> set[str]:
    """Name keys and alias keys whose files can decide where these targets resolve."""
    keys: set[str] = set()
    for target in targets:
        keys.update(target_keys(target))
    return keys


@functools.lru_cache(maxsize=1 << 16)
def target_keys(target: str) -> tuple[str, ...]:
    """`dependency_keys` of one target, remembered: a vault links to far fewer distinct
    targets than it has links, and loading it registers every link."""
    keys: set[str] = set()
    bare = bare_target(target)
    if bare:
        for form in {bare, unquote(bare)}:
            keys.add(name_key(form))
            keys.add(fold(form.lstrip("/")))
    return tuple(sorted(keys))


def ends_with(path: str, link: str) -> bool:
    """`path` (lower-case) is the file `link` (lower-case) names: whole trailing segments."""
    return any(path == form or path.endswith("/" + form) for form in (link, link + ".md"))


def pick(candidates: Iterable[str], folder: str) -> str | None:
    """Obsidian's tie-break: the one candidate; else one in `folder`; else the shortest path."""
    ranked = sorted(
        candidates, key=lambda path: (posixpath.dirname(path) != folder, len(path), path)
    )
    return ranked[0] if ranked else None
