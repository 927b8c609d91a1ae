"""The content digest of a large packaged file, hashed once per installed copy of it.

Two caches are named after the files they are derived from: the int8 embedding model
(`quantize.py`, from the 22.9 MB packaged model) and the language identifier's unpacked arrays
(`langid_model.py`, from py3langid's 4.5 MB model). Hashing both took 30 to 40 ms of CPU at
every start, a tenth of a cold `vault-agent search`. So a digest is kept in a small JSON file
beside those caches with the size and modification time (ns) of the file it was computed
from, and is computed again only when either differs: an upgrade or a reinstall writes a new
file. The memo is only a shortcut: when it can't be read or written, the file is hashed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

from vault_agent.private_files import private_dir, private_file

MEMO = "digests.json"


def file_digest(path: Path, salt: str, memo_dir: Path) -> str:
    """sha256 (hex) of `salt` followed by the bytes of `path`, from the memo in `memo_dir`
    when `path` has not changed since it was hashed."""
    stat = path.stat()
    key = f"{salt}\0{path}"
    seen = (stat.st_size, stat.st_mtime_ns)
    memo = _read(memo_dir / MEMO)
    known = memo.get(key)
    if isinstance(known, list) and len(known) == 3 and tuple(known[:2]) == seen:
        return str(known[2])
    digest = hashlib.sha256(salt.encode())
    digest.update(path.read_bytes())
    memo[key] = [*seen, digest.hexdigest()]
    with contextlib.suppress(OSError):  # the next start hashes again: nothing is lost
        _write(memo_dir, memo)
    return digest.hexdigest()


def _read(file: Path) -> dict[str, object]:
    try:
        memo = json.loads(file.read_bytes())
    except (OSError, ValueError):
        return {}
    return memo if isinstance(memo, dict) else {}


def _write(memo_dir: Path, memo: dict[str, object]) -> None:
    """Write the memo whole beside its place, then rename it there: a process reading it at
    the same time sees the old memo or the new one, never half of one."""
    private_dir(memo_dir)
    handle, name = tempfile.mkstemp(dir=memo_dir, prefix=".digests-", suffix=".json")
    os.close(handle)
    temporary = Path(name)
    try:
        with private_file(temporary) as out:
            out.write(json.dumps(memo).encode())
        temporary.replace(memo_dir / MEMO)
    finally:
        temporary.unlink(missing_ok=True)
