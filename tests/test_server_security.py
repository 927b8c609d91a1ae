"""Who may use the API: the token on every route, Host and Origin checks, CORS, body limits.

Every route is tried with no token, a wrong token and the right one (the routes come from the
route table, so a new route is covered or this file fails).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from server_support import AUTH, OBSIDIAN, TOKEN, Api, ServedVault, api_settings, serve_api
from vault_agent.config import ServerSettings
from vault_agent.server.routes import ROUTES, Route

pytestmark = pytest.mark.asyncio(loop_scope="session")


@dataclass(frozen=True)
class Sample:
    """A valid request for one route."""

    path: str
    json: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    answers: dict[str, int] = field(default_factory=dict)
    """The status of a method other than 200, with the right token."""


SAMPLES = {
    "/v1/health": Sample("/v1/health"),
    "/v1/ask": Sample("/v1/ask", {"question": "When did I last feed the sourdough starter?"}),
    "/v1/search": Sample("/v1/search", {"query": "sourdough starter", "limit": 3}),
    "/v1/index": Sample("/v1/index"),
    "/v1/index/sync": Sample("/v1/index/sync", {"wait": True}),
    "/v1/notes/{path:.+}": Sample("/v1/notes/Recipes/Sourdough%20Starter.md"),
    "/v1/related": Sample("/v1/related", {"file": "Recipes/Sourdough Starter.md", "limit": 3}),
    "/v1/openapi.json": Sample("/v1/openapi.json"),
    # The document API, without writing anything into the shared index: no document exists.
    "/v1/sources": Sample("/v1/sources"),
    "/v1/sources/{source}/documents": Sample("/v1/sources/none/documents", {"documents": []}),
    "/v1/sources/{source}/documents/{doc_id}": Sample(
        "/v1/sources/none/documents/none", {"tags": []}, answers={"GET": 404, "PATCH": 404}
    ),
    "/v1/sources/{source}": Sample("/v1/sources/none"),
}
PROTECTED = [route for route in ROUTES if not route.public]


def route_id(route: Route) -> str:
    return f"{route.method} {route.path}"


async def call(
    api: Api, route: Route, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], str]:
    sample = SAMPLES[route.path]
    async with api.session.request(
        route.method, api.url(sample.path), json=sample.json, headers=headers or {}
    ) as response:
        return response.status, dict(response.headers), await response.text()


def error_code(body: str) -> str:
    code: str = json.loads(body)["error"]["code"]
    return code


async def test_every_route_has_a_sample_request() -> None:
    # async only to share the module's asyncio mark; a new route needs a sample here
    assert {route.path for route in ROUTES} == set(SAMPLES)


@pytest.mark.parametrize("route", PROTECTED, ids=route_id)
async def test_route_without_token_is_refused_with_401(api: Api, route: Route) -> None:
    status, headers, body = await call(api, route)
    assert status == 401
    assert error_code(body) == "missing_token"
    assert headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize("route", PROTECTED, ids=route_id)
@pytest.mark.parametrize(
    "authorization",
    [f"Bearer {TOKEN[:-1]}x", f"Bearer {TOKEN}x", "Bearer wrong", f"Basic {TOKEN}", TOKEN],
    ids=["last-char", "longer", "short", "basic-scheme", "no-scheme"],
)
async def test_route_with_wrong_token_is_refused_with_401(
    api: Api, route: Route, authorization: str
) -> None:
    status, _, body = await call(api, route, {"Authorization": authorization})
    assert status == 401
    assert error_code(body) in {"invalid_token", "missing_token"}
    assert TOKEN not in body


@pytest.mark.parametrize("route", ROUTES, ids=route_id)
async def test_route_with_right_token_answers_200(api: Api, route: Route) -> None:
    status, headers, body = await call(api, route, AUTH)
    assert status == SAMPLES[route.path].answers.get(route.method, 200), body
    expected = "text/event-stream" if route.stream else "application/json"
    assert headers["Content-Type"].startswith(expected)


async def test_health_answers_without_token(api: Api) -> None:
    async with api.session.get(api.url("/v1/health")) as response:
        assert response.status == 200
        assert await response.json() == {
            "status": "ok",
            "version": "0.1.0",
            "index": "ready",
            "proof": None,
        }


async def test_health_answers_head_without_token_as_it_answers_get(api: Api) -> None:
    # Found by an audit: HEAD /v1/health asked for a token (HEAD had no route of its own).
    async with api.session.head(api.url("/v1/health")) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("application/json")
    async with api.session.head(api.url("/v1/index")) as response:
        assert response.status == 401


#: The same vector is in plugin/tests/impostor.test.ts: both sides compute one proof.
CHALLENGE = "0123456789abcdef0123456789abcdef"
PROOF = "2128f73919146dfbe0cd9948861b079eec603545dddd39d1cd764a77ecd08767"


async def test_health_proves_it_holds_the_token_without_revealing_it(api: Api) -> None:
    """A client's challenge gets HMAC-SHA256(token, prefix + challenge): what the plugin checks
    before it sends the token, so that another program on the port gets nothing."""
    url = api.url(f"/v1/health?challenge={CHALLENGE}")
    async with api.session.get(url) as response:
        assert response.status == 200
        body = await response.json()
    assert body["proof"] == PROOF
    assert TOKEN not in json.dumps(body)
    async with api.session.get(api.url("/v1/health?challenge=" + "x" * 32)) as response:
        assert (await response.json())["proof"] not in (PROOF, None)


@pytest.mark.parametrize(
    "query",
    [
        "challenge=short",
        "challenge=" + "a" * 129,
        "challenge=%00" + "a" * 20,
        "challenge=a b" * 8,
        "other=1",
    ],
)
async def test_health_refuses_a_malformed_challenge_with_422(api: Api, query: str) -> None:
    async with api.session.get(api.url(f"/v1/health?{query}")) as response:
        assert response.status == 422
        assert (await response.json())["error"]["code"] == "invalid_request"


async def test_bearer_scheme_is_case_insensitive(api: Api) -> None:
    headers = {"Authorization": f"bearer {TOKEN}"}
    async with api.session.get(api.url("/v1/index"), headers=headers) as response:
        assert response.status == 200


# --- Origin and CORS -----------------------------------------------------------------------


@pytest.mark.parametrize("route", ROUTES, ids=route_id)
@pytest.mark.parametrize(
    "origin", ["https://evil.example", "null", "http://127.0.0.1:8765", "app://obsidian.md.evil"]
)
async def test_foreign_origin_is_refused_without_cors_headers(
    api: Api, route: Route, origin: str
) -> None:
    status, headers, body = await call(api, route, {**AUTH, "Origin": origin})
    assert status == 403
    assert error_code(body) == "origin_not_allowed"
    assert "Access-Control-Allow-Origin" not in headers


@pytest.mark.parametrize("origin", [OBSIDIAN, "capacitor://localhost"])
async def test_obsidian_origin_may_read_responses(api: Api, origin: str) -> None:
    headers = {**AUTH, "Origin": origin}
    async with api.session.get(api.url("/v1/index"), headers=headers) as response:
        assert response.status == 200
        assert response.headers["Access-Control-Allow-Origin"] == origin
        assert response.headers["Vary"] == "Origin"


async def test_obsidian_origin_may_read_errors_too(api: Api) -> None:
    async with api.session.get(api.url("/v1/index"), headers={"Origin": OBSIDIAN}) as response:
        assert response.status == 401
        assert response.headers["Access-Control-Allow-Origin"] == OBSIDIAN


async def test_streamed_answer_carries_cors_headers(api: Api) -> None:
    headers = {**AUTH, "Origin": OBSIDIAN}
    body = {"question": "What is Gus?"}
    async with api.session.post(api.url("/v1/ask"), json=body, headers=headers) as response:
        assert response.status == 200
        assert response.headers["Access-Control-Allow-Origin"] == OBSIDIAN
        await response.read()


async def test_preflight_from_obsidian_is_answered_without_token(api: Api) -> None:
    headers = {
        "Origin": OBSIDIAN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
        "Access-Control-Request-Private-Network": "true",
    }
    async with api.session.options(api.url("/v1/ask"), headers=headers) as response:
        assert response.status == 204
        assert response.headers["Access-Control-Allow-Origin"] == OBSIDIAN
        assert response.headers["Access-Control-Allow-Methods"] == "POST"
        allowed = response.headers["Access-Control-Allow-Headers"].lower()
        assert "authorization" in allowed
        assert "content-type" in allowed
        assert response.headers["Access-Control-Allow-Private-Network"] == "true"


async def test_preflight_names_the_methods_of_a_route_with_a_parameter(api: Api) -> None:
    headers = {"Origin": OBSIDIAN, "Access-Control-Request-Method": "GET"}
    url = api.url("/v1/notes/Recipes/Miso%20Soup.md")
    async with api.session.options(url, headers=headers) as response:
        assert response.status == 204
        assert response.headers["Access-Control-Allow-Methods"] == "GET"


async def test_preflight_from_foreign_origin_is_refused(api: Api) -> None:
    headers = {"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
    async with api.session.options(api.url("/v1/ask"), headers=headers) as response:
        assert response.status == 403
        assert "Access-Control-Allow-Origin" not in response.headers
        assert "Access-Control-Allow-Methods" not in response.headers


async def test_preflight_for_unknown_route_is_404(api: Api) -> None:
    headers = {"Origin": OBSIDIAN, "Access-Control-Request-Method": "GET"}
    async with api.session.options(api.url("/v1/nothing"), headers=headers) as response:
        assert response.status == 404


# --- Host (DNS rebinding) ------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:8765",
        "127.0.0.1.evil.example",
        "localhost.evil.example",
        "127.0.0.2",
        "0.0.0.0:8765",
        "[::2]",
        "localhost:80:80",
    ],
)
@pytest.mark.parametrize("path", ["/v1/health", "/v1/index"])
async def test_foreign_host_is_refused_even_with_token(api: Api, host: str, path: str) -> None:
    async with api.session.get(api.url(path), headers={**AUTH, "Host": host}) as response:
        assert response.status == 403
        assert error_code(await response.text()) == "host_not_allowed"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost:8765", "LOCALHOST", "[::1]:8765"])
async def test_loopback_hosts_are_accepted(api: Api, host: str) -> None:
    async with api.session.get(api.url("/v1/index"), headers={**AUTH, "Host": host}) as response:
        assert response.status == 200


# --- bodies --------------------------------------------------------------------------------

SMALL_BODY_LIMIT = 64 * 1024


@pytest.fixture
async def small_api(served_vault: ServedVault, tmp_path: Path) -> AsyncIterator[Api]:
    """The API with a 64 KiB body limit and a 0.5 s body timeout."""
    server = ServerSettings(max_body_bytes=SMALL_BODY_LIMIT, body_timeout_s=0.5)
    settings = api_settings(served_vault.vault, tmp_path, server=server)
    async with serve_api(settings, vault_index=served_vault.index) as running:
        yield running


@pytest.mark.parametrize("path", ["/v1/ask", "/v1/search", "/v1/index/sync"])
async def test_oversized_body_is_refused_with_413(small_api: Api, path: str) -> None:
    body = json.dumps({"question": "x" * (SMALL_BODY_LIMIT * 2)})
    headers = {**AUTH, "Content-Type": "application/json"}
    async with small_api.session.post(small_api.url(path), data=body, headers=headers) as response:
        assert response.status == 413
        assert error_code(await response.text()) == "body_too_large"


async def test_oversized_chunked_body_is_refused_with_413(small_api: Api) -> None:
    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: the limit applies as it reads
        yield b'{"question": "'
        for _ in range(SMALL_BODY_LIMIT // 1024 * 2):
            yield b"x" * 1024
        yield b'"}'

    headers = {**AUTH, "Content-Type": "application/json"}
    url = small_api.url("/v1/ask")
    async with small_api.session.post(url, data=chunks(), headers=headers) as response:
        assert response.status == 413


async def test_slow_body_is_cut_off_with_408(small_api: Api) -> None:
    async def trickle() -> AsyncIterator[bytes]:
        yield b'{"query": '
        await asyncio.sleep(2)
        yield b'"too late"}'

    headers = {**AUTH, "Content-Type": "application/json"}
    url = small_api.url("/v1/search")
    async with small_api.session.post(url, data=trickle(), headers=headers) as response:
        assert response.status == 408
        assert error_code(await response.text()) == "request_timeout"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/ask", {"question": "x" * 8001}, "question"),
        ("/v1/ask", {"question": ""}, "question"),
        (
            "/v1/ask",
            {"question": "q", "history": [{"role": "user", "content": "h"}] * 201},
            "history",
        ),
        ("/v1/ask", {"question": "q", "profile": "gpt-99"}, "profile"),
        ("/v1/search", {"query": "q", "limit": 51}, "limit"),
        ("/v1/search", {"query": "q", "limit": 0}, "limit"),
        ("/v1/search", {"query": "x" * 1001}, "query"),
        ("/v1/search", {"query": "q", "tags": ["t"] * 51}, "tags"),
        ("/v1/search", {"query": "q", "colour": "red"}, "colour"),
        ("/v1/index/sync", {"wait": "soon"}, "wait"),
    ],
)
async def test_out_of_bounds_field_is_refused_with_422_naming_it(
    api: Api, path: str, body: dict[str, Any], field: str
) -> None:
    async with api.session.post(api.url(path), json=body, headers=AUTH) as response:
        assert response.status == 422
        error = (await response.json())["error"]
        assert error["code"] == "invalid_request"
        assert error["message"].startswith(field)


@pytest.mark.parametrize("body", [b"{not json", b'{"query": "x"', b"\xff\xfe"])
async def test_malformed_json_is_refused_with_400(api: Api, body: bytes) -> None:
    headers = {**AUTH, "Content-Type": "application/json"}
    async with api.session.post(api.url("/v1/search"), data=body, headers=headers) as response:
        assert response.status == 400
        assert error_code(await response.text()) == "invalid_json"


async def test_deeply_nested_json_is_a_client_error_not_a_crash(api: Api) -> None:
    body = b'{"query": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    headers = {**AUTH, "Content-Type": "application/json"}
    async with api.session.post(api.url("/v1/search"), data=body, headers=headers) as response:
        assert 400 <= response.status < 500


async def test_non_json_content_type_is_refused_with_415(api: Api) -> None:
    headers = {**AUTH, "Content-Type": "application/x-www-form-urlencoded"}
    url = api.url("/v1/search")
    async with api.session.post(url, data="query=x", headers=headers) as response:
        assert response.status == 415


async def test_unknown_route_and_wrong_method_use_the_error_shape(api: Api) -> None:
    async with api.session.get(api.url("/v1/nothing"), headers=AUTH) as response:
        assert response.status == 404
        assert error_code(await response.text()) == "not_found"
    async with api.session.delete(api.url("/v1/search"), headers=AUTH) as response:
        assert response.status == 405
        assert response.headers["Allow"] == "POST"
        assert error_code(await response.text()) == "method_not_allowed"


async def test_responses_are_not_cached_or_sniffed(api: Api) -> None:
    async with api.session.get(api.url("/v1/index"), headers=AUTH) as response:
        assert response.headers["Cache-Control"] == "no-store"
        assert response.headers["X-Content-Type-Options"] == "nosniff"
