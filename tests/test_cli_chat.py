"""`vault-agent chat`: a terminal conversation whose follow-ups carry the history, answered and
printed as `vault-agent ask` does."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent_helpers import done_event
from fake_llm import FakeLLMServer, FakeTurn
from server_support import IndexedCopy, copy_indexed
from vault_agent.agent.events import DoneEvent
from vault_agent.agent.request import (
    AgentRequest,
)
from vault_agent.cli.chat import converse
from vault_agent.cli.main import app
from vault_agent.index.embed.choose import TextModels


def test_follow_ups_carry_the_answered_turns_and_new_starts_over() -> None:
    lines = iter(["Who is Maya?", "", "And her team?", "/new", "Fresh start?", "/exit", "never"])
    asked: list[AgentRequest] = []

    def ask(request: AgentRequest) -> DoneEvent | None:
        asked.append(request)
        return done_event(f"answer to {request.question}")

    answered = converse(ask, read=lambda _prompt: next(lines), say=lambda _text: None)
    assert answered == 3
    assert [r.question for r in asked] == ["Who is Maya?", "And her team?", "Fresh start?"]
    assert asked[0].history == []
    assert [(t.role, t.content) for t in asked[1].history] == [
        ("user", "Who is Maya?"),
        ("assistant", "answer to Who is Maya?"),
    ]
    assert asked[2].history == []


def test_a_failed_answer_stays_out_of_the_history_and_end_of_input_leaves() -> None:
    lines = iter(["First?", "Second?"])
    asked: list[AgentRequest] = []

    def ask(request: AgentRequest) -> DoneEvent | None:
        asked.append(request)
        return None  # the error was printed

    def read(_prompt: str) -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    assert converse(ask, read=read, say=lambda _text: None) == 0
    assert asked[1].history == []


class ThreadedFakeProvider:
    """A fake OpenAI-compatible server in a thread of its own (the CLI runs its own loop)."""

    def __init__(self, script: list[FakeTurn]) -> None:
        self.server = FakeLLMServer("openai", script)
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._serve(),), daemon=True)

    def __enter__(self) -> FakeLLMServer:
        self._thread.start()
        assert self._ready.wait(timeout=30), "the fake provider did not start"
        return self.server

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=30)

    async def _serve(self) -> None:
        await self.server.start()
        self._stop, self._loop = asyncio.Event(), asyncio.get_running_loop()
        self._ready.set()
        await self._stop.wait()
        await self.server.close()


@pytest.fixture
def chat_env(
    indexed_example: IndexedCopy,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    session_models: TextModels,
) -> Iterator[Path]:
    """A private copy of the indexed example vault, the session's models, no real provider."""
    copy = copy_indexed(indexed_example, tmp_path)
    monkeypatch.setenv("VAULT_AGENT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("VAULT_AGENT_STORE__PATH", str(copy.shard))
    monkeypatch.setenv("VAULT_AGENT_LLM__MAX_RETRIES", "0")
    yield copy.vault


def test_cli_chat_sends_the_conversation_with_a_follow_up(
    chat_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = [
        FakeTurn.tool_calls([("search_notes", {"query": "Maya"})]),
        FakeTurn.text("Maya is a senior data engineer [[People/Maya Okafor]]."),
        FakeTurn.text("She works on the Tidepool team."),
    ]
    with ThreadedFakeProvider(script) as provider:
        monkeypatch.setenv("VAULT_AGENT_LLM__BASE_URL", provider.base_url)
        monkeypatch.setenv("VAULT_AGENT_LLM__MODEL", "local-model")
        result = CliRunner().invoke(
            app,
            ["chat", "--vault", str(chat_env), "--profile", "openai"],
            input="Who is Maya?\nAnd her team?\n",
        )
    assert result.exit_code == 0, result.output
    # The same answer format as `ask`: checked citations and a Sources list.
    assert "Maya is a senior data engineer [[People/Maya Okafor]]." in result.stdout
    assert "Sources:\n- [[People/Maya Okafor]]" in result.stdout
    assert "She works on the Tidepool team." in result.stdout
    follow_up = provider.requests[2].body["messages"]
    said = [(m["role"], m["content"]) for m in follow_up if m["role"] in ("user", "assistant")]
    assert ("user", "Who is Maya?") in said
    assert any(
        role == "assistant" and "senior data engineer" in (content or "") for role, content in said
    )
    assert said[-1][1].endswith("And her team?")
