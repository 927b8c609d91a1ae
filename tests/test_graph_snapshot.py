"""The link graph saved at shutdown (`index/sync/graph_snapshot.py`): a restart that loads it
must end with exactly the graph, and the stored `links`, that building it from the link cache
gives, whatever changed while the sidecar was down; anything it can't vouch for is rebuilt."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLE_VAULT
from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.store.protocol import VAULT_SOURCE, SearchFilter
from vault_agent.index.sync import links as links_module
from vault_agent.index.vault_index import VaultIndex

GraphView = dict[str, tuple[list[str], list[str], list[str]]]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    copy = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, copy)
    (copy / "Hub.md").write_text("[[Country Loaf]] [[Moved Away]] [[Later]] [[nick]]\n")
    (copy / "Moved Away.md").write_text("Links to [[Hub]].\n")
    return copy


@pytest.fixture
def indexed(vault: Path, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder) -> Settings:
    """A vault indexed once and shut down (which saves the graph)."""
    settings = Settings(vault=vault, data_dir=tmp_path / "data")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
    return settings


def view(index: VaultIndex) -> tuple[GraphView, dict[str, list[str]]]:
    """Every file's outgoing links, backlinks and unresolved targets, and every note's stored
    `links` payload."""
    graph = index.graph
    files = {
        file: (graph.outgoing(file), graph.backlinks(file), graph.unresolved(file))
        for file in sorted(graph.files())
    }
    stored = {
        payload.file: payload.links
        for payload in index.store.scroll(SearchFilter(chunk_index=0))  # where links live
    }
    return files, stored


def restart(
    settings: Settings, embedder: MiniLmEmbedder, sparse: Bm25Encoder, *, saved: bool
) -> tuple[bool, tuple[GraphView, dict[str, list[str]]]]:
    """Restart on a copy of the index (with or without its saved graph) and sync: whether the
    saved graph was used, and what the graph and store hold then."""
    data = settings.data_dir.with_name(f"{settings.data_dir.name}-{saved}")
    shutil.copytree(settings.data_dir, data)
    if not saved:
        for path in data.rglob("links-graph.marshal"):
            path.unlink()
    copy = Settings(vault=settings.vault, data_dir=data)
    with VaultIndex(copy, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        return index.indexer.links.restored, view(index)


def test_a_restart_after_edits_adds_deletes_and_renames_matches_a_full_load(
    indexed: Settings, vault: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    (vault / "Moved Away.md").rename(vault / "Elsewhere.md")  # renamed: [[Moved Away]] dangles
    (vault / "Later.md").write_text("---\naliases: [nick]\n---\nNew, with an alias.\n")
    (vault / "Recipes" / "Sourdough Starter.md").unlink()
    loaf = vault / "Recipes" / "Country Loaf.md"
    loaf.write_text(loaf.read_text(encoding="utf-8") + "\nNow see [[Hub]] and [[Elsewhere]].\n")
    (vault / "scan.pdf").write_bytes(b"not really a pdf")  # a new attachment: a link target
    restored, after_restore = restart(indexed, embedder, sparse, saved=True)
    built, after_build = restart(indexed, embedder, sparse, saved=False)
    assert (restored, built) == (True, False)
    assert after_restore == after_build
    graph, stored = after_restore
    assert graph["Hub.md"][0] == ["Recipes/Country Loaf.md", "Later.md"]
    assert "Recipes/Country Loaf.md" in graph["Hub.md"][1]
    assert stored["Hub.md"] == ["Recipes/Country Loaf.md", "Later.md"]
    assert "Recipes/Sourdough Starter.md" not in graph


def test_a_restart_with_nothing_changed_uses_the_saved_graph_and_reparses_nothing(
    indexed: Settings,
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed: list[str] = []
    real = links_module.parse_note
    monkeypatch.setattr(links_module, "parse_note", lambda f, raw: parsed.append(f) or real(f, raw))
    restored, after_restore = restart(indexed, embedder, sparse, saved=True)
    assert restored
    assert parsed == []
    assert after_restore == restart(indexed, embedder, sparse, saved=False)[1]


def test_a_graph_saved_before_the_cache_last_changed_is_not_trusted(
    indexed: Settings, vault: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    # A sidecar killed after a sync changed the link cache never saved its graph: the one
    # saved earlier no longer matches the cache's stamp.
    with VaultIndex(indexed, embedder=embedder, sparse=sparse) as index:
        (vault / "Later.md").write_text("Appears while the sidecar runs: [[Hub]].\n")
        index.indexer.sync()
        assert index.indexer.link_cache.stamp is None  # the cache changed since the save
        index.indexer.links.cache.commit()
        index.indexer.links.save = lambda: None  # type: ignore[method-assign]  # "killed"
    with VaultIndex(indexed, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        assert not index.indexer.links.restored
        assert index.graph.backlinks("Hub.md") == ["Later.md", "Moved Away.md"]


@pytest.mark.parametrize("damage", [b"", b"\x00garbage", b"\xe9" * 100])
def test_a_damaged_saved_graph_is_rebuilt_from_the_cache(
    indexed: Settings, embedder: MiniLmEmbedder, sparse: Bm25Encoder, damage: bytes
) -> None:
    snapshot = next(indexed.data_dir.rglob("links-graph.marshal"))
    snapshot.write_bytes(damage)
    with VaultIndex(indexed, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        assert not index.indexer.links.restored
        assert index.graph.backlinks("Hub.md") == ["Moved Away.md"]
    with VaultIndex(indexed, embedder=embedder, sparse=sparse) as index:
        index.indexer.load_graph()  # a reader that runs no sync gets the saved graph too
        assert index.indexer.links.restored
        assert index.graph.backlinks("Hub.md") == ["Moved Away.md"]


def test_notes_the_store_changed_after_the_save_are_caught_up(
    indexed: Settings, vault: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    # A sync interrupted after writing the store but before committing the link cache: the
    # saved graph still matches the cache, not the store. Its notes are checked against the
    # store's content hashes and the ones that differ are parsed again.
    with VaultIndex(indexed, embedder=embedder, sparse=sparse) as index:
        states = index.store.file_states(VAULT_SOURCE)
        assert "Hub.md" in states
        (vault / "Hub.md").write_text("Only [[Later]] now.\n")
        (vault / "Later.md").write_text("Here.\n")
        index.indexer.links.written = lambda note, links: None  # type: ignore[method-assign]
        index.indexer.links.removed = lambda files: None  # type: ignore[method-assign]
        index.indexer.links.reconcile = lambda store: None  # type: ignore[method-assign]
        index.indexer.sync()
        index.indexer.links.save = lambda: None  # type: ignore[method-assign]  # "crashed"
    with VaultIndex(indexed, embedder=embedder, sparse=sparse) as index:
        index.indexer.load_graph()
        assert index.indexer.links.restored
        assert index.graph.outgoing("Hub.md") == ["Later.md"]
        assert index.graph.backlinks("Later.md") == ["Hub.md"]


def test_a_shutdown_during_a_sync_saves_no_graph(
    indexed: Settings, vault: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    with VaultIndex(indexed, embedder=embedder, sparse=sparse) as index:
        (vault / "Later.md").write_text("Appears while the sidecar runs: [[Hub]].\n")
        index.indexer.sync()
        with index.indexer._lock:  # a sync under way: the graph may be halfway through one
            index.indexer.close()
    with VaultIndex(indexed, embedder=embedder, sparse=sparse) as index:
        index.indexer.load_graph()
        assert not index.indexer.links.restored
        assert index.graph.backlinks("Hub.md") == ["Later.md", "Moved Away.md"]
