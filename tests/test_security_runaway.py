"""Servers that never stop answering: the sidecar stops reading, and says why.

Small local models loop ("the the the ..."), and Ollama generates until it is stopped; a broken
or hostile server can send one endless line, an endless tool call or a JSON body without end,
and an embedding server an answer without end. Each keeps data arriving, so no read timeout
fires: without a bound, the sidecar kept every byte in memory, streamed a model's text on to
the pane, which rendered it again and again, and never finished starting when the embedding
server's first answer never ended.

The fakes below stream for real over 127.0.0.1 (aiohttp), forever, until their client hangs up;
the sidecar runs on a socket as `vault-agent serve` does, with `llm.max_answer_chars` small so
that the tests are quick. Each question must end with an `error` event in bounded time, the
model's connection closed, and the next question answered; the index must open degraded, with
the reason.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Self

import pytest
from aiohttp import web

from server_support import AUTH, ServedVault, api_settings, ask_events, serve_api
from vault_agent.config import IndexSettings, LlmSettings

pytestmark = pytest.mark.asyncio(loop_scope="session")

LIMIT = 2_000
"""`llm.max_answer_chars` in these tests."""


def openai_chunk(delta: dict[str, object]) -> bytes:
    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": []}
    chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": None}]
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def ollama_line(content: str) -> bytes:
    message = {"role": "assistant", "content": content}
    return json.dumps({"model": "m", "message": message, "done": False}).encode() + b"\n"


def tool_call_start() -> bytes:
    call = {"index": 0, "id": "call_1", "type": "function"}
    call["function"] = {"name": "search_notes", "arguments": '{"query": "'}
    return openai_chunk({"tool_calls": [call]})


def tool_call_more() -> bytes:
    return openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": "the " * 8}}]})


#: name -> (wire, content type, first bytes, the bytes repeated forever)
RUNAWAYS: dict[str, tuple[str, str, bytes, Callable[[], bytes]]] = {
    "openai text that never ends": (
        "openai",
        "text/event-stream",
        b"",
        lambda: openai_chunk({"content": "the "}),
    ),
    "ollama text that never ends": (
        "ollama",
        "application/x-ndjson",
        b"",
        lambda: ollama_line("the "),
    ),
    "a tool call whose arguments never end": (
        "openai",
        "text/event-stream",
        tool_call_start(),
        tool_call_more,
    ),
    "one line that never ends": (
        "openai",
        "text/event-stream",
        b'data: {"choices": [{"index": 0, "delta": {"content": "',
        lambda: b"the " * 64,
    ),
    "Mistral: one line that never ends": (  # its SDK's own HTTP client (httpx2), bounded too
        "mistral",
        "text/event-stream",
        b'data: {"id": "x", "object": "chat.completion.chunk", "model": "m", "created": 1, '
        b'"choices": [{"index": 0, "delta": {"content": "',
        lambda: b"the " * 64,
    ),
    "a whole-JSON answer that never ends": (
        "openai",
        "application/json",
        b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "',
        lambda: b"the " * 64,
    ),
}


class EndlessServer:
    """A server on 127.0.0.1 whose answers, to a POST on any of `paths`, never end (each
    streams `stream` forever); `closed` is set when its client left."""

    paths: tuple[str, ...] = ()
    content_type = "application/json"

    def __init__(self) -> None:
        self.requests = 0
        self.closed = asyncio.Event()
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def stream(self, response: web.StreamResponse) -> None:
        """Write the answer: never returns."""
        raise NotImplementedError

    async def answer(self, request: web.Request) -> web.StreamResponse:
        await request.read()
        self.requests += 1
        response = web.StreamResponse(headers={"Content-Type": self.content_type})
        await response.prepare(request)
        try:
            await self.stream(response)
        except (ConnectionResetError, asyncio.CancelledError):
            self.closed.set()
            raise
        return response

    async def __aenter__(self) -> Self:
        app = web.Application()
        for path in self.paths:
            app.router.add_post(path, self.answer)
        self._runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._runner is not None
        await self._runner.cleanup()


class Runaway(EndlessServer):
    """A chat server that streams `first`, then `repeat()` forever."""

    paths = ("/api/chat", "/v1/chat/completions")

    def __init__(self, wire: str, content_type: str, first: bytes, repeat: Callable[[], bytes]):
        super().__init__()
        self.wire, self.content_type, self.first, self.repeat = wire, content_type, first, repeat
        self.sent = 0

    @property
    def base_url(self) -> str:
        """The URL its profile is given (an OpenAI-compatible one ends in /v1)."""
        return self.url + "/v1" if self.wire == "openai" else self.url

    async def stream(self, response: web.StreamResponse) -> None:
        await response.write(self.first)
        while True:
            chunk = self.repeat()
            await response.write(chunk)
            self.sent += len(chunk)
            await asyncio.sleep(0)


@pytest.fixture
async def runaway(request: pytest.FixtureRequest) -> AsyncIterator[Runaway]:
    async with Runaway(*RUNAWAYS[request.param]) as server:
        yield server


@pytest.mark.parametrize("runaway", list(RUNAWAYS), indirect=True)
async def test_a_model_that_never_stops_is_stopped_with_a_clear_error(
    runaway: Runaway, served_vault: ServedVault, tmp_path: Path
) -> None:
    llm = LlmSettings(
        profile=runaway.wire,
        api_key="k-123456789",  # the Mistral profile needs one
        base_url=runaway.base_url,
        model="m",
        max_retries=2,  # a runaway is not retried: retrying would run away again
        timeout_s=5,
        max_answer_chars=LIMIT,
    )
    settings = api_settings(served_vault.vault, tmp_path, llm=llm)
    async with serve_api(settings, vault_index=served_vault.index) as api:
        async with asyncio.timeout(30):
            events = await ask_events(api, {"question": "When did I last feed the starter?"})
            await asyncio.wait_for(runaway.closed.wait(), 10)
        name, error = events[-1]
        assert name == "error", error
        assert error["code"] == "bad_response"
        assert f"{LIMIT:,}" in error["message"] and "llm.max_answer_chars" in error["message"]
        # What reached the pane is bounded too.
        streamed = sum(len(data["text"]) for kind, data in events if kind == "delta")
        assert streamed <= LIMIT
        assert runaway.requests == 1  # a runaway is not retried

        # The sidecar is fine: the next question (no model this time) is answered.
        async with api.session.post(
            api.url("/v1/ask"),
            json={"question": "When did I last feed the starter?", "profile": "extractive"},
            headers=AUTH,
        ) as response:
            assert response.status == 200
            assert b"event: done" in await response.read()


class RunawayEmbeddings(EndlessServer):
    """An embedding server (both wire formats) whose answers never end."""

    paths = ("/api/embed", "/v1/embeddings")

    async def stream(self, response: web.StreamResponse) -> None:
        await response.write(b'{"embeddings": [[')
        while True:
            await response.write(b"0.125, " * 512)
            await asyncio.sleep(0)


@pytest.mark.parametrize("protocol", ["ollama", "openai"])
async def test_an_embedding_server_whose_answer_never_ends_is_stopped(
    tmp_path: Path, protocol: str
) -> None:
    (tmp_path / "vault").mkdir()
    (tmp_path / "vault" / "Note.md").write_text("# Note\n\nA short note.\n", encoding="utf-8")
    async with RunawayEmbeddings() as server:
        index = IndexSettings(
            embedding=f"{protocol}:m",
            embedding_url=server.url,
            embedding_max_retries=2,
            embed_batch_size=1,
        )
        settings = api_settings(tmp_path / "vault", tmp_path, index=index)
        # The index opens as the app starts: before, the start never ended.
        async with asyncio.timeout(60), serve_api(settings) as api:
            await asyncio.wait_for(server.closed.wait(), 30)
            async with api.session.get(api.url("/v1/index"), headers=AUTH) as response:
                status = await response.json()
    assert status["state"] == "unavailable"
    assert "MB" in status["error"] and "stopped" in status["error"], status["error"]


class Drip(EndlessServer):
    """A model that never finishes and never falls silent: `piece` every `every` seconds."""

    paths = ("/api/chat", "/v1/chat/completions")

    def __init__(self, content_type: str, piece: bytes, every: float) -> None:
        super().__init__()
        self.content_type, self.piece, self.every = content_type, piece, every

    async def stream(self, response: web.StreamResponse) -> None:
        while True:
            await response.write(self.piece)
            await asyncio.sleep(self.every)


DRIPS = {
    "openai keep-alive comments": ("openai", "text/event-stream", b": keep-alive\n\n"),
    "openai empty deltas": ("openai", "text/event-stream", openai_chunk({"content": ""})),
    "ollama blank lines": ("ollama", "application/x-ndjson", b"\n"),
    "mistral keep-alive comments": ("mistral", "text/event-stream", b": keep-alive\n\n"),
}


@pytest.mark.parametrize("case", list(DRIPS))
async def test_a_model_that_keeps_its_stream_alive_still_ends_the_question(
    case: str, served_vault: ServedVault, tmp_path: Path
) -> None:
    # Found by an audit: every gap shorter than the read timeout and too few bytes to reach
    # the answer's limit, a question stayed open for as long as the model's server liked.
    wire, content_type, piece = DRIPS[case]
    async with Drip(content_type, piece, 0.3) as server:
        llm = LlmSettings(
            profile=wire,
            base_url=f"{server.url}/v1" if wire == "openai" else server.url,
            api_key="k-123456789",
            model="m",
            max_retries=0,
            timeout_s=2,
            max_answer_s=2,
        )
        settings = api_settings(served_vault.vault, tmp_path, llm=llm)
        async with serve_api(settings, vault_index=served_vault.index) as api:
            started = time.monotonic()
            async with asyncio.timeout(20):
                events = await ask_events(api, {"question": "When did I last feed the starter?"})
    kind, last = events[-1]
    assert (kind, last["code"]) == ("error", "model_timeout"), last
    assert "llm.max_answer_s" in last["message"]
    assert time.monotonic() - started < 10
