"""Which files make up the vault, and safe vault-relative paths.

Obsidian's own folders (.obsidian, .trash), hidden folders and configured ignore globs are
never indexed. Symlinked folders are not followed (loops and escapes), and a symlinked file
counts only when it points at a file the vault would index itself, of the same kind: a link
named like a note must not carry the content of a hidden, ignored or non-note file
("Inbox/notes.md" -> ".git/config") into the index.
"""

from __future__ import annotations

import errno
import fnmatch
import functools
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from stat import S_ISREG

MARKDOWN_SUFFIX = ".md"
PDF_SUFFIX = ".pdf"
#: What the index reads: markdown notes, and PDFs as notes of type "pdf" (one section a page).
NOTE_SUFFIXES = (MARKDOWN_SUFFIX, PDF_SUFFIX)


@dataclass(frozen=True, slots=True)
class VaultFile:
    """A candidate file on disk, before it is read. A plain dataclass: a sync makes one per
    file in the vault, and validating 50,000 of them was a tenth of a restart's first sync."""

    file: str  # vault-relative posix path: the join key everywhere
    mtime: float
    size: int


class PathOutsideVaultError(ValueError):
    """A requested path would leave the vault (or never ends: a symlink loop)."""


def is_note(file: str) -> bool:
    """True for files indexed as notes: markdown and PDF (other files are only link targets)."""
    return file.lower().endswith(NOTE_SUFFIXES)


def is_pdf(file: str) -> bool:
    """True for a vault path indexed as a PDF (text extracted page by page)."""
    return file.lower().endswith(PDF_SUFFIX)


def scan_vault(
    root: Path, ignore: Sequence[str] = (), problems: dict[str, str] | None = None
) -> Iterator[VaultFile]:
    """Yield every file under `root`, notes and attachments (depth-first, deterministic).

    Notes that are symlinks which can't be followed (a loop, a missing target, a target
    outside the vault) are not yielded; with `problems`, they are put there with the reason,
    as are folders that can't be read (their path ending with "/")."""
    root = root.resolve()
    # (folder, its vault-relative prefix): string joins, not pathlib, since a no-change
    # re-sync of a big vault is mostly this loop.
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
        except FileNotFoundError:
            continue  # vanished while scanning: its files aren't in the vault now
        except OSError as error:
            # Unreadable (permissions, a network share away): what is in it is unknown, not
            # gone. Its key ends with "/", so the indexer keeps the notes it had there.
            if problems is not None and prefix:
                problems[prefix] = f"folder can't be read: {error.strerror or error}"
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            relative = prefix + entry.name
            if is_ignored(relative, ignore):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, relative + "/"))
                    continue
                symlink = entry.is_symlink()
                problem = symlink_problem(Path(entry.path), root, ignore) if symlink else None
                if problem is not None:
                    if problems is not None and is_note(relative):
                        problems[relative] = problem
                    continue
                stat = entry.stat()  # follows a file symlink: we index what it points to
            except OSError:
                continue  # deleted while scanning, dangling symlink, or a symlink loop
            if not S_ISREG(stat.st_mode):
                continue
            yield VaultFile(file=relative, mtime=stat.st_mtime, size=stat.st_size)


def scan_paths(
    root: Path, files: Sequence[str], ignore: Sequence[str], problems: dict[str, str]
) -> list[VaultFile]:
    """What `scan_vault` would yield of these vault-relative paths (a watcher's few): each
    one's stat, unless it is ignored, gone, not a regular file, an unfollowable symlink (a
    note's reason then put in `problems`) or under a symlinked folder, which the scan never
    enters (a watcher reports changes behind one under the link's path)."""
    root = root.resolve()
    found = []
    for file in files:
        if is_ignored(file, ignore):
            continue
        link = root / file
        if _under_symlinked_folder(root, file):
            continue
        problem = symlink_problem(link, root, ignore) if link.is_symlink() else None
        if problem is not None:
            if is_note(file):
                problems[file] = problem
            continue
        try:
            path = resolve_in_vault(root, file)
            stat = path.stat()
        except (OSError, ValueError):
            continue
        if path.is_file():
            found.append(VaultFile(file=file, mtime=stat.st_mtime, size=stat.st_size))
    return found


def _under_symlinked_folder(root: Path, file: str) -> bool:
    """True when a folder on the way from `root` (resolved) to `file` is a symlink."""
    try:
        return (root / file).parent.resolve() != root.joinpath(*PurePosixPath(file).parts[:-1])
    except (OSError, RuntimeError):  # a loop on the way
        return True


def is_ignored(relative: str, ignore: Sequence[str]) -> bool:
    """True when a vault-relative path matches an ignore glob (or lies under a hidden folder)."""
    if relative.startswith(".") or "/." in relative:
        return True
    matcher = _ignore_matcher(tuple(ignore))
    return matcher is not None and (
        matcher.match(relative) is not None or matcher.match(relative + "/") is not None
    )


@functools.lru_cache(maxsize=8)
def _ignore_matcher(ignore: tuple[str, ...]) -> re.Pattern[str] | None:
    """All ignore globs as one regex (fnmatch's own translation), compiled once."""
    if not ignore:
        return None
    # fnmatch.fnmatch ignores case where the file system does (Windows); so does this.
    flags = re.IGNORECASE if os.name == "nt" else 0
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in ignore), flags)


def resolve_in_vault(root: Path, file: str) -> Path:
    """The absolute path of a vault-relative `file`, refusing anything that leaves the vault
    (`..`, absolute paths, symlinks pointing outside)."""
    if not file or "\x00" in file:
        raise PathOutsideVaultError(f"invalid note path {file!r}")
    # A backslash separates folders on Windows only: elsewhere it is a letter of a file's name
    # (a note named "a\b.md" is not "b.md" in folder "a"): read as a slash, it read another.
    relative = PurePosixPath(file.replace("\\", "/") if os.sep == "\\" else file)
    if relative.is_absolute() or ".." in relative.parts:
        raise PathOutsideVaultError(f"path {file!r} is outside the vault")
    root = root.resolve()
    try:
        candidate = (root / relative).resolve()
    except RuntimeError:  # Python 3.11 reports a symlink loop so
        raise PathOutsideVaultError(f"path {file!r} is a symlink loop") from None
    if not candidate.is_relative_to(root):
        raise PathOutsideVaultError(f"path {file!r} is outside the vault")
    return candidate


def symlink_problem(link: Path, root: Path, ignore: Sequence[str] = ()) -> str | None:
    """Why the symlink `link` is not followed, or None when it leads to a file in `root` that
    the vault would index itself (not hidden, not ignored), of the kind its own name says."""
    try:
        target = link.resolve(strict=True)
    except RuntimeError:  # Python 3.11's word for a loop
        return "symlink loop"
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "symlink loop"
        return "broken symlink: its target does not exist"
    root = root.resolve()
    if not target.is_relative_to(root):
        return "symlink to a file outside the vault (not followed)"
    if is_ignored(target.relative_to(root).as_posix(), ignore):
        return "symlink to a hidden or ignored file (not followed)"
    if is_note(link.name) and Path(link.name).suffix.lower() != target.suffix.lower():
        return "symlink to a file of another kind (not followed)"
    return None
