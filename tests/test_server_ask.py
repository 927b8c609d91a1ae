"""``POST /v1/ask`` over a real socket: the event stream, aborts, outages, concurrency.

The chat model is the real OpenAI-compatible client talking to a fake provider over HTTP
(fake_llm.py), so an abort is seen where it matters: the provider's connection closes.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from fake_llm import FakeTurn
from server_support import (
    AUTH,
    Api,
    GatedEmbedder,
    IndexedCopy,
    ServedVault,
    api_settings,
    ask_events,
    ask_served,
    copy_indexed,
    fake_llm_settings,
    observed_fake,
    read_events,
    search_then_answer,
    serve_api,
)
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex

pytestmark = pytest.mark.asyncio(loop_scope="session")

QUESTION = {"question": "When did I last feed the sourdough starter?"}
ANSWER = "Gus was last fed on 2026-11-11, see [[Daily/2026-11-11]]."


async def test_ask_streams_tool_calls_deltas_then_a_checked_done(
    served_vault: ServedVault, tmp_path: Path
) -> None:
    script = [
        FakeTurn.tool_calls([("search_notes", {"query": "feed sourdough starter"})]),
        FakeTurn.text(ANSWER),
    ]
    async with observed_fake(script) as fake:
        llm = fake_llm_settings(fake.base_url)
        events = await ask_served(served_vault.vault, served_vault.index, tmp_path, llm, QUESTION)

    names = [name for name, _ in events]
    assert names[0] == "status"
    assert names[-1] == "done"
    assert names.count("done") == 1
    assert "error" not in names
    # The tool call, its result, then the answer's text, in that order.
    first_call = names.index("tool_call")
    assert names.index("tool_result") > first_call
    assert names.index("delta") > names.index("tool_result")
    call = events[first_call][1]
    assert call["name"] == "search_notes"
    assert call["arguments"] == {"query": "feed sourdough starter"}
    result = events[names.index("tool_result")][1]
    assert result["ok"] is True
    assert "Daily/2026-11-11.md" in {note["file"] for note in result["notes"]}
    streamed = "".join(data["text"] for name, data in events if name == "delta")
    assert streamed == ANSWER
    done = events[-1][1]
    assert "[[Daily/2026-11-11]]" in done["answer"]
    assert {"file": "Daily/2026-11-11.md"}.items() <= done["sources"][0].items()
    assert done["profile"] == "openai"
    # The model really saw the tool's result on its second call.
    assert len(fake.requests) == 2
    assert fake.requests[1].messages[-1]["role"] == "tool"


async def test_aborted_ask_closes_the_model_call(served_vault: ServedVault, tmp_path: Path) -> None:
    stalls = FakeTurn.hang(30, after_chunks=2, text="Gus was fed on a Tuesday morning")
    async with observed_fake([stalls]) as fake:
        settings = api_settings(served_vault.vault, tmp_path, llm=fake_llm_settings(fake.base_url))
        async with serve_api(settings, vault_index=served_vault.index) as api:
            response = await api.session.post(api.url("/v1/ask"), json=QUESTION, headers=AUTH)
            seen = []
            async for name, _ in read_events(response):
                seen.append(name)
                if name == "delta":
                    break  # mid-answer: the model has more to say
            response.close()  # the user pressed stop: the connection goes away
            started = time.perf_counter()
            await asyncio.wait_for(fake.cancelled.wait(), timeout=5)
            assert time.perf_counter() - started < 5
            assert "delta" in seen
            assert "done" not in seen
            # The sidecar is still fine afterwards.
            async with api.session.get(api.url("/v1/health")) as health:
                assert health.status == 200
    assert len(fake.requests) == 1


async def test_provider_outage_ends_the_stream_with_an_error_event(
    served_vault: ServedVault, tmp_path: Path
) -> None:
    async with observed_fake([FakeTurn.error(503)]) as fake:
        llm = fake_llm_settings(fake.base_url)
        events = await ask_served(served_vault.vault, served_vault.index, tmp_path, llm, QUESTION)
    name, error = events[-1]
    assert name == "error"
    assert error["code"] == "model_unavailable"
    assert "503" in error["message"] or "unavailable" in error["message"]
    assert "Traceback" not in error["message"]
    assert "done" not in [name for name, _ in events]


async def test_unreachable_provider_gives_an_error_event(
    served_vault: ServedVault, tmp_path: Path
) -> None:
    settings = api_settings(
        served_vault.vault, tmp_path, llm=fake_llm_settings("http://127.0.0.1:1/v1")
    )
    async with serve_api(settings, vault_index=served_vault.index) as api:
        events = await ask_events(api, QUESTION)
    assert events[-1][0] == "error"
    assert events[-1][1]["code"] == "model_unavailable"


async def test_missing_api_key_for_requested_profile_gives_an_error_event(
    served_vault: ServedVault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    settings = api_settings(served_vault.vault, tmp_path)
    async with serve_api(settings, vault_index=served_vault.index) as api:
        events = await ask_events(api, {**QUESTION, "profile": "mistral"})
    assert [name for name, _ in events] == ["error"]
    assert "MISTRAL_API_KEY" in events[0][1]["message"]


async def test_profile_in_the_request_overrides_the_default(
    served_vault: ServedVault, tmp_path: Path
) -> None:
    async with observed_fake() as fake:
        settings = api_settings(served_vault.vault, tmp_path, llm=fake_llm_settings(fake.base_url))
        async with serve_api(settings, vault_index=served_vault.index) as api:
            events = await ask_events(api, {**QUESTION, "profile": "extractive"})
    assert events[-1][0] == "done"
    assert events[-1][1]["profile"] == "extractive"
    assert fake.requests == []  # the default (fake) model was never asked


@pytest.fixture
def syncing_vault(
    indexed_example: IndexedCopy, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> tuple[VaultIndex, GatedEmbedder]:
    """A private indexed vault with five notes edited since: the next sync has to embed
    them, and waits at the embedder's gate (closed) until the test opens it."""
    copy = copy_indexed(indexed_example, tmp_path)
    vault = copy.vault
    gated = GatedEmbedder(embedder)
    settings = api_settings(vault, tmp_path, store=copy.store())
    index = VaultIndex(settings, embedder=gated, sparse=sparse)
    index.indexer.sync()
    for note in sorted((vault / "Recipes").glob("*.md")):
        with note.open("a", encoding="utf-8") as handle:
            handle.write("\n\nEdited while the sidecar was answering.\n")
    gated.gate.clear()
    return index, gated


async def test_twenty_concurrent_asks_are_answered_while_a_sync_runs(
    syncing_vault: tuple[VaultIndex, GatedEmbedder],
) -> None:
    index, gated = syncing_vault
    try:
        async with observed_fake(respond=search_then_answer, latency_s=0.05) as fake:
            llm = fake_llm_settings(fake.base_url)
            settings = index.settings.model_copy(update={"llm": llm})
            async with serve_api(settings, vault_index=index) as api:
                async with api.session.post(
                    api.url("/v1/index/sync"), json={}, headers=AUTH
                ) as response:
                    assert response.status == 202
                assert await asyncio.to_thread(gated.waiting.wait, 10)
                assert await index_state(api) == "syncing"

                answers = await asyncio.gather(*(ask_events(api, QUESTION) for _ in range(20)))

                # The sync is still held at the gate: every answer came while it ran.
                assert await index_state(api) == "syncing"
                for events in answers:
                    assert events[-1][0] == "done", events[-1]
                    assert "[[Daily/2026-11-11]]" in events[-1][1]["answer"]
                assert len(fake.requests) == 40

                gated.gate.set()
                report = await wait_for_sync(api)
                assert report["indexed"] == 5
    finally:
        gated.gate.set()
        index.close()


async def index_state(api: Api) -> str:
    async with api.session.get(api.url("/v1/index"), headers=AUTH) as response:
        state: str = (await response.json())["state"]
        return state


async def wait_for_sync(api: Api, timeout_s: float = 30) -> dict[str, int]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        async with api.session.get(api.url("/v1/index"), headers=AUTH) as response:
            body = await response.json()
        if body["state"] != "syncing" and body["last_sync"] is not None:
            report: dict[str, int] = body["last_sync"]
            return report
        await asyncio.sleep(0.1)
    raise AssertionError("the sync did not finish")
