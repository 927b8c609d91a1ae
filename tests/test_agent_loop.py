"""The agent loop against each provider's fake server, with the real tools, index and checks.

The fakes replay scripted model turns; everything else is real: the tool calls run against an
index of examples/vault, the results go back over the provider's wire format, and the answer
goes through the citation check.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from agent_helpers import ask, context_for, done_of, names, of_type, settings_for
from conftest import CANARY
from fake_llm import KINDS, FakeTurn, Kind, fake_provider, model_for
from vault_agent.agent import tools as tools_module
from vault_agent.agent.events import (
    DeltaEvent,
    ErrorEvent,
    StatusEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from vault_agent.agent.loop import MAX_CALLS_PER_TURN, run_agent
from vault_agent.agent.passages import parse_passages
from vault_agent.agent.prompts import EMPTY_ANSWER_NUDGE, REPEAT_NUDGE, SYNTHESIS_NUDGE
from vault_agent.agent.request import AgentRequest
from vault_agent.agent.tool_args import (
    SearchNotesArgs,
)
from vault_agent.agent.tools import (
    TOOLS,
    Tool,
)
from vault_agent.index.vault_index import VaultIndex
from vault_agent.llm.messages import (
    Message,
    ToolSpec,
)
from vault_agent.llm.model import (
    ChatEvent,
    ChatModel,
)

STARTER = "Recipes/Sourdough Starter"
STARTER_FILE = f"{STARTER}.md"
CITED_ANSWER = (
    f"Gus is fed once a day at room temperature [[{STARTER}#Feeding schedule]].\n\n"
    f"Sources:\n- [[{STARTER}#Feeding schedule]]"
)


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> Kind:
    kind: Kind = request.param
    return kind


def tool_messages(body: dict[str, Any], kind: Kind) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "tool"]


async def test_two_turn_tool_chain_ends_in_a_cited_answer(
    kind: Kind, agent_index: VaultIndex
) -> None:
    script = [
        FakeTurn.tool_calls([("search_notes", {"query": "sourdough starter feeding"})]),
        FakeTurn.text(CITED_ANSWER),
    ]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "How often do I feed my starter?")
        await model.aclose()

    assert names(events)[:4] == ["status", "tool_call", "status", "tool_result"]
    result = of_type(events, ToolResultEvent)[0]
    assert result.ok and STARTER_FILE in {n.file for n in result.notes}
    streamed = "".join(d.text for d in of_type(events, DeltaEvent))
    assert streamed == CITED_ANSWER
    done = done_of(events)
    assert done.profile == kind and done.turns == 2
    assert done.removed_citations == []
    assert [(s.file, s.heading) for s in done.sources] == [(STARTER_FILE, "Feeding schedule")]
    assert done.answer.endswith(f"Sources:\n- [[{STARTER}#Feeding schedule]]")
    assert done.answer.count("Sources:") == 1
    assert done.usage.total_tokens == 2 * (12 + 7)

    first, second = server.requests
    assert {t["function"]["name"] for t in first.tools} == set(TOOLS)
    [tool_message] = tool_messages(second.body, kind)
    # The real search result went back to the model, with the link to cite.
    assert f"[[{STARTER}" in tool_message["content"]


async def test_parallel_tool_calls_run_concurrently(
    agent_index: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each call waits for the other two: run one after another, they would time out.
    barrier = threading.Barrier(3, timeout=5)
    for name in ("search_notes", "get_note", "recent_daily_notes"):
        tool = TOOLS[name]

        @functools.wraps(tool.function)
        def waiting(reader: Any, args: Any, _function: Any = tool.function) -> Any:
            barrier.wait()
            return _function(reader, args)

        monkeypatch.setitem(TOOLS, name, Tool(waiting, tool.arguments))
    script = [
        FakeTurn.tool_calls(
            [
                ("search_notes", {"query": "feeding the starter"}),
                ("get_note", {"path": STARTER}),
                ("recent_daily_notes", {"days": 14}),
            ]
        ),
        FakeTurn.text(f"Fed daily [[{STARTER}#Feeding schedule]]."),
    ]
    async with fake_provider("openai", script) as (url, server):
        model = model_for("openai", url)
        events = await ask(agent_index, model, "How is my starter doing?")
        await model.aclose()

    assert names(events)[1:4] == ["tool_call"] * 3
    results = of_type(events, ToolResultEvent)
    assert [r.name for r in results] == ["search_notes", "get_note", "recent_daily_notes"]
    assert all(r.ok for r in results), [r.summary for r in results]
    # Results go back in call order, each answering its own call id.
    calls = of_type(events, ToolCallEvent)
    sent = tool_messages(server.requests[1].body, "openai")
    assert [m["tool_call_id"] for m in sent] == [c.id for c in calls]
    assert done_of(events).sources[0].file == STARTER_FILE


async def test_parallel_calls_in_every_wire_format(kind: Kind, agent_index: VaultIndex) -> None:
    script = [
        FakeTurn.tool_calls([("get_note", {"path": STARTER}), ("note_links", {"path": STARTER})]),
        FakeTurn.text(f"See [[{STARTER}#Troubleshooting]]."),
    ]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "What links to my starter note?")
        await model.aclose()
    assert [r.ok for r in of_type(events, ToolResultEvent)] == [True, True]
    sent = tool_messages(server.requests[1].body, kind)
    assert "Troubleshooting" in sent[0]["content"] and "Linked from:" in sent[1]["content"]
    # get_note showed the section, so the source carries its whole heading path.
    assert done_of(events).sources[0].heading == "Sourdough Starter > Troubleshooting"


async def test_calls_past_a_turns_limit_are_dropped_not_echoed(agent_index: VaultIndex) -> None:
    # Found by an audit: 10,000 calls in one turn ran 8, but every one came back as a
    # tool_call and a tool_result event and went into every later request to the model.
    many = [("search_notes", {"query": f"starter {i}"}) for i in range(500)]
    script = [FakeTurn.tool_calls(many), FakeTurn.text(f"Fed daily [[{STARTER}]].")]
    async with fake_provider("openai", script) as (url, server):
        model = model_for("openai", url)
        events = await ask(agent_index, model, "How is my starter doing?")
        await model.aclose()
    assert len(of_type(events, ToolCallEvent)) == MAX_CALLS_PER_TURN
    assert len(of_type(events, ToolResultEvent)) == MAX_CALLS_PER_TURN
    sent = tool_messages(server.requests[1].body, "openai")
    assert len(sent) == MAX_CALLS_PER_TURN
    assert "492 more calls were not run" in sent[-1]["content"]
    assert done_of(events).sources[0].file == STARTER_FILE


async def test_turn_budget_forces_a_synthesis_turn_without_tools(
    kind: Kind, agent_index: VaultIndex
) -> None:
    search = FakeTurn.tool_calls([("search_notes", {"query": "starter"})])
    again = FakeTurn.tool_calls([("search_notes", {"query": "bread"})])
    script = [search, again, FakeTurn.text(CITED_ANSWER)]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "Tell me about bread", max_turns=2)
        await model.aclose()

    assert len(server.requests) == 3
    assert server.requests[1].tools and not server.requests[2].tools
    assert server.requests[2].messages[-1] == {"role": "user", "content": SYNTHESIS_NUDGE}
    stages = [(s.stage, s.turn) for s in of_type(events, StatusEvent)]
    assert ("answering", 3) in stages
    done = done_of(events)
    assert done.turns == 3 and done.sources[0].file == STARTER_FILE


async def test_a_model_repeating_one_call_is_made_to_answer_early(
    kind: Kind, agent_index: VaultIndex
) -> None:
    same = FakeTurn.tool_calls([("search_notes", {"query": "sourdough starter"})])
    script = [same, same, same, FakeTurn.text(CITED_ANSWER)]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "How often do I feed my starter?", max_turns=5)
        await model.aclose()
    # The first call ran, two repeats got the same result, then one turn without tools.
    assert len(server.requests) == 4
    assert server.requests[2].tools and not server.requests[3].tools
    assert server.requests[3].messages[-1] == {"role": "user", "content": REPEAT_NUDGE}
    repeats = [r for r in of_type(events, ToolResultEvent) if r.summary.startswith("repeated")]
    assert len(repeats) == 2
    done = done_of(events)
    assert done.answer.startswith("Gus is fed once a day") and done.turns == 4
    assert done.sources[0].file == STARTER_FILE


async def test_a_model_that_never_stops_calling_still_ends_with_an_answer(
    kind: Kind, agent_index: VaultIndex
) -> None:
    same = FakeTurn.tool_calls([("search_notes", {"query": "sourdough starter"})])
    async with fake_provider(kind, [same] * 10) as (url, server):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "How often do I feed my starter?", max_turns=5)
        await model.aclose()
    # 3 tool turns (the third stalls it), then the answer turn and its one retry: calls
    # made without tools offered are not run.
    assert len(server.requests) == 5
    assert len(of_type(events, ToolResultEvent)) == 3
    done = done_of(events)
    assert done.answer.startswith("The model returned an empty answer.")
    assert f"[[{STARTER}" in done.answer and done.sources[0].file == STARTER_FILE


async def test_hallucinated_citations_are_removed_and_reported(
    kind: Kind, agent_index: VaultIndex
) -> None:
    answer = (
        f"Feed Gus daily [[{STARTER}#Feeding schedule]], as in [[Recipes/Chocolate Cake]]. "
        "The trip is in April ([[Projects/Kyoto Trip]])."
    )
    script = [FakeTurn.tool_calls([("get_note", {"path": STARTER})]), FakeTurn.text(answer)]
    async with fake_provider(kind, script) as (url, _):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "How do I feed my starter?")
        await model.aclose()

    done = done_of(events)
    removed = {r.citation: r.reason for r in done.removed_citations}
    assert removed == {
        "[[Recipes/Chocolate Cake]]": "no note by that name in the vault",
        "[[Projects/Kyoto Trip]]": "not among the notes retrieved for this answer",
    }
    assert "Chocolate Cake" not in done.answer and "Kyoto" not in done.answer
    assert done.answer.startswith(
        f"Feed Gus daily [[{STARTER}#Feeding schedule]], as in. The trip is in April."
    )
    assert [s.file for s in done.sources] == [STARTER_FILE]


async def test_numbered_and_misplaced_citations_are_made_right(
    kind: Kind, agent_index: VaultIndex
) -> None:
    answer = (
        "Gus is fed once a day [1]. Revive him slowly (Sourdough Starter). "
        f"He lives in a jar [[{STARTER}#Where Gus lives]]."
    )
    script = [
        FakeTurn.tool_calls([("search_notes", {"query": "sourdough starter feeding"})]),
        FakeTurn.text(answer),
    ]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "How do I look after my starter?")
        await model.aclose()
    [result] = tool_messages(server.requests[1].body, kind)
    first = parse_passages(result["content"])[0]
    done = done_of(events)
    assert done.answer.startswith(
        f"Gus is fed once a day {first.link}. Revive him slowly [[{STARTER}]]. "
        f"He lives in a jar [[{STARTER}]]."  # no such heading: the note itself
    )
    assert done.removed_citations == []
    assert STARTER_FILE in {s.file for s in done.sources}


async def test_timeout_is_retried_then_answers(kind: Kind, agent_index: VaultIndex) -> None:
    script = [
        FakeTurn.hang(10),
        FakeTurn.tool_calls([("search_notes", {"query": "sourdough"})]),
        FakeTurn.text(CITED_ANSWER),
    ]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url, timeout_s=0.3)
        events = await ask(agent_index, model, "How often do I feed my starter?")
        await model.aclose()
    assert len(server.requests) == 3
    assert done_of(events).sources[0].file == STARTER_FILE


async def test_unreadable_tool_arguments_go_back_to_the_model(agent_index: VaultIndex) -> None:
    # Ollama can't carry unparseable arguments (its SDK rejects the line): mistral and openai.
    for kind in ("mistral", "openai"):
        script = [
            FakeTurn.tool_calls([("search_notes", '{"query": "starter", "limit": ')]),
            FakeTurn.tool_calls([("search_notes", {"query": "starter"})]),
            FakeTurn.text(CITED_ANSWER),
        ]
        async with fake_provider(kind, script) as (url, server):
            model = model_for(kind, url)
            events = await ask(agent_index, model, "How often do I feed my starter?")
            await model.aclose()
        failed, succeeded = of_type(events, ToolResultEvent)
        assert not failed.ok and "could not be read" in failed.summary
        assert succeeded.ok
        [error_message] = tool_messages(server.requests[1].body, kind)
        assert error_message["content"].startswith("Error: the arguments of search_notes")
        assert done_of(events).sources[0].file == STARTER_FILE


async def test_invalid_arguments_and_unknown_tools_are_errors_the_model_can_fix(
    kind: Kind, agent_index: VaultIndex
) -> None:
    script = [
        FakeTurn.tool_calls(
            [
                ("search_notes", {"limit": "lots"}),
                ("delete_note", {"path": STARTER}),
            ]
        ),
        FakeTurn.tool_calls([("search_notes", {"query": "starter", "limit": 3})]),
        FakeTurn.text(CITED_ANSWER),
    ]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "How often do I feed my starter?")
        await model.aclose()
    invalid, unknown, fixed = of_type(events, ToolResultEvent)
    assert not invalid.ok and "query: Field required" in invalid.summary
    assert "limit: Input should be a valid integer" in invalid.summary
    assert not unknown.ok and "there is no tool 'delete_note'" in unknown.summary
    assert fixed.ok
    contents = [m["content"] for m in tool_messages(server.requests[1].body, kind)]
    assert "Expected: " in contents[0] and '"query"' in contents[0]
    assert done_of(events).removed_citations == []


async def test_tool_call_written_as_json_content_is_run(
    kind: Kind, agent_index: VaultIndex
) -> None:
    as_text = '{"name": "search_notes", "arguments": {"query": "sourdough starter"}}'
    script = [FakeTurn.text(as_text), FakeTurn.text(CITED_ANSWER)]
    async with fake_provider(kind, script) as (url, _):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "How often do I feed my starter?")
        await model.aclose()
    [call] = of_type(events, ToolCallEvent)
    assert (call.name, call.arguments) == ("search_notes", {"query": "sourdough starter"})
    assert of_type(events, DeltaEvent)[0].turn == 2  # the JSON never streamed as answer text
    assert done_of(events).sources[0].file == STARTER_FILE


QUERY = {"query": "sourdough starter feeding"}
SMALL_MODEL_QUIRKS = {
    "arguments as a JSON string": FakeTurn.tool_calls([("search_notes", json.dumps(QUERY))]),
    "arguments encoded twice": FakeTurn.tool_calls(
        [("search_notes", json.dumps(json.dumps(QUERY)))]
    ),
    "wrong argument types": FakeTurn.tool_calls(
        [("search_notes", {**QUERY, "limit": "4", "folders": '["Recipes"]'})]
    ),
    "a loosely written tool name": FakeTurn.tool_calls([("functions.search_notes", QUERY)]),
    "a <tool_call> tag": FakeTurn.text(
        ["<tool_call>\n", json.dumps({"name": "search_notes", "arguments": QUERY}), "</tool_call>"]
    ),
    "a fenced block": FakeTurn.text(
        f"```json\n{json.dumps({'name': 'search_notes', 'arguments': QUERY})}\n```"
    ),
    "an LM Studio [TOOL_REQUEST]": FakeTurn.text(
        f"[TOOL_REQUEST]{json.dumps({'name': 'search_notes', 'arguments': QUERY})}"
        "[END_TOOL_REQUEST]"
    ),
    "a Python call": FakeTurn.text("[search_notes(query='sourdough starter feeding')]"),
    "thinking, then a tagged call": FakeTurn.text(
        [
            "<think>I should search the notes.</think>\n",
            f"<tool_call>{json.dumps({'name': 'search_notes', 'arguments': QUERY})}</tool_call>",
        ]
    ),
}


@pytest.mark.parametrize("quirk", list(SMALL_MODEL_QUIRKS))
async def test_small_model_quirks_keep_the_answer(
    kind: Kind, quirk: str, agent_index: VaultIndex
) -> None:
    script = [SMALL_MODEL_QUIRKS[quirk], FakeTurn.text(CITED_ANSWER)]
    async with fake_provider(kind, script) as (url, _):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "How often do I feed my starter?")
        await model.aclose()
    [result] = of_type(events, ToolResultEvent)
    assert result.ok, result.summary
    assert STARTER_FILE in {note.file for note in result.notes}
    assert not [d for d in of_type(events, DeltaEvent) if d.turn == 1]  # no call shown as text
    done = done_of(events)
    assert done.turns == 2 and done.removed_citations == []
    assert [s.file for s in done.sources] == [STARTER_FILE]


async def test_answer_not_in_the_vault_says_so_without_sources(
    kind: Kind, agent_index: VaultIndex
) -> None:
    script = [
        FakeTurn.tool_calls([("search_notes", {"query": "capital of Australia"})]),
        FakeTurn.text("Your notes don't say what the capital of Australia is."),
    ]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "What is the capital of Australia?")
        await model.aclose()
    done = done_of(events)
    assert done.answer == "Your notes don't say what the capital of Australia is."
    assert done.sources == [] and "Sources" not in done.answer
    system = server.requests[0].messages[0]
    assert system["role"] == "system" and "don't contain the answer" in system["content"]


async def test_empty_answer_is_asked_again_once(agent_index: VaultIndex) -> None:
    script = [
        FakeTurn.tool_calls([("search_notes", {"query": "starter"})]),
        FakeTurn.text(""),
        FakeTurn.text(CITED_ANSWER),
    ]
    async with fake_provider("mistral", script) as (url, server):
        model = model_for("mistral", url)
        events = await ask(agent_index, model, "How often do I feed my starter?")
        await model.aclose()
    assert server.requests[2].messages[-1]["content"] == EMPTY_ANSWER_NUDGE
    assert done_of(events).sources[0].file == STARTER_FILE


async def test_two_empty_answers_end_with_a_clear_message_and_the_notes_found(
    agent_index: VaultIndex,
) -> None:
    script = [
        FakeTurn.tool_calls([("get_note", {"path": STARTER})]),
        FakeTurn.text(""),
        FakeTurn.text("  "),
    ]
    async with fake_provider("ollama", script) as (url, _):
        model = model_for("ollama", url)
        events = await ask(agent_index, model, "How often do I feed my starter?")
        await model.aclose()
    done = done_of(events)
    assert done.answer.startswith("The model returned an empty answer.")
    assert f"[[{STARTER}]]" in done.answer and done.sources[0].file == STARTER_FILE


async def test_model_error_becomes_an_error_event(kind: Kind, agent_index: VaultIndex) -> None:
    async with fake_provider(kind, [FakeTurn.error(401)]) as (url, _):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "Anything?")
        await model.aclose()
    assert names(events) == ["status", "error"]
    error = events[-1]
    assert isinstance(error, ErrorEvent)
    assert error.code == "model_error" and "401" in error.message


async def test_get_note_refuses_paths_outside_the_vault(
    kind: Kind, agent_index: VaultIndex
) -> None:
    escapes = ["../canary.md", "../canary", "/etc/passwd", "[[../../canary]]", "Daily/../../canary"]
    script = [
        FakeTurn.tool_calls([("get_note", {"path": path}) for path in escapes]),
        FakeTurn.tool_calls([("note_links", {"path": "../canary"})]),
        FakeTurn.text("I can't read that file."),
    ]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url)
        events = await ask(agent_index, model, "Read ../canary.md")
        await model.aclose()
    results = of_type(events, ToolResultEvent)
    assert len(results) == len(escapes) + 1
    assert not any(r.ok for r in results)
    assert all("outside the vault" in r.summary for r in results)
    for request in server.requests:
        assert CANARY not in str(request.body)
    assert done_of(events).sources == []


async def test_active_note_unsaved_content_wins_and_is_citable(
    kind: Kind, agent_index: VaultIndex
) -> None:
    unsaved = "# Sourdough Starter\n\nGus now lives in a 1 litre jar (unsaved edit)."
    request = AgentRequest(
        question="Where does Gus live?",
        active_note={"path": STARTER_FILE, "content": unsaved},
        neighbourhood=[{"path": "Recipes/Country Loaf.md", "relation": "backlink", "depth": 1}],
    )
    script = [
        FakeTurn.tool_calls([("get_note", {"path": STARTER})]),
        FakeTurn.text("In a 1 litre jar [[Sourdough Starter]], used by [[Country Loaf]]."),
    ]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url)
        events = await ask(agent_index, model, request)
        await model.aclose()
    first_turn = server.requests[0].messages[-1]["content"]
    assert "1 litre jar (unsaved edit)" in first_turn and "750 ml" not in first_turn
    assert "Recipes/Country Loaf" in first_turn  # the neighbour's text went in as context
    [note_result] = tool_messages(server.requests[1].body, kind)
    assert "1 litre jar (unsaved edit)" in note_result["content"]
    done = done_of(events)
    assert done.removed_citations == []
    assert [s.file for s in done.sources] == [STARTER_FILE, "Recipes/Country Loaf.md"]


class ClosingSpy:
    """Wraps a model; records whether the loop closed the stream it was reading."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.name, self.model, self.supports_tools = inner.name, inner.model, True
        self.started = asyncio.Event()
        self.closed = False

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AsyncIterator[ChatEvent]:
        return self._stream(messages, tools)

    async def _stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AsyncIterator[ChatEvent]:
        self.started.set()
        try:
            async for event in self.inner.stream(messages, tools):
                yield event
        finally:
            self.closed = True

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_cancelling_the_consumer_stops_the_model_call(agent_index: VaultIndex) -> None:
    async with fake_provider("openai", [FakeTurn.hang(30)]) as (url, _):
        spy = ClosingSpy(model_for("openai", url, timeout_s=30))
        run = run_agent(
            AgentRequest(question="Anything?"),
            spy,
            context_for(agent_index),
            settings_for(agent_index),
        )

        async def consume() -> None:
            async for _ in run:
                pass

        task = asyncio.create_task(consume())
        await asyncio.wait_for(spy.started.wait(), 5)
        await asyncio.sleep(0.05)  # let the request reach the fake server
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 2)  # the hang would last 30 s
        assert spy.closed
        await spy.aclose()


async def test_closing_the_event_stream_early_closes_the_model_stream(
    agent_index: VaultIndex,
) -> None:
    async with fake_provider("mistral", [FakeTurn.text("one two three four five")]) as (url, _):
        spy = ClosingSpy(model_for("mistral", url))
        run = run_agent(
            AgentRequest(question="Anything?"),
            spy,
            context_for(agent_index),
            settings_for(agent_index),
        )
        async for event in run:
            if isinstance(event, DeltaEvent):
                break  # a client that stops reading mid-answer
        await run.aclose()
        assert spy.closed
        await spy.aclose()


def test_search_arguments_accept_what_small_models_send() -> None:
    args = SearchNotesArgs.model_validate({"query": "x", "tag": "recipe", "folder": "Recipes"})
    assert args.tags == ["recipe"] and args.folders == ["Recipes"]
    assert tools_module.tool_specs()[0].parameters["required"] == ["query"]
