"""Dependency faults, through the running sidecar: the Qdrant server unreachable, slow or dying
mid-request, and the model timing out, failing (500, 429) or dropping half an answer. Each gives
a clear error (a 503 naming the server, or an ``error`` event) or is retried; the sidecar keeps
serving meanwhile, and the next request works.

The Qdrant server is fake_qdrant.py's: qdrant-client's in-memory server behind a TCP proxy that
refuses, stalls or cuts connections, so the sidecar runs its real `ServerStore` over HTTP. The
models are fake_llm.py's fake providers, driven by the real provider clients.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from fake_llm import FakeTurn, Kind, fake_provider
from fake_qdrant import FakeQdrant, FaultProxy, qdrant_behind_proxy
from server_support import AUTH, Api, api_settings, ask_events, observed_fake, serve_api
from vault_agent.config import LlmSettings, Settings, StoreSettings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.server import index_service

pytestmark = pytest.mark.asyncio(loop_scope="session")

NOTES = {
    "Starter.md": "# Starter\n\nGus the sourdough starter is fed every morning at eight.\n",
    "Garden.md": "# Garden\n\nThe tomatoes need staking before the storm.\n",
    "Trip.md": "# Trip\n\nKyoto in April: book the ryokan early.\n",
}
QUESTION = {"question": "When is the sourdough starter fed?"}
#: A failing request must fail within this long (the store's timeout is 1 s).
BOUND_S = 4.0


@pytest.fixture
def qdrant() -> Iterator[tuple[FakeQdrant, FaultProxy]]:
    with qdrant_behind_proxy() as pair:
        yield pair


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    for file, text in NOTES.items():
        (root / file).write_text(text, encoding="utf-8")
    return root


def server_settings(vault: Path, root: Path, proxy: FaultProxy, **changes: Any) -> Settings:
    store = StoreSettings(url=proxy.url, timeout_s=1, collection="faults")
    return api_settings(vault, root, store=store, **changes)


@dataclass
class Served:
    api: Api
    proxy: FaultProxy
    vault: Path


@pytest.fixture
async def served(
    vault: Path,
    tmp_path: Path,
    qdrant: tuple[FakeQdrant, FaultProxy],
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
) -> AsyncIterator[Served]:
    """The sidecar on the Qdrant server path, the vault indexed through the proxy."""
    _, proxy = qdrant
    settings = server_settings(vault, tmp_path, proxy)
    async with serve_api(settings, embedder=embedder, sparse=sparse) as api:
        status, body = await post(api, "/v1/index/sync", {"wait": True})
        assert status == 200, body
        assert body["report"]["indexed"] == len(NOTES)
        yield Served(api, proxy, vault)


async def post(api: Api, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    async with api.session.post(api.url(path), json=body, headers=AUTH) as response:
        return response.status, await response.json()


async def search_top(api: Api, query: str) -> tuple[int, Any]:
    status, body = await post(api, "/v1/search", {"query": query, "limit": 1})
    return status, (body["hits"][0]["file"] if status == 200 and body["hits"] else body)


async def healthy(api: Api) -> bool:
    async with api.session.get(api.url("/v1/health")) as response:
        return response.status == 200 and (await response.json())["status"] == "ok"


def break_proxy(proxy: FaultProxy, fault: str) -> None:
    if fault == "refused":
        proxy.refuse()
    elif fault == "slow":
        proxy.mode, proxy.delay_s = "slow", 3.0
    else:
        proxy.mode = "cut"


# --- Qdrant --------------------------------------------------------------------------------

FAULTS = ["refused", "slow", "cut"]


@pytest.mark.parametrize("fault", FAULTS)
async def test_qdrant_fault_is_a_clear_503_and_the_next_request_works(
    served: Served, fault: str
) -> None:
    api, proxy = served.api, served.proxy
    assert await search_top(api, "sourdough starter fed") == (200, "Starter.md")

    break_proxy(proxy, fault)
    for _ in range(2):  # a pooled connection fails first, a new one after it
        started = time.monotonic()
        status, body = await post(api, "/v1/search", {"query": "tomatoes"})
        assert time.monotonic() - started < BOUND_S
        assert status == 503, body
        assert body["error"]["code"] == "index_unavailable"
        assert proxy.url in body["error"]["message"]
        assert "unreachable" in body["error"]["message"]
        assert await healthy(api)  # the sidecar itself is fine

    proxy.heal()
    assert await search_top(api, "tomatoes staking") == (200, "Garden.md")


@pytest.mark.parametrize("fault", FAULTS)
async def test_an_ask_during_a_qdrant_fault_ends_with_an_event_and_the_next_one_works(
    served: Served, fault: str
) -> None:
    api, proxy = served.api, served.proxy
    break_proxy(proxy, fault)
    started = time.monotonic()
    events = await ask_events(api, QUESTION)
    assert time.monotonic() - started < 3 * BOUND_S
    name, data = events[-1]
    assert name == "done", events
    # The search's failure is in the trace, and the answer says so: not "nothing found".
    failed = [d for n, d in events if n == "tool_result" and not d["ok"]]
    assert failed and proxy.url in failed[0]["summary"]
    assert data["answer"].startswith("I could not search your notes")
    assert proxy.url in data["answer"]
    assert data["sources"] == []

    proxy.heal()
    name, data = (await ask_events(api, QUESTION))[-1]
    assert name == "done", data
    assert [source["file"] for source in data["sources"]][:1] == ["Starter.md"]


async def test_a_sync_during_an_outage_says_so_and_the_next_one_catches_up(
    served: Served,
) -> None:
    api, proxy = served.api, served.proxy
    (served.vault / "Garden.md").write_text("# Garden\n\nPlant the garlic in October.\n")
    proxy.refuse()
    status, body = await post(api, "/v1/index/sync", {"wait": True})
    assert status == 503, body
    assert proxy.url in body["error"]["message"]

    proxy.heal()
    async with api.session.get(api.url("/v1/index?files=none"), headers=AUTH) as response:
        index = await response.json()
    assert response.status == 200
    assert index["state"] == "error"
    assert proxy.url in index["error"]

    status, body = await post(api, "/v1/index/sync", {"wait": True})
    assert status == 200, body
    assert body["report"]["indexed"] == 1
    assert await search_top(api, "plant garlic October") == (200, "Garden.md")


async def test_an_edit_made_while_qdrant_was_down_is_indexed_once_it_is_back(
    vault: Path,
    tmp_path: Path,
    qdrant: tuple[FakeQdrant, FaultProxy],
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The watcher's sync for the edit fails; nothing else changes afterwards, yet the edit
    must not be lost."""
    _, proxy = qdrant
    settings = server_settings(vault, tmp_path, proxy)
    options = {"embedder": embedder, "sparse": sparse, "background_indexer": True}
    async with serve_api(settings, **options) as api:
        await until(api, lambda body: body["state"] == "watching")
        proxy.refuse()
        (vault / "Trip.md").write_text("# Trip\n\nKyoto in April: pack the umbrella.\n")
        deadline = time.monotonic() + 20
        while "sync after file change failed" not in caplog.text:
            assert time.monotonic() < deadline, "the watcher never tried"
            await asyncio.sleep(0.1)
        proxy.heal()
        deadline = time.monotonic() + 20
        while await search_top(api, "pack the umbrella") != (200, "Trip.md"):
            assert time.monotonic() < deadline, "the edit was lost"
            await asyncio.sleep(0.2)


async def test_qdrant_unreachable_at_start_then_up_serves_without_a_restart(
    vault: Path,
    tmp_path: Path,
    qdrant: tuple[FakeQdrant, FaultProxy],
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, proxy = qdrant
    monkeypatch.setattr(index_service, "RETRY_S", 0.2)
    proxy.refuse()
    settings = server_settings(vault, tmp_path, proxy)
    options = {"embedder": embedder, "sparse": sparse, "background_indexer": True}
    async with serve_api(settings, **options) as api:
        assert not await healthy(api)
        status, body = await post(api, "/v1/search", {"query": "tomatoes"})
        assert status == 503
        assert proxy.url in body["error"]["message"]
        proxy.heal()
        deadline = time.monotonic() + 20
        while await search_top(api, "tomatoes staking") != (200, "Garden.md"):
            assert time.monotonic() < deadline, "the sidecar never recovered"
            await asyncio.sleep(0.2)
        assert await healthy(api)


async def test_a_file_the_watcher_cannot_name_is_named_and_watching_goes_on(
    vault: Path,
    tmp_path: Path,
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file named with bytes that are not UTF-8 stops the watcher (its Rust side can't make
    a path of it): the reason says which file, and the watcher starts again."""
    monkeypatch.setattr(index_service, "RETRY_S", 0.2)
    settings = api_settings(vault, tmp_path)
    options = {"embedder": embedder, "sparse": sparse, "background_indexer": True}
    async with serve_api(settings, **options) as api:
        await until(api, lambda body: body["state"] == "watching")
        (vault / os.fsdecode(b"raw \xff name.md")).write_text("# Raw\n\nrawword\n")
        await until(api, lambda body: "Unable to decode path" in (body["error"] or ""))
        (vault / "Later.md").write_text("# Later\n\nThe quincefold arrives later.\n")
        deadline = time.monotonic() + 20
        while await search_top(api, "quincefold") != (200, "Later.md"):
            assert time.monotonic() < deadline, "watching never resumed"
            await asyncio.sleep(0.2)


async def until(api: Api, check: Any, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        async with api.session.get(api.url("/v1/index?files=none"), headers=AUTH) as response:
            if response.status == 200 and check(await response.json()):
                return
        await asyncio.sleep(0.1)
    raise AssertionError("the index never reached the expected state")


# --- the model -----------------------------------------------------------------------------

ANSWER = "Gus is fed every morning at eight [[Starter]]."
SEARCH = FakeTurn.tool_calls([("search_notes", {"query": "sourdough starter fed"})])


def model_settings(kind: Kind, base_url: str, retries: int = 0) -> LlmSettings:
    return LlmSettings(
        profile=kind,
        base_url=base_url,
        api_key=SecretStr("test-key"),
        max_retries=retries,
        timeout_s=1,
    )


@pytest.fixture(scope="module")
def indexed_edge(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[Any]:
    """The small vault on the default Edge store, indexed once for the model tests."""
    from vault_agent.index.vault_index import VaultIndex

    root = tmp_path_factory.mktemp("model-faults")
    (root / "vault").mkdir()
    for file, text in NOTES.items():
        (root / "vault" / file).write_text(text, encoding="utf-8")
    with VaultIndex(api_settings(root / "vault", root), embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        yield index


MODEL_FAULTS = {
    "hangs before answering": ([FakeTurn.hang(30)], "model_timeout"),
    "hangs mid-answer": ([FakeTurn.hang(30, after_chunks=2, text=ANSWER)], "model_timeout"),
    "drops half an answer": ([FakeTurn.drop_after(3, text=ANSWER)], "model_unavailable"),
    "500 every time": ([FakeTurn.error(500)] * 2, "model_unavailable"),
    "429 with a long Retry-After": ([FakeTurn.error(429, retry_after=120)], "rate_limited"),
}


@pytest.mark.parametrize("kind", ["openai", "mistral", "ollama"])
@pytest.mark.parametrize("fault", MODEL_FAULTS)
async def test_a_model_fault_is_an_error_event_and_the_next_question_is_answered(
    kind: Kind, fault: str, indexed_edge: Any, tmp_path: Path
) -> None:
    script, code = MODEL_FAULTS[fault]
    async with fake_provider(kind, [*script, SEARCH, FakeTurn.text(ANSWER)]) as (base_url, _):
        llm = model_settings(kind, base_url, retries=1 if fault == "500 every time" else 0)
        settings = api_settings(indexed_edge.settings.vault, tmp_path, llm=llm)
        async with serve_api(settings, vault_index=indexed_edge) as api:
            started = time.monotonic()
            events = await ask_events(api, QUESTION)
            assert time.monotonic() - started < BOUND_S
            names = [name for name, _ in events]
            assert names[-1] == "error", events
            assert "done" not in names
            error = events[-1][1]
            assert error["code"] == code, error
            assert "Traceback" not in error["message"]
            assert await healthy(api)

            events = await ask_events(api, QUESTION)
            assert events[-1][0] == "done", events[-1]
            assert "[[Starter]]" in events[-1][1]["answer"]


async def test_429_and_500_are_retried_to_an_answer(indexed_edge: Any, tmp_path: Path) -> None:
    script = [FakeTurn.error(429, retry_after=0.1), FakeTurn.error(500), SEARCH]
    script.append(FakeTurn.text(ANSWER))
    async with observed_fake(script) as fake:
        llm = model_settings("openai", fake.base_url, retries=2)
        settings = api_settings(indexed_edge.settings.vault, tmp_path, llm=llm)
        async with serve_api(settings, vault_index=indexed_edge) as api:
            events = await ask_events(api, QUESTION)
    assert events[-1][0] == "done", events[-1]
    assert "[[Starter]]" in events[-1][1]["answer"]
    assert len(fake.requests) == 4


async def test_a_hanging_model_holds_up_no_other_request(indexed_edge: Any, tmp_path: Path) -> None:
    async with observed_fake([FakeTurn.hang(30)]) as fake:
        llm = model_settings("openai", fake.base_url).model_copy(update={"timeout_s": 3.0})
        settings = api_settings(indexed_edge.settings.vault, tmp_path, llm=llm)
        async with serve_api(settings, vault_index=indexed_edge) as api:
            stuck = asyncio.create_task(ask_events(api, QUESTION))
            await asyncio.sleep(0.3)  # the question is waiting on the model now
            for _ in range(10):
                started = time.monotonic()
                assert await search_top(api, "tomatoes staking") == (200, "Garden.md")
                assert await healthy(api)
                assert time.monotonic() - started < 1.0
            assert not stuck.done()
            events = await stuck
    assert events[-1][0] == "error"
    assert events[-1][1]["code"] == "model_timeout"
