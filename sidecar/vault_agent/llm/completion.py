"""OpenAI-shaped chat completions, as OpenAI, Mistral and the local servers send them.

Two readers shared by the providers: :class:`CallMerger` merges streamed tool-call deltas into
whole calls (keyed by ``index``, else by ``id``), and :func:`events_from_completion` reads a
whole, non-streamed ``chat.completion`` (a server that ignores ``stream``) as the events a
stream would have given. Both accept the variants servers really send: ``id``/``name`` as
``null`` on later deltas (OpenAI), numeric-string ids (LM Studio), arguments as an object
instead of a JSON string (Mistral's schema allows both), and a call without its
``function`` wrapper, ``{"name": ..., "arguments": ...}`` (llama.cpp's documented example).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vault_agent.llm.errors import ModelResponseError, ModelUnavailableError
from vault_agent.llm.messages import ToolCall, Usage, new_tool_call_id
from vault_agent.llm.model import ChatEvent, Finished, TextDelta, ToolCallsReady, finish_reason
from vault_agent.llm.tool_text import parse_tool_arguments


@dataclass
class PartialCall:
    """One tool call as its deltas arrive: the argument text in pieces, or a whole object."""

    id: str | None = None
    name: str = ""
    pieces: list[str] = field(default_factory=list)
    whole: Any = None

    def finish(self) -> ToolCall:
        """The call, its arguments parsed (a parse error is kept, for the model to fix)."""
        raw = self.whole if self.whole is not None else "".join(self.pieces)
        arguments, error = parse_tool_arguments(raw)
        return ToolCall(
            id=self.id or new_tool_call_id(),
            name=self.name,
            arguments=arguments,
            arguments_error=error,
        )


class CallMerger:
    """Tool-call deltas in, whole calls out, in the order they started."""

    def __init__(self) -> None:
        self._calls: list[PartialCall] = []
        self._by_index: dict[int, PartialCall] = {}

    def __bool__(self) -> bool:
        return bool(self._calls)

    def add(self, piece: Mapping[str, Any]) -> None:
        """Merge one delta into the call it continues: by ``index``, else by ``id``."""
        index = piece.get("index")
        call_id = piece.get("id")
        call_id = str(call_id) if call_id not in (None, "", "null") else None
        if isinstance(index, int):
            call = self._by_index.get(index)
            if call is None:
                call = self._by_index[index] = PartialCall()
                self._calls.append(call)
        elif not self._calls or (call_id and all(c.id != call_id for c in self._calls)):
            call = PartialCall()
            self._calls.append(call)
        else:
            call = self._calls[-1]
        if call_id:
            call.id = call_id
        function = piece.get("function")
        spec: Mapping[str, Any] = function if isinstance(function, Mapping) else piece
        if isinstance(spec.get("name"), str) and spec["name"]:
            call.name = spec["name"]
        arguments = spec.get("arguments")
        if isinstance(arguments, str):
            call.pieces.append(arguments)
        elif arguments is not None:
            call.whole = arguments

    def calls(self) -> list[ToolCall]:
        """Every call, complete."""
        return [call.finish() for call in self._calls]


def usage_of(data: Any) -> Usage | None:
    """``usage`` as :class:`Usage`, None when the chunk has none."""
    if not isinstance(data, Mapping):
        return None
    return Usage(
        prompt_tokens=int(data.get("prompt_tokens") or 0),
        completion_tokens=int(data.get("completion_tokens") or 0),
    )


def check_finish(reason: str | None, who: str) -> None:
    """Mistral documents ``finish_reason: "error"``: the model failed mid-answer."""
    if reason == "error":
        raise ModelUnavailableError(f"{who} ended the answer with an error")


def events_from_completion(raw: bytes | str, who: str) -> list[ChatEvent]:
    """A non-streamed completion as the same events a stream would give."""
    try:
        data = json.loads(raw)
        choice = data["choices"][0]
        message = choice["message"]
    except (ValueError, KeyError, IndexError, TypeError, RecursionError) as exc:
        excerpt = raw[:200] if isinstance(raw, str) else raw[:200].decode(errors="replace")
        raise ModelResponseError(f"{who} sent an unreadable completion: {excerpt!r}") from exc
    reason = choice.get("finish_reason")
    check_finish(reason, who)
    events: list[ChatEvent] = []
    if isinstance(message.get("content"), str) and message["content"]:
        events.append(TextDelta(message["content"]))
    merger = CallMerger()
    for i, piece in enumerate(message.get("tool_calls") or []):
        if isinstance(piece, Mapping):
            merger.add({"index": i, **piece})
    if merger:
        events.append(ToolCallsReady(merger.calls()))
    events.append(Finished(usage_of(data.get("usage")) or Usage(), finish_reason(reason)))
    return events
