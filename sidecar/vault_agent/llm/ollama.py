"""Local models served by Ollama: ``POST /api/chat`` streamed as NDJSON, over plain httpx.

One JSON object per line: ``message.content`` pieces, ``message.tool_calls`` (arguments as an
object, each call whole), ``message.thinking`` for reasoning models (not part of the answer),
then a last line with ``done: true``, ``done_reason`` and token counts; an ``{"error": ...}``
line means the model failed mid-answer. The lines are read leniently: a call whose arguments
arrive as a JSON string (some models and templates do this, and the ``ollama`` SDK rejects the
whole line) still counts, and the call's ``id`` (sent by recent Ollama) is kept and sent back
with the result as ``tool_call_id`` next to the documented ``tool_name``.

Ollama's ``Tool`` type keeps only ``type``/``items``/``description``/``enum`` of each property,
so an optional field (``anyOf: [X, null]``) would reach the model with no type at all: tool
schemas are flattened first (:func:`ollama_parameters`).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import httpx
from ollama._client import _parse_host

from vault_agent.config import LlmSettings
from vault_agent.llm.errors import (
    ModelError,
    ModelResponseError,
    dropped_error,
    error_for_status,
    timeout_error,
    unreachable_error,
)
from vault_agent.llm.limits import DEFAULT_MAX_ANSWER_CHARS, limit_body
from vault_agent.llm.messages import (
    Message,
    ToolCall,
    ToolSpec,
    Usage,
    new_tool_call_id,
)
from vault_agent.llm.model import (
    ChatEvent,
    Finished,
    TextDelta,
    ToolCallsReady,
    finish_reason,
)
from vault_agent.llm.stream import (
    RetryPolicy,
    run_stream,
)
from vault_agent.llm.tool_text import (
    parse_tool_arguments,
)
from vault_agent.local_http import direct_if_local, shown_url

DEFAULT_MODEL = "qwen2.5:3b"
HOST_ENV = "OLLAMA_HOST"


def resolve_host(host: str | None = None) -> str:
    """The URL dialled: ``host``, else ``OLLAMA_HOST``, else http://127.0.0.1:11434."""
    # The ollama SDK's parser, so a host is read exactly as the ollama CLI reads it.
    return str(_parse_host(host or os.environ.get(HOST_ENV)))


class OllamaModel:
    """A model served by a local (or remote) Ollama."""

    name = "ollama"
    supports_tools = True

    def __init__(
        self,
        *,
        host: str | None = None,
        model: str = DEFAULT_MODEL,
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        max_answer_chars: int = DEFAULT_MAX_ANSWER_CHARS,
    ) -> None:
        self.model = model
        self.host = resolve_host(host)
        self._retry = retry or RetryPolicy()
        self._max_chars = max_answer_chars
        self._timeout_s = timeout_s
        self._who = f"Ollama at {shown_url(self.host)}"
        # One timeout for connect and for each read: a stream may be long, but never silent.
        # A local Ollama is dialled directly, whatever proxy the environment names.
        self._client = httpx.AsyncClient(
            base_url=self.host, timeout=httpx.Timeout(timeout_s), **direct_if_local(self.host)
        )

    @classmethod
    def from_settings(cls, settings: LlmSettings) -> OllamaModel:
        """Host from ``llm.base_url``, else ``OLLAMA_HOST``, else the local default."""
        return cls(
            host=settings.base_url,
            model=settings.model or DEFAULT_MODEL,
            timeout_s=settings.timeout_s,
            retry=RetryPolicy(max_retries=settings.max_retries),
            max_answer_chars=settings.max_answer_chars,
        )

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AsyncIterator[ChatEvent]:
        """Run one turn; see :mod:`vault_agent.llm.model` for the event order."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [to_ollama_message(m) for m in messages],
            "stream": True,
        }
        if tools:
            body["tools"] = [to_ollama_tool(t) for t in tools]
        return run_stream(
            lambda: self._attempt(body),
            who=self._who,
            tools=tools,
            policy=self._retry,
            max_chars=self._max_chars,
        )

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()

    async def _attempt(self, body: dict[str, Any]) -> AsyncGenerator[ChatEvent, None]:
        try:
            async with self._client.stream("POST", "/api/chat", json=body) as response:
                limit_body(response, self._max_chars, self._who)
                if response.status_code != 200:
                    text = (await response.aread()).decode("utf-8", errors="replace")
                    raise error_for_status(
                        self._who,
                        response.status_code,
                        text,
                        retry_after=response.headers.get("retry-after"),
                        missing_hint=f"run `ollama pull {self.model}` (or set llm.model)",
                    )
                async for event in parse_ollama_lines(response.aiter_lines(), self._who):
                    yield event
        except httpx.ConnectError as exc:
            raise unreachable_error(self._who, "is `ollama serve` running?") from exc
        except httpx.TimeoutException as exc:
            raise timeout_error(self._who, self.model, self._timeout_s) from exc
        except httpx.UnsupportedProtocol as exc:
            raise ModelError(
                f"the Ollama host {shown_url(self.host)!r} is not an http(s) URL"
            ) from exc
        except httpx.TransportError as exc:
            raise dropped_error(self._who, str(exc) or type(exc).__name__) from exc


async def parse_ollama_lines(lines: AsyncIterator[str], who: str) -> AsyncIterator[ChatEvent]:
    """Turn ``/api/chat`` NDJSON lines into events; no :class:`Finished` without ``done``."""
    calls: list[ToolCall] = []
    async for line in lines:
        if not line.strip():
            continue
        try:
            part = json.loads(line)
        except (ValueError, RecursionError) as exc:  # not JSON, or nested past the decoder
            raise ModelResponseError(
                f"{who} sent a line this client can't read: {line[:200]}"
            ) from exc
        if not isinstance(part, dict):
            raise ModelResponseError(f"{who} sent a line this client can't read: {line[:200]}")
        if part.get("error"):
            # An ``{"error": ...}`` line in a 200 stream: the model failed mid-answer.
            raise dropped_error(who, str(part["error"])[:300])
        message = part.get("message")
        if not isinstance(message, dict):
            message = {}
        if isinstance(message.get("content"), str) and message["content"]:
            yield TextDelta(message["content"])
        for item in message.get("tool_calls") or []:
            if isinstance(item, dict):
                calls.append(_tool_call(item))
        if part.get("done"):
            if calls:
                yield ToolCallsReady(calls)
            usage = Usage(
                prompt_tokens=int(part.get("prompt_eval_count") or 0),
                completion_tokens=int(part.get("eval_count") or 0),
            )
            yield Finished(usage, finish_reason(part.get("done_reason")))
            return


def _tool_call(item: dict[str, Any]) -> ToolCall:
    """One call as Ollama sends it; a call without the ``function`` wrapper is read too."""
    function = item.get("function")
    spec: dict[str, Any] = function if isinstance(function, dict) else item
    arguments, error = parse_tool_arguments(spec.get("arguments"))
    call_id = item.get("id")
    return ToolCall(
        id=str(call_id) if call_id else new_tool_call_id(),
        name=str(spec.get("name") or ""),
        arguments=arguments,
        arguments_error=error,
    )


def to_ollama_message(message: Message) -> dict[str, Any]:
    """A message in Ollama's format: arguments as objects, results matched by ``tool_name``
    (and by ``tool_call_id``, which recent Ollama reads and older ones ignore)."""
    if message.role == "tool":
        return {
            "role": "tool",
            "content": message.content,
            "tool_name": message.name,
            "tool_call_id": message.tool_call_id,
        }
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["tool_calls"] = [
            {"id": c.id, "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
    return wire


def to_ollama_tool(tool: ToolSpec) -> dict[str, Any]:
    """A tool in Ollama's format, its schema flattened to what Ollama keeps."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": ollama_parameters(tool.parameters),
        },
    }


def ollama_parameters(schema: dict[str, Any]) -> dict[str, Any]:
    """Rewrite a JSON schema so Ollama's ``Tool`` type keeps its meaning.

    Each property keeps ``type``, ``items``, ``description`` and ``enum``. An optional field's
    ``anyOf: [X, {"type": "null"}]`` becomes X; a ``format`` (``date``) and a ``default`` move
    into the description, where the model can still read them.
    """
    properties: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        properties[name] = _flatten_property(prop)
    flat: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        flat["required"] = list(schema["required"])
    return flat


def _flatten_property(prop: dict[str, Any]) -> dict[str, Any]:
    merged = dict(prop)
    alternatives = [a for a in merged.pop("anyOf", []) if a.get("type") != "null"]
    if alternatives:
        merged = {**alternatives[0], **merged}
    out: dict[str, Any] = {k: merged[k] for k in ("type", "items", "enum") if k in merged}
    notes = [merged.get("description") or merged.get("title") or ""]
    if "format" in merged:
        notes.append(f"(format: {merged['format']})")
    if merged.get("default") is not None:
        notes.append(f"(default: {json.dumps(merged['default'])})")
    description = " ".join(n for n in notes if n)
    if description:
        out["description"] = description
    return out
