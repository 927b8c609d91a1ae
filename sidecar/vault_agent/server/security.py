"""Who may talk to the sidecar: middlewares for Host, Origin (CORS) and the bearer token.

The sidecar listens on 127.0.0.1 only, so the callers to keep out are web pages in the user's
browser and other local programs. In the order the middlewares run:

1. **Host** must be one header, ``127.0.0.1``, ``localhost`` or ``[::1]`` (any port), else
   **403 host_not_allowed**; so must the host an absolute-form target names
   (``GET http://evil.example/v1/index``), which aiohttp takes over the header. This stops DNS
   rebinding: a page on ``evil.example`` whose name is made to resolve to 127.0.0.1 sends
   ``Host: evil.example``. 403 rather than 421 Misdirected Request: 421 invites a client to
   retry on another connection, and nothing here should be retried.
2. **Origin**: a request carrying one (one: two are refused) must come from Obsidian
   (``app://obsidian.md``, or ``capacitor://localhost`` for the mobile app later), else **403
   origin_not_allowed**. Only those origins get CORS headers and preflight answers, so no other
   page can read a response (the 403 included). Requests without Origin are not from a browser
   page and go on to the next checks.
3. **Expect**: anything but ``100-continue`` gets **417 expectation_failed** (aiohttp would
   answer it before any of these checks, in plain text quoting the header: `expect_continue`).
4. **Bearer token** on every route but ``GET`` (and ``HEAD``) ``/v1/health``: **401**
   ``missing_token`` or ``invalid_token`` with ``WWW-Authenticate: Bearer``. Compared in constant
   time (SHA-256 of both sides, then ``hmac.compare_digest``, so not even the length leaks).

``GET /v1/health?challenge=...`` proves the other way round that this server holds the token
(`health_proof`): the plugin checks it before it sends the token anywhere.

Every response also gets ``X-Content-Type-Options: nosniff`` and ``Cache-Control: no-store``
(answers quote private notes; nothing should keep them).
"""

from __future__ import annotations

import hashlib
import hmac
import re

from aiohttp import hdrs, web
from aiohttp.typedefs import Handler
from aiohttp.web_urldispatcher import _default_expect_handler  # its 100-continue, unexported

from vault_agent.server.errors import ApiError
from vault_agent.server.keys import PUBLIC_ROUTES, TOKEN

ALLOWED_ORIGINS = frozenset({"app://obsidian.md", "capacitor://localhost"})
#: ASCII only: Unicode case folding reads "localhoſt" as "localhost", and \d other scripts' digits.
_ALLOWED_HOST = re.compile(
    r"(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?", re.IGNORECASE | re.ASCII
)
#: Request headers a preflight may ask for: the token, JSON bodies, SSE resumption.
ALLOWED_REQUEST_HEADERS = "Authorization, Content-Type, Accept, Last-Event-ID"
PREFLIGHT_MAX_AGE_S = 600
#: What a health proof signs before the client's challenge (see `health_proof`).
HEALTH_PROOF_PREFIX = "vault-agent-health:"


@web.middleware
async def host_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse any Host but the loopback names (DNS-rebinding guard), in the header or in an
    absolute-form request target."""
    problem = _host_problem(request)
    if problem is not None:
        raise ApiError(
            403,
            "host_not_allowed",
            f"{problem}; call the sidecar as 127.0.0.1 or localhost",
        )
    return await handler(request)


@web.middleware
async def origin_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse foreign origins (and two of them); answer CORS preflights for Obsidian's."""
    origins = request.headers.getall(hdrs.ORIGIN, [])
    if not origins:
        return await handler(request)
    if len(origins) > 1:  # browsers send one: which one counts is not ours to guess
        raise ApiError(403, "origin_not_allowed", "a request may carry one Origin header")
    if origins[0] not in ALLOWED_ORIGINS:
        raise ApiError(
            403,
            "origin_not_allowed",
            f"origin {origins[0][:100]!r} may not use the Vault Agent API",
        )
    if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
        return _preflight(request)
    return await handler(request)


@web.middleware
async def expect_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse an ``Expect`` other than 100-continue (417), after the Host and Origin checks."""
    expect = request.headers.get(hdrs.EXPECT)
    if expect and expect.lower() != "100-continue":
        raise web.HTTPExpectationFailed()  # the error middleware shapes it, quoting nothing
    return await handler(request)


async def expect_continue(request: web.Request) -> None:
    """Every route's ``Expect`` handler, which aiohttp runs before any middleware: it answers
    100-continue as aiohttp does (the client then sends its body), and leaves any other
    expectation to `expect_middleware` instead of refusing it then and there (aiohttp's 417
    quotes the header in plain text, whatever the Host or Origin)."""
    if request.headers.get(hdrs.EXPECT, "").lower() == "100-continue":
        await _default_expect_handler(request)


@web.middleware
async def auth_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Require ``Authorization: Bearer <token>`` on every route not marked public."""
    if request.match_info.route not in request.app[PUBLIC_ROUTES]:
        _check_token(request.headers.get("Authorization"), request.app[TOKEN])
    return await handler(request)


async def add_response_headers(request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare`` hook: CORS for Obsidian, no caching or sniffing for anyone.

    A hook rather than a middleware, because it must reach streamed (SSE) responses, whose
    headers leave before their handler returns, and error responses alike."""
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers.setdefault("Cache-Control", "no-store")
    origins = request.headers.getall(hdrs.ORIGIN, [])
    if len(origins) == 1 and origins[0] in ALLOWED_ORIGINS:
        response.headers["Access-Control-Allow-Origin"] = origins[0]
        response.headers["Vary"] = "Origin"


def health_proof(token: str, challenge: str) -> str:
    """What proves to a client that this server holds `token`: HMAC-SHA256 keyed with the
    token over ``vault-agent-health:<challenge>``, in lower-case hex. The plugin computes the
    same before it sends the token anywhere (plugin/src/client.ts), so another program that
    took the port gets nothing; the answer reveals nothing of the token."""
    message = f"{HEALTH_PROOF_PREFIX}{challenge}".encode()
    return hmac.new(token.encode("utf-8", "replace"), message, hashlib.sha256).hexdigest()


def token_matches(given: str, expected: str) -> bool:
    """Constant-time comparison that leaks neither content nor length."""
    given_digest = hashlib.sha256(given.encode("utf-8", "replace")).digest()
    expected_digest = hashlib.sha256(expected.encode("utf-8", "replace")).digest()
    return hmac.compare_digest(given_digest, expected_digest)


def _host_problem(request: web.Request) -> str | None:
    """Why the request's Host (header, or absolute-form target) is refused, or None."""
    hosts = request.headers.getall(hdrs.HOST, [])
    if len(hosts) > 1:
        return "a request may carry one Host header"
    host = hosts[0] if hosts else ""
    if not _ALLOWED_HOST.fullmatch(host):
        return f"Host {host[:100]!r} is not allowed"
    if not request.raw_path.startswith("/"):
        # An absolute-form target (`GET http://host/path`): aiohttp takes its host (and it
        # makes `request.url`) over the Host header.
        named = request.url.raw_authority
        if not _ALLOWED_HOST.fullmatch(named):
            return f"the request target names host {named[:100]!r}, which is not allowed"
    return None


def _check_token(header: str | None, expected: str) -> None:
    challenge = {"WWW-Authenticate": 'Bearer realm="vault-agent"'}
    scheme, _, given = (header or "").partition(" ")
    if not header or scheme.lower() != "bearer" or not given.strip():
        raise ApiError(
            401,
            "missing_token",
            "send the sidecar's token as 'Authorization: Bearer <token>'; "
            "`vault-agent serve` prints where the token is",
            challenge,
        )
    if not token_matches(given.strip(), expected):
        raise ApiError(
            401,
            "invalid_token",
            "wrong token: copy it again from where `vault-agent serve` says it is",
            challenge,
        )


def _preflight(request: web.Request) -> web.Response:
    """Answer a CORS preflight for an existing route (the browser checks the method)."""
    refused = request.match_info.http_exception
    if not isinstance(refused, web.HTTPMethodNotAllowed):
        # No route at this path at all (a route with OPTIONS would be a handler, not an error).
        raise ApiError(404, "not_found", "no such route; see /v1/openapi.json")
    headers = {
        "Access-Control-Allow-Methods": ", ".join(sorted(refused.allowed_methods)),
        "Access-Control-Allow-Headers": ALLOWED_REQUEST_HEADERS,
        "Access-Control-Max-Age": str(PREFLIGHT_MAX_AGE_S),
    }
    if request.headers.get("Access-Control-Request-Private-Network") == "true":
        # Chromium's Private Network Access: Obsidian (Electron) calling a loopback address.
        headers["Access-Control-Allow-Private-Network"] = "true"
    return web.Response(status=204, headers=headers)
