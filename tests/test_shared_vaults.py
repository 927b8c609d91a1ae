"""Real vaults written by other people: every one indexes without a crash, and search finds the
note that answers a real user's question. (obsidian-hub, 6,571 notes, belongs to bench/.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import shared_data
from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex

VAULTS = [
    "obsidian-help-en",
    "obsidian-release-notes",
    "obsidian-developer-docs",
    "obsidian-tasks",
    "kepano-obsidian",
]


@pytest.fixture(scope="module")
def indexed(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[dict[str, VaultIndex]]:
    """Each shared vault (read in place: the indexer never writes to a vault), indexed once."""
    opened: dict[str, VaultIndex] = {}
    try:
        for name in VAULTS:
            vault = shared_data("vaults", name)
            settings = Settings(vault=vault, data_dir=tmp_path_factory.mktemp(name))
            opened[name] = VaultIndex(settings, embedder=embedder, sparse=sparse)
            opened[name].indexer.sync()
        yield opened
    finally:
        for vault_index in opened.values():
            vault_index.close()


@pytest.mark.parametrize("name", VAULTS)
def test_real_vault_indexes_every_note_or_says_why(
    name: str, indexed: dict[str, VaultIndex]
) -> None:
    vault_index = indexed[name]
    notes = [
        p
        for p in Path(vault_index.settings.vault_root).rglob("*.md")
        if not any(
            part.startswith(".") for part in p.relative_to(vault_index.settings.vault_root).parts
        )
    ]
    statuses = vault_index.indexer.file_status()
    assert len(statuses) == len(notes)
    assert not [s for s in statuses if s.state == "failed"]
    assert all(s.reason for s in statuses if s.state != "indexed")
    indexed_statuses = [s for s in statuses if s.state == "indexed"]
    assert len(indexed_statuses) >= 0.99 * len(notes)
    assert vault_index.store.count() == sum(s.chunks for s in indexed_statuses)


def test_links_and_backlinks_of_a_real_vault(indexed: dict[str, VaultIndex]) -> None:
    graph = indexed["obsidian-help-en"].graph
    backlinks = graph.backlinks("Obsidian Sync/Introduction to Obsidian Sync.md")
    assert len(backlinks) >= 5
    for source in backlinks[:5]:
        assert "Obsidian Sync/Introduction to Obsidian Sync.md" in graph.outgoing(source)


def test_dev_questions_find_their_note_in_the_top_5(indexed: dict[str, VaultIndex]) -> None:
    questions = [
        json.loads(line)
        for line in shared_data("qa", "obsidian-help-en.dev.jsonl").read_text().splitlines()
        if line.strip()
    ]
    searcher = indexed["obsidian-help-en"].searcher
    found = 0
    misses = []
    for question in questions:
        if question.get("note") is None:
            continue
        expected = {question["note"], *question.get("notes", []), *question.get("also_ok", [])}
        top = [hit.file for hit in searcher.search(question["q"], limit=5)]
        if expected & set(top):
            found += 1
        else:
            misses.append((question["q"], question["note"], top))
    answerable = sum(1 for q in questions if q.get("note") is not None)
    assert found >= 0.9 * answerable, misses
