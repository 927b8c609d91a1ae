"""The `ChatModel` protocol: what the agent loop knows about a model, and what a turn streams.

A provider is one small class: a name, a model, a capability flag and one method that turns a
conversation into a stream of `ChatEvent`. A stream always has this shape: zero or more
`TextDelta`, then at most one `ToolCallsReady`, then exactly one `Finished`. Failures raise
`ModelError` (`errors.py`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from vault_agent.llm.messages import Message, ToolCall, ToolSpec, Usage

FinishReason = Literal["stop", "tool_calls", "length", "other"]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """The next piece of answer text, in order."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallsReady:
    """Every tool call of this turn, complete (parallel calls arrive together)."""

    calls: list[ToolCall]


@dataclass(frozen=True, slots=True)
class Finished:
    """The turn is over. ``finish_reason`` is ``tool_calls`` whenever calls were produced."""

    usage: Usage
    finish_reason: FinishReason


ChatEvent = TextDelta | ToolCallsReady | Finished


class ChatModel(Protocol):
    """A chat model as the agent loop sees it. Providers are one small class each."""

    name: str
    """The profile: ``mistral``, ``ollama``, ``openai`` or ``extractive``."""
    model: str
    """The model name sent to the provider (for display and logs)."""
    supports_tools: bool
    """False for models that can't call tools; the loop then answers from context alone."""

    # Declared without ``async`` on purpose: implementations are ``async def`` generators,
    # whose type is a plain function returning an AsyncIterator. Use ``async for``.
    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AsyncIterator[ChatEvent]:
        """Run one model turn; see the module docstring for the shape of the stream."""
        ...

    async def aclose(self) -> None:
        """Release connections; the model is unusable afterwards."""
        ...


_FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "end_turn": "stop",
    "eos": "stop",
    "tool_calls": "tool_calls",
    "length": "length",
    "max_tokens": "length",
    "model_length": "length",
}


def finish_reason(value: str | None) -> FinishReason:
    """Normalise a provider's finish reason; a missing one means a normal stop."""
    return _FINISH_REASONS.get(value or "stop", "other")
