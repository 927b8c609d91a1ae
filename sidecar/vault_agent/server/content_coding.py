"""Request bodies sent compressed (``Content-Encoding: gzip`` or ``deflate``): decoded strictly.

aiohttp's own decoding has no bound of its own, answers 500 to a corrupt body and reads a
truncated one as empty; the server turns it off (``auto_decompress=False``) and decodes here
with zlib: the whole stream must be there and valid (else 400 ``invalid_encoding``), and what
it inflates to counts against the body limit like a plain body (else 413, found after reading
at most one byte past the limit: a bomb costs nothing).
"""

from __future__ import annotations

import zlib

from vault_agent.server.errors import ApiError

#: zlib window settings per coding: gzip's header and trailer; deflate is the zlib format
#: (RFC 9110 8.4.1.2), as aiohttp's client and Python's zlib write it.
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def decode_body(body: bytes, content_encoding: str | None, max_bytes: int) -> bytes:
    """``body`` with the codings named by ``content_encoding`` undone, in reverse order."""
    codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
    for coding in reversed(codings):
        if coding == "identity":
            continue
        wbits = _WBITS.get(coding)
        if wbits is None:
            raise ApiError(
                415,
                "unsupported_media_type",
                f"Content-Encoding {coding[:40]!r} is not supported: send gzip, deflate or none",
            )
        body = _inflate(body, coding, wbits, max_bytes)
    return body


def _inflate(data: bytes, coding: str, wbits: int, max_bytes: int) -> bytes:
    out = bytearray()
    while True:  # a gzip body may be several members one after the other
        stream = zlib.decompressobj(wbits)
        try:
            out += stream.decompress(data, max_bytes + 1 - len(out))
        except zlib.error as error:
            raise ApiError(
                400, "invalid_encoding", f"the request body is not valid {coding} data: {error}"
            ) from None
        if len(out) > max_bytes:
            raise ApiError(
                413,
                "body_too_large",
                f"request body is over the {max_bytes} bytes limit once decompressed",
            )
        if not stream.eof:
            raise ApiError(
                400, "invalid_encoding", f"the request body's {coding} data is cut short"
            )
        data = stream.unused_data
        if not data:
            return bytes(out)
        if wbits == zlib.MAX_WBITS:
            raise ApiError(
                400, "invalid_encoding", f"the request body has bytes after its {coding} data"
            )
