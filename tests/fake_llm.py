"""Fake LLM servers on 127.0.0.1 that speak each provider's real wire format.

Tests drive the real client libraries (mistralai, ollama, httpx) against these servers; nothing
is mocked. Each server replays a SCRIPT of model turns, one per chat request, and records the
requests it received so tests can assert on the messages and tools that were sent::

    async with fake_provider("ollama", [
        FakeTurn.tool_calls([("search_notes", {"query": "tea"})]),
        FakeTurn.text("Green tea, says [[Tea]]."),
    ]) as (base_url, server):
        model = model_for("ollama", base_url)
        ...
        assert server.requests[1].body["messages"][-1]["role"] == "tool"

Script API (:class:`FakeTurn`):

- ``FakeTurn.text("...")`` streams text word by word (or pass a list of chunks);
- ``FakeTurn.tool_calls([("name", {...}), ...], text="")`` one turn with (parallel) calls;
  a ``str`` instead of a dict is sent verbatim as the arguments (malformed JSON on purpose;
  Ollama's wire format then carries a string where the SDK expects an object);
- ``FakeTurn.error(429, retry_after=0.1)`` / ``FakeTurn.error(500)`` an HTTP error answer in the
  provider's error format, ``Retry-After`` header if given;
- ``FakeTurn.hang()`` never answers (until the client gives up); ``FakeTurn.hang(after_chunks=2,
  text=...)`` stalls mid-stream;
- ``FakeTurn.drop_after(n, text=...)`` sends ``n`` content chunks, then closes the connection;
- ``FakeTurn.raw([...], content_type=None)`` sends the given body lines as they are
  (malformed streams, error lines, a non-streamed JSON completion);
- ``FakeTurn.replay(transcript)`` sends a recorded or documented answer: ``{"format": "sse",
  "events": [...]}`` (each event a ``data:`` line, ``"[DONE]"`` included), ``{"format":
  "ndjson", "events": [...]}`` or ``{"format": "json", "body": {...}}`` (the conformance
  fixtures of tests/data/providers/ use this shape).

When the script runs out, the server answers 400 "no scripted turn left" (not retried), so a
test that makes more calls than it scripted fails loudly. ``server.add(*turns)`` appends turns.
Ollama's ``/api/tags`` lists ``server.models`` and ``/api/version`` answers too; probes are
counted in ``server.probes``, not recorded in ``server.requests``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections import deque
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from vault_agent.llm.mistral import MistralModel
from vault_agent.llm.model import (
    ChatModel,
)
from vault_agent.llm.ollama import OllamaModel
from vault_agent.llm.openai_compat import OpenAICompatModel
from vault_agent.llm.stream import (
    RetryPolicy,
)

Kind = Literal["mistral", "ollama", "openai"]
KINDS: tuple[Kind, ...] = ("mistral", "ollama", "openai")
FAKE_MODEL = {"mistral": "mistral-medium-latest", "ollama": "qwen2.5:3b", "openai": "local-model"}


@dataclass(frozen=True)
class FakeCall:
    """One scripted tool call. ``arguments`` as a str is sent verbatim (may be malformed)."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class FakeTurn:
    """One scripted answer to one chat request. Build it with the class methods."""

    kind: Literal["reply", "error", "hang", "raw"] = "reply"
    chunks: tuple[str, ...] = ()
    calls: tuple[FakeCall, ...] = ()
    status: int = 200
    retry_after: float | str | None = None
    body: str | None = None
    hang_s: float = 30.0
    hang_after: int | None = None
    drop_after_chunks: int | None = None
    usage: tuple[int, int] = (12, 7)
    finish_reason: str | None = None
    raw_lines: tuple[str, ...] = ()
    content_type: str | None = None

    @classmethod
    def text(cls, text: str | Sequence[str], *, usage: tuple[int, int] = (12, 7)) -> FakeTurn:
        """A text answer, streamed word by word (or in the given chunks)."""
        return cls(chunks=_chunks(text), usage=usage)

    @classmethod
    def tool_calls(
        cls,
        calls: Iterable[tuple[str, dict[str, Any] | str] | FakeCall],
        *,
        text: str | Sequence[str] = "",
        usage: tuple[int, int] = (12, 7),
    ) -> FakeTurn:
        """A turn that calls tools (several = parallel calls), optionally after some text."""
        parsed = tuple(c if isinstance(c, FakeCall) else FakeCall(c[0], c[1]) for c in calls)
        return cls(chunks=_chunks(text), calls=parsed, usage=usage)

    @classmethod
    def error(
        cls, status: int, *, retry_after: float | str | None = None, body: str | None = None
    ) -> FakeTurn:
        """An HTTP error; ``body`` defaults to the provider's error JSON."""
        return cls(kind="error", status=status, retry_after=retry_after, body=body)

    @classmethod
    def hang(
        cls, seconds: float = 30.0, *, after_chunks: int = 0, text: str | Sequence[str] = ""
    ) -> FakeTurn:
        """Say nothing for ``seconds`` (the client should time out first).

        ``after_chunks=0`` hangs before the response headers; ``n > 0`` after ``n`` chunks of
        ``text``.
        """
        kind: Literal["hang", "reply"] = "hang" if after_chunks == 0 else "reply"
        return cls(kind=kind, chunks=_chunks(text), hang_s=seconds, hang_after=after_chunks)

    @classmethod
    def drop_after(
        cls, n_chunks: int, *, text: str | Sequence[str] = "one two three four"
    ) -> FakeTurn:
        """Stream ``n_chunks`` content chunks of ``text``, then close the connection."""
        return cls(chunks=_chunks(text), drop_after_chunks=n_chunks)

    @classmethod
    def raw(cls, lines: Sequence[str], *, content_type: str | None = None) -> FakeTurn:
        """Send these body lines verbatim with a 200 (newline added to each).

        ``content_type`` defaults to the provider's streaming type.
        """
        return cls(kind="raw", raw_lines=tuple(lines), content_type=content_type)

    @classmethod
    def replay(cls, transcript: dict[str, Any]) -> FakeTurn:
        """Send a transcript: SSE events, NDJSON lines or one JSON body (see the module doc)."""
        fmt = transcript["format"]
        if fmt == "sse":
            lines = [_sse(event).decode().rstrip("\n") + "\n" for event in transcript["events"]]
            return cls.raw(lines, content_type="text/event-stream")
        if fmt == "ndjson":
            lines = [json.dumps(event) for event in transcript["events"]]
            return cls.raw(lines, content_type="application/x-ndjson")
        if fmt == "json":
            return cls.raw([json.dumps(transcript["body"])], content_type="application/json")
        raise ValueError(f"unknown transcript format {fmt!r}")


@dataclass
class RecordedRequest:
    """A chat request the fake received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The ``messages`` sent."""
        return list(self.body.get("messages") or [])

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The ``tools`` sent (empty if none)."""
        return list(self.body.get("tools") or [])


class FakeLLMServer:
    """One fake provider on 127.0.0.1:<free port>, replaying a script."""

    def __init__(self, kind: Kind, script: Iterable[FakeTurn] = (), models: Sequence[str] = ()):
        self.kind = kind
        self.script: deque[FakeTurn] = deque(script)
        self.requests: list[RecordedRequest] = []
        self.models = list(models or [FAKE_MODEL["ollama"]])
        self.probes = 0
        self.base_url = ""
        self._closing = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._wire = _WIRES[kind]

    def add(self, *turns: FakeTurn) -> None:
        """Append turns to the script."""
        self.script.extend(turns)

    async def start(self) -> None:
        """Listen on a free port of 127.0.0.1."""
        app = web.Application()
        chat_path = "/api/chat" if self.kind == "ollama" else "/v1/chat/completions"
        app.router.add_post(chat_path, self._chat)
        app.router.add_get("/api/tags", self._tags)
        app.router.add_get("/api/version", self._version)
        # handler_cancellation: a client that gives up (timeout) ends the hanging handler.
        self._runner = web.AppRunner(
            app, handler_cancellation=True, shutdown_timeout=0.5, access_log=None
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        root = f"http://127.0.0.1:{port}"
        self.base_url = root + "/v1" if self.kind == "openai" else root

    async def close(self) -> None:
        """Stop listening; hanging handlers return at once."""
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _tags(self, request: web.Request) -> web.Response:
        self.probes += 1
        return web.json_response(
            {"models": [{"name": m, "model": m, "size": 1, "digest": "0"} for m in self.models]}
        )

    async def _version(self, request: web.Request) -> web.Response:
        self.probes += 1
        return web.json_response({"version": "0.12.0"})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(RecordedRequest(request.path, dict(request.headers), body))
        if not self.script:
            n = len(self.requests)
            return self._error(400, f"fake LLM: no scripted turn left for request #{n}")
        turn = self.script.popleft()
        if turn.kind == "error":
            return self._error(turn.status, turn.body, turn.retry_after)
        if turn.kind == "hang":
            await self._sleep(turn.hang_s)
            return self._error(504, "fake LLM: hang ended")
        content_type = turn.content_type or self._wire.content_type
        response = web.StreamResponse(headers={"Content-Type": content_type})
        await response.prepare(request)
        if turn.kind == "raw":
            for line in turn.raw_lines:
                await response.write(line.encode() + b"\n")
            await response.write_eof()
            return response
        preamble, content, ending = self._wire.frames(turn, body)
        try:
            for frame in preamble:
                await response.write(frame)
            for i, frame in enumerate(content):
                if i == turn.drop_after_chunks:
                    return _drop(request, response)
                if i == turn.hang_after:
                    await self._sleep(turn.hang_s)
                await response.write(frame)
            if turn.drop_after_chunks is not None:
                return _drop(request, response)
            for frame in ending:
                await response.write(frame)
            await response.write_eof()
        except ConnectionResetError:
            pass  # the client gave up (timeout, or it closed the stream early): nothing to do
        return response

    def _error(
        self, status: int, body: str | None, retry_after: float | str | None = None
    ) -> web.Response:
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        text = body if body is not None else json.dumps(self._wire.error(status))
        return web.Response(
            status=status, text=text, content_type="application/json", headers=headers
        )

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._closing.wait(), seconds)


@contextlib.asynccontextmanager
async def fake_provider(
    kind: Kind, script: Iterable[FakeTurn] = (), *, models: Sequence[str] = ()
) -> AsyncIterator[tuple[str, FakeLLMServer]]:
    """Run a fake ``kind`` server for the ``async with`` block; yields (base_url, server).

    ``base_url`` is what the provider class takes: Mistral's ``server_url``, Ollama's ``host``,
    the OpenAI-compatible ``base_url`` (ending in ``/v1``).
    """
    server = FakeLLMServer(kind, script, models)
    await server.start()
    try:
        yield server.base_url, server
    finally:
        await server.close()


def model_for(
    kind: Kind,
    base_url: str,
    *,
    timeout_s: float = 5.0,
    max_retries: int = 2,
    max_retry_after_s: float = 30.0,
) -> ChatModel:
    """The real provider class pointed at a fake, with millisecond backoff for fast tests."""
    retry = RetryPolicy(
        max_retries=max_retries,
        backoff_s=0.01,
        max_backoff_s=0.05,
        max_retry_after_s=max_retry_after_s,
    )
    model = FAKE_MODEL[kind]
    if kind == "mistral":
        return MistralModel(
            api_key="test-key", model=model, server_url=base_url, timeout_s=timeout_s, retry=retry
        )
    if kind == "ollama":
        return OllamaModel(host=base_url, model=model, timeout_s=timeout_s, retry=retry)
    return OpenAICompatModel(
        base_url=base_url, model=model, api_key="test-key", timeout_s=timeout_s, retry=retry
    )


def _drop(request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    # close() flushes what was written, then ends the TCP connection mid-body: the client sees
    # an incomplete chunked response, as when a server dies or a proxy cuts the stream.
    if request.transport is not None:
        request.transport.close()
    return response


def _chunks(text: str | Sequence[str]) -> tuple[str, ...]:
    if isinstance(text, str):
        return tuple(re.findall(r"\s*\S+\s*|\s+", text)) if text else ()
    return tuple(text)


# --- wire formats --------------------------------------------------------------------------

Frames = tuple[list[bytes], list[bytes], list[bytes]]


def _sse(data: dict[str, Any] | str) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"data: {payload}\n\n".encode()


def _arguments_text(call: FakeCall) -> str:
    return call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)


class _MistralWire:
    """``/v1/chat/completions`` SSE as La Plateforme sends it: calls whole, in one delta."""

    content_type = "text/event-stream"

    def frames(self, turn: FakeTurn, request: dict[str, Any]) -> Frames:
        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return _sse(
                {
                    "id": "cmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": 1700000000,
                    "model": request.get("model", ""),
                    "choices": [choice],
                    **extra,
                }
            )

        usage = {
            "prompt_tokens": turn.usage[0],
            "completion_tokens": turn.usage[1],
            "total_tokens": sum(turn.usage),
        }
        content = [chunk({"content": piece}) for piece in turn.chunks]
        if turn.calls:
            calls = [
                {
                    "id": call.id or f"call{i:05d}",  # Mistral ids: 9 alphanumerics
                    "function": {"name": call.name, "arguments": _arguments_text(call)},
                    "index": i,
                }
                for i, call in enumerate(turn.calls)
            ]
            last = chunk({"content": "", "tool_calls": calls}, "tool_calls", usage=usage)
        else:
            last = chunk({"content": ""}, turn.finish_reason or "stop", usage=usage)
        return [chunk({"role": "assistant", "content": ""})], content, [last, _sse("[DONE]")]

    def error(self, status: int) -> dict[str, Any]:
        return {
            "object": "error",
            "message": _STATUS_TEXT.get(status, "error"),
            "type": "invalid_request_error" if status < 500 else "internal_error",
            "param": None,
            "code": str(status),
        }


class _OpenAIWire:
    """OpenAI chat-completions SSE: tool calls split across deltas, keyed by ``index``."""

    content_type = "text/event-stream"

    def frames(self, turn: FakeTurn, request: dict[str, Any]) -> Frames:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return _sse(
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": 1700000000,
                    "model": request.get("model", ""),
                    "choices": [choice],
                }
            )

        content = [chunk({"content": piece}) for piece in turn.chunks]
        ending: list[bytes] = []
        for i, call in enumerate(turn.calls):
            start = {
                "index": i,
                "id": call.id or f"call_fake_{i}",
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            ending.append(chunk({"tool_calls": [start]}))
            text = _arguments_text(call)
            step = max(1, len(text) // 3 + 1)
            for j in range(0, len(text), step):
                piece = {"index": i, "function": {"arguments": text[j : j + step]}}
                ending.append(chunk({"tool_calls": [piece]}))
        finish = turn.finish_reason or ("tool_calls" if turn.calls else "stop")
        ending.append(chunk({}, finish))
        if (request.get("stream_options") or {}).get("include_usage"):
            usage = {
                "prompt_tokens": turn.usage[0],
                "completion_tokens": turn.usage[1],
                "total_tokens": sum(turn.usage),
            }
            ending.append(
                _sse(
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion.chunk",
                        "choices": [],
                        "usage": usage,
                    }
                )
            )
        ending.append(_sse("[DONE]"))
        return [chunk({"role": "assistant", "content": ""})], content, ending

    def error(self, status: int) -> dict[str, Any]:
        return {
            "error": {
                "message": _STATUS_TEXT.get(status, "error"),
                "type": "server_error" if status >= 500 else "invalid_request_error",
                "code": None,
            }
        }


class _OllamaWire:
    """``/api/chat`` NDJSON: one object per line, calls whole with object arguments."""

    content_type = "application/x-ndjson"

    def frames(self, turn: FakeTurn, request: dict[str, Any]) -> Frames:
        model = request.get("model", "")

        def line(message: dict[str, Any], **extra: Any) -> bytes:
            data = {
                "model": model,
                "created_at": "2025-01-01T00:00:00Z",
                "message": {"role": "assistant", **message},
                **extra,
            }
            return json.dumps(data).encode() + b"\n"

        content = [line({"content": piece}, done=False) for piece in turn.chunks]
        ending: list[bytes] = []
        if turn.calls:
            calls = [
                {
                    # Recent Ollama sends id and index; the 0.6 SDK drops both.
                    "id": call.id or f"call_{i}",
                    "function": {"index": i, "name": call.name, "arguments": call.arguments},
                }
                for i, call in enumerate(turn.calls)
            ]
            ending.append(line({"content": "", "tool_calls": calls}, done=False))
        ending.append(
            line(
                {"content": ""},
                done=True,
                done_reason=turn.finish_reason or "stop",
                total_duration=1000,
                load_duration=10,
                prompt_eval_count=turn.usage[0],
                prompt_eval_duration=100,
                eval_count=turn.usage[1],
                eval_duration=100,
            )
        )
        return [], content, ending

    def error(self, status: int) -> dict[str, Any]:
        return {"error": _STATUS_TEXT.get(status, "error")}


_WIRES: dict[Kind, _MistralWire | _OpenAIWire | _OllamaWire] = {
    "mistral": _MistralWire(),
    "openai": _OpenAIWire(),
    "ollama": _OllamaWire(),
}

_STATUS_TEXT = {
    400: "bad request",
    401: "invalid api key",
    404: "model not found",
    429: "rate limit exceeded",
    500: "internal server error",
    502: "bad gateway",
    503: "service unavailable",
}
