"""Any OpenAI-compatible chat server (LM Studio, llama.cpp server, vLLM, ...) over plain httpx.

No SDK: ``POST {base_url}/chat/completions`` with ``stream: true`` answers Server-Sent Events,
one ``data: {chunk}`` line each, ending with ``data: [DONE]``. Tool calls arrive as deltas keyed
by ``index``: the first carries ``id`` and ``function.name``, later ones pieces of the
``function.arguments`` JSON string, so they are accumulated until the turn ends.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import httpx

from vault_agent.config import LlmSettings
from vault_agent.llm.completion import CallMerger, check_finish, events_from_completion, usage_of
from vault_agent.llm.errors import (
    ModelError,
    ModelResponseError,
    ModelUnavailableError,
    dropped_error,
    error_for_status,
    timeout_error,
    unreachable_error,
)
from vault_agent.llm.limits import DEFAULT_MAX_ANSWER_CHARS, limit_body
from vault_agent.llm.messages import (
    Message,
    ToolSpec,
    Usage,
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
from vault_agent.local_http import direct_if_local, shown_url

DEFAULT_BASE_URL = "http://127.0.0.1:1234/v1"
"""LM Studio's default; llama.cpp's server listens on :8080, vLLM on :8000."""
DEFAULT_MODEL = "local-model"
"""Single-model servers (llama.cpp) ignore the name; LM Studio and vLLM need the real one."""


class OpenAICompatModel:
    """A chat model behind an OpenAI-compatible ``/v1/chat/completions`` endpoint."""

    name = "openai"
    supports_tools = True

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_BASE_URL,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        max_answer_chars: int = DEFAULT_MAX_ANSWER_CHARS,
    ) -> None:
        self.model = model
        self.base_url = normalise_base_url(base_url)
        self._retry = retry or RetryPolicy()
        self._max_chars = max_answer_chars
        self._timeout_s = timeout_s
        self._who = f"OpenAI-compatible server at {shown_url(self.base_url)}"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # One timeout for connect and for each read: a stream may be long, but never silent.
        # A local server is dialled directly, whatever proxy the environment names.
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout_s),
            **direct_if_local(self.base_url),
        )

    @classmethod
    def from_settings(cls, settings: LlmSettings) -> OpenAICompatModel:
        """Base URL and key from settings, else ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``."""
        key = settings.api_key.get_secret_value() if settings.api_key else None
        return cls(
            base_url=settings.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL,
            model=settings.model or DEFAULT_MODEL,
            api_key=key or os.environ.get("OPENAI_API_KEY") or None,
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
            "messages": [to_openai_message(m) for m in messages],
            "stream": True,
            # The final chunk then carries token usage (OpenAI, vLLM, llama.cpp, LM Studio).
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = [to_openai_tool(t) for t in tools]
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
            async with self._client.stream("POST", "chat/completions", json=body) as response:
                limit_body(response, self._max_chars, self._who)
                if response.status_code != 200:
                    text = (await response.aread()).decode("utf-8", errors="replace")
                    raise error_for_status(
                        self._who,
                        response.status_code,
                        text,
                        retry_after=response.headers.get("retry-after"),
                        auth_hint="set llm.api_key (or OPENAI_API_KEY) to the server's key",
                        missing_hint=(
                            f"check llm.base_url (it usually ends in /v1) and that model "
                            f"'{self.model}' is loaded"
                        ),
                    )
                if response.headers.get("content-type", "").startswith("application/json"):
                    # A server that ignores ``stream`` answers with one whole completion.
                    for event in events_from_completion(await response.aread(), self._who):
                        yield event
                    return
                async for event in parse_openai_sse(response.aiter_lines(), self._who):
                    yield event
        except httpx.ConnectError as exc:
            raise unreachable_error(
                self._who, "is the server (LM Studio, llama.cpp, vLLM) running on that address?"
            ) from exc
        except httpx.TimeoutException as exc:
            raise timeout_error(self._who, self.model, self._timeout_s) from exc
        except httpx.UnsupportedProtocol as exc:
            raise ModelError(
                f"llm.base_url {shown_url(self.base_url)!r} is not an http(s) URL"
            ) from exc
        except httpx.TransportError as exc:
            raise dropped_error(self._who, str(exc) or type(exc).__name__) from exc


def normalise_base_url(url: str) -> str:
    """``http://host:port`` means ``http://host:port/v1``; anything with a path is kept."""
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    path = httpx.URL(url).path
    return url + "/v1" if path in ("", "/") else url


def to_openai_message(message: Message) -> dict[str, Any]:
    """A message in OpenAI's chat format (arguments travel as a JSON string)."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            "content": message.content or None,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
                for call in message.tool_calls
            ],
        }
    return {"role": message.role, "content": message.content}


def to_openai_tool(tool: ToolSpec) -> dict[str, Any]:
    """A tool in OpenAI's ``{"type": "function", "function": {...}}`` format."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


async def parse_openai_sse(lines: AsyncIterator[str], who: str) -> AsyncIterator[ChatEvent]:
    """Turn ``data:`` lines of a chat-completions stream into events.

    Ends with :class:`Finished` only if ``[DONE]`` or a finish reason arrived; a stream that
    just stops is left without it, which :func:`run_stream` reports as a dropped connection.
    """
    calls = CallMerger()
    usage = Usage()
    reason: str | None = None
    done = False
    async for line in lines:
        if not line.startswith("data:"):
            continue  # blank separators, ": keep-alive" comments, "event:" lines
        data = line[len("data:") :].strip()
        if data == "[DONE]":
            done = True
            break
        try:
            chunk = json.loads(data)
        except (ValueError, RecursionError) as exc:  # not JSON, or nested past the decoder
            raise ModelResponseError(
                f"{who} sent a stream chunk that is not JSON: {data[:200]}"
            ) from exc
        if not isinstance(chunk, dict):
            raise ModelResponseError(f"{who} sent an unexpected stream chunk: {data[:200]}")
        if chunk.get("error"):
            # vLLM and llama.cpp report failures mid-stream this way.
            raise ModelUnavailableError(
                f"{who} failed mid-stream: {json.dumps(chunk['error'])[:300]}"
            )
        usage = usage_of(chunk.get("usage")) or usage
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str) and delta["content"]:
                yield TextDelta(delta["content"])
            for piece in delta.get("tool_calls") or []:
                if isinstance(piece, dict):
                    calls.add(piece)
            reason = choice.get("finish_reason") or reason
    if not done and reason is None:
        return
    check_finish(reason, who)
    if calls:
        yield ToolCallsReady(calls.calls())
    yield Finished(usage, finish_reason(reason))
