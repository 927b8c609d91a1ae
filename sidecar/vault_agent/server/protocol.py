"""Connections below the app: how many may be open, and what a request aiohttp cannot parse gets.

aiohttp answers a request it cannot parse (a header over its limit, bytes that are no HTTP)
before any middleware runs, with a plain-text 400 that quotes the offending bytes (the first
100 of a header: a bearer token fits) and logs them with a traceback. Here such requests get
the API's JSON error shape instead, echoing nothing: 431 for headers over the limits, 414 for
a request line over its own, 400 for the rest; the log says which kind, never the bytes.
:class:`ApiRequestHandler` is aiohttp's own connection protocol with those answers replaced,
and the other refusals aiohttp makes before any middleware (a 417 quoting an unknown `Expect`)
put in the error shape.

:class:`ApiSite` listens on 127.0.0.1 and hands each connection such a handler, as long as
fewer than ``server.max_connections`` are open: past that, a connection gets a 503
``too_many_connections`` at once and is closed (an idle or half-sent request holds a file
descriptor until ``server.idle_timeout_s``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage, LineTooLong
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from vault_agent.server.errors import (
    ErrorDetail,
    ErrorResponse,
    error_response,
    http_error_response,
)

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
#: Longest request line (method, path and query, version).
MAX_LINE_BYTES = 8192
#: Longest header line (name and value); aiohttp's default. It differs from the request line's
#: on purpose: aiohttp reports both as `LineTooLong`, and the limit tells which it was.
MAX_FIELD_BYTES = 8190
MAX_HEADERS = 128
#: A refused connection is closed this long after its 503 if the client does not close first.
REFUSAL_LINGER_S = 1.0
#: At most one "connections refused" warning per this many seconds.
_WARN_EVERY_S = 10.0


class ApiRequestHandler(RequestHandler):
    """aiohttp's HTTP protocol, answering unparsable requests in the API's error shape."""

    def handle_error(
        self,
        request: BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        status, code, text = _refusal(status, exc)
        kind = type(exc).__name__ if exc is not None else "no exception"
        if status >= 500:
            log.error("request from %s failed: %s", request.remote, kind, exc_info=exc)
        else:
            # Not the exception's message: it quotes the request's bytes (a token, maybe).
            log.info("refused a malformed request from %s: %s (%s)", request.remote, code, kind)
        if request.writer.output_size > 0:
            raise ConnectionError("the response had started; the connection is dropped")
        response = error_response(status, code, text)
        response.force_close()
        return response

    async def finish_response(
        self, request: BaseRequest, resp: web.StreamResponse, start_time: float | None
    ) -> tuple[web.StreamResponse, bool]:
        if isinstance(resp, web.HTTPException) and resp.status >= 400:
            # Raised before the middlewares could shape it: aiohttp's 417 to an `Expect` it
            # does not know, on a path with no route (the routes leave it to the middlewares),
            # in plain text quoting the header.
            resp = http_error_response(resp)
        return await super().finish_response(request, resp, start_time)


def _refusal(status: int, exc: BaseException | None) -> tuple[int, str, str]:
    """(status, code, message) for a request aiohttp refused; nothing of the request in it."""
    if isinstance(exc, LineTooLong):
        if exc.args[1:2] == (MAX_LINE_BYTES,):
            return 414, "uri_too_long", f"the request line is over {MAX_LINE_BYTES} bytes"
        return 431, "headers_too_large", f"a request header is over {MAX_FIELD_BYTES} bytes"
    if isinstance(exc, BadHttpMessage) and "too many headers" in exc.message.lower():
        return 431, "headers_too_large", f"the request has over {MAX_HEADERS} headers"
    if status >= 500:
        return 500, "internal_error", "internal error in the sidecar; its log has the details"
    if status == 504:
        return 504, "timeout", "the request took too long"
    return 400, "bad_request", "malformed HTTP request"


class ApiSite(web.BaseSite):
    """The API's listening socket on 127.0.0.1: JSON errors below the app, a connection cap."""

    __slots__ = ("_handler_args", "_last_warning", "_max_connections", "_port")

    def __init__(
        self, runner: web.BaseRunner, port: int, max_connections: int, **handler_args: Any
    ) -> None:
        super().__init__(runner)
        self._port = port
        self._max_connections = max_connections
        self._handler_args = {
            "max_line_size": MAX_LINE_BYTES,
            "max_field_size": MAX_FIELD_BYTES,
            "max_headers": MAX_HEADERS,
            **handler_args,
        }
        self._last_warning = 0.0

    @property
    def name(self) -> str:
        return f"http://{HOST}:{self._port}"

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._connection, HOST, self._port)

    def _connection(self) -> asyncio.Protocol:
        """A protocol for one new connection: the API's, or a refusal past the cap."""
        server = self._runner.server
        assert server is not None, "the runner is set up before its site starts"
        if len(server.connections) >= self._max_connections:
            self._warn_refused()
            return _Refusal()
        return ApiRequestHandler(server, loop=asyncio.get_running_loop(), **self._handler_args)

    def _warn_refused(self) -> None:
        now = time.monotonic()
        if now - self._last_warning >= _WARN_EVERY_S:
            self._last_warning = now
            log.warning(
                "refusing connections: %d open (server.max_connections)", self._max_connections
            )


def _refusal_bytes() -> bytes:
    detail = ErrorDetail(
        code="too_many_connections",
        message="the sidecar has too many open connections; try again in a moment",
    )
    body = ErrorResponse(error=detail).model_dump_json().encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\n"
        "Content-Type: application/json; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Retry-After: 1\r\nConnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


_REFUSAL = _refusal_bytes()


class _Refusal(asyncio.Protocol):
    """Answers 503 at once, ignores what the client sends, and closes: when the client has
    read the answer and closed, or after `REFUSAL_LINGER_S` (closing at once, while the
    client still sends its request, could reset the connection before it reads the 503)."""

    def __init__(self) -> None:
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(_REFUSAL)
        with contextlib.suppress(OSError, RuntimeError):
            transport.write_eof()
        self._timer = asyncio.get_running_loop().call_later(REFUSAL_LINGER_S, transport.close)

    def data_received(self, data: bytes) -> None:
        pass

    def eof_received(self) -> bool:
        return False  # the client is done: close

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
