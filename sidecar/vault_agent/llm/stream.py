"""Driving one model turn: retries, tool calls recovered from content, a checked ending.

`run_stream` wraps a provider's single HTTP attempt: retryable failures (429, 5xx, timeouts)
are retried with exponential backoff and jitter (tenacity; `Retry-After` honoured), never once
text reached the caller; text that may be a tool call is held back and parsed at the end of
the turn, and a leading ``<think>`` block is dropped (`held_text.py`); a stream without an
end-of-turn marker counts as dropped.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import dataclass

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_random_exponential

from vault_agent.llm.errors import ModelError, ModelRateLimitedError, dropped_error
from vault_agent.llm.held_text import TextGate
from vault_agent.llm.limits import DEFAULT_MAX_ANSWER_CHARS, answer_too_long
from vault_agent.llm.messages import ToolCall, ToolSpec
from vault_agent.llm.model import ChatEvent, Finished, TextDelta, ToolCallsReady

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPolicy:
    """How failed model calls are retried (only before any text reached the caller).

    Waits are exponential with full jitter: a random time up to ``backoff_s * 2**n``, capped at
    ``max_backoff_s``. A 429's ``Retry-After`` is used as given, unless it exceeds
    ``max_retry_after_s``: then the error goes straight to the user, who can wait or switch.
    """

    max_retries: int = 3
    backoff_s: float = 0.5
    max_backoff_s: float = 8.0
    max_retry_after_s: float = 30.0

    def should_retry(self, exc: BaseException) -> bool:
        """Retryable errors only; a long ``Retry-After`` is not worth blocking the user."""
        if not isinstance(exc, ModelError) or not exc.retryable:
            return False
        if isinstance(exc, ModelRateLimitedError) and exc.retry_after is not None:
            return exc.retry_after <= self.max_retry_after_s
        return True

    def wait(self, state: RetryCallState) -> float:
        """Seconds to wait before the next attempt."""
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, ModelRateLimitedError) and exc.retry_after is not None:
            return exc.retry_after
        backoff = wait_random_exponential(multiplier=self.backoff_s, max=self.max_backoff_s)
        return float(backoff(state))


async def run_stream(
    open_attempt: Callable[[], AsyncGenerator[ChatEvent, None]],
    *,
    who: str,
    tools: Sequence[ToolSpec],
    policy: RetryPolicy,
    max_chars: int = DEFAULT_MAX_ANSWER_CHARS,
) -> AsyncIterator[ChatEvent]:
    """Drive one model turn: retries, tool calls recovered from content, a checked ending.

    ``open_attempt`` makes one HTTP attempt and yields raw events (it may yield
    :class:`ToolCallsReady` at any point; they are passed on just before :class:`Finished`).
    It raises :class:`ModelError` subclasses; retryable ones are retried with ``policy`` as long
    as nothing has been yielded to the caller yet: a half-streamed answer is never repeated.
    A raw stream that ends without :class:`Finished` counts as a dropped connection. Text past
    ``max_chars`` stops the turn (:func:`~vault_agent.llm.limits.answer_too_long`).
    """
    tool_names = frozenset(t.name for t in tools)
    emitted = False

    def retryable(exc: BaseException) -> bool:
        return not emitted and policy.should_retry(exc)

    # The generator's own GeneratorExit/CancelledError pass through ``with attempt`` too:
    # they are not retryable, so tenacity re-raises them unchanged (reraise=True).
    retrying = AsyncRetrying(
        stop=stop_after_attempt(policy.max_retries + 1),
        wait=policy.wait,
        retry=retry_if_exception(retryable),
        reraise=True,
        before_sleep=_log_retry,
    )
    async for attempt in retrying:
        with attempt:
            raw = _bounded(open_attempt(), max_chars, who)
            async with contextlib.aclosing(raw):
                recovered = _recover_tool_calls(raw, tool_names, who)
                async with contextlib.aclosing(recovered):
                    async for event in recovered:
                        emitted = emitted or not isinstance(event, Finished)
                        yield event


async def _bounded(
    events: AsyncGenerator[ChatEvent, None], max_chars: int, who: str
) -> AsyncGenerator[ChatEvent, None]:
    """`events`, stopped (and closed) once their text passes `max_chars`."""
    written = 0
    async with contextlib.aclosing(events):
        async for event in events:
            if isinstance(event, TextDelta):
                written += len(event.text)
                if written > max_chars:
                    raise answer_too_long(who, max_chars)
            yield event


def _log_retry(state: RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    wait = state.next_action.sleep if state.next_action else 0.0
    log.warning("model call failed (%s); retry %d in %.2f s", exc, state.attempt_number, wait)


async def _recover_tool_calls(
    events: AsyncIterator[ChatEvent], tool_names: frozenset[str], who: str
) -> AsyncGenerator[ChatEvent, None]:
    """Pass text through, except text that may be a tool call: hold it to the end, then parse."""
    gate = TextGate(tool_names)
    native: list[ToolCall] = []
    async for event in events:
        if isinstance(event, ToolCallsReady):
            native.extend(event.calls)
        elif isinstance(event, TextDelta):
            shown = gate.feed(event.text)
            if shown:
                yield TextDelta(shown)
        else:
            text, recovered = gate.finish()
            if recovered and not native:
                log.info("recovered %d tool call(s) written as text", len(recovered))
                if text:
                    yield TextDelta(text)
                yield ToolCallsReady(recovered)
                yield Finished(event.usage, "tool_calls")
                return
            if text:
                yield TextDelta(text)
            if native:
                yield ToolCallsReady(native)
            yield Finished(event.usage, "tool_calls" if native else event.finish_reason)
            return
    raise dropped_error(who, "no end-of-turn marker")
