"""The extractive answer's second reader: USE beside MiniLM, on real notes by others."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from agent_helpers import ask, done_of
from conftest import shared_notes
from vault_agent.agent.extractive import ExtractiveAnswerer
from vault_agent.agent.extractive import second_reader as module
from vault_agent.agent.extractive.second_reader import blended, second_reader
from vault_agent.agent.reader import ToolsContext
from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.embed.use import UseEmbedder
from vault_agent.index.vault_index import VaultIndex

#: Real notes by others, where MiniLM alone opens the answer with a sentence that does not
#: answer (a list's lead-in; a pointer elsewhere and a sentence beside the point).
CASES = {
    "If a task has no priority emoji at all, is it ranked above or below a low-priority task?": (
        "obsidian-tasks",
        ["docs/Getting Started/Priority.md", "docs/Getting Started/Recurring Tasks.md"],
        "If a task has no priority at all, it is considered between low and medium priority.",
    ),
    "Can I list a plugin in the directory without making its source code public?": (
        "obsidian-developer-docs",
        [
            "en/Community directory/Frequently asked questions.md",
            "en/Community directory/Manage your plugin or theme.md",
        ],
        "your source code in a separate private repository.",
    ),
}


@pytest.fixture(scope="module")
def vaults(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[dict[str, tuple[VaultIndex, ToolsContext]]]:
    """Each case's notes, copied into a vault of their own and indexed."""
    opened: dict[str, tuple[VaultIndex, ToolsContext]] = {}
    indexes = []
    for question, (vault, notes, _) in CASES.items():
        root = tmp_path_factory.mktemp(vault)
        settings = Settings(
            vault=shared_notes(vault, notes, root / "vault"), data_dir=root / "data"
        )
        index = VaultIndex(settings, embedder=embedder, sparse=sparse)
        indexes.append(index)
        index.indexer.sync()
        context = ToolsContext.from_index(index)
        context.today = date(2026, 1, 1)
        opened[question] = (index, context)
    yield opened
    for index in indexes:
        index.close()


def _opening(answer: str) -> str:
    """The answer itself: its first two lines."""
    return "\n".join(answer.splitlines()[:2])


async def _answer(opened: tuple[VaultIndex, ToolsContext], question: str) -> str:
    index, context = opened
    return done_of(await ask(index, ExtractiveAnswerer(), question, context=context)).answer


@pytest.mark.parametrize("question", list(CASES))
async def test_two_readers_open_the_answer_with_the_sentence_that_answers(
    vaults: dict[str, tuple[VaultIndex, ToolsContext]], question: str
) -> None:
    answer = await _answer(vaults[question], question)
    assert CASES[question][2] in _opening(answer), answer


@pytest.mark.parametrize("question", list(CASES))
async def test_minilm_alone_opens_with_something_else(
    vaults: dict[str, tuple[VaultIndex, ToolsContext]],
    question: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What the second reader is for: without it, these answers miss.
    monkeypatch.setattr(module, "WEIGHT", 0.0)
    answer = await _answer(vaults[question], question)
    assert CASES[question][2] not in _opening(answer), answer


def test_only_a_vault_minilm_reads_gets_a_second_reader(embedder: MiniLmEmbedder) -> None:
    reader = second_reader(embedder)
    assert isinstance(reader, UseEmbedder)
    assert second_reader(embedder) is reader  # loaded once
    assert second_reader(reader) is None  # USE reads the vault already


def test_the_second_reader_is_mapped_onto_the_first_readers_scale() -> None:
    # USE's typical cosine (its mean over the answer sets' units) reads as MiniLM's typical one.
    assert blended(0.425, 0.309) == pytest.approx(0.425, abs=0.01)
    assert blended(0.8, 0.8) > blended(0.8, 0.3)


async def test_answers_go_on_with_one_reader_when_the_second_cannot_load(
    vaults: dict[str, tuple[VaultIndex, ToolsContext]],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(self: UseEmbedder) -> None:
        raise OSError("weights.npz: No such file or directory")

    monkeypatch.setattr(module, "_reader", [])  # as in a process that never loaded it
    monkeypatch.setattr(UseEmbedder, "load", broken)
    question = next(iter(CASES))
    answer = await _answer(vaults[question], question)
    assert "could not load (weights.npz" in caplog.text
    assert "considered between low and medium priority" in answer  # quoted, by MiniLM alone
    assert module._reader == [None]  # not tried again on every question
