"""Mistral's hosted models through the official ``mistralai`` SDK (3.x).

``client.chat.stream_async`` posts to ``/v1/chat/completions`` and yields ``CompletionEvent``s
parsed from Server-Sent Events. Tool calls usually arrive whole in one delta, with their
arguments as a JSON string (the API also allows an object); they are still merged by id/index
in case a delta splits them. ``finish_reason: "error"`` (documented) is a failed answer, and a
server that ignores ``stream`` and answers one JSON completion is read like a stream.
The SDK's own retries stay off (its default) so :class:`~vault_agent.llm.stream.RetryPolicy` is
the only retry policy. Note: mistralai 3.x talks through ``httpx2``, a fork of httpx with its
own exception classes, not through ``httpx``.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

import httpx2
from mistralai.client import Mistral, errors, models

from vault_agent.config import LlmSettings
from vault_agent.llm.completion import PartialCall, check_finish, events_from_completion
from vault_agent.llm.environment import MISTRAL_KEY_ENV
from vault_agent.llm.errors import (
    ModelError,
    ModelResponseError,
    ModelUnavailableError,
    dropped_error,
    error_for_status,
    timeout_error,
    unreachable_error,
)
from vault_agent.llm.limits import DEFAULT_MAX_ANSWER_CHARS, limit_httpx2_body
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
from vault_agent.local_http import shown_url

DEFAULT_MODEL = "mistral-medium-latest"
DEFAULT_SERVER_URL = "https://api.mistral.ai"
API_KEY_ENV = MISTRAL_KEY_ENV


class MistralModel:
    """A Mistral chat model (La Plateforme, or any server speaking its API via ``server_url``)."""

    name = "mistral"
    supports_tools = True

    def __init__(
        self,
        *,
        api_key: str,
        model: str = DEFAULT_MODEL,
        server_url: str | None = None,
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        max_answer_chars: int = DEFAULT_MAX_ANSWER_CHARS,
    ) -> None:
        self.model = model
        self.server_url = (server_url or DEFAULT_SERVER_URL).rstrip("/")
        self._retry = retry or RetryPolicy()
        self._max_chars = max_answer_chars
        self._timeout_s = timeout_s
        self._who = f"Mistral at {shown_url(self.server_url)}"

        # The SDK's own client, with a bound on the bytes of each answer (what the SDK makes
        # by default, follow_redirects included, plus the response hook the others have).
        async def bounded(response: httpx2.Response) -> None:
            limit_httpx2_body(response, self._max_chars, self._who)

        self._http = httpx2.AsyncClient(follow_redirects=True, event_hooks={"response": [bounded]})
        # timeout_ms becomes httpx2's timeout for connect and for each read of the stream.
        self._client = Mistral(
            api_key=api_key,
            server_url=self.server_url,
            timeout_ms=int(timeout_s * 1000),
            async_client=self._http,
        )

    @classmethod
    def from_settings(cls, settings: LlmSettings) -> MistralModel:
        """Key from ``llm.api_key`` or ``MISTRAL_API_KEY``; raises ModelError if neither is set."""
        key = settings.api_key.get_secret_value() if settings.api_key else None
        key = key or os.environ.get(API_KEY_ENV)
        if not key:
            raise ModelError(
                f"the mistral profile needs an API key: set {API_KEY_ENV} or llm.api_key "
                "(keys at https://console.mistral.ai)"
            )
        return cls(
            api_key=key,
            model=settings.model or DEFAULT_MODEL,
            server_url=settings.base_url,
            timeout_s=settings.timeout_s,
            retry=RetryPolicy(max_retries=settings.max_retries),
            max_answer_chars=settings.max_answer_chars,
        )

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AsyncIterator[ChatEvent]:
        """Run one turn; see :mod:`vault_agent.llm.model` for the event order."""
        sdk_messages = [to_mistral_message(m) for m in messages]
        sdk_tools = [to_mistral_tool(t) for t in tools]
        return run_stream(
            lambda: self._attempt(sdk_messages, sdk_tools),
            who=self._who,
            tools=tools,
            policy=self._retry,
            max_chars=self._max_chars,
        )

    async def aclose(self) -> None:
        """Close the SDK and its HTTP client."""
        await self._client.__aexit__(None, None, None)  # type: ignore[no-untyped-call]
        await self._http.aclose()

    async def _attempt(
        self, messages: list[models.ChatCompletionStreamRequestMessage], tools: list[models.Tool]
    ) -> AsyncGenerator[ChatEvent, None]:
        # Only send tool fields when there are tools: an empty list is an error for some models.
        extra: dict[str, Any] = {"tools": tools, "tool_choice": "auto"} if tools else {}
        try:
            stream = await self._client.chat.stream_async(
                model=self.model, messages=messages, **extra
            )
            async with stream:
                async for event in _events(stream, self._who):
                    yield event
        except errors.ResponseValidationError as exc:
            # Checked before MistralError, its base class: a 200 whose chunk we can't read.
            raise ModelResponseError(
                f"{self._who} sent a chunk this client can't read: {exc}"
            ) from exc
        except RecursionError as exc:  # a chunk nested past what the SDK's decoding follows
            raise ModelResponseError(f"{self._who} sent a chunk nested too deep to read") from exc
        except errors.MistralError as exc:
            if exc.status_code == 200:
                # A Mistral-compatible server that ignores ``stream`` answers one completion.
                for event in events_from_completion(exc.body, self._who):
                    yield event
                return
            raise error_for_status(
                self._who,
                exc.status_code,
                exc.body,
                retry_after=exc.headers.get("retry-after"),
                auth_hint=f"set {API_KEY_ENV} (or llm.api_key) to a valid key",
                missing_hint=f"is '{self.model}' a Mistral model name? (llm.model)",
            ) from exc
        except errors.NoResponseError as exc:
            raise ModelUnavailableError(f"{self._who} sent no response") from exc
        except httpx2.ConnectError as exc:
            raise unreachable_error(self._who, "check the network connection") from exc
        except httpx2.TimeoutException as exc:
            raise timeout_error(self._who, self.model, self._timeout_s) from exc
        except httpx2.TransportError as exc:
            raise dropped_error(self._who, str(exc) or type(exc).__name__) from exc


async def _events(
    stream: AsyncIterator[models.CompletionEvent], who: str
) -> AsyncIterator[ChatEvent]:
    """SDK completion events to ours; no :class:`Finished` if the stream just stops."""
    calls: dict[str, PartialCall] = {}
    usage = Usage()
    reason: str | None = None
    async for event in stream:
        chunk = event.data
        if chunk.usage is not None:
            usage = Usage(
                prompt_tokens=chunk.usage.prompt_tokens or 0,
                completion_tokens=chunk.usage.completion_tokens or 0,
            )
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            text = _text(choice.delta.content)
            if text:
                yield TextDelta(text)
            if isinstance(choice.delta.tool_calls, list):
                for piece in choice.delta.tool_calls:
                    _merge(calls, piece)
            reason = choice.finish_reason or reason
    if reason is None:
        return
    check_finish(reason, who)
    if calls:
        yield ToolCallsReady([p.finish() for p in calls.values()])
    yield Finished(usage, finish_reason(reason))


def _merge(calls: dict[str, PartialCall], piece: models.ToolCall) -> None:
    # The SDK fills a missing id with the string "null" and a missing index with 0.
    call_id = piece.id if piece.id and piece.id != "null" else None
    key = call_id or f"#{piece.index or 0}"
    partial = calls.get(key)
    if partial is None:
        partial = calls[key] = PartialCall(id=call_id, name=piece.function.name)
    arguments = piece.function.arguments
    if isinstance(arguments, str):
        partial.pieces.append(arguments)
    else:
        partial.whole = dict(arguments)


def _text(content: object) -> str:
    """Delta content is a string, or a list of chunks (text; "thinking" from reasoning models)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(c.text for c in content if isinstance(c, models.TextChunk))
    return ""


def to_mistral_message(message: Message) -> models.ChatCompletionStreamRequestMessage:
    """A message as the SDK's typed model (validated before anything is sent)."""
    if message.role == "system":
        return models.SystemMessage(content=message.content)
    if message.role == "user":
        return models.UserMessage(content=message.content)
    if message.role == "tool":
        return models.ToolMessage(
            content=message.content, tool_call_id=message.tool_call_id, name=message.name
        )
    calls = [
        models.ToolCall(
            id=call.id,
            type="function",
            function=models.FunctionCall(name=call.name, arguments=json.dumps(call.arguments)),
        )
        for call in message.tool_calls
    ]
    if calls:
        return models.AssistantMessage(content=message.content or None, tool_calls=calls)
    return models.AssistantMessage(content=message.content)


def to_mistral_tool(tool: ToolSpec) -> models.Tool:
    """A tool as the SDK's typed model."""
    return models.Tool(
        type="function",
        function=models.Function(
            name=tool.name, description=tool.description, parameters=tool.parameters
        ),
    )
