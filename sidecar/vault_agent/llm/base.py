"""What the agent loop knows about a chat model: messages, tool calls, stream events, errors.

Every provider (Mistral, Ollama, any OpenAI-compatible server, the extractive fallback) is one
small class satisfying :class:`ChatModel`: a name, a model, a capability flag and one method
that turns a conversation into a stream of :data:`ChatEvent`. Everything providers share lives
here too, so each of them stays a thin translation of one wire format:

- :func:`run_stream`: the retry policy (tenacity; 429/5xx/timeouts with exponential backoff and
  jitter, ``Retry-After`` honoured, never once text reached the caller) and the recovery of tool
  calls that small models write into ``content`` instead of ``tool_calls``;
- :func:`extract_tool_calls_from_content` and :func:`parse_tool_arguments`;
- :func:`error_for_status` and friends: HTTP failures as errors a user can act on.

A stream always has this shape: zero or more :class:`TextDelta`, then at most one
:class:`ToolCallsReady`, then exactly one :class:`Finished`. Failures raise :class:`ModelError`.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import logging
import re
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field, model_validator
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_random_exponential

log = logging.getLogger(__name__)

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "tool_calls", "length", "other"]


# --- messages ------------------------------------------------------------------------------


class ToolSpec(BaseModel):
    """A tool the model may call: its name, what it does, and its arguments' JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ToolCall(BaseModel):
    """One call the model asked for.

    ``arguments_error`` is set (and ``arguments`` is empty) when the model produced arguments
    that are not a JSON object: the loop sends that error back to the model as the tool result
    instead of crashing.
    """

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    arguments_error: str | None = None


class Message(BaseModel):
    """One turn of a conversation, in a provider-neutral shape.

    ``tool_calls`` only on assistant messages; ``tool_call_id`` and ``name`` (the tool's name)
    only, and always, on tool messages.
    """

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _check_role_fields(self) -> Message:
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only assistant messages carry tool_calls")
        if self.role == "tool" and not (self.tool_call_id and self.name):
            raise ValueError("a tool message needs tool_call_id and name")
        return self

    @classmethod
    def system(cls, content: str) -> Message:
        """A system prompt."""
        return cls(role="system", content=content)

    @classmethod
    def user(cls, content: str) -> Message:
        """A user turn."""
        return cls(role="user", content=content)

    @classmethod
    def assistant(cls, content: str = "", tool_calls: Sequence[ToolCall] = ()) -> Message:
        """An assistant turn: text, tool calls, or both."""
        return cls(role="assistant", content=content, tool_calls=list(tool_calls))

    @classmethod
    def tool(cls, call: ToolCall, content: str) -> Message:
        """The result of ``call``, to send back to the model."""
        return cls(role="tool", content=content, tool_call_id=call.id, name=call.name)


class Usage(BaseModel):
    """Tokens spent by one model call (zero when the provider does not say)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )


# --- stream events -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TextDelta:
    """The next piece of answer text, in order."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallsReady:
    """Every tool call of this turn, complete (parallel calls arrive together)."""

    calls: list[ToolCall]


@dataclass(frozen=True, slots=True)
class Finished:
    """The turn is over. ``finish_reason`` is ``tool_calls`` whenever calls were produced."""

    usage: Usage
    finish_reason: FinishReason


ChatEvent = TextDelta | ToolCallsReady | Finished


class ChatModel(Protocol):
    """A chat model as the agent loop sees it. Providers are one small class each."""

    name: str
    """The profile: ``mistral``, ``ollama``, ``openai`` or ``extractive``."""
    model: str
    """The model name sent to the provider (for display and logs)."""
    supports_tools: bool
    """False for models that can't call tools; the loop then answers from context alone."""

    # Declared without ``async`` on purpose: implementations are ``async def`` generators,
    # whose type is a plain function returning an AsyncIterator. Use ``async for``.
    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AsyncIterator[ChatEvent]:
        """Run one model turn; see the module docstring for the shape of the stream."""
        ...

    async def aclose(self) -> None:
        """Release connections; the model is unusable afterwards."""
        ...


# --- errors --------------------------------------------------------------------------------


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
    detail = _error_detail(body)
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


def _error_detail(body: str, limit: int = 300) -> str:
    """The human part of an error body: ``error.message``, ``message``, ``error`` or ``detail``."""
    text = body.strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        for key in ("error", "message", "detail"):
            value = data.get(key)
            if isinstance(value, dict):
                value = value.get("message")
            if isinstance(value, str) and value.strip():
                text = value.strip()
                break
    return text if len(text) <= limit else text[:limit] + "..."


# --- tool call helpers ---------------------------------------------------------------------


def new_tool_call_id() -> str:
    """A fresh id for a tool call the provider gave none for.

    Nine alphanumeric characters, because that is the only shape Mistral accepts when the call
    is sent back to it, and every other provider takes it too.
    """
    return uuid.uuid4().hex[:9]


def parse_tool_arguments(raw: str | Mapping[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    """Arguments as a dict, or ``({}, error)`` when they are not a JSON object.

    Providers send a JSON string (Mistral, OpenAI) or an object (Ollama); an empty string means
    "no arguments".
    """
    if raw is None:
        return {}, None
    if isinstance(raw, Mapping):
        return dict(raw), None
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        excerpt = raw if len(raw) <= 200 else raw[:200] + "..."
        return {}, f"arguments are not valid JSON ({exc}): {excerpt}"
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}: {raw[:200]}"
    return value, None


def extract_tool_calls_from_content(
    text: str, tool_names: Collection[str]
) -> list[ToolCall] | None:
    """Recover tool calls that a model wrote as text instead of ``tool_calls``.

    Small local models often answer with the call itself: ``{"name": "search_notes",
    "arguments": {...}}``, a list of those, several of them one per line, the same inside a
    ```` ```json ```` fence or ``<tool_call>...</tool_call>`` tags (Qwen/Hermes), or after a
    ``[TOOL_CALLS]`` / ``<|python_tag|>`` marker. ``parameters``/``args`` are accepted for
    ``arguments``, and OpenAI's ``{"function": {...}}`` wrapping too.

    The whole text must be tool calls, and every call must name one of ``tool_names``;
    otherwise this returns None and the text stays an answer.
    """
    if not tool_names:
        return None
    payloads = _tool_call_payloads(text)
    if not payloads:
        return None
    calls: list[ToolCall] = []
    for payload in payloads:
        values = _decode_json_values(payload)
        if values is None:
            return None
        for value in values:
            for item in value if isinstance(value, list) else [value]:
                call = _tool_call_from_json(item, tool_names)
                if call is None:
                    return None
                calls.append(call)
    return calls or None


_PREFIX_MARKERS = ("[TOOL_CALLS]", "<|python_tag|>")
_TAG_OPEN, _TAG_CLOSE = "<tool_call>", "</tool_call>"
_FENCE_LANGS = ("", "json", "tool_call", "tool_code")
_FENCED = re.compile(r"```([\w-]*)[ \t]*\n?(.*?)\n?```", re.DOTALL)
_TAGGED = re.compile(r"\s*<tool_call>(.*?)</tool_call>\s*", re.DOTALL)


def _tool_call_payloads(text: str) -> list[str] | None:
    """The JSON texts inside ``text`` if it is shaped like tool calls, else None."""
    s = text.strip()
    for marker in _PREFIX_MARKERS:
        if s.startswith(marker):
            s = s[len(marker) :].strip()
    if s.startswith(_TAG_OPEN):
        if not s.endswith(_TAG_CLOSE):
            s += _TAG_CLOSE  # generation often stops right before the closing tag
        blocks = list(_TAGGED.finditer(s))
        if "".join(m.group(0) for m in blocks) != s:
            return None
        return [m.group(1).strip() for m in blocks]
    fenced = _FENCED.fullmatch(s)
    if fenced:
        if fenced.group(1).lower() not in _FENCE_LANGS:
            return None
        return _tool_call_payloads(fenced.group(2))
    return [s] if s[:1] in ("{", "[") else None


def _decode_json_values(payload: str) -> list[Any] | None:
    """Every JSON value in ``payload`` (models sometimes write one call per line)."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    pos = 0
    while pos < len(payload):
        if payload[pos].isspace() or payload[pos] == ",":
            pos += 1
            continue
        try:
            value, pos = decoder.raw_decode(payload, pos)
        except ValueError:
            return None
        values.append(value)
    return values


def _tool_call_from_json(item: Any, tool_names: Collection[str]) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    spec: dict[str, Any] = function if isinstance(function, dict) else item
    name = spec.get("name")
    if not isinstance(name, str) or name not in tool_names:
        return None
    raw = next((spec[k] for k in ("arguments", "parameters", "args") if k in spec), None)
    arguments: dict[str, Any] = {}
    error: str | None = None
    if raw is None or isinstance(raw, str | Mapping):
        arguments, error = parse_tool_arguments(raw)
    else:
        error = f"arguments must be a JSON object, got {type(raw).__name__}"
    return ToolCall(id=new_tool_call_id(), name=name, arguments=arguments, arguments_error=error)


def _may_be_tool_call(prefix: str) -> bool | None:
    """Could text starting with ``prefix`` be a tool call written as content?

    True: hold it back until the turn ends. False: stream it. None: need more characters.
    Answers rarely open with ``{``, a bare fence or a marker, so holding costs little; ``[[``
    (a wikilink) is passed straight through.
    """
    s = prefix.lstrip()
    if not s:
        return None
    if s[0] == "{":
        return True
    for marker in (*_PREFIX_MARKERS, _TAG_OPEN):
        if s.startswith(marker):
            return True
        if marker.startswith(s):
            return None
    if s[0] == "[":
        rest = s[1:].lstrip()
        return None if not rest else rest[0] == "{"
    if s.startswith("```"):
        if "\n" not in s:
            return None if len(s) < 20 else False
        return s[3 : s.index("\n")].strip().lower() in _FENCE_LANGS
    if "```".startswith(s):
        return None
    return False


# --- the shared stream driver --------------------------------------------------------------


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
) -> AsyncIterator[ChatEvent]:
    """Drive one model turn: retries, tool calls recovered from content, a checked ending.

    ``open_attempt`` makes one HTTP attempt and yields raw events (it may yield
    :class:`ToolCallsReady` at any point; they are passed on just before :class:`Finished`).
    It raises :class:`ModelError` subclasses; retryable ones are retried with ``policy`` as long
    as nothing has been yielded to the caller yet: a half-streamed answer is never repeated.
    A raw stream that ends without :class:`Finished` counts as a dropped connection.
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
            raw = open_attempt()
            async with contextlib.aclosing(raw):
                recovered = _recover_tool_calls(raw, tool_names, who)
                async with contextlib.aclosing(recovered):
                    async for event in recovered:
                        emitted = emitted or not isinstance(event, Finished)
                        yield event


def _log_retry(state: RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    wait = state.next_action.sleep if state.next_action else 0.0
    log.warning("model call failed (%s); retry %d in %.2f s", exc, state.attempt_number, wait)


async def _recover_tool_calls(
    events: AsyncIterator[ChatEvent], tool_names: frozenset[str], who: str
) -> AsyncGenerator[ChatEvent, None]:
    """Pass text through, except text that may be a tool call: hold it to the end, then parse."""
    held: list[str] = []
    holding: bool | None = None if tool_names else False
    native: list[ToolCall] = []
    async for event in events:
        if isinstance(event, ToolCallsReady):
            native.extend(event.calls)
        elif isinstance(event, TextDelta):
            if holding is False:
                if event.text:
                    yield event
                continue
            held.append(event.text)
            if holding is None:
                holding = _may_be_tool_call("".join(held))
                if holding is False:
                    yield TextDelta("".join(held))
                    held.clear()
        else:
            text = "".join(held)
            recovered = (
                None if native or not text else extract_tool_calls_from_content(text, tool_names)
            )
            if recovered:
                log.info("recovered %d tool call(s) written as text", len(recovered))
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


_FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "end_turn": "stop",
    "eos": "stop",
    "tool_calls": "tool_calls",
    "length": "length",
    "max_tokens": "length",
    "model_length": "length",
}


def finish_reason(value: str | None) -> FinishReason:
    """Normalise a provider's finish reason; a missing one means a normal stop."""
    return _FINISH_REASONS.get(value or "stop", "other")
