"""Model failures as errors a user can act on, and HTTP answers turned into them.

`ModelError` carries a message saying what happened and what to do; subclasses say whether a
retry may help (`retryable`). Providers raise these; the agent loop turns them into `error`
events with a stable code.
"""

from __future__ import annotations

from vault_agent.http_errors import error_detail, parse_retry_after


class ModelError(Exception):
    """A model call failed; ``str(error)`` says what happened and what the user can do."""

    retryable: bool = False

    def __init__(self, message: str, *, retryable: bool | None = None) -> None:
        super().__init__(message)
        self.message = message
        if retryable is not None:
            self.retryable = retryable


class ModelTimeoutError(ModelError):
    """The model sent nothing for ``llm.timeout_s`` seconds."""

    retryable = True


class ModelRateLimitedError(ModelError):
    """The provider answered 429; ``retry_after`` is its ``Retry-After`` in seconds, if any."""

    retryable = True

    def __init__(
        self, message: str, *, retry_after: float | None = None, retryable: bool | None = None
    ) -> None:
        super().__init__(message, retryable=retryable)
        self.retry_after = retry_after


class ModelUnavailableError(ModelError):
    """The provider can't be reached, failed (5xx) or dropped the connection mid-stream."""

    retryable = True


class ModelResponseError(ModelError):
    """The provider answered something this client can't read."""


def error_for_status(
    who: str,
    status: int,
    body: str,
    *,
    retry_after: str | None = None,
    auth_hint: str = "check the API key",
    missing_hint: str = "check the model name and base URL",
) -> ModelError:
    """Turn an HTTP error answer from ``who`` (e.g. "Mistral at https://...") into a ModelError.

    429 becomes :class:`ModelRateLimitedError` (with ``Retry-After`` parsed), 5xx and 408
    :class:`ModelUnavailableError` (retryable), anything else a non-retryable
    :class:`ModelError` whose message carries the provider's own words plus a hint.
    """
    detail = error_detail(body)
    said = f": {detail}" if detail else ""
    if status == 429:
        wait = parse_retry_after(retry_after)
        when = f"; retry in {wait:g} s" if wait is not None else ""
        return ModelRateLimitedError(
            f"{who} is rate-limiting requests (429){said}{when}", retry_after=wait
        )
    if status >= 500 or status == 408:
        return ModelUnavailableError(f"{who} failed with HTTP {status}{said}")
    if status in (401, 403):
        return ModelError(f"{who} refused the request (HTTP {status}){said}: {auth_hint}")
    if status == 404:
        return ModelError(f"{who} answered 404 Not Found{said}: {missing_hint}")
    return ModelError(f"{who} rejected the request (HTTP {status}){said}")


def unreachable_error(who: str, hint: str) -> ModelUnavailableError:
    """Connection refused or unknown host. Not retried: it rarely heals within seconds."""
    return ModelUnavailableError(f"{who} is not reachable: {hint}", retryable=False)


def timeout_error(who: str, model: str, timeout_s: float) -> ModelTimeoutError:
    """Nothing arrived in time."""
    return ModelTimeoutError(
        f"{who} sent nothing for {timeout_s:g} s (model {model}); the model may still be "
        "loading or the server is overloaded: try again or raise llm.timeout_s"
    )


def dropped_error(who: str, detail: str = "") -> ModelUnavailableError:
    """The connection closed before the model finished its turn."""
    extra = f" ({detail})" if detail else ""
    return ModelUnavailableError(f"{who} closed the stream before the answer was complete{extra}")
