"""The events one question produces, as the CLI prints them and ``POST /v1/ask`` streams them.

Each event's ``event`` field is its name (the SSE ``event:`` line); the rest is its data. A run
emits ``status`` / ``tool_call`` / ``tool_result`` / ``delta`` events in any number, then
exactly one ``done`` or one ``error``, and nothing after it. See docs/events.md.

``delta`` carries the model's raw text as it streams; ``done.answer`` is the same answer after
the citation check (unsupported links removed, our Sources list appended). Clients replace the
streamed text with ``done.answer``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from vault_agent.agent.citations.checker import (
    RemovedCitation,
)
from vault_agent.agent.citations.links import (
    NoteRef,
)

Stage = Literal["thinking", "searching", "answering", "checking"]
ErrorCode = Literal[
    "model_error",
    "model_timeout",
    "rate_limited",
    "model_unavailable",
    "bad_response",
    "internal",
]


class StatusEvent(BaseModel):
    """What the agent is doing now, for a status line."""

    event: Literal["status"] = "status"
    stage: Stage
    message: str
    turn: int


class ToolCallEvent(BaseModel):
    """The model called a tool (parallel calls: several of these, then their results)."""

    event: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any]
    turn: int


class ToolResultEvent(BaseModel):
    """A tool call finished: a one-line summary and the notes it showed the model."""

    event: Literal["tool_result"] = "tool_result"
    id: str
    name: str
    ok: bool
    summary: str
    notes: list[NoteRef]
    elapsed_ms: float


class DeltaEvent(BaseModel):
    """The next piece of the model's text. Text of a turn that ends in tool calls is the
    model thinking aloud; only ``done.answer`` is the answer."""

    event: Literal["delta"] = "delta"
    text: str
    turn: int


class UsageInfo(BaseModel):
    """Tokens over every model call of the run (zero for the extractive profile)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class Timings(BaseModel):
    """Where the time went, in milliseconds. ``overhead_ms`` is everything but the model."""

    total_ms: float
    model_ms: float
    tools_ms: float
    check_ms: float
    overhead_ms: float
    first_delta_ms: float | None = None


class DoneEvent(BaseModel):
    """The checked answer: markdown ending in a Sources list, and what the check removed."""

    event: Literal["done"] = "done"
    answer: str
    sources: list[NoteRef]
    removed_citations: list[RemovedCitation]
    removed_images: list[str]
    usage: UsageInfo
    timings: Timings
    profile: str
    model: str
    turns: int


class ErrorEvent(BaseModel):
    """The run failed; ``message`` says what happened and what the user can do."""

    event: Literal["error"] = "error"
    code: ErrorCode
    message: str


AgentEvent = Annotated[
    StatusEvent | ToolCallEvent | ToolResultEvent | DeltaEvent | DoneEvent | ErrorEvent,
    Field(discriminator="event"),
]
