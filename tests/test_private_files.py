"""The index, its caches and the token are private whatever the umask: a real sync (notes and a
PDF, so the link cache, the extract cache and the Qdrant Edge shard are all written) and the
token file, under umask 000 and 022; then the same files found loosened, tightened when the
index opens again.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pdf_factory import write_pdf
from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex
from vault_agent.private_files import private_dir, write_private
from vault_agent.server.token import resolve_token

OTHERS = stat.S_IRWXG | stat.S_IRWXO


@pytest.fixture(params=[0o000, 0o022], ids=["umask 000", "umask 022"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    """Run the test under this umask (the process's: restored after)."""
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def a_vault(root: Path) -> Settings:
    vault = root / "vault"
    vault.mkdir()
    (vault / "Garden.md").write_text("# Garden\n\nWater the tomatoes. See [[Kitchen]].\n")
    (vault / "Kitchen.md").write_text("# Kitchen\n\nFeed the sourdough starter at 07:45.\n")
    write_pdf(vault / "manual.pdf", [["The dishwasher manual, page one."]])
    return Settings(vault=vault, data_dir=root / "data" / "nested", config_dir=root / "config")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def everything_under(root: Path) -> list[Path]:
    return [root, *sorted(root.rglob("*"))]


def test_an_index_and_a_token_made_under_any_umask_are_private(
    umask: int, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.delenv("VAULT_AGENT_TOKEN", raising=False)
    settings = a_vault(tmp_path)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        report = index.indexer.sync()
    assert report.indexed >= 3, report  # the PDF too: its extract is cached
    token = resolve_token(settings)

    data = settings.vault_data_dir
    # Every folder made on the way to the index, from the first one missing: 0700.
    for folder in (tmp_path / "data", settings.data_dir, data.parent, data):
        assert mode(folder) == 0o700, folder
    ours = [
        data / "links.sqlite3",
        *(p for p in (data / "links.sqlite3-wal", data / "links.sqlite3-shm") if p.exists()),
        *sorted((data / "extract-cache").rglob("*.json.gz")),
    ]
    assert len(ours) >= 2
    for file in ours:
        assert mode(file) == 0o600, file
    for folder in (data / "extract-cache", *(data / "extract-cache").iterdir()):
        assert mode(folder) == 0o700, folder
    # Qdrant Edge's own files: inside a folder only the owner may enter, and made private
    # when the index closes (the engine creates them 0644 minus the umask).
    assert mode(settings.edge_path) == 0o700
    edge_files = everything_under(settings.edge_path)
    assert len(edge_files) > 3 and [p for p in edge_files if mode(p) & OTHERS] == []
    assert token.path is not None
    assert mode(token.path) == 0o600 and mode(token.path.parent) == 0o700


def test_index_and_token_files_found_loosened_are_tightened_at_start(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.delenv("VAULT_AGENT_TOKEN", raising=False)
    settings = a_vault(tmp_path)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
    resolve_token(settings)
    # An older version, a copy, a restored backup: everything readable, files writable, by all.
    loosened = [*everything_under(settings.vault_data_dir), *everything_under(settings.config_dir)]
    for path in loosened:
        if not path.is_symlink():
            path.chmod(0o777 if path.is_dir() else 0o666)

    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        opened = [p for p in everything_under(settings.vault_data_dir) if not p.is_symlink()]
        assert [p for p in opened if mode(p) & OTHERS] == []
    resolve_token(settings)
    assert [p for p in everything_under(settings.config_dir) if mode(p) & OTHERS] == []
    # Tightened, not reset: the owner keeps what it had.
    assert mode(settings.vault_data_dir / "links.sqlite3") == 0o600


def test_private_writes_never_loosen_and_never_follow_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        folder = private_dir(tmp_path / "a" / "b")
        write_private(folder / "f", b"secret")
        (folder / "f").chmod(0o644)
        write_private(folder / "f", b"again")  # rewriting a loosened file tightens it
    finally:
        os.umask(old)
    assert (mode(tmp_path / "a"), mode(folder), mode(folder / "f")) == (0o700, 0o700, 0o600)
    (folder / "f").chmod(0o400)
    private_dir(folder)
    assert mode(folder / "f") == 0o400  # private_dir does not touch what is inside
