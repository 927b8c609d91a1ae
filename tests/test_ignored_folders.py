"""A folder the settings ignore stays out, however its pattern is written and whoever asks.

The full scan stops at an ignored folder; the watcher, the symlink check and the note reader
ask about one file's whole path. Written as a bare folder name ("Private", "Private/"), the
pattern matched the folder and not the files in it, so a note edited there while the sidecar
watched was indexed, searchable and served, and a note-named symlink into it was followed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from server_support import AUTH, api_settings, serve_api
from test_reliability_vault import change_while_watched
from vault_agent.config import IndexSettings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex
from vault_agent.vault.files import is_ignored

SECRET = "privatediarysecretword"
FOLDER_PATTERNS = ["Private", "Private/", "Private/**", "Priv*"]


@pytest.mark.parametrize("pattern", FOLDER_PATTERNS)
def test_a_folder_pattern_ignores_every_file_under_it(pattern: str) -> None:
    assert is_ignored("Private/Diary.md", [pattern])
    assert is_ignored("Private/2026/Deep/Diary.md", [pattern])
    assert not is_ignored("Public/Private notes.md", [pattern])
    assert not is_ignored("Public.md", [pattern])


@pytest.mark.parametrize(
    ("folder", "pattern"),
    [("Prive\u0301", "Privé/**"), ("Privé", "Prive\u0301/**"), ("Prive\u0301", "Prive\u0301")],
)
def test_a_folder_pattern_ignores_the_folder_however_its_accents_are_written(
    folder: str, pattern: str
) -> None:
    """Found by the security audit: macOS writes a folder's name decomposed (e + a combining
    accent), a pattern typed in the settings is composed; the two never matched, so an
    ignored folder's notes were indexed and served."""
    assert is_ignored(f"{folder}/Diary.md", [pattern])
    assert not is_ignored("Prive/Diary.md", [pattern])


def test_a_nested_folder_pattern_ignores_only_that_folder() -> None:
    assert is_ignored("Work/Private/Diary.md", ["Work/Private"])
    assert not is_ignored("Private/Diary.md", ["Work/Private"])
    assert not is_ignored("Work/Diary.md", ["Work/Private"])


def test_node_modules_is_ignored_at_any_depth_by_default() -> None:
    """Found by the file-system audit: the default `node_modules/**` kept out the vault's
    top folder only; a code project inside the vault had its packages' READMEs indexed."""
    ignore = IndexSettings().ignore
    for file in ("node_modules/a/README.md", "Code/app/node_modules/a/README.md"):
        assert is_ignored(file, ignore), file
    for file in ("Code/node_modules notes.md", "Code/my_node_modules/README.md", "Code/a.md"):
        assert not is_ignored(file, ignore), file


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "Private").mkdir(parents=True)
    (vault / "Public.md").write_text("# Public\n\nNothing to hide.\n", encoding="utf-8")
    return vault


@pytest.mark.parametrize("pattern", ["Private", "Private/"])
def test_a_note_of_an_ignored_folder_edited_while_watched_is_never_indexed(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder, pattern: str
) -> None:
    vault = _vault(tmp_path)
    diary = vault / "Private" / "Diary.md"
    diary.write_text("# Diary\n\nOld entry.\n", encoding="utf-8")
    settings = api_settings(vault, tmp_path, index=IndexSettings(ignore=[pattern]))
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        assert not any(file.startswith("Private/") for file in index.store.file_states())

        def edit_diary() -> None:
            diary.write_text(f"# Diary\n\nThe {SECRET} is 4931.\n", encoding="utf-8")
            (vault / "Fresh.md").write_text("# Fresh\n\nquince\n", encoding="utf-8")

        change_while_watched(index, edit_diary, lambda: "Fresh.md" in index.store.file_states())
        assert "Fresh.md" in index.store.file_states()  # the watcher did run
        assert "Private/Diary.md" not in index.store.file_states()
        assert not index.searcher.search(SECRET, limit=3, mode="sparse")


@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize("pattern", ["Private", "Private/"])
async def test_a_note_of_an_ignored_folder_is_not_served_after_a_path_sync(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder, pattern: str
) -> None:
    vault = _vault(tmp_path)
    (vault / "Private" / "Diary.md").write_text(f"# Diary\n\nThe {SECRET}.\n", encoding="utf-8")
    settings = api_settings(vault, tmp_path, index=IndexSettings(ignore=[pattern]))
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        index.indexer.sync(["Private/Diary.md"])  # what the watcher passes for an edit
        async with serve_api(settings, vault_index=index) as api:
            url = api.url("/v1/notes/Private/Diary.md")
            async with api.session.get(url, headers=AUTH) as response:
                text = await response.text()
    assert response.status == 404, text
    assert SECRET not in text


@pytest.mark.parametrize("pattern", ["Private", "Private/"])
def test_a_symlink_into_an_ignored_folder_is_not_followed(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder, pattern: str
) -> None:
    vault = _vault(tmp_path)
    (vault / "Inbox").mkdir()
    (vault / "Private" / "Diary.md").write_text(f"# Diary\n\nThe {SECRET}.\n", encoding="utf-8")
    (vault / "Inbox" / "Shortcut.md").symlink_to(Path("..", "Private", "Diary.md"))
    settings = api_settings(vault, tmp_path, index=IndexSettings(ignore=[pattern]))
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        assert "Inbox/Shortcut.md" not in index.store.file_states()
        assert not index.searcher.search(SECRET, limit=3, mode="sparse")
