"""The extractive profile (no model), the auto profile's choice, and `vault-agent ask`."""

from __future__ import annotations

import re
import shutil
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from agent_helpers import ask, done_of, names, of_type
from conftest import EXAMPLE_VAULT
from fake_llm import FakeTurn, fake_provider
from vault_agent.agent.citations.links import (
    find_citations,
)
from vault_agent.agent.events import ToolCallEvent, ToolResultEvent
from vault_agent.agent.extractive import DISCLAIMER, NOT_FOUND, ExtractiveModel
from vault_agent.agent.passages import Passage
from vault_agent.cli.main import app
from vault_agent.config import LlmSettings
from vault_agent.index import vault_index as vault_index_module
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex
from vault_agent.llm.ollama import OllamaModel
from vault_agent.llm.registry import select_model

FEED_QUESTION = "When did I last feed the sourdough starter?"


def cited_files(answer: str, index: VaultIndex) -> list[str]:
    """The vault files an answer's citations resolve to (None for unresolvable ones)."""
    body = answer.split("\nSources:")[0]
    return [index.graph.resolve(c.target, "") or "?" for c in find_citations(body)]


async def test_extractive_answers_from_the_vault_with_valid_citations(
    agent_index: VaultIndex,
) -> None:
    events = await ask(agent_index, ExtractiveModel(agent_index.embedder), FEED_QUESTION)
    assert names(events)[:4] == ["status", "tool_call", "status", "tool_result"]
    [call] = of_type(events, ToolCallEvent)
    assert call.name == "search_notes" and call.arguments["query"] == FEED_QUESTION
    done = done_of(events)
    assert done.profile == "extractive" and done.usage.total_tokens == 0
    assert done.removed_citations == []
    files = cited_files(done.answer, agent_index)
    assert files and "?" not in files
    # "last": the newest daily note that mentions feeding comes first.
    first = agent_index.settings.vault_root / files[0]
    assert files[0].startswith("Daily/")
    assert re.search(r"\bfed\b|\bfeed", first.read_text(encoding="utf-8"), re.IGNORECASE)
    assert DISCLAIMER in done.answer
    sources = done.answer.split("Sources:\n")[1].splitlines()
    assert len(sources) == len(done.sources) == len(set(files))
    assert all(source.startswith("- [[") for source in sources)


async def test_extractive_finds_the_note_named_in_the_question(agent_index: VaultIndex) -> None:
    events = await ask(agent_index, ExtractiveModel(agent_index.embedder), "Who is Maya?")
    done = done_of(events)
    assert done.sources[0].file == "People/Maya Okafor.md"
    assert "senior data engineer" in done.answer


async def test_extractive_says_so_when_the_notes_have_nothing(agent_index: VaultIndex) -> None:
    model = ExtractiveModel(agent_index.embedder)
    events = await ask(agent_index, model, "What is the capital of Australia?")
    # The search still ran and found *something*; the extractive model judged it irrelevant.
    assert of_type(events, ToolResultEvent)[0].notes
    done = done_of(events)
    assert done.answer == NOT_FOUND and done.sources == []


def test_extractive_quotes_drop_the_notes_own_links() -> None:
    passage = Passage(
        1,
        "[[Daily/2026-11-03]]",
        "## Log\n- Fed Gus twice, as in\n  [[Sourdough Starter#Reviving|reviving]]. ^block-1\n"
        "- Read [DDIA](Reading/DDIA.md) chapter 5.\n- #daily",
        "2026-11-03",
    )
    answer = ExtractiveModel(embedder=None).compose("When did I feed Gus?", [passage])
    assert "- Fed Gus twice, as in reviving. [[Daily/2026-11-03]]" in answer
    assert [c.target for c in find_citations(answer)] == ["Daily/2026-11-03"] * 2
    assert "^block-1" not in answer


async def test_auto_profile_without_key_or_ollama_answers_extractively(
    agent_index: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    monkeypatch.setenv("OLLAMA_HOST", f"http://127.0.0.1:{_free_port()}")
    model, why = await select_model(LlmSettings(), lambda: ExtractiveModel(agent_index.embedder))
    assert isinstance(model, ExtractiveModel) and "Using extractive answers" in why
    done = done_of(await ask(agent_index, model, FEED_QUESTION))
    assert done.profile == "extractive" and done.sources


async def test_auto_profile_prefers_a_running_ollama(
    agent_index: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    script = [FakeTurn.text("Your notes don't say.")]
    async with fake_provider("ollama", script) as (url, _):
        monkeypatch.setenv("OLLAMA_HOST", url)
        model, why = await select_model(LlmSettings(), lambda: ExtractiveModel())
        assert isinstance(model, OllamaModel) and "Ollama answered" in why
        done = done_of(await ask(agent_index, model, "Anything?"))
        await model.aclose()
    assert done.profile == "ollama" and done.model == "qwen2.5:3b"


def test_cli_ask_answers_offline_with_the_extractive_profile(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
) -> None:
    """The README's demo: a fresh index of examples/vault, no key, no Ollama."""
    # The session's models instead of loading them again (the same classes, just shared).
    monkeypatch.setattr(
        vault_index_module, "MiniLmEmbedder", SimpleNamespace(from_settings=lambda _: embedder)
    )
    monkeypatch.setattr(vault_index_module, "Bm25Encoder", lambda: sparse)
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    monkeypatch.setenv("OLLAMA_HOST", f"http://127.0.0.1:{_free_port()}")
    monkeypatch.setenv("VAULT_AGENT_DATA_DIR", str(tmp_path / "data"))
    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    result = CliRunner().invoke(
        app,
        [
            "ask",
            FEED_QUESTION,
            "--vault",
            str(vault),
            "--verbose",
            "--note",
            "Recipes/Sourdough Starter.md",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Using extractive answers (no language model)" in result.stderr
    assert '→ search_notes {"query": "When did I last feed' in result.stderr
    assert "← " in result.stderr and "extractive (hybrid search), 2 turns" in result.stderr
    answer = result.stdout
    assert answer.startswith("Here is what your notes say about:")
    assert "\nSources:\n- [[Daily/" in answer
    assert not list((vault).rglob("*.json")), "nothing may be written into the vault"

    again = CliRunner().invoke(app, ["ask", "Who is Maya?", "--vault", str(vault), "--no-sync"])
    assert again.exit_code == 0, again.output
    assert "[[People/Maya Okafor" in again.stdout


def test_cli_ask_rejects_an_unknown_profile(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["ask", "x", "--vault", str(tmp_path), "--profile", "gpt"])
    assert result.exit_code == 2 and "unknown profile 'gpt'" in result.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
