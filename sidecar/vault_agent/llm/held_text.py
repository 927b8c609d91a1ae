"""Which text of a model turn streams and which is held back until the turn ends.

Text that may be a tool call written as content (`tool_text.may_be_tool_call`) is held and
parsed when the turn ends; so is a leading ``<think>...</think>`` block, which reasoning
models served without a reasoning parser (Qwen 3, DeepSeek R1 distills on llama.cpp or vLLM)
put in the content: it is the model's scratchpad, not the answer, and is dropped. Everything
else streams as it comes.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from vault_agent.llm.messages import ToolCall
from vault_agent.llm.tool_text import (
    extract_embedded_tool_calls,
    extract_tool_calls_from_content,
    may_be_tool_call,
)

_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"


@dataclass
class TextGate:
    """Feed a turn's text in; get what may stream now, and at the end the rest and any calls."""

    tool_names: Collection[str]
    _held: str = ""
    _streamed: list[str] = field(default_factory=list)
    _holding: bool | None = None
    """None: undecided; True: holding everything; False: streaming everything."""
    _waiting: str = ""
    """While undecided, why the text held so far decided nothing: "blank" (only spaces) or
    "thinking" (a ``<think>`` block not closed yet). More spaces, or more thinking without
    its close, decide nothing either: not read again whole at each piece of the stream (40,000
    characters one at a time took 0.7 s)."""

    def __post_init__(self) -> None:
        if not self.tool_names:
            self._holding = False

    def feed(self, text: str) -> str:
        """The part of ``text`` (with any text held so far) that can be shown now."""
        if self._holding is False and not self._held:
            return self._stream(text)
        before = len(self._held)
        self._held += text
        if self._holding is None:
            if self._waiting == "blank" and text.isspace():
                return ""
            close = before - len(_THINK_CLOSE) + 1  # a close may start in what was held
            if self._waiting == "thinking" and _THINK_CLOSE not in self._held[max(0, close) :]:
                return ""
            self._held = _without_thinking(self._held)
            if _thinking_open(self._held):
                # Opened, not just begun ("<th"): what follows can only close it.
                opened = self._held.lstrip().startswith(_THINK_OPEN)
                self._waiting = "thinking" if opened else ""
                return ""
            self._holding = may_be_tool_call(self._held, self.tool_names)
            self._waiting = "blank" if self._holding is None and self._held.isspace() else ""
            if self._holding is False:
                held, self._held = self._held, ""
                return self._stream(held)
        return ""

    def finish(self) -> tuple[str, list[ToolCall] | None]:
        """(text still to show, the calls written as text or None) once the turn has ended."""
        held, self._held = self._held, ""
        if _thinking_open(held):
            held = ""  # a scratchpad the model never closed: not an answer
        if held:
            calls = extract_tool_calls_from_content(held, self.tool_names)
            if calls:
                return "", calls
        embedded = extract_embedded_tool_calls("".join(self._streamed) + held, self.tool_names)
        if embedded is not None:
            rest, calls = embedded
            return ("" if self._streamed else rest), calls
        return held, None

    def _stream(self, text: str) -> str:
        if text:
            self._streamed.append(text)
        return text


def _without_thinking(text: str) -> str:
    """``text`` without a closed ``<think>...</think>`` block at its start."""
    stripped = text.lstrip()
    if stripped.startswith(_THINK_OPEN) and _THINK_CLOSE in stripped:
        return stripped.split(_THINK_CLOSE, 1)[1].lstrip()
    return text


def _thinking_open(text: str) -> bool:
    """True while ``text`` is (the start of) a ``<think>`` block that has not closed yet."""
    stripped = text.lstrip()
    if not stripped:
        return False
    if stripped.startswith(_THINK_OPEN):
        return _THINK_CLOSE not in stripped
    return _THINK_OPEN.startswith(stripped)
