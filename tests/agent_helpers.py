"""Helpers for the agent tests: run a question to the end and pick events out of the stream."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import TypeVar

from vault_agent.agent.events import AgentEvent, DoneEvent, ErrorEvent
from vault_agent.agent.loop import AgentRequest, run_agent
from vault_agent.agent.reader import ToolsContext
from vault_agent.config import LlmSettings, Settings
from vault_agent.index.vault_index import VaultIndex
from vault_agent.llm.model import (
    ChatModel,
)

E = TypeVar("E")


def latest_daily(index: VaultIndex) -> date:
    """The date of the newest daily note in the vault (the tests' "today")."""
    names = sorted(p.stem for p in (index.settings.vault_root / "Daily").glob("*.md"))
    return date.fromisoformat(names[-1])


def context_for(index: VaultIndex, today: date | None = None) -> ToolsContext:
    """The tools' view of ``index``, with "today" pinned to the newest daily note."""
    context = ToolsContext.from_index(index)
    context.today = today or latest_daily(index)
    return context


def settings_for(index: VaultIndex, max_turns: int = 5) -> Settings:
    """The index's settings with the turn budget set."""
    return index.settings.model_copy(update={"llm": LlmSettings(max_turns=max_turns)})


async def ask(
    index: VaultIndex,
    model: ChatModel,
    question: str | AgentRequest,
    *,
    max_turns: int = 5,
    context: ToolsContext | None = None,
) -> list[AgentEvent]:
    """Every event of one run, in order."""
    request = question if isinstance(question, AgentRequest) else AgentRequest(question=question)
    return [
        event
        async for event in run_agent(
            request, model, context or context_for(index), settings_for(index, max_turns)
        )
    ]


def of_type(events: Sequence[AgentEvent], kind: type[E]) -> list[E]:
    """The events of one type, in order."""
    return [event for event in events if isinstance(event, kind)]


def done_of(events: Sequence[AgentEvent]) -> DoneEvent:
    """The run's done event, failing with the error if the run ended in one."""
    errors = of_type(events, ErrorEvent)
    assert not errors, errors
    last = events[-1]
    assert isinstance(last, DoneEvent), last
    return last


def names(events: Sequence[AgentEvent]) -> list[str]:
    """The event names, in order."""
    return [event.event for event in events]
