"""The API's one error shape, ``{"error": {"code", "message"}}``, and the middleware that makes
every failure take it: our own refusals, aiohttp's (404, 405, 413), store outages (503) and
bugs (500, logged here, never sent as a traceback).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from aiohttp import web
from aiohttp.typedefs import Handler
from pydantic import BaseModel

from vault_agent.index.embed.errors import EmbeddingError
from vault_agent.index.store.errors import StoreError

log = logging.getLogger(__name__)

#: Codes for the statuses aiohttp raises by itself (router, body limit).
_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    413: "body_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    417: "expectation_failed",
    422: "invalid_request",
    431: "headers_too_large",
}


class ErrorDetail(BaseModel):
    """What went wrong: a stable ``code`` for programs, a ``message`` for people."""

    code: str
    message: str


class ErrorResponse(BaseModel):
    """The body of every non-2xx answer."""

    error: ErrorDetail


class ApiError(Exception):
    """A refusal a client can act on; the middleware turns it into the error shape."""

    def __init__(
        self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})


def error_response(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> web.Response:
    """A JSON response in the error shape."""
    body = ErrorResponse(error=ErrorDetail(code=code, message=message))
    return web.Response(
        text=body.model_dump_json(),
        status=status,
        headers=headers,
        content_type="application/json",
    )


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Outermost middleware: whatever fails below leaves as the error shape."""
    try:
        return await handler(request)
    except ApiError as error:
        return error_response(error.status, error.code, error.message, error.headers)
    except web.HTTPException as error:
        if error.status < 400:
            raise  # redirects and the like are answers, not failures
        return http_error_response(error)
    except (StoreError, EmbeddingError) as error:
        # Its message names the index path or the (Qdrant or embedding) server's URL and says
        # what to do.
        return error_response(503, "index_unavailable", str(error))
    except Exception:
        log.exception("%s %s failed", request.method, request.path)
        return error_response(
            500, "internal_error", "internal error in the sidecar; its log has the details"
        )


def http_error_response(error: web.HTTPException) -> web.Response:
    """One of aiohttp's refusals (404, 405, 413...) in the error shape: its headers that
    matter kept (Allow on 405), its text body dropped."""
    headers = {k: v for k, v in error.headers.items() if k.lower() == "allow"}
    code = _CODES.get(error.status, "http_error")
    return error_response(error.status, code, _message(error), headers)


def _message(error: web.HTTPException) -> str:
    if isinstance(error, web.HTTPExpectationFailed):  # aiohttp's text quotes the header
        return "the only expectation the sidecar meets is 'Expect: 100-continue'"
    if isinstance(error, web.HTTPNotFound):
        return "no such route; see /v1/openapi.json"
    if isinstance(error, web.HTTPMethodNotAllowed):
        return f"method not allowed; use {', '.join(sorted(error.allowed_methods))}"
    if isinstance(error, web.HTTPRequestEntityTooLarge):
        return f"request body too large: {error.text}"
    return error.text or error.reason
