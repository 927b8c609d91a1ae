"""The agent loop: one question in, a stream of events out, ending in a checked, cited answer.

:func:`run_agent` builds the first turn (system prompt, earlier turns, context block and
question), then alternates model turns and tool turns. Several calls in one turn run
concurrently. Once ``llm.max_turns`` turns have called tools, one more turn runs without tools
and with an instruction to answer from what was found, so the model calls at most
``max_turns + 1`` times (+1 if it answers with nothing and is asked again). A model that only
repeats calls it already made (``STALLED_TURNS`` turns in a row) gets that last turn early.

The model's text streams out as ``delta`` events while it is written; the final answer goes
through :func:`~vault_agent.agent.citations.check_answer` and arrives in ``done``, which
clients show in place of the streamed text. A :class:`~vault_agent.llm.errors.ModelError` ends
the run with an ``error`` event. Cancelling the consumer (a client abort) cancels the model
call in flight: its HTTP stream is closed on the way out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import replace
from typing import Literal

from vault_agent.agent import prompts
from vault_agent.agent.citations.checker import (
    check_answer,
)
from vault_agent.agent.citations.links import (
    NoteRef,
    cite,
)
from vault_agent.agent.citations.shown_links import shown_only, web_links_in
from vault_agent.agent.events import (
    AgentEvent,
    DeltaEvent,
    DoneEvent,
    ErrorCode,
    ErrorEvent,
    StatusEvent,
    Timings,
    ToolCallEvent,
    ToolResultEvent,
    UsageInfo,
)
from vault_agent.agent.extractive import (
    SEARCH_FAILED,
    ExtractiveAnswerer,
    SearchPlan,
    answer,
    plan,
)
from vault_agent.agent.prompts import ActiveNote
from vault_agent.agent.reader import NoteReader, ToolError, ToolsContext, clip
from vault_agent.agent.request import HISTORY_TURNS, AgentRequest
from vault_agent.agent.toolbox import (
    Toolbox,
)
from vault_agent.agent.tools import (
    ToolResult,
    tool_specs,
)
from vault_agent.agent.vault_urls import is_web_link
from vault_agent.config import Settings
from vault_agent.index.search.dated import dated_in
from vault_agent.llm.errors import (
    ModelError,
    ModelRateLimitedError,
    ModelResponseError,
    ModelTimeoutError,
    ModelUnavailableError,
)
from vault_agent.llm.messages import (
    Message,
    ToolCall,
    ToolSpec,
    Usage,
    new_tool_call_id,
)
from vault_agent.llm.model import (
    ChatEvent,
    ChatModel,
    Finished,
    TextDelta,
    ToolCallsReady,
)

log = logging.getLogger(__name__)

MAX_CALLS_PER_TURN = 8
"""More parallel calls than this in one turn are dropped (the model is told how many)."""
STALLED_TURNS = 2
"""Turns in a row whose every call repeats an earlier one: then the model must answer."""
HISTORY_CHARS = 4_000
EMPTY_ANSWER = "The model returned an empty answer. Try again, or rephrase the question."


async def run_agent(
    request: AgentRequest,
    model: ChatModel | ExtractiveAnswerer,
    tools_context: ToolsContext,
    settings: Settings,
) -> AsyncGenerator[AgentEvent, None]:
    """Answer ``request`` with ``model`` (or without one: the extractive answerer), reading the
    vault through ``tools_context``.

    Yields events (see :mod:`vault_agent.agent.events`); the last is ``done`` or ``error``.
    A server should ``aclose()`` the generator when its client goes away (or cancel the task
    reading it): either stops the model call in flight.
    """
    run = _Run(request, model, tools_context, settings.llm.max_turns, settings.llm.max_answer_s)
    # Every nested generator is closed explicitly (aclosing): when a client stops reading,
    # Python closes only the outermost one, and the model's stream must not be left open.
    async with contextlib.aclosing(run.events()) as events:
        async for event in events:
            yield event


class _Run:
    """The state of one question: the conversation, what the model has seen, the clocks."""

    def __init__(
        self,
        request: AgentRequest,
        model: ChatModel | ExtractiveAnswerer,
        context: ToolsContext,
        max_turns: int,
        max_answer_s: float = float("inf"),
    ) -> None:
        self.request = request
        self.model = model
        self.context = context
        self.max_turns = max_turns
        self.max_answer_s = max_answer_s
        # Both set again by _first_turn, which may read the store (so: in a worker thread).
        self.active_file = ""
        self.toolbox = Toolbox(context)
        self.messages: list[Message] = []
        self.seen: list[NoteRef] = []
        self.numbered: list[list[NoteRef]] = []
        """The passages of each search result, in rank order (what an answer's "[1]" cites)."""
        self.usage = Usage()
        self.quoting = False
        """The answer quotes the notes (the extractive profile): no model wrote its links."""
        self.turn = 0
        self.stalled = 0
        """Tool turns in a row whose every call was a repeat."""
        self.started = time.perf_counter()
        self.model_s = 0.0
        self.tools_s = 0.0
        self.first_delta_s: float | None = None
        # Set by _model_turn (an async generator can't return a value).
        self.text = ""
        self.calls: list[ToolCall] = []

    async def events(self) -> AsyncGenerator[AgentEvent, None]:
        try:
            if isinstance(self.model, ExtractiveAnswerer):
                steps = self._extractive()
            else:
                steps = self._answer(self.model)
            async with contextlib.aclosing(steps) as answering:
                async for event in answering:
                    yield event
        except ModelError as error:
            yield ErrorEvent(code=_error_code(error), message=str(error))
        except Exception as error:  # the client must get an event, not a dropped stream
            log.exception("agent run failed")
            yield ErrorEvent(code="internal", message=f"internal error: {error!r}")

    def _search_plan(self) -> SearchPlan:
        """What the extractive answer searches for, and what the question asks of it."""
        sparse = self.context.searcher.sparse
        languages = sparse.question_languages(self.request.question)
        today = self.context.current_date()
        store = self.context.searcher.store
        return plan(
            self.request, self.active_file, sparse.analyzer, today, languages, dated_in(store)
        )

    async def _extractive(self) -> AsyncGenerator[AgentEvent, None]:
        """No model: search once with the question in its context, then quote the notes."""
        self.turn = 1
        self.quoting = True
        yield self._status("searching", "Searching your notes (no language model).")
        await asyncio.to_thread(self._first_turn, False)
        # Off the event loop: reading a long question (8,000 characters) takes most of a
        # second, which would hold every other request of the server.
        search = await asyncio.to_thread(self._search_plan)
        call = ToolCall(
            id=new_tool_call_id(), name="search_notes", arguments={"query": search.query}
        )
        yield ToolCallEvent(id=call.id, name=call.name, arguments=call.arguments, turn=1)
        started = time.perf_counter()
        try:
            found = await asyncio.to_thread(answer, search, self.context)
        except Exception as error:  # the index is down, say: an answer that says so
            log.exception("extractive search failed")
            self.tools_s = time.perf_counter() - started
            failed = ToolResult.error(f"search_notes failed: {error}")
            yield ToolResultEvent(
                id=call.id,
                name=call.name,
                ok=False,
                summary=failed.summary,
                notes=[],
                elapsed_ms=_ms(self.tools_s),
            )
            yield await self._done(f"{SEARCH_FAILED}{error}")
            return
        self.tools_s = time.perf_counter() - started
        self.seen.extend(found.seen)
        titles = ", ".join(dict.fromkeys(ref.title for ref in found.seen))
        yield ToolResultEvent(
            id=call.id,
            name=call.name,
            ok=True,
            summary=f'{found.passages} passages for "{search.query}"'
            + (f": {titles}" if titles else ""),
            notes=found.seen,
            elapsed_ms=_ms(self.tools_s),
        )
        yield self._status("answering", "Quoting the passages that answer.")
        self.first_delta_s = time.perf_counter() - self.started
        for piece in _pieces(found.text):
            yield DeltaEvent(text=piece, turn=1)
        yield self._status("checking", "Checking citations.")
        yield await self._done(found.text)

    async def _answer(self, model: ChatModel) -> AsyncGenerator[AgentEvent, None]:
        tools = tool_specs() if model.supports_tools else []
        await asyncio.to_thread(self._first_turn, bool(tools))
        tool_turns = 0
        asked_again = False
        while True:
            self.turn += 1
            stalled = self.stalled >= STALLED_TURNS
            forced = bool(tools) and (tool_turns >= self.max_turns or stalled)
            if forced:
                nudge = prompts.REPEAT_NUDGE if stalled else prompts.SYNTHESIS_NUDGE
                if nudge not in (m.content for m in self.messages):
                    self.messages.append(Message.user(nudge))
                why = "Repeated calls" if stalled else "Turn budget used"
                yield self._status("answering", f"{why}: writing the answer.")
            else:
                yield self._status("thinking", self._thinking_message())
            offered = [] if forced else tools
            async with contextlib.aclosing(self._model_turn(offered)) as turn:
                async for event in turn:
                    yield event
            if self.calls and offered:
                tool_turns += 1
                # Calls past the turn's limit are dropped, not echoed: a model sending
                # thousands would fill the events and every later request with them.
                dropped = max(0, len(self.calls) - MAX_CALLS_PER_TURN)
                self.calls = self.calls[:MAX_CALLS_PER_TURN]
                self.messages.append(Message.assistant(self.text, self.calls))
                turn_results = self._tool_turn(self.calls, dropped)
                async with contextlib.aclosing(turn_results) as results:
                    async for event in results:
                        yield event
                continue
            if not self.text.strip() and not asked_again:
                asked_again = True  # small models sometimes stop short after tool results
                self.messages.append(Message.user(prompts.EMPTY_ANSWER_NUDGE))
                continue
            break
        yield self._status("checking", "Checking citations.")
        yield await self._done(self.text if self.text.strip() else self._empty_answer())

    def _first_turn(self, tools: bool) -> None:
        """System prompt, earlier turns, then context and question (reads the store)."""
        request = self.request
        active = request.active_note
        self.active_file = _active_file(self.context, active)
        overrides = {}
        if active is not None and active.content is not None:
            overrides[self.active_file] = active.content
        self.toolbox = Toolbox(self.context, overrides, self.active_file)
        block = prompts.build_context(
            self.toolbox.reader,
            self.active_file,
            request.selection,
            request.neighbourhood,
            request.context_budget,
        )
        self.seen.extend(block.notes)
        self.messages.append(
            Message.system(prompts.system_prompt(self.context.current_date(), tools))
        )
        for earlier in request.history[-HISTORY_TURNS:]:
            content = clip(earlier.content, HISTORY_CHARS)
            if content.strip():
                self.messages.append(Message(role=earlier.role, content=content))
        self.messages.append(Message.user(prompts.user_message(request.question, block.text)))

    async def _within_deadline(self, stream: AsyncIterator[ChatEvent]) -> AsyncIterator[ChatEvent]:
        """`stream`'s events while the model's time on this question lasts: each wait for the
        next one ends at the deadline, however the model keeps its stream alive (a slow drip of
        empty deltas, keep-alive comments), so a question always ends."""
        # What the model's earlier turns left of its time (this turn's starts now).
        deadline = asyncio.get_running_loop().time() + self.max_answer_s - self.model_s
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    event = await anext(stream)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise ModelTimeoutError(
                    f"the model took more than {self.max_answer_s:g} s to answer (llm.max_answer_s)"
                ) from None
            yield event

    async def _model_turn(self, tools: Sequence[ToolSpec]) -> AsyncGenerator[AgentEvent, None]:
        """Stream one model turn; leaves its text and calls in ``self.text``/``self.calls``."""
        parts: list[str] = []
        self.calls = []
        started = time.perf_counter()
        assert not isinstance(self.model, ExtractiveAnswerer)
        stream = self.model.stream(list(self.messages), tools)
        try:
            async for event in self._within_deadline(stream):
                if isinstance(event, TextDelta):
                    if self.first_delta_s is None:
                        self.first_delta_s = time.perf_counter() - self.started
                    parts.append(event.text)
                    yield DeltaEvent(text=event.text, turn=self.turn)
                elif isinstance(event, ToolCallsReady):
                    self.calls.extend(event.calls)
                elif isinstance(event, Finished):
                    self.usage = self.usage + event.usage
        finally:
            # Closing the stream closes its HTTP response: on cancellation too, so an aborted
            # question stops the model instead of letting it run to the end.
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                with contextlib.suppress(Exception):
                    await aclose()
            self.model_s += time.perf_counter() - started
        self.text = "".join(parts)

    async def _tool_turn(
        self, calls: list[ToolCall], dropped: int = 0
    ) -> AsyncGenerator[AgentEvent, None]:
        """Run this turn's calls concurrently; results go back to the model in call order
        (the last one saying how many more calls were `dropped`)."""
        calls = [_named(call) for call in calls]
        for call in calls:
            yield ToolCallEvent(
                id=call.id, name=call.name, arguments=call.arguments, turn=self.turn
            )
        names = ", ".join(dict.fromkeys(call.name for call in calls))
        yield self._status("searching", f"Running {names}.")
        started = time.perf_counter()
        results = await asyncio.gather(*(self._timed(call) for call in calls))
        if dropped:
            last, elapsed = results[-1]
            note = f"\n({dropped} more calls were not run: at most {MAX_CALLS_PER_TURN} per turn.)"
            results[-1] = (replace(last, content=last.content + note), elapsed)
        self.tools_s += time.perf_counter() - started
        repeats = all(result.repeated for result, _ in results)
        self.stalled = self.stalled + 1 if repeats else 0
        for call, (result, elapsed) in zip(calls, results, strict=True):
            self.messages.append(Message.tool(call, result.content))
            self.seen.extend(result.notes)
            if result.ranked:
                self.numbered.append(result.notes)
            yield ToolResultEvent(
                id=call.id,
                name=call.name,
                ok=result.ok,
                summary=result.summary,
                notes=result.notes,
                elapsed_ms=round(elapsed * 1000, 2),
            )

    async def _timed(self, call: ToolCall) -> tuple[ToolResult, float]:
        started = time.perf_counter()
        result = await self.toolbox.run(call)
        return result, time.perf_counter() - started

    async def _done(self, text: str) -> DoneEvent:
        started = time.perf_counter()
        # A model's answer links only to pages it was shown (a note may ask it to build a link
        # carrying what it read); a quoted answer is the notes' own text.
        links: Callable[[str], bool] = is_web_link
        if not self.quoting:
            links = shown_only(await asyncio.to_thread(_shown_links, self.messages))
        # In a worker thread: correcting a heading reads the note's headings from the store.
        checked = await asyncio.to_thread(
            check_answer,
            text,
            self.seen,
            self.context.graph,
            self.active_file,
            self.context.documents,
            numbered=self.numbered,
            headings=self.toolbox.reader.headings,
            links=links,
        )
        for fix in checked.corrected_citations:
            log.info("citation %s corrected to %s: %s", fix.citation, fix.corrected, fix.reason)
        check_s = time.perf_counter() - started
        total_s = time.perf_counter() - self.started
        return DoneEvent(
            answer=checked.answer,
            sources=checked.sources,
            removed_citations=checked.removed_citations,
            removed_images=checked.removed_images,
            usage=UsageInfo(
                prompt_tokens=self.usage.prompt_tokens,
                completion_tokens=self.usage.completion_tokens,
                total_tokens=self.usage.total_tokens,
            ),
            timings=Timings(
                total_ms=_ms(total_s),
                model_ms=_ms(self.model_s),
                tools_ms=_ms(self.tools_s),
                check_ms=_ms(check_s),
                overhead_ms=_ms(total_s - self.model_s),
                first_delta_ms=_ms(self.first_delta_s) if self.first_delta_s is not None else None,
            ),
            profile=self.model.name,
            model=self.model.model,
            turns=self.turn,
        )

    def _empty_answer(self) -> str:
        """What the user gets when the model says nothing twice: the notes it found, cited."""
        whole = {ref.file: ref.model_copy(update={"heading": ""}) for ref in self.seen}
        found = list(whole.values())
        if not found:
            return EMPTY_ANSWER
        links = ", ".join(cite(ref) for ref in found[:8])
        return f"{EMPTY_ANSWER} Notes that may hold the answer: {links}."

    def _status(
        self, stage: Literal["thinking", "searching", "answering", "checking"], message: str
    ) -> StatusEvent:
        return StatusEvent(stage=stage, message=message, turn=self.turn)

    def _thinking_message(self) -> str:
        if self.turn == 1:
            return f"Thinking ({self.model.name}: {self.model.model})."
        return "Reading the results."


def _active_file(context: ToolsContext, active: ActiveNote | None) -> str:
    """The vault path of the open note: as indexed if it is, else as the editor sent it."""
    if active is None:
        return ""
    try:
        return NoteReader(context).find(active.path)
    except ToolError:
        path = active.path.strip().replace("\\", "/").lstrip("/")
        return path if path.lower().endswith(".md") else f"{path}.md"


def _named(call: ToolCall) -> ToolCall:
    """A tool message needs a name: give a nameless call one, so the error can go back."""
    return call if call.name else call.model_copy(update={"name": "unnamed_tool"})


def _error_code(error: ModelError) -> ErrorCode:
    if isinstance(error, ModelTimeoutError):
        return "model_timeout"
    if isinstance(error, ModelRateLimitedError):
        return "rate_limited"
    if isinstance(error, ModelUnavailableError):
        return "model_unavailable"
    if isinstance(error, ModelResponseError):
        return "bad_response"
    return "model_error"


def _pieces(text: str, size: int = 24) -> list[str]:
    """`text` in pieces of about `size` characters, cut after spaces: delivered as a model
    would write it, so clients show it growing the same way."""
    pieces = re.findall(rf".{{1,{size}}}(?:\s+|$)|\S+", text, flags=re.DOTALL)
    return [piece for piece in pieces if piece]


def _shown_links(messages: Sequence[Message]) -> frozenset[str]:
    """The web pages `messages` showed the model: the question, the context and the tools'
    results hold them, less any URL the model wrote itself, which a result may repeat ("No
    notes match ..."): a URL the model made up is never one it was shown."""
    shown = web_links_in(message.content for message in messages if message.role != "assistant")
    written = web_links_in(
        f"{call.name} {json.dumps(call.arguments)} {call.arguments_error or ''}"
        for message in messages
        for call in message.tool_calls
    )
    return shown - written


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)
