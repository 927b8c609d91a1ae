"""The link graph's derived indexes (`graph.py`): files by path and by name, backlinks, and
which links depend on which name, with the small list and map helpers that keep them.

Each index is derived from what the graph holds (its files, their targets, where their links
resolve), so the graph builds it when first needed: a restart that loads the saved graph and
then changes nothing never pays for them (0.25 s of the first sync at 50k notes).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from vault_agent.vault.link_names import fold, strip_md, target_keys

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
