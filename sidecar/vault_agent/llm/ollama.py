"""Local models served by Ollama, through the official ``ollama`` SDK (0.6).

``AsyncClient.chat(stream=True)`` posts to ``/api/chat`` and yields one ``ChatResponse`` per
NDJSON line; tool calls arrive whole, with arguments already parsed into a dict, and the last
line says ``done`` with token counts. Things the SDK does that matter here:

- it validates every message and tool through its own pydantic models and silently drops what
  they lack: tool-call ``id`` (Ollama matches results by ``tool_name`` instead), and any JSON
  schema keyword but ``type``/``items``/``description``/``enum`` in a tool's properties, so an
  optional field (``anyOf: [X, null]``) would reach the model with no type at all. Tool schemas
  are therefore flattened first (:func:`ollama_parameters`);
- connection errors on a streamed call surface as raw ``httpx.ConnectError``, and HTTP errors as
  ``ResponseError`` without headers; an httpx response hook keeps ``Retry-After``.
"""

from __future__ import annotations

import contextvars
import json
import os
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import httpx
import pydantic
from ollama import AsyncClient, ResponseError
from ollama._client import _parse_host

from vault_agent.config import LlmSettings
from vault_agent.llm.errors import (
    ModelResponseError,
    dropped_error,
    error_for_status,
    timeout_error,
    unreachable_error,
)
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

DEFAULT_MODEL = "qwen2.5:3b"
HOST_ENV = "OLLAMA_HOST"

# The Retry-After of the last error answer seen in this task (the SDK drops response headers).
_retry_after: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "ollama_retry_after", default=None
)


def resolve_host(host: str | None = None) -> str:
    """The URL the SDK will use: ``host``, else ``OLLAMA_HOST``, else http://127.0.0.1:11434."""
    # The SDK's own parser, so what error messages name is exactly what was dialled.
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
    ) -> None:
        self.model = model
        self.host = resolve_host(host)
        self._retry = retry or RetryPolicy()
        self._timeout_s = timeout_s
        self._who = f"Ollama at {self.host}"
        self._client = AsyncClient(
            host=self.host,
            timeout=httpx.Timeout(timeout_s),
            event_hooks={"response": [_remember_retry_after]},
        )

    @classmethod
    def from_settings(cls, settings: LlmSettings) -> OllamaModel:
        """Host from ``llm.base_url``, else ``OLLAMA_HOST``, else the local default."""
        return cls(
            host=settings.base_url,
            model=settings.model or DEFAULT_MODEL,
            timeout_s=settings.timeout_s,
            retry=RetryPolicy(max_retries=settings.max_retries),
        )

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AsyncIterator[ChatEvent]:
        """Run one turn; see :mod:`vault_agent.llm.base` for the event order."""
        wire_messages = [to_ollama_message(m) for m in messages]
        wire_tools = [to_ollama_tool(t) for t in tools]
        return run_stream(
            lambda: self._attempt(wire_messages, wire_tools),
            who=self._who,
            tools=tools,
            policy=self._retry,
        )

    async def aclose(self) -> None:
        """Close the SDK's HTTP client."""
        await self._client.close()  # type: ignore[no-untyped-call]

    async def _attempt(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> AsyncGenerator[ChatEvent, None]:
        _retry_after.set(None)
        calls: list[ToolCall] = []
        try:
            parts = await self._client.chat(
                model=self.model, messages=messages, tools=tools or None, stream=True
            )
            async for part in parts:
                if part.message.content:
                    yield TextDelta(part.message.content)
                for call in part.message.tool_calls or []:
                    arguments, error = parse_tool_arguments(call.function.arguments)
                    calls.append(
                        ToolCall(
                            id=new_tool_call_id(),  # the SDK drops any id the server sent
                            name=call.function.name,
                            arguments=arguments,
                            arguments_error=error,
                        )
                    )
                if part.done:
                    if calls:
                        yield ToolCallsReady(calls)
                    usage = Usage(
                        prompt_tokens=part.prompt_eval_count or 0,
                        completion_tokens=part.eval_count or 0,
                    )
                    yield Finished(usage, finish_reason(part.done_reason))
                    return
        except ResponseError as exc:
            if exc.status_code == -1:
                # An ``{"error": ...}`` line in a 200 stream: the model failed mid-answer.
                raise dropped_error(self._who, str(exc.error)) from exc
            raise error_for_status(
                self._who,
                exc.status_code,
                json.dumps({"error": exc.error}),
                retry_after=_retry_after.get(),
                missing_hint=f"run `ollama pull {self.model}` (or set llm.model)",
            ) from exc
        except (httpx.ConnectError, ConnectionError) as exc:
            raise unreachable_error(self._who, "is `ollama serve` running?") from exc
        except httpx.TimeoutException as exc:
            raise timeout_error(self._who, self.model, self._timeout_s) from exc
        except httpx.TransportError as exc:
            raise dropped_error(self._who, str(exc) or type(exc).__name__) from exc
        except (ValueError, pydantic.ValidationError) as exc:
            # A line that is not JSON, or not the shape the SDK expects.
            raise ModelResponseError(
                f"{self._who} sent a line this client can't read: {exc}"
            ) from exc


async def _remember_retry_after(response: httpx.Response) -> None:
    if response.status_code >= 400:
        _retry_after.set(response.headers.get("retry-after"))


def to_ollama_message(message: Message) -> dict[str, Any]:
    """A message in Ollama's format: arguments as objects, results matched by ``tool_name``."""
    if message.role == "tool":
        return {"role": "tool", "content": message.content, "tool_name": message.name}
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["tool_calls"] = [
            {"function": {"name": c.name, "arguments": c.arguments}} for c in message.tool_calls
        ]
    return wire


def to_ollama_tool(tool: ToolSpec) -> dict[str, Any]:
    """A tool in Ollama's format, its schema flattened to what the SDK keeps."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": ollama_parameters(tool.parameters),
        },
    }


def ollama_parameters(schema: dict[str, Any]) -> dict[str, Any]:
    """Rewrite a JSON schema so the SDK's ``Tool`` model keeps its meaning.

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
