"""How much of a model's answer is read: ``llm.max_answer_chars`` of text per turn, and a bound
on the bytes of the HTTP answer that carries it.

A model can run away: small local models loop ("the the the ..."), Ollama generates until it is
stopped, and a broken or hostile server may send one endless line, an endless tool call or a
JSON body without end. Data keeps arriving, so no read timeout fires. So :func:`run_stream
<vault_agent.llm.stream.run_stream>` stops a turn whose text passes ``max_answer_chars``, and
:func:`limit_body` stops reading an answer (whatever it holds, before any of it is parsed)
past ``BYTES_PER_CHAR`` times as many bytes: the wire formats spend up to a few hundred bytes
of JSON per token. Both raise :func:`answer_too_long`, which is not retried (the model would
run away again); the agent ends the question with a ``bad_response`` error.
"""

from __future__ import annotations

import httpx
import httpx2

from vault_agent.http_body import bound_body, bound_httpx2_body
from vault_agent.llm.errors import ModelResponseError

DEFAULT_MAX_ANSWER_CHARS = 40_000
"""An answer is a few sentences or a short list; forty thousand characters is pages of it."""
BYTES_PER_CHAR = 256
"""Bytes of HTTP answer read per character of ``max_answer_chars`` (JSON framing included)."""


def answer_too_long(who: str, max_chars: int) -> ModelResponseError:
    """The error of a turn stopped at the limit."""
    return ModelResponseError(
        f"{who} went on past {max_chars:,} characters in one answer (a model repeating "
        "itself?), so it was stopped. Ask again, or rephrase; llm.max_answer_chars raises the "
        "limit."
    )


def limit_body(response: httpx.Response, max_chars: int, who: str) -> None:
    """Make reading `response` (streamed, not read yet) fail once its body passes
    ``max_chars * BYTES_PER_CHAR`` bytes: lines, JSON and error bodies alike."""
    bound_body(response, max_chars * BYTES_PER_CHAR, lambda: answer_too_long(who, max_chars))


def limit_httpx2_body(response: httpx2.Response, max_chars: int, who: str) -> None:
    """`limit_body` for the Mistral SDK's ``httpx2`` responses."""
    bound_httpx2_body(response, max_chars * BYTES_PER_CHAR, lambda: answer_too_long(who, max_chars))
