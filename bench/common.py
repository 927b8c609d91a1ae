"""What every benchmark needs: percentiles, disk usage, and a vault's parsed notes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vault_agent.vault.notes import Note


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def disk_usage(path: Path) -> tuple[int, int]:
    """(bytes allocated on disk, as `du` counts them; apparent bytes) of everything under
    `path`. Sparse or preallocated files (Qdrant's) make the two differ."""
    allocated = apparent = 0
    for file in [path, *path.rglob("*")]:
        if file.is_symlink() or not file.is_file():
            continue
        stat = file.stat()
        allocated += stat.st_blocks * 512
        apparent += stat.st_size
    return allocated, apparent


def parsed_notes(vault: Path, files: Iterable[str] | None = None) -> Iterator[Note]:
    """The markdown notes of `vault` (or the given vault-relative `files`, in that order),
    parsed as the indexer parses them; notes that don't parse are left out."""
    # Imported here: the comparison's parent process never loads the sidecar.
    from vault_agent.vault.files import MARKDOWN_SUFFIX, scan_vault
    from vault_agent.vault.notes import NoteError, parse_note

    if files is None:
        files = (f.file for f in scan_vault(vault))
    for file in files:
        if not file.endswith(MARKDOWN_SUFFIX):
            continue
        try:
            yield parse_note(file, (vault / file).read_bytes())
        except NoteError:
            continue
