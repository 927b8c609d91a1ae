"""The link graph's derived indexes (`graph.py`): files by path and by name, backlinks, and
which links depend on which name, with the small list and map helpers that keep them.

Each index is derived from what the graph holds (its files, their targets, where their links
resolve), so the graph builds it when first needed: a restart that loads the saved graph and
then changes nothing never pays for them (0.25 s of the first sync at 50k notes).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from vault_agent.vault.link_names import ends_with, fold, pick, strip_md, target_keys

Stale = dict[str, set[int] | None]
"""Files whose links must be resolved again: all of them (None), or those at these indexes."""


def path_and_name_indexes(
    files: Iterable[str],
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Folded path -> files, and name key -> files, of these distinct files."""
    by_path: dict[str, list[str]] = {}
    by_name: dict[str, list[str]] = {}
    for file in files:
        # Each file comes once: no need for `add`'s duplicate check.
        lowered = fold(file)
        by_path.setdefault(lowered, []).append(file)
        by_name.setdefault(strip_md(lowered.rsplit("/", 1)[-1]), []).append(file)
    return by_path, by_name


def backrefs_of(resolved: Mapping[str, Sequence[str | None]]) -> dict[str, Counter[str]]:
    """Target file -> the files linking to it, each with its number of links there."""
    backrefs: dict[str, Counter[str]] = {}
    for file, file_resolved in resolved.items():
        for dest in file_resolved:
            if dest is not None:
                refs = backrefs.get(dest)
                if refs is None:
                    refs = backrefs[dest] = Counter()
                refs[file] = refs.get(file, 0) + 1
    return backrefs


def add_dependents(
    dependents: dict[str, dict[str, list[int]]], file: str, targets: Sequence[str]
) -> None:
    """Record in `dependents` the name and alias keys each of `file`'s links depends on."""
    for index, target in enumerate(targets):
        for key in target_keys(target):
            dependents.setdefault(key, {}).setdefault(file, []).append(index)


def merge(stale: Stale, source: str, indexes: set[int] | None) -> None:
    """Add `source`'s links at `indexes` (all of them: None) to `stale`."""
    if indexes is None:
        stale[source] = None
        return
    current = stale.setdefault(source, set())
    if current is not None:  # else all its links are stale already
        current.update(indexes)


def add_new(index: dict[str, list[str]], key: str, file: str) -> None:
    """Put `file`, known not to be under `key`, under it. Looking through the files already
    there first made a vault of 20,000 notes of one name (README.md) take 2 s to load."""
    index.setdefault(key, []).append(file)


def discard(index: dict[str, list[str]], key: str, file: str) -> None:
    """Take `file` from under `key` (the key goes with its last file)."""
    files = index.get(key)
    if files is not None and file in files:
        files.remove(file)
        if not files:
            del index[key]


def among_namesakes(
    lowered: str,
    namesakes: Sequence[str],
    folder: str,
    by_path: Mapping[str, list[str]],
    farthest: dict[str, dict[str, str | None]],
) -> str | None:
    """`pick` among the many `namesakes` a bare link (`lowered`, folded) names from `folder`,
    without reading them all for each link: one in `folder`, looked up by its path (`by_path`),
    else the one a folder holding none of them gets, worked out once per name and link and
    kept in `farthest` (name key -> link -> file). A vault of 1,000 README.md each linking
    `[[README]]` took 1.5 s to load: each link read every README."""
    prefix = f"{fold(folder)}/" if folder else ""
    local = [
        path
        for form in (lowered, f"{lowered}.md")
        for path in by_path.get(prefix + form, ())
        if posixpath.dirname(path) == folder
    ]
    if local:
        return pick(local, folder)
    known = farthest.setdefault(strip_md(lowered), {})
    if lowered not in known:
        # No path's folder is NUL: the tie-break is the shortest path, then the first.
        qualified = [path for path in namesakes if ends_with(fold(path), lowered)]
        known[lowered] = pick(qualified, "\0")
    return known[lowered]
