"""A conversation in a provider-neutral shape: messages, the tools offered, the calls asked for.

Every provider translates these to and from its own wire format; the agent loop only ever
builds and reads these.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

Role = Literal["system", "user", "assistant", "tool"]


class ToolSpec(BaseModel):
    """A tool the model may call: its name, what it does, and its arguments' JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ToolCall(BaseModel):
    """One call the model asked for.

    ``arguments_error`` is set (and ``arguments`` is empty) when the model produced arguments
    that are not a JSON object: the loop sends that error back to the model as the tool result
    instead of crashing.
    """

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    arguments_error: str | None = None


class Message(BaseModel):
    """One turn of a conversation, in a provider-neutral shape.

    ``tool_calls`` only on assistant messages; ``tool_call_id`` and ``name`` (the tool's name)
    only, and always, on tool messages.
    """

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _check_role_fields(self) -> Message:
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only assistant messages carry tool_calls")
        if self.role == "tool" and not (self.tool_call_id and self.name):
            raise ValueError("a tool message needs tool_call_id and name")
        return self

    @classmethod
    def system(cls, content: str) -> Message:
        """A system prompt."""
        return cls(role="system", content=content)

    @classmethod
    def user(cls, content: str) -> Message:
        """A user turn."""
        return cls(role="user", content=content)

    @classmethod
    def assistant(cls, content: str = "", tool_calls: Sequence[ToolCall] = ()) -> Message:
        """An assistant turn: text, tool calls, or both."""
        return cls(role="assistant", content=content, tool_calls=list(tool_calls))

    @classmethod
    def tool(cls, call: ToolCall, content: str) -> Message:
        """The result of ``call``, to send back to the model."""
        return cls(role="tool", content=content, tool_call_id=call.id, name=call.name)


class Usage(BaseModel):
    """Tokens spent by one model call (zero when the provider does not say)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )


def new_tool_call_id() -> str:
    """A fresh id for a tool call the provider gave none for.

    Nine alphanumeric characters, because that is the only shape Mistral accepts when the call
    is sent back to it, and every other provider takes it too.
    """
    return uuid.uuid4().hex[:9]
