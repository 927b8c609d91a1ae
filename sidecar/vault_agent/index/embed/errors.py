"""Errors raised by embedders, worded so that a user can act on them.

Only a model served over HTTP (`remote.py`) fails at run time: the packaged models are files.
Callers (CLI, HTTP routes, the server's index holder) catch `EmbeddingError` and show its
message as is: it names the server's URL and the model, says what failed and what to check.
"""

from __future__ import annotations


class EmbeddingError(Exception):
    """Texts could not be embedded; ``str(error)`` says why and what to do.

    ``retryable`` marks failures another attempt may cure (connection refused, 5xx, 429);
    ``retry_after`` is a 429's ``Retry-After`` in seconds, when the server sent one."""

    def __init__(
        self, message: str, *, retryable: bool = False, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
