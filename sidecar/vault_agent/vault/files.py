"""Which files make up the vault, and safe vault-relative paths.

Obsidian's own folders (.obsidian, .trash), hidden folders and configured ignore globs are
never indexed. Symlinked folders are not followed (loops and escapes), and a symlinked file
counts only when it points inside the vault.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from pydantic import BaseModel

MARKDOWN_SUFFIX = ".md"
PDF_SUFFIX = ".pdf"
#: What the index reads: markdown notes, and PDFs as notes of type "pdf" (one section a page).
NOTE_SUFFIXES = (MARKDOWN_SUFFIX, PDF_SUFFIX)


class VaultFile(BaseModel):
    """A candidate file on disk, before it is read."""

    file: str  # vault-relative posix path: the join key everywhere
    mtime: float
    size: int


class PathOutsideVaultError(ValueError):
    """A requested path would leave the vault."""


def is_note(file: str) -> bool:
    """True for files indexed as notes: markdown and PDF (other files are only link targets)."""
    return file.lower().endswith(NOTE_SUFFIXES)


def is_pdf(file: str) -> bool:
    """True for a vault path indexed as a PDF (text extracted page by page)."""
    return file.lower().endswith(PDF_SUFFIX)


def scan_vault(root: Path, ignore: Sequence[str] = ()) -> Iterator[VaultFile]:
    """Yield every file under `root`, notes and attachments (depth-first, deterministic)."""
    root = root.resolve()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
        except OSError:
            continue  # unreadable or vanished folder: its files simply aren't in the vault now
        for entry in entries:
            if entry.name.startswith("."):
                continue
            relative = PurePosixPath(Path(entry.path).relative_to(root)).as_posix()
            if is_ignored(relative, ignore):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                    continue
                if entry.is_symlink() and not _points_inside(Path(entry.path), root):
                    continue
                stat = entry.stat()  # follows a file symlink: we index what it points to
            except OSError:
                continue  # deleted while scanning, dangling symlink, or a symlink loop
            if not Path(entry.path).is_file():
                continue
            yield VaultFile(file=relative, mtime=stat.st_mtime, size=stat.st_size)


def is_ignored(relative: str, ignore: Sequence[str]) -> bool:
    """True when a vault-relative path matches an ignore glob (or lies under a hidden folder)."""
    parts = relative.split("/")
    if any(part.startswith(".") for part in parts):
        return True
    return any(
        fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(relative + "/", pattern)
        for pattern in ignore
    )


def resolve_in_vault(root: Path, file: str) -> Path:
    """The absolute path of a vault-relative `file`, refusing anything that leaves the vault
    (`..`, absolute paths, symlinks pointing outside)."""
    if not file or "\x00" in file:
        raise PathOutsideVaultError(f"invalid note path {file!r}")
    relative = PurePosixPath(file.replace("\\", "/"))
    if relative.is_absolute() or ".." in relative.parts:
        raise PathOutsideVaultError(f"path {file!r} is outside the vault")
    root = root.resolve()
    candidate = (root / relative).resolve()
    if not candidate.is_relative_to(root):
        raise PathOutsideVaultError(f"path {file!r} is outside the vault")
    return candidate


def _points_inside(link: Path, root: Path) -> bool:
    try:
        return link.resolve(strict=True).is_relative_to(root)
    except (OSError, RuntimeError):  # dangling or looping symlink
        return False
