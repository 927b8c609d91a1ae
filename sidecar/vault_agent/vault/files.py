"""Which files make up the vault, safe vault-relative paths, and the one way to read a file.

Obsidian's own folders (.obsidian, .trash), hidden folders and configured ignore globs are
never indexed. Symlinked folders are not followed (loops and escapes), and a symlinked file
counts only when it points at a file the vault would index itself, of the same kind: a link
named like a note must not carry the content of a hidden, ignored or non-note file
("Inbox/notes.md" -> ".git/config") into the index.

A file is read later than it is scanned, and in between it can become a symlink to what the
scan refused. So every reader of a vault file's bytes goes through :func:`open_vault_file`,
which applies the scan's rules again and opens exactly the file it checked: folder by folder
from the vault's root, following no symlink swapped in after the check.
"""

from __future__ import annotations

import errno
import fnmatch
import functools
import io
import os
import re
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from stat import S_ISDIR, S_ISLNK, S_ISREG

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
    """A requested path would leave the vault (or never ends: a symlink loop; or changed while
    it was resolved)."""


class VaultFolderError(OSError):
    """The vault's own folder is gone or can't be read: what it holds is unknown, and no note
    of it may be taken for deleted."""


class RefusedFileError(ValueError):
    """A file the vault does not index (hidden, ignored, or reached through a symlink that is
    not followed): its bytes are never read. The message says why."""


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
    return _walk(root, str(root), "", ignore, problems)


def _walk(
    root: Path,
    start: str,
    start_prefix: str,
    ignore: Sequence[str],
    problems: dict[str, str] | None,
) -> Iterator[VaultFile]:
    """`scan_vault` from the folder `start` of the (resolved) vault `root`, whose
    vault-relative prefix is `start_prefix` ("" for the root, else ending with "/")."""
    # (folder, its vault-relative prefix): string joins, not pathlib, since a no-change
    # re-sync of a big vault is mostly this loop.
    stack: list[tuple[str, str]] = [(start, start_prefix)]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
        except FileNotFoundError as error:
            if not prefix:  # the vault itself (moved, unmounted): nothing of it is gone
                raise VaultFolderError(f"the vault folder is gone: {root}") from error
            continue  # vanished while scanning: its files aren't in the vault now
        except OSError as error:
            # Unreadable (permissions, a network share away): what is in it is unknown, not
            # gone. Its key ends with "/", so the indexer keeps the notes it had there.
            _unreadable(root, prefix, error, problems)
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            relative = prefix + entry.name
            if is_ignored(relative, ignore):
                continue
            if not is_utf8(entry.name):
                _unnamed(relative, entry.is_dir(follow_symlinks=False), problems)
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
            except PermissionError as error:
                if entry.is_symlink():
                    continue  # what it points to can't be looked at; this folder can
                # A folder that can be listed but not looked into (no search permission):
                # what it holds is unknown, not gone.
                _unreadable(root, prefix, error, problems)
                break
            except OSError:
                continue  # deleted while scanning, dangling symlink, or a symlink loop
            if not S_ISREG(stat.st_mode):
                continue
            yield VaultFile(file=relative, mtime=stat.st_mtime, size=stat.st_size)


def _unreadable(root: Path, prefix: str, error: OSError, problems: dict[str, str] | None) -> None:
    """The folder at `prefix` can't be read: put in `problems` (its notes are kept as they
    were); the vault's own folder raises `VaultFolderError`."""
    if not prefix:
        message = f"the vault folder can't be read: {root}: {error.strerror or error}"
        raise VaultFolderError(message) from error
    if problems is not None:
        problems[prefix] = f"folder can't be read: {error.strerror or error}"


def scan_paths(
    root: Path, files: Sequence[str], ignore: Sequence[str], problems: dict[str, str]
) -> list[VaultFile]:
    """What `scan_vault` would yield of these vault-relative paths (a watcher's few): each
    one's stat, unless it is ignored, gone, not a regular file, an unfollowable symlink (a
    note's reason then put in `problems`) or under a symlinked folder, which the scan never
    enters (a watcher reports changes behind one under the link's path). A path that is a
    folder (not a symlink) stands for every file the scan finds in it: a folder renamed or
    moved into the vault is one change to a watcher, not one per file."""
    root = root.resolve()
    found: list[VaultFile] = []
    for file in files:
        if is_ignored(file, ignore):
            continue
        if not is_utf8(file):
            _unnamed(file, False, problems)
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
        except PermissionError as error:  # in a folder that can't be looked into: not gone
            folder = file.rpartition("/")[0]
            _unreadable(root, f"{folder}/" if folder else "", error, problems)
            continue
        except (OSError, ValueError):
            continue
        if path == root:
            continue  # the vault itself: the full scan's job
        if S_ISDIR(stat.st_mode) and not link.is_symlink():
            found.extend(_walk(root, str(path), file.rstrip("/") + "/", ignore, problems))
        elif S_ISREG(stat.st_mode):
            found.append(VaultFile(file=file, mtime=stat.st_mtime, size=stat.st_size))
    return found


#: Why a file whose name is not UTF-8 is left out.
NOT_UTF8_NAME = "its name is not valid UTF-8 (not indexed: rename it)"


def is_utf8(name: str) -> bool:
    """True when a file name read from the disk is text: Python keeps a name's undecodable
    bytes as lone surrogates, which no store, model or JSON document takes."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable(name: str) -> str:
    """`name` with any undecodable bytes shown as U+FFFD, to report it."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _unnamed(relative: str, folder: bool, problems: dict[str, str] | None) -> None:
    """Report a note, PDF or folder whose name is not UTF-8 (by its printable name)."""
    if problems is not None and (folder or is_note(relative) or is_pdf(relative)):
        problems[printable(relative) + ("/" if folder else "")] = NOT_UTF8_NAME


def _under_symlinked_folder(root: Path, file: str) -> bool:
    """True when a folder on the way from `root` (resolved) to `file` is a symlink."""
    try:
        return (root / file).parent.resolve() != root.joinpath(*PurePosixPath(file).parts[:-1])
    except (OSError, RuntimeError):  # a loop on the way
        return True


def is_ignored(relative: str, ignore: Sequence[str]) -> bool:
    """True when a vault-relative path, or a folder it lies in, matches an ignore glob (or it
    lies under a hidden folder). A folder named without a glob ("Private", "Private/") keeps
    out everything under it, whoever asks: the full scan, which stops at the folder, and the
    watcher and symlink checks, which ask about one file's whole path."""
    if relative.startswith(".") or "/." in relative:
        return True
    matcher = _ignore_matcher(tuple(ignore))
    if matcher is None:
        return False
    # Compared composed (NFC): macOS writes names decomposed ("Prive\u0301"), settings are
    # typed composed ("Privé/**"), and its file systems take one for the other.
    parts = unicodedata.normalize("NFC", relative).split("/")
    for end in range(1, len(parts) + 1):
        path = "/".join(parts[:end])
        if matcher.match(path) is not None or matcher.match(path + "/") is not None:
            return True
    return False


@functools.lru_cache(maxsize=8)
def _ignore_matcher(ignore: tuple[str, ...]) -> re.Pattern[str] | None:
    """All ignore globs as one regex (fnmatch's own translation), compiled once."""
    if not ignore:
        return None
    # Case is ignored where the file system ignores it (Windows, and macOS by default): there
    # a link to "private/Diary.md" opens the note an ignored "Private/**" holds.
    flags = re.IGNORECASE if os.name == "nt" or sys.platform == "darwin" else 0
    globs = (unicodedata.normalize("NFC", glob) for glob in ignore)  # as paths are (`is_ignored`)
    return re.compile("|".join(f"(?:{fnmatch.translate(glob)})" for glob in globs), flags)


def resolve_in_vault(root: Path, file: str) -> Path:
    """The absolute path of a vault-relative `file`, refusing anything that leaves the vault
    (`..`, absolute paths, symlinks pointing outside). Checks a path: to read the file, use
    `open_vault_file`."""
    relative = _vault_relative(file)
    root = root.resolve()
    try:
        candidate = (root / relative).resolve()
    except RuntimeError:  # Python 3.11 reports a symlink loop so
        raise PathOutsideVaultError(f"path {file!r} is a symlink loop") from None
    except OSError as error:  # a symlink that was a file by the time it was read (EINVAL)...
        reason = error.strerror or type(error).__name__
        raise PathOutsideVaultError(f"path {file!r} could not be resolved: {reason}") from None
    if not candidate.is_relative_to(root):
        raise PathOutsideVaultError(f"path {file!r} is outside the vault")
    return candidate


def symlink_problem(link: Path, root: Path, ignore: Sequence[str] = ()) -> str | None:
    """Why the symlink `link` is not followed, or None when it leads to a file in `root` that
    the vault would index itself (not hidden, not ignored), of the kind its own name says."""
    return _follow(link, root.resolve(), ignore)[1]


def open_vault_file(root: Path, file: str, ignore: Sequence[str] = ()) -> io.BufferedReader:
    """The vault file `file` opened for reading (binary), if the scan would index it.

    The scan's rules, applied now: inside the vault, not hidden, not ignored, no symlinked
    folder on the way, a symlinked file only as `symlink_problem` allows. Then the file
    checked is the file opened: each folder from the root and the file itself are opened
    without following a symlink, so one swapped in after the check is refused, not read.
    Raises `PathOutsideVaultError` or `RefusedFileError` (the reason), or `OSError`."""
    relative = _vault_relative(file)
    root = root.resolve()
    if not relative.parts:
        raise RefusedFileError("the vault itself is no file")
    if is_ignored(relative.as_posix(), ignore):
        raise RefusedFileError("a hidden or ignored file (not read)")
    path = root / relative
    if path.is_symlink():
        if _under_symlinked_folder(root, relative.as_posix()):
            raise RefusedFileError("in a symlinked folder (not followed)")
        target, problem = _follow(path, root, ignore)
        if target is None:
            raise RefusedFileError(problem or "symlink not followed")
        relative = PurePosixPath(target.relative_to(root).as_posix())
    if _NO_FOLLOW_WALK:
        descriptor = _open_beneath(root, relative.parts)
    else:  # Windows: no O_NOFOLLOW nor dir_fd; the file opened is at least the one stat'ed
        descriptor = _open_checked(root.joinpath(*relative.parts))
    try:
        if not S_ISREG(os.fstat(descriptor).st_mode):
            raise RefusedFileError("not a regular file (not read)")
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_vault_file(
    root: Path, file: str, ignore: Sequence[str] = (), most: int | None = None
) -> bytes:
    """The bytes of the vault file `file`, read through `open_vault_file` (its errors too);
    with `most`, no more than `most` + 1 of them (a file that grew since its size was seen
    says so by its length, without being read whole)."""
    with open_vault_file(root, file, ignore) as stream:
        return stream.read() if most is None else stream.read(most + 1)


def _vault_relative(file: str) -> PurePosixPath:
    """`file` as a relative path that stays in the vault (`..` and absolute paths refused)."""
    if not file or "\x00" in file:
        raise PathOutsideVaultError(f"invalid note path {file!r}")
    # A backslash separates folders on Windows only: elsewhere it is a letter of a file's name
    # (a note named "a\b.md" is not "b.md" in folder "a"): read as a slash, it read another.
    relative = PurePosixPath(file.replace("\\", "/") if os.sep == "\\" else file)
    if relative.is_absolute() or ".." in relative.parts:
        raise PathOutsideVaultError(f"path {file!r} is outside the vault")
    return relative


def _follow(link: Path, root: Path, ignore: Sequence[str]) -> tuple[Path | None, str | None]:
    """(where the symlink `link` leads, None) when it may be followed, else (None, why not).
    Resolved once: what is checked is what the caller then opens."""
    try:
        target = link.resolve(strict=True)
    except RuntimeError:  # Python 3.11's word for a loop
        return None, "symlink loop"
    except OSError as error:
        if error.errno == errno.ELOOP:
            return None, "symlink loop"
        return None, "broken symlink: its target does not exist"
    if not target.is_relative_to(root):
        return None, "symlink to a file outside the vault (not followed)"
    if is_ignored(target.relative_to(root).as_posix(), ignore):
        return None, "symlink to a hidden or ignored file (not followed)"
    if is_note(link.name) and Path(link.name).suffix.lower() != target.suffix.lower():
        return None, "symlink to a file of another kind (not followed)"
    return target, None


#: Opening a path folder by folder without following symlinks needs both (not on Windows).
_NO_FOLLOW_WALK = hasattr(os, "O_NOFOLLOW") and os.open in os.supports_dir_fd
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NO_FOLLOW
# Non-blocking: a FIFO swapped in must not hang the open (it is then refused by its type).
_FILE_FLAGS = os.O_RDONLY | _NO_FOLLOW | getattr(os, "O_NONBLOCK", 0)
#: What opening a symlink with O_NOFOLLOW fails with (FreeBSD says EMLINK; a folder, ENOTDIR).
_SYMLINK_ERRORS = {errno.ELOOP, errno.EMLINK, errno.ENOTDIR}


def _open_beneath(root: Path, parts: Sequence[str]) -> int:
    """A descriptor of `root`/`parts`, each part opened in the one before, no link followed."""
    descriptor = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        for part in parts[:-1]:
            descriptor, parent = _open_at(part, descriptor, _FOLDER_FLAGS), descriptor
            os.close(parent)
        return _open_at(parts[-1], descriptor, _FILE_FLAGS)
    finally:
        os.close(descriptor)


def _open_at(name: str, folder: int, flags: int) -> int:
    try:
        return os.open(name, flags, dir_fd=folder)
    except OSError as error:
        if error.errno in _SYMLINK_ERRORS and _is_link_at(name, folder):
            raise RefusedFileError("a symlink on its path (not followed)") from None
        raise


def _is_link_at(name: str, folder: int) -> bool:
    try:
        return S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _open_checked(path: Path) -> int:
    """A descriptor of `path`, refused if `path` is a symlink or names another file (device and
    inode) once opened than just before: narrower than `_open_beneath`, which no swap passes."""
    checked = path.lstat()
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    opened = os.fstat(descriptor)
    if S_ISLNK(checked.st_mode) or (opened.st_dev, opened.st_ino) != (
        checked.st_dev,
        checked.st_ino,
    ):
        os.close(descriptor)
        raise RefusedFileError("changed after it was checked (not read)")
    return descriptor
