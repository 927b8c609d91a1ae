"""The API's routes over a real socket and the real index: search, index status and sync, the
background indexer, shutdown, and failures that must stay clear JSON errors (dead Qdrant,
missing vault, a bug)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from server_support import (
    AUTH,
    Api,
    IndexedCopy,
    ServedVault,
    api_settings,
    copy_indexed,
    serve_api,
)
from vault_agent.config import StoreSettings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.store.edge import EdgeStore
from vault_agent.server.openapi import error_statuses
from vault_agent.server.routes import ROUTES

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def get_json(api: Api, path: str) -> tuple[int, Any]:
    async with api.session.get(api.url(path), headers=AUTH) as response:
        return response.status, await response.json()


async def post_json(api: Api, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    async with api.session.post(api.url(path), json=body, headers=AUTH) as response:
        return response.status, await response.json()


async def test_search_ranks_the_matching_note_first(api: Api) -> None:
    status, body = await post_json(api, "/v1/search", {"query": "sourdough starter feeding"})
    assert status == 200
    first = body["hits"][0]
    assert first["file"] == "Recipes/Sourdough Starter.md"
    assert first["snippet"]
    assert first["score"] > 0
    assert len({hit["file"] for hit in body["hits"]}) == len(body["hits"])  # one per note


async def test_search_applies_folder_and_limit(api: Api) -> None:
    body = {"query": "what happened this week", "folders": ["/Daily/"], "limit": 3}
    status, answer = await post_json(api, "/v1/search", body)
    assert status == 200
    assert 1 <= len(answer["hits"]) <= 3
    assert all(hit["file"].startswith("Daily/") for hit in answer["hits"])


async def test_search_can_keep_to_the_notes_with_open_tasks(api: Api) -> None:
    body = {"query": "what happened this week", "open_tasks": True, "limit": 20}
    status, answer = await post_json(api, "/v1/search", body)
    assert status == 200
    assert {hit["file"] for hit in answer["hits"]} == {
        "Projects/Kyoto Trip.md",
        "Projects/Garden/Garden Irrigation.md",
        "Meetings/2026-10-29 Tidepool Planning.md",
    }


async def test_index_reports_state_counts_and_per_file_status(
    api: Api, served_vault: ServedVault
) -> None:
    status, body = await get_json(api, "/v1/index")
    assert status == 200
    assert body["state"] == "idle"
    counts = body["counts"]
    assert counts["indexed"] == 38
    assert counts["chunks"] == served_vault.index.store.count()
    assert counts["files"] == len(body["files"])
    assert {"file": "Recipes/Miso Soup.md", "state": "indexed"}.items() <= body["files"][
        [f["file"] for f in body["files"]].index("Recipes/Miso Soup.md")
    ].items()


async def test_index_status_can_leave_out_the_file_list(api: Api) -> None:
    status, everything = await get_json(api, "/v1/index?files=all")
    assert status == 200
    assert len(everything["files"]) == everything["counts"]["files"] > 0
    status, problems = await get_json(api, "/v1/index?files=problems")
    assert status == 200
    assert all(f["state"] != "indexed" for f in problems["files"])
    assert len(problems["files"]) == problems["counts"]["skipped"] + problems["counts"]["failed"]
    status, none = await get_json(api, "/v1/index?files=none")
    assert (status, none["files"]) == (200, [])
    assert none["counts"] == everything["counts"]
    status, wrong = await get_json(api, "/v1/index?files=some")
    assert status == 422
    assert wrong["error"]["code"]


async def test_sync_finds_a_new_note(
    indexed_example: IndexedCopy, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    copy = copy_indexed(indexed_example, tmp_path)
    settings = api_settings(copy.vault, tmp_path, store=copy.store())
    async with serve_api(settings, embedder=embedder, sparse=sparse) as api:
        status, first = await post_json(api, "/v1/index/sync", {"wait": True})
        assert status == 200
        assert first["joined"] is False
        assert first["report"]["unchanged"] == 38
        assert first["report"]["indexed"] == 0
        (copy.vault / "Inbox" / "Kombucha.md").write_text(
            "# Kombucha\n\nThe SCOBY lives in the pantry.\n", encoding="utf-8"
        )
        status, second = await post_json(api, "/v1/index/sync", {"wait": True})
        assert second["report"]["indexed"] == 1
        status, note = await get_json(api, "/v1/notes/Inbox/Kombucha.md")
        assert status == 200
        assert "SCOBY" in note["markdown"]


async def test_background_indexer_syncs_at_start_then_watches(
    indexed_example: IndexedCopy, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    copy = copy_indexed(indexed_example, tmp_path)
    vault = copy.vault
    settings = api_settings(vault, tmp_path, store=copy.store())
    options = {"embedder": embedder, "sparse": sparse, "background_indexer": True}
    async with serve_api(settings, **options) as api:
        await until(lambda body: body["state"] == "watching", api)
        (vault / "Inbox" / "Watched.md").write_text("# Watched\n\nSeen by the watcher.\n")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            status, _ = await get_json(api, "/v1/notes/Inbox/Watched.md")
            if status == 200:
                break
            await asyncio.sleep(0.2)
        assert status == 200


async def test_shutdown_releases_the_index_lock(
    indexed_example: IndexedCopy, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    copy = copy_indexed(indexed_example, tmp_path)
    vault = copy.vault
    settings = api_settings(vault, tmp_path, store=copy.store())
    options = {"embedder": embedder, "sparse": sparse, "background_indexer": True}
    async with serve_api(settings, **options) as api:
        await until(lambda body: body["state"] == "watching", api)
    # The CLI can open the Edge index again: the sidecar let go of its lock on the way out.
    with EdgeStore(settings.edge_path) as store:
        assert store.count() > 0


async def test_dead_qdrant_server_gives_503_json_not_a_traceback(
    served_vault: ServedVault, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    dead = StoreSettings(url="http://127.0.0.1:1", timeout_s=1)
    settings = api_settings(served_vault.vault, tmp_path, store=dead)
    options = {"embedder": embedder, "sparse": sparse, "background_indexer": True}
    async with serve_api(settings, **options) as api:
        async with api.session.get(api.url("/v1/health")) as response:
            assert response.status == 200
            assert await response.json() == {
                "status": "degraded",
                "version": "0.1.0",
                "index": "unavailable",
                "proof": None,
            }
        requests = [
            ("POST", "/v1/search", {"query": "sourdough"}),
            ("POST", "/v1/ask", {"question": "When did I feed Gus?"}),
            ("POST", "/v1/index/sync", {"wait": True}),
            ("GET", "/v1/notes/Recipes/Miso%20Soup.md", None),
        ]
        for method, path, body in requests:
            async with api.session.request(
                method, api.url(path), json=body, headers=AUTH
            ) as response:
                text = await response.text()
                assert response.status == 503, (path, text)
                error = json.loads(text)["error"]
                assert error["code"] == "index_unavailable"
                assert "127.0.0.1:1" in error["message"]
                assert "Traceback" not in text
        status, index = await get_json(api, "/v1/index")
        assert status == 200
        assert index["state"] == "unavailable"
        assert "127.0.0.1:1" in index["error"]


async def test_missing_vault_gives_503_naming_the_folder(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    settings = api_settings(tmp_path / "no-such-vault", tmp_path)
    async with serve_api(settings, embedder=embedder, sparse=sparse) as api:
        status, body = await post_json(api, "/v1/search", {"query": "anything"})
        assert status == 503
        assert "no-such-vault" in body["error"]["message"]


async def test_unexpected_error_is_500_without_details(
    api: Api, served_vault: ServedVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(served_vault.index.searcher, "search", broken)
    async with api.session.post(
        api.url("/v1/search"), json={"query": "x"}, headers=AUTH
    ) as response:
        text = await response.text()
    assert response.status == 500
    assert json.loads(text) == {
        "error": {
            "code": "internal_error",
            "message": "internal error in the sidecar; its log has the details",
        }
    }


async def test_related_lists_notes_on_the_same_subject_before_unrelated_ones(api: Api) -> None:
    status, body = await post_json(
        api, "/v1/related", {"file": "Recipes/Sourdough Starter.md", "limit": 20}
    )
    assert status == 200
    assert body["file"] == "Recipes/Sourdough Starter.md"
    files = [note["file"] for note in body["notes"]]
    assert "Recipes/Sourdough Starter.md" not in files
    assert len(files) == len(set(files)) == 20
    scores = [note["score"] for note in body["notes"]]
    assert scores == sorted(scores, reverse=True)
    unrelated = [i for i, f in enumerate(files) if f.startswith(("Projects/", "Meetings/"))]
    for bread in ("Recipes/Country Loaf.md", "Recipes/Rosemary Focaccia.md"):
        assert files.index(bread) < min(unrelated), files
    linked = {note["file"]: note["linked"] for note in body["notes"]}
    assert linked["Recipes/Country Loaf.md"] == "both"  # links there, and back
    assert linked["Daily/2026-11-03.md"] == "backlink"
    assert linked["Daily/2026-11-09.md"] is None
    first = body["notes"][0]
    assert first["title"] and first["snippet"]
    for note in body["notes"]:  # words to read, not markdown
        assert "[[" not in note["snippet"] and not note["snippet"].startswith("#"), note


async def test_related_takes_a_limit_and_refuses_unknown_or_outside_notes(api: Api) -> None:
    status, body = await post_json(api, "/v1/related", {"file": "Recipes/Miso Soup.md", "limit": 2})
    assert (status, len(body["notes"])) == (200, 2)
    status, body = await post_json(api, "/v1/related", {"file": "Recipes/Nope.md"})
    assert (status, body["error"]["code"]) == (404, "note_not_found")
    status, body = await post_json(api, "/v1/related", {"file": "../canary.md"})
    assert (status, body["error"]["code"]) == (400, "path_outside_vault")
    status, body = await post_json(api, "/v1/related", {"file": "a.md", "limit": 51})
    assert (status, body["error"]["code"]) == (422, "invalid_request")


@pytest.mark.parametrize("written", ["0", "12", "1700000000", "2024-02-30", "20240101"])
async def test_a_date_not_written_as_the_contract_says_is_refused(api: Api, written: str) -> None:
    # Pydantic reads "0" as 0 seconds after 1970, strict or not: the contract says YYYY-MM-DD.
    status, body = await post_json(api, "/v1/search", {"query": "bread", "date_from": written})
    assert (status, body["error"]["code"]) == (422, "invalid_request"), body
    status, body = await post_json(api, "/v1/search", {"query": "x", "date_to": "2026-11-08"})
    assert status == 200, body


async def test_openapi_documents_every_served_route(api: Api) -> None:
    status, document = await get_json(api, "/v1/openapi.json")
    assert status == 200
    assert document["openapi"] == "3.1.0"
    served = {
        (route.method, route.resource.canonical)
        for route in api.app.router.routes()
        if route.resource is not None and route.method != "HEAD"  # health's: GET's, no body
    }
    documented = {
        (method.upper(), path) for path, item in document["paths"].items() for method in item
    }
    canonical = {(m, p.replace("{path:.+}", "{path}")) for m, p in served}
    assert canonical == documented
    assert len(documented) == len(ROUTES)


async def test_openapi_describes_auth_errors_and_bodies(api: Api) -> None:
    _, document = await get_json(api, "/v1/openapi.json")
    schemas = document["components"]["schemas"]
    search = document["paths"]["/v1/search"]["post"]
    body_ref = search["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    search_body = schemas[body_ref.rsplit("/", 1)[1]]
    assert search_body["properties"]["limit"]["maximum"] == 50
    assert search_body["additionalProperties"] is False
    for route in ROUTES:
        path = route.path.replace("{path:.+}", "{path}")
        operation = document["paths"][path][route.method.lower()]
        documented = {int(status) for status in operation["responses"]}
        assert set(error_statuses(route)) <= documented
        assert (401 in documented) is not route.public
        assert (operation.get("security") == []) is route.public
    ask = document["paths"]["/v1/ask"]["post"]["responses"]["200"]["content"]
    event = ask["text/event-stream"]["schema"]["properties"]
    assert event["data"]["contentSchema"] == {"$ref": "#/components/schemas/AgentEvent"}
    assert set(event["event"]["enum"]) == {
        "status",
        "tool_call",
        "tool_result",
        "delta",
        "done",
        "error",
    }
    events = {ref["$ref"].rsplit("/", 1)[1] for ref in schemas["AgentEvent"]["oneOf"]}
    assert {"DeltaEvent", "DoneEvent", "ErrorEvent"} <= events


async def until(condition: Any, api: Api, timeout_s: float = 30) -> dict[str, Any]:
    """Poll GET /v1/index until `condition(body)` holds."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        _, body = await get_json(api, "/v1/index")
        if condition(body):
            result: dict[str, Any] = body
            return result
        await asyncio.sleep(0.1)
    raise AssertionError(f"index never reached the expected state: {body['state']}")
