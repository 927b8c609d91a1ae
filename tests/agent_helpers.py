"""Helpers for the agent tests: run a question to the end and pick events out of the stream."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import TypeVar

from vault_agent.agent.citations.checker import RemovedCitation
from vault_agent.agent.events import AgentEvent, DoneEvent, ErrorEvent, Timings, UsageInfo
from vault_agent.agent.extractive import ExtractiveAnswerer
from vault_agent.agent.loop import (
    run_agent,
)
from vault_agent.agent.reader import ToolsContext
from vault_agent.agent.request import (
    AgentRequest,
)
from vault_agent.config import LlmSettings, Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import Embedder
from vault_agent.index.search.hits import SearchHit
from vault_agent.index.store.protocol import VAULT_SOURCE
from vault_agent.index.vault_index import VaultIndex
from vault_agent.llm.model import (
    ChatModel,
)

E = TypeVar("E")


def write_notes(vault: Path, notes: Mapping[str, str]) -> None:
    """Each of `notes` (a vault-relative path: its markdown) written under `vault`."""
    for name, text in notes.items():
        (vault / name).parent.mkdir(parents=True, exist_ok=True)
        (vault / name).write_text(text, encoding="utf-8")


@contextmanager
def indexed_notes(
    root: Path, notes: Mapping[str, str], embedder: Embedder, sparse: Bm25Encoder
) -> Iterator[VaultIndex]:
    """`notes` written to a vault under `root` and indexed with `embedder` and `sparse`."""
    write_notes(root / "vault", notes)
    settings = Settings(vault=root / "vault", data_dir=root / "data")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        yield index


def latest_daily(index: VaultIndex) -> date:
    """The date of the newest daily note in the vault (the tests' "today")."""
    names = sorted(p.stem for p in (index.settings.vault_root / "Daily").glob("*.md"))
    return date.fromisoformat(names[-1])


def context_for(index: VaultIndex, today: date | None = None) -> ToolsContext:
    """The tools' view of ``index``, with "today" pinned to the newest daily note (in a vault
    keeping none, the real date)."""
    context = ToolsContext.from_index(index)
    keeps_days = any((index.settings.vault_root / "Daily").glob("*.md"))
    context.today = today or (latest_daily(index) if keeps_days else None)
    return context


def settings_for(index: VaultIndex, max_turns: int = 5) -> Settings:
    """The index's settings with the turn budget set."""
    return index.settings.model_copy(update={"llm": LlmSettings(max_turns=max_turns)})


async def ask(
    index: VaultIndex,
    model: ChatModel | ExtractiveAnswerer,
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


def done_event(answer: str, removed: Sequence[RemovedCitation] = ()) -> DoneEvent:
    """A run's done event with `answer` (and the citations its check `removed`), as a test
    model's run ends."""
    timings = Timings(total_ms=1, model_ms=0, tools_ms=0, check_ms=0, overhead_ms=1)
    return DoneEvent(
        answer=answer,
        sources=[],
        removed_citations=list(removed),
        removed_images=[],
        usage=UsageInfo(),
        timings=timings,
        profile="test",
        model="test",
        turns=1,
    )


def vault_hit(file: str, snippet: str) -> SearchHit:
    """A search hit on note `file` (its title the file's name) showing `snippet`."""
    title = file.rsplit("/", 1)[-1].removesuffix(".md")
    return SearchHit(
        file=file,
        title=title,
        heading="",
        score=1.0,
        snippet=snippet,
        chunk_index=0,
        tags=[],
        type=None,
        date=None,
        source=VAULT_SOURCE,
    )
