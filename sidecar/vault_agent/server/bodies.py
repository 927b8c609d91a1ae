"""JSON bodies: reading a request's into its pydantic model within size and time bounds, and
writing a response's.

Size: a declared ``Content-Length`` over the limit is refused before anything is read, and
aiohttp's ``client_max_size`` stops a chunked body at the same limit; a compressed body is
decoded strictly and its decompressed size limited alike (:mod:`.content_coding`). Time: the
whole body must arrive within ``server.body_timeout_s`` (a slow-drip client gets 408). Content:
a body that breaks off is 400, invalid JSON is 400, JSON of the wrong shape 422, each with a
message naming the field.
"""

from __future__ import annotations

import asyncio
import json
from typing import TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

from vault_agent.server.content_coding import decode_body
from vault_agent.server.errors import ApiError
from vault_agent.server.keys import SETTINGS
from vault_agent.validation import where

M = TypeVar("M", bound=BaseModel)

#: At most this many field errors are spelled out in a 422 message.
MAX_LISTED_ERRORS = 5


async def read_body(request: web.Request, model: type[M]) -> M:
    """The request body as `model`, within the configured size and time limits."""
    limits = request.app[SETTINGS].server
    return await read_json(
        request, model, max_bytes=limits.max_body_bytes, timeout_s=limits.body_timeout_s
    )


def read_query(request: web.Request, model: type[M]) -> M:
    """The query string as `model`; raises `ApiError` (422). A parameter given more than once
    is a list, which no field of a query takes: refused, not read as its first value."""
    given = {key: request.query.getall(key) for key in request.query}
    values = {key: found[0] if len(found) == 1 else found for key, found in given.items()}
    try:
        return model.model_validate(values)
    except ValidationError as error:
        raise validation_error(error) from None


def json_response(model: BaseModel, status: int = 200) -> web.Response:
    """`model` as a JSON response."""
    return web.Response(
        text=model.model_dump_json(), status=status, content_type="application/json"
    )


async def read_json(request: web.Request, model: type[M], *, max_bytes: int, timeout_s: float) -> M:
    """The request body validated as `model`; an empty body counts as ``{}``."""
    _check_content_type(request)
    declared = request.content_length
    if declared is not None and declared > max_bytes:
        raise ApiError(
            413, "body_too_large", f"request body of {declared} bytes is over the {max_bytes} limit"
        )
    try:
        async with asyncio.timeout(timeout_s):
            raw = await request.read()
    except TimeoutError:
        raise ApiError(
            408, "request_timeout", f"the request body did not arrive within {timeout_s:g} s"
        ) from None
    except web.RequestPayloadError:
        # A chunk that breaks the framing, or a connection closed mid-body; its message may
        # quote the bytes, so it is not repeated.
        raise ApiError(400, "invalid_body", "the request body could not be read whole") from None
    raw = decode_body(raw, request.headers.get("Content-Encoding"), max_bytes)
    return parse_body(raw or b"{}", model)


def parse_body(raw: bytes, model: type[M]) -> M:
    """`raw` JSON as `model`, with JSON types taken as sent (no ``true`` for 1, no ``"5"`` for
    5), as the OpenAPI document promises; raises `ApiError` (400 or 422)."""
    try:
        return model.model_validate_json(raw, strict=True)
    except ValidationError as error:
        if not _integral_float_for_int(error):
            raise validation_error(error) from None
        first_error = error
    # JSON Schema counts 3.0 as an integer and strict validation does not: write such numbers
    # as integers and try again (rare, so the common case parses once).
    try:
        rewritten = json.dumps(json.loads(raw, parse_float=_integral_as_int))
    except (ValueError, RecursionError):
        raise validation_error(first_error) from None
    try:
        return model.model_validate_json(rewritten, strict=True)
    except ValidationError as error:
        raise validation_error(error) from None


def validation_error(error: ValidationError) -> ApiError:
    """400 for a body that is not JSON, 422 for JSON that doesn't fit the model."""
    problems = error.errors(include_url=False, include_input=False)
    if any(problem["type"] == "json_invalid" for problem in problems):
        return ApiError(
            400, "invalid_json", f"request body is not valid JSON: {problems[0]['msg']}"
        )
    listed = [
        f"{where(problem, 'body')}: {problem['msg']}" for problem in problems[:MAX_LISTED_ERRORS]
    ]
    more = len(problems) - len(listed)
    message = "; ".join(listed) + (f" (and {more} more)" if more > 0 else "")
    return ApiError(422, "invalid_request", message)


def _integral_float_for_int(error: ValidationError) -> bool:
    return any(
        problem["type"] == "int_type"
        and isinstance(problem.get("input"), float)
        and problem["input"].is_integer()
        for problem in error.errors(include_url=False)
    )


def _integral_as_int(text: str) -> int | float:
    number = float(text)
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def _check_content_type(request: web.Request) -> None:
    # A missing header is tolerated (bare HTTP clients); any other type than JSON is a bug
    # in the client, better reported than guessed at.
    if request.headers.get("Content-Type") is None or request.content_type == "application/json":
        return
    raise ApiError(
        415,
        "unsupported_media_type",
        f"send the body as application/json, not {request.content_type}",
    )
