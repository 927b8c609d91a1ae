"""Fixtures and helpers for the HTTP API tests (loaded as a pytest plugin by conftest.py).

The API runs for real: `start_server` (what `vault-agent serve` uses) on a free port of
127.0.0.1, over the real index of examples/vault, embedded once per session and copied (vault
and index together) for tests that change it. Beside the served copy lies a canary file that no
route may ever return; inside it, a symlink pointing at it.
Chat providers are the HTTP-level fakes of fake_llm.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from conftest import EXAMPLE_VAULT, WrappedEmbedder
from fake_llm import FakeLLMServer, FakeTurn
from vault_agent.config import LlmSettings, Settings, StoreSettings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder, Vector
from vault_agent.index.vault_index import VaultIndex
from vault_agent.server.app import make_app
from vault_agent.server.runner import start_server

TOKEN = "test-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
CANARY = "CANARY-7d3e91: this file lies outside the vault and must never be served"
OBSIDIAN = "app://obsidian.md"


@dataclass(frozen=True)
class IndexedCopy:
    """A copy of examples/vault and of its Edge index, in step (a sync finds nothing to do)."""

    vault: Path
    shard: Path

    def store(self) -> StoreSettings:
        """Store settings pointing at this copy's index."""
        return StoreSettings(path=self.shard)


@pytest.fixture(scope="session")
def indexed_example(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> IndexedCopy:
    """examples/vault indexed once per session (closed): the template tests copy."""
    root = tmp_path_factory.mktemp("indexed-example")
    vault = root / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    settings = Settings(vault=vault, data_dir=root / "data", config_dir=root / "config")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
    return IndexedCopy(vault, settings.edge_path)


def copy_indexed(template: IndexedCopy, root: Path) -> IndexedCopy:
    """A private copy of `template` under `root` that a test may change: copying keeps file
    times, so the copied index is up to date and no note is embedded again."""
    copy = IndexedCopy(root / "vault", root / "shard")
    shutil.copytree(template.vault, copy.vault)
    shutil.copytree(template.shard, copy.shard)
    return copy


@dataclass
class ServedVault:
    """The session's served vault, its open index and the canary beside it."""

    root: Path
    vault: Path
    canary: Path
    index: VaultIndex


@pytest.fixture(scope="session")
def served_vault(
    tmp_path_factory: pytest.TempPathFactory,
    indexed_example: IndexedCopy,
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
) -> Iterator[ServedVault]:
    """The indexed example vault, open for the whole session; tests must not change it."""
    root = tmp_path_factory.mktemp("served")
    copy = copy_indexed(indexed_example, root)
    canary = root / "canary.md"
    canary.write_text(f"# Canary\n\n{CANARY}\n", encoding="utf-8")
    (copy.vault / "escape.md").symlink_to(canary)  # a symlink out of the vault
    settings = api_settings(copy.vault, root, store=copy.store())
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        yield ServedVault(root, copy.vault, canary, index)


def api_settings(vault: Path, root: Path, **changes: Any) -> Settings:
    """Settings for a test app: extractive answers, fast failures, private dirs."""
    llm = changes.pop("llm", LlmSettings(profile="extractive", max_retries=0, timeout_s=5))
    return Settings(
        vault=vault, data_dir=root / "data", config_dir=root / "config", llm=llm, **changes
    )


def fake_llm_settings(base_url: str) -> LlmSettings:
    """The OpenAI-compatible profile pointed at a fake server, without retries."""
    return LlmSettings(
        profile="openai", base_url=base_url, model="local-model", max_retries=0, timeout_s=5
    )


@dataclass
class Api:
    """A running app and a client session for it (token not sent unless asked)."""

    app: web.Application
    base_url: str
    session: aiohttp.ClientSession

    def url(self, path: str) -> str:
        """The absolute URL of `path`."""
        return self.base_url + path


@contextlib.asynccontextmanager
async def serve_api(settings: Settings, **app_options: Any) -> AsyncIterator[Api]:
    """Run `make_app(settings, token=TOKEN, **app_options)` on a real socket."""
    app_options.setdefault("background_indexer", False)
    app = make_app(settings, token=TOKEN, **app_options)
    runner, port = await start_server(app, 0)
    try:
        async with aiohttp.ClientSession() as session:
            yield Api(app, f"http://127.0.0.1:{port}", session)
    finally:
        await runner.cleanup()


@pytest.fixture
async def api(served_vault: ServedVault, tmp_path: Path) -> AsyncIterator[Api]:
    """The API over the session index, answering with the extractive profile."""
    settings = api_settings(served_vault.vault, tmp_path)
    async with serve_api(settings, vault_index=served_vault.index) as running:
        yield running


async def read_events(
    response: aiohttp.ClientResponse,
) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    """Parse a Server-Sent Events body into (event, data) pairs as they arrive."""
    name = "message"
    data: list[str] = []
    async for raw in response.content:
        line = raw.decode().rstrip("\r\n")
        if not line:
            if data:
                yield name, json.loads("\n".join(data))
            name, data = "message", []
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))


async def ask_events(api: Api, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """POST /v1/ask and collect every event of the stream."""
    async with api.session.post(api.url("/v1/ask"), json=body, headers=AUTH) as response:
        assert response.status == 200, await response.text()
        assert response.content_type == "text/event-stream"
        return [event async for event in read_events(response)]


async def ask_served(
    vault: Path, index: VaultIndex, root: Path, llm: LlmSettings, body: dict[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    """Serve `index` (of `vault`) with model settings `llm` and settings under `root`, ask
    `body`, and collect every event of the answer."""
    settings = api_settings(vault, root, llm=llm)
    async with serve_api(settings, vault_index=index) as api:
        return await ask_events(api, body)


class ObservedFakeServer(FakeLLMServer):
    """A fake provider that notices a client hanging up mid-answer, and can answer by rule
    (`respond` looks at each request) with a fixed latency, for concurrent questions whose
    requests interleave.

    Hooks `FakeLLMServer._chat`, the one place a request is handled."""

    def __init__(
        self,
        script: Sequence[FakeTurn] = (),
        respond: Callable[[dict[str, Any]], FakeTurn] | None = None,
        latency_s: float = 0.0,
    ) -> None:
        super().__init__("openai", script)
        self.respond = respond
        self.latency_s = latency_s
        self.cancelled = asyncio.Event()

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        try:
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
            if self.respond is not None:
                # The parent reads the (now cached) body again without yielding to the loop,
                # so no other request can take this turn from the front of the script.
                self.script.appendleft(self.respond(await request.json()))
            return await super()._chat(request)
        except asyncio.CancelledError:
            self.cancelled.set()  # the client (the sidecar) closed the connection
            raise


@contextlib.asynccontextmanager
async def observed_fake(
    script: Sequence[FakeTurn] = (),
    respond: Callable[[dict[str, Any]], FakeTurn] | None = None,
    latency_s: float = 0.0,
) -> AsyncIterator[ObservedFakeServer]:
    """Run an `ObservedFakeServer` for the block."""
    server = ObservedFakeServer(script, respond, latency_s)
    await server.start()
    try:
        yield server
    finally:
        await server.close()


def search_then_answer(body: dict[str, Any]) -> FakeTurn:
    """A model that searches first, then answers citing what the search found."""
    messages = body.get("messages") or []
    if messages and messages[-1].get("role") == "tool":
        return FakeTurn.text("Gus was last fed on 2026-11-11, see [[Daily/2026-11-11]].")
    return FakeTurn.tool_calls([("search_notes", {"query": "feed the sourdough starter"})])


class GatedEmbedder(WrappedEmbedder):
    """The real embedder, except that embedding documents waits at a gate: holds an index
    sync mid-flight, as a large vault would, for as long as a test needs. Queries pass."""

    def __init__(self, inner: MiniLmEmbedder) -> None:
        super().__init__(inner)
        self.gate = threading.Event()
        self.gate.set()
        self.waiting = threading.Event()

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        self.waiting.set()
        if not self.gate.wait(timeout=60):
            raise TimeoutError("the test never opened the embedding gate")
        return self.inner.embed_documents(texts)
