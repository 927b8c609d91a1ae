"""A name the whole vault writes is its subject: the line that answers needn't repeat it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_helpers import ask, done_of, write_notes
from conftest import shared_notes
from vault_agent.agent.extractive import ExtractiveAnswerer, opening, pervasive
from vault_agent.agent.extractive.pervasive import vault_sample, written_widely
from vault_agent.agent.reader import ToolsContext
from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex

#: Obsidian's own release notes: most name Obsidian, the one that brought the audio recorder
#: doesn't ("Audio recorder plugin: record audio and save as attachment...").
RELEASES = [
    "v0.0.3.md",
    "v0.4.1.md",
    "v0.5.0.md",
    "v0.7.0.md",
    "v0.8.3.md",
    "v0.10.8.md",
    "v0.14.0.md",
    "v1.0.0.md",
    "v1.0.2.md",
    "v1.4.md",
    "v1.7.md",
    "v1.12.md",
]
QUESTION = "When did the audio recorder first show up in Obsidian?"


async def test_a_name_the_whole_vault_writes_is_not_required_of_the_answer(
    tmp_path: Path,
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault = shared_notes("obsidian-release-notes", RELEASES, tmp_path / "vault")
    settings = Settings(vault=vault, data_dir=tmp_path / "data")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        context = ToolsContext.from_index(index)
        analyzer = index.searcher.sparse.analyzer
        assert written_widely(analyzer.terms("Obsidian"), vault_sample(context))
        assert not written_widely(analyzer.terms("Canvas"), vault_sample(context))

        async def first_line() -> str:
            done = done_of(await ask(index, ExtractiveAnswerer(), QUESTION, context=context))
            return done.answer.splitlines()[0]

        answer = await first_line()
        assert answer.startswith("Audio recorder plugin: record audio") and answer.endswith(
            "[[v0.0.3]]"
        ), answer
        # With releases ordered only among those within 0.08 of the closest (as they were),
        # still the audio recorder's line...
        monkeypatch.setattr(opening, "RELEASES_WITHIN", 0.08)
        assert (await first_line()).startswith("Audio recorder plugin: record audio")
        # ...but with the name required of every line, lines merely mentioning Obsidian come
        # first, and the audio recorder's falls out of that window.
        monkeypatch.setattr(pervasive, "PERVASIVE_SHARE", 1.01)
        assert "Audio recorder" not in await first_line()


def test_the_sample_is_read_again_when_the_vault_changes(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    notes = {f"Log/{day:02}.md": f"# Day {day}\n\nWorked on Zephyr all day." for day in range(1, 6)}
    write_notes(tmp_path / "vault", notes)
    settings = Settings(vault=tmp_path / "vault", data_dir=tmp_path / "data")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        context = ToolsContext.from_index(index)
        zephyr = index.searcher.sparse.analyzer.terms("Zephyr")
        assert written_widely(zephyr, vault_sample(context))
        later = {f"Garden/{bed:02}.md": f"# Bed {bed}\n\nPlanted garlic." for bed in range(40)}
        write_notes(tmp_path / "vault", later)
        index.indexer.sync()
        # 5 of 45 notes name it now: no longer the vault's subject.
        assert not written_widely(zephyr, vault_sample(context))
