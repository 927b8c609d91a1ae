"""What an HTTP error response says: its message for users, and when to try again.

Model servers (Mistral, Ollama, OpenAI-compatible ones) and embedding servers answer an error
with JSON in one of a few shapes: ``{"error": "..."}`` (Ollama), ``{"error": {"message":
"..."}}`` (OpenAI), ``{"message": ...}`` or ``{"detail": ...}`` (others), and a 429 or 503 with
a ``Retry-After`` header. Both the model providers (`llm/`) and the server embeddings
(`index/embed/remote.py`) read them; neither may import the other, so it lives here.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import time
from collections.abc import Sequence

#: The JSON keys that carry the message, in the order they are tried.
ALL_KEYS = ("error", "message", "detail")


def error_detail(body: str, limit: int = 300, keys: Sequence[str] = ALL_KEYS) -> str:
    """The first of `keys` holding a message (a string, or an object's ``message``), else
    the body itself; cut to `limit` characters."""
    text = body.strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        for key in keys:
            value = data.get(key)
            if isinstance(value, dict):
                value = value.get("message")
            if isinstance(value, str) and value.strip():
                text = value.strip()
                break
    return text if len(text) <= limit else text[:limit] + "..."


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds: either a number or an HTTP date (RFC 9110)."""
    if not value:
        return None
    value = value.strip()
    with contextlib.suppress(ValueError):
        return max(0.0, float(value))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
