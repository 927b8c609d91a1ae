"""The three chat providers, driven through their real clients against fake local servers.

Behaviour every provider must share is parametrised over ``mistral``, ``ollama`` and
``openai``; wire-format details (how tool results go back) are asserted per provider on the
requests the fake recorded.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import AsyncIterator, Sequence

import pytest

from fake_llm import KINDS, FakeCall, FakeTurn, Kind, fake_provider, model_for
from vault_agent.config import LlmSettings
from vault_agent.http_errors import parse_retry_after
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
)
from vault_agent.llm.mistral import MistralModel
from vault_agent.llm.model import (
    ChatEvent,
    ChatModel,
    Finished,
    TextDelta,
    ToolCallsReady,
)
from vault_agent.llm.ollama import OllamaModel, ollama_parameters
from vault_agent.llm.openai_compat import OpenAICompatModel, normalise_base_url
from vault_agent.llm.registry import select_model
from vault_agent.llm.tool_text import (
    extract_embedded_tool_calls,
    extract_tool_calls_from_content,
    may_be_tool_call,
)

SEARCH = ToolSpec(
    name="search_notes",
    description="Hybrid search over the vault.",
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for."},
            "tags": {
                "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
                "default": None,
                "description": "Only notes with one of these tags.",
            },
            "date_from": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
            "limit": {"type": "integer", "default": 8},
        },
        "required": ["query"],
    },
)
GET_NOTE = ToolSpec(
    name="get_note",
    description="One note in full.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)
TOOLS = [SEARCH, GET_NOTE]
QUESTION = [Message.system("Answer from the notes."), Message.user("What tea do I like?")]


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> Kind:
    kind: Kind = request.param
    return kind


async def collect(
    model: ChatModel, messages: Sequence[Message] = QUESTION, tools: Sequence[ToolSpec] = TOOLS
) -> list[ChatEvent]:
    return [event async for event in model.stream(messages, tools)]


def text_of(events: Sequence[ChatEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def calls_of(events: Sequence[ChatEvent]) -> list[ToolCall]:
    ready = [e for e in events if isinstance(e, ToolCallsReady)]
    assert len(ready) <= 1
    return ready[0].calls if ready else []


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# --- shared behaviour ----------------------------------------------------------------------


async def test_text_deltas_arrive_in_order_with_usage(kind: Kind) -> None:
    async with fake_provider(kind, [FakeTurn.text("Green tea, per [[Tea]].", usage=(30, 9))]) as (
        url,
        server,
    ):
        model = model_for(kind, url)
        events = await collect(model)
        await model.aclose()
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert deltas == ["Green ", "tea, ", "per ", "[[Tea]]."]
    assert events[-1] == Finished(Usage(prompt_tokens=30, completion_tokens=9), "stop")
    assert len(server.requests) == 1


async def test_first_request_carries_messages_and_tools(kind: Kind) -> None:
    async with fake_provider(kind, [FakeTurn.text("ok")]) as (url, server):
        model = model_for(kind, url)
        await collect(model)
        await model.aclose()
    sent = server.requests[0]
    assert [m["role"] for m in sent.messages] == ["system", "user"]
    assert sent.messages[1]["content"] == "What tea do I like?"
    assert sent.body["model"] == model.model
    assert sent.body["stream"] is True
    assert [t["function"]["name"] for t in sent.tools] == ["search_notes", "get_note"]
    if kind != "ollama":  # Ollama has no auth
        assert sent.headers["Authorization"] == "Bearer test-key"


async def test_no_tools_means_no_tool_fields(kind: Kind) -> None:
    async with fake_provider(kind, [FakeTurn.text("ok")]) as (url, server):
        model = model_for(kind, url)
        await collect(model, tools=[])
        await model.aclose()
    assert not server.requests[0].body.get("tools")  # the ollama SDK always sends "tools": []
    assert "tool_choice" not in server.requests[0].body


async def test_tool_call_round_trips_and_result_goes_back_in_provider_format(kind: Kind) -> None:
    script = [
        FakeTurn.tool_calls([FakeCall("search_notes", {"query": "tea", "limit": 3}, "abcDEF123")]),
        FakeTurn.text("You like green tea [[Tea]]."),
    ]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url)
        first = await collect(model)
        [call] = calls_of(first)
        assert call.name == "search_notes"
        assert call.arguments == {"query": "tea", "limit": 3}
        assert call.arguments_error is None
        assert first[-1] == Finished(Usage(prompt_tokens=12, completion_tokens=7), "tool_calls")
        assert call.id == "abcDEF123"  # recent Ollama sends ids too
        history = [
            *QUESTION,
            Message.assistant(tool_calls=[call]),
            Message.tool(call, "Tea.md: green tea, no sugar"),
        ]
        second = await collect(model, history)
        await model.aclose()
    assert text_of(second) == "You like green tea [[Tea]]."
    assistant, tool = server.requests[1].messages[-2:]
    assert assistant["role"] == "assistant"
    assert tool["role"] == "tool"
    assert tool["content"] == "Tea.md: green tea, no sugar"
    [sent_call] = assistant["tool_calls"]
    assert sent_call["function"]["name"] == "search_notes"
    if kind == "ollama":
        assert sent_call["function"]["arguments"] == {"query": "tea", "limit": 3}
        assert tool["tool_name"] == "search_notes"
        assert sent_call["id"] == tool["tool_call_id"] == "abcDEF123"
    else:
        assert json.loads(sent_call["function"]["arguments"]) == {"query": "tea", "limit": 3}
        assert sent_call["id"] == tool["tool_call_id"] == "abcDEF123"
        if kind == "mistral":
            assert tool["name"] == "search_notes"


async def test_parallel_tool_calls_arrive_together(kind: Kind) -> None:
    turn = FakeTurn.tool_calls(
        [("search_notes", {"query": "tea"}), ("get_note", {"path": "Tea.md"})],
        text="Let me look.",
    )
    async with fake_provider(kind, [turn]) as (url, _):
        model = model_for(kind, url)
        events = await collect(model)
        await model.aclose()
    calls = calls_of(events)
    assert [(c.name, c.arguments) for c in calls] == [
        ("search_notes", {"query": "tea"}),
        ("get_note", {"path": "Tea.md"}),
    ]
    assert len({c.id for c in calls}) == 2
    assert text_of(events) == "Let me look."
    assert isinstance(events[-2], ToolCallsReady)
    assert isinstance(events[-1], Finished)


async def test_rate_limit_is_retried_after_retry_after(kind: Kind) -> None:
    script = [FakeTurn.error(429, retry_after=0.2), FakeTurn.text("ok")]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url, max_retries=2)
        started = time.monotonic()
        events = await collect(model)
        elapsed = time.monotonic() - started
        await model.aclose()
    assert text_of(events) == "ok"
    assert len(server.requests) == 2
    assert elapsed >= 0.2  # Retry-After honoured, not the 10 ms test backoff


async def test_long_retry_after_goes_straight_to_the_user(kind: Kind) -> None:
    async with fake_provider(kind, [FakeTurn.error(429, retry_after=120)]) as (url, server):
        model = model_for(kind, url, max_retries=3, max_retry_after_s=5)
        with pytest.raises(ModelRateLimitedError, match="retry in 120 s") as info:
            await collect(model)
        await model.aclose()
    assert info.value.retry_after == 120
    assert len(server.requests) == 1


async def test_server_errors_exhaust_retries_then_raise_unavailable(kind: Kind) -> None:
    script = [FakeTurn.error(500)] * 3
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url, max_retries=2)
        with pytest.raises(ModelUnavailableError, match="HTTP 500") as info:
            await collect(model)
        await model.aclose()
    assert len(server.requests) == 3
    assert "internal server error" in str(info.value)


async def test_server_error_then_success_recovers(kind: Kind) -> None:
    script = [FakeTurn.error(503), FakeTurn.error(502), FakeTurn.text("ok")]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url, max_retries=2)
        assert text_of(await collect(model)) == "ok"
        await model.aclose()
    assert len(server.requests) == 3


async def test_auth_failure_is_not_retried_and_says_what_to_do(kind: Kind) -> None:
    async with fake_provider(kind, [FakeTurn.error(401)]) as (url, server):
        model = model_for(kind, url, max_retries=3)
        with pytest.raises(ModelError, match="401") as info:
            await collect(model)
        await model.aclose()
    assert not isinstance(info.value, ModelUnavailableError)
    assert "key" in str(info.value)
    assert len(server.requests) == 1


async def test_hang_times_out(kind: Kind) -> None:
    async with fake_provider(kind, [FakeTurn.hang()]) as (url, _):
        model = model_for(kind, url, timeout_s=0.3, max_retries=0)
        started = time.monotonic()
        with pytest.raises(ModelTimeoutError, match=r"0\.3 s"):
            await collect(model)
        assert time.monotonic() - started < 2.0
        await model.aclose()


async def test_hang_mid_answer_times_out_without_repeating_text(kind: Kind) -> None:
    turn = FakeTurn.hang(after_chunks=2, text="one two three")
    async with fake_provider(kind, [turn, FakeTurn.text("never")]) as (url, server):
        model = model_for(kind, url, timeout_s=0.3, max_retries=2)
        seen: list[ChatEvent] = []
        with pytest.raises(ModelTimeoutError):
            async for event in model.stream(QUESTION, TOOLS):
                seen.append(event)
        await model.aclose()
    assert text_of(seen) == "one two "
    assert len(server.requests) == 1  # text reached the caller: no retry


async def test_connection_refused_is_unavailable_with_a_helpful_message(kind: Kind) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}" + ("/v1" if kind == "openai" else "")
    model = model_for(kind, url, max_retries=3)
    started = time.monotonic()
    with pytest.raises(ModelUnavailableError, match="not reachable") as info:
        await collect(model)
    await model.aclose()
    assert str(port) in str(info.value)
    assert time.monotonic() - started < 1.0  # not retried: a refused port rarely heals
    if kind == "ollama":
        assert "is `ollama serve` running?" in str(info.value)


async def test_drop_before_any_text_is_retried(kind: Kind) -> None:
    script = [FakeTurn.drop_after(0), FakeTurn.text("ok")]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url, max_retries=1)
        assert text_of(await collect(model)) == "ok"
        await model.aclose()
    assert len(server.requests) == 2


async def test_drop_after_text_raises_and_is_not_retried(kind: Kind) -> None:
    script = [FakeTurn.drop_after(2, text="one two three"), FakeTurn.text("never")]
    async with fake_provider(kind, script) as (url, server):
        model = model_for(kind, url, max_retries=2)
        seen: list[ChatEvent] = []
        with pytest.raises(ModelUnavailableError, match="closed the stream"):
            async for event in model.stream(QUESTION, TOOLS):
                seen.append(event)
        await model.aclose()
    assert text_of(seen) == "one two "
    assert len(server.requests) == 1


async def test_malformed_arguments_become_arguments_error(kind: Kind) -> None:
    # Ollama's API documents arguments as an object; a string there (malformed or not) must
    # not cost the answer: it is read like the other providers' JSON strings.
    turn = FakeTurn.tool_calls(
        [("search_notes", '{"query": "tea", "limit": '), ("get_note", '["Tea.md"]')]
    )
    async with fake_provider(kind, [turn]) as (url, _):
        model = model_for(kind, url)
        broken, not_object = calls_of(await collect(model))
        await model.aclose()
    assert broken.name == "search_notes"
    assert broken.arguments == {}
    assert broken.arguments_error is not None
    assert "not valid JSON" in broken.arguments_error
    assert '{"query": "tea", "limit": ' in broken.arguments_error
    assert not_object.arguments_error is not None
    assert "JSON object" in not_object.arguments_error


async def test_arguments_as_a_json_string_are_read(kind: Kind) -> None:
    once = json.dumps({"query": "tea", "limit": 3})
    twice = json.dumps(once)  # small models encode the object twice
    turn = FakeTurn.tool_calls([("search_notes", once), ("search_notes", twice)])
    async with fake_provider(kind, [turn]) as (url, _):
        model = model_for(kind, url)
        calls = calls_of(await collect(model))
        await model.aclose()
    assert [(c.arguments, c.arguments_error) for c in calls] == [
        ({"query": "tea", "limit": 3}, None)
    ] * 2


async def test_json_in_content_is_recovered_as_tool_calls(kind: Kind) -> None:
    content = '```json\n{"name": "search_notes", "arguments": {"query": "tea"}}\n```'
    async with fake_provider(kind, [FakeTurn.text(content)]) as (url, _):
        model = model_for(kind, url)
        events = await collect(model)
        await model.aclose()
    assert text_of(events) == ""
    [call] = calls_of(events)
    assert (call.name, call.arguments) == ("search_notes", {"query": "tea"})
    assert events[-1] == Finished(Usage(prompt_tokens=12, completion_tokens=7), "tool_calls")


async def test_json_in_content_naming_no_known_tool_stays_text(kind: Kind) -> None:
    content = '{"name": "Ada", "age": 36}'
    async with fake_provider(kind, [FakeTurn.text(content)]) as (url, _):
        model = model_for(kind, url)
        events = await collect(model)
        await model.aclose()
    assert text_of(events) == content
    assert calls_of(events) == []
    assert events[-1] == Finished(Usage(prompt_tokens=12, completion_tokens=7), "stop")


async def test_malformed_stream_chunk_is_a_response_error(kind: Kind) -> None:
    line = "{not json" if kind == "ollama" else "data: {not json"
    async with fake_provider(kind, [FakeTurn.raw([line, ""])]) as (url, server):
        model = model_for(kind, url, max_retries=2)
        with pytest.raises(ModelResponseError):
            await collect(model)
        await model.aclose()
    assert len(server.requests) == 1


async def test_closing_the_stream_early_is_clean(kind: Kind) -> None:
    async with fake_provider(kind, [FakeTurn.text("a b c d e f"), FakeTurn.text("again")]) as (
        url,
        _,
    ):
        model = model_for(kind, url)
        stream = model.stream(QUESTION, TOOLS)
        first = await anext(stream)
        assert first == TextDelta("a ")
        await stream.aclose()  # type: ignore[attr-defined]
        assert text_of(await collect(model)) == "again"  # the client is still usable
        await model.aclose()


# --- provider specifics --------------------------------------------------------------------


async def test_ollama_receives_flattened_tool_schemas() -> None:
    async with fake_provider("ollama", [FakeTurn.text("ok")]) as (url, server):
        model = model_for("ollama", url)
        await collect(model)
        await model.aclose()
    properties = server.requests[0].tools[0]["function"]["parameters"]["properties"]
    assert properties["tags"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": "Only notes with one of these tags.",
    }
    assert properties["date_from"] == {"type": "string", "description": "(format: date)"}
    assert properties["limit"] == {"type": "integer", "description": "(default: 8)"}


def test_ollama_parameters_keep_required_and_plain_properties() -> None:
    flat = ollama_parameters(SEARCH.parameters)
    assert flat["required"] == ["query"]
    assert flat["properties"]["query"] == {"type": "string", "description": "What to look for."}


async def test_ollama_error_line_mid_stream_is_unavailable() -> None:
    lines = [json.dumps({"error": "model runner has unexpectedly stopped"})]
    async with fake_provider("ollama", [FakeTurn.raw(lines)]) as (url, _):
        model = model_for("ollama", url, max_retries=0)
        with pytest.raises(ModelUnavailableError, match="unexpectedly stopped"):
            await collect(model)
        await model.aclose()


async def test_ollama_missing_model_says_pull_it() -> None:
    body = json.dumps({"error": "model 'qwen2.5:3b' not found"})
    async with fake_provider("ollama", [FakeTurn.error(404, body=body)]) as (url, _):
        model = model_for("ollama", url)
        with pytest.raises(ModelError, match=r"ollama pull qwen2\.5:3b"):
            await collect(model)
        await model.aclose()


async def test_openai_server_that_ignores_stream_still_works() -> None:
    completion = {
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_note", "arguments": '{"path": "Tea.md"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2},
    }
    turn = FakeTurn.raw([json.dumps(completion)], content_type="application/json")
    async with fake_provider("openai", [turn]) as (url, _):
        model = model_for("openai", url)
        events = await collect(model)
        await model.aclose()
    [call] = calls_of(events)
    assert (call.id, call.name, call.arguments) == ("call_1", "get_note", {"path": "Tea.md"})
    assert events[-1] == Finished(Usage(prompt_tokens=5, completion_tokens=2), "tool_calls")


def test_openai_base_url_gets_v1_only_when_it_has_no_path() -> None:
    assert normalise_base_url("http://localhost:1234") == "http://localhost:1234/v1"
    assert normalise_base_url("localhost:8080/") == "http://localhost:8080/v1"
    assert normalise_base_url("https://api.example.com/openai/v1/") == (
        "https://api.example.com/openai/v1"
    )


# --- recovering tool calls from content ----------------------------------------------------

NAMES = {"search_notes", "get_note"}


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "search_notes", "arguments": {"query": "tea"}}',
        '  [{"name": "search_notes", "arguments": {"query": "tea"}}]\n',
        '```json\n{"name": "search_notes", "arguments": {"query": "tea"}}\n```',
        '<tool_call>\n{"name": "search_notes", "arguments": {"query": "tea"}}\n</tool_call>',
        '<tool_call>{"name": "search_notes", "arguments": {"query": "tea"}}',
        '[TOOL_CALLS][{"name": "search_notes", "arguments": {"query": "tea"}}]',
        '{"name": "search_notes", "parameters": {"query": "tea"}}',
        '{"type": "function", "function": {"name": "search_notes",'
        ' "arguments": "{\\"query\\": \\"tea\\"}"}}',
        '[TOOL_REQUEST]{"name": "search_notes", "arguments": {"query": "tea"}}[END_TOOL_REQUEST]',
        '[TOOL_REQUEST]\n{"name": "search_notes", "arguments": {"query": "tea"}}',
        "[search_notes(query='tea')]",
        'search_notes(query="tea")',
        "```python\nsearch_notes(query='tea')\n```",
    ],
)
def test_extract_tool_calls_forms(text: str) -> None:
    calls = extract_tool_calls_from_content(text, NAMES)
    assert calls is not None
    assert [(c.name, c.arguments, c.arguments_error) for c in calls] == [
        ("search_notes", {"query": "tea"}, None)
    ]
    assert len(calls[0].id) == 9 and calls[0].id.isalnum()


def test_extract_several_calls_one_per_line_and_tagged() -> None:
    lines = (
        '{"name": "search_notes", "arguments": {"query": "a"}}\n'
        '{"name": "get_note", "arguments": {"path": "b.md"}}'
    )
    tagged = (
        '<tool_call>{"name": "search_notes", "arguments": {"query": "a"}}</tool_call>\n'
        '<tool_call>{"name": "get_note", "arguments": {"path": "b.md"}}</tool_call>'
    )
    for text in (lines, tagged):
        calls = extract_tool_calls_from_content(text, NAMES)
        assert calls is not None
        assert [c.name for c in calls] == ["search_notes", "get_note"]


@pytest.mark.parametrize(
    "text",
    [
        "Green tea, per [[Tea]].",
        '{"name": "delete_everything", "arguments": {}}',
        '[{"name": "search_notes", "arguments": {}}, {"name": "nope"}]',
        'I will search: {"name": "search_notes", "arguments": {"query": "tea"}}',
        '```python\n{"name": "search_notes", "arguments": {}}\n```',
        '{"name": "search_notes", "arguments": {"query": "tea"}} and then some',
        "[[Tea]] is the note.",
        "",
        "[1] Green tea, per the notes.",
        "search_notes(query=open('/etc/passwd').read())",
        "[search_notes('tea')]",
        "delete_everything(now=True)",
        "search_notes is the tool I would use (query: tea).",
    ],
)
def test_extract_leaves_answers_alone(text: str) -> None:
    assert extract_tool_calls_from_content(text, NAMES) is None


def test_python_calls_take_literals_only_and_json_spellings() -> None:
    calls = extract_tool_calls_from_content(
        "[search_notes(query='tea', tags=['drink', 'green'], limit=3, exact=true),"
        ' get_note(path="Tea.md")]',
        NAMES,
    )
    assert calls is not None
    assert [(c.name, c.arguments) for c in calls] == [
        ("search_notes", {"query": "tea", "tags": ["drink", "green"], "limit": 3, "exact": True}),
        ("get_note", {"path": "Tea.md"}),
    ]


def test_tagged_calls_after_prose_are_found_and_the_prose_kept() -> None:
    text = (
        'Let me look that up.\n<tool_call>{"name": "search_notes", "arguments": {"query": "tea"}}'
    )
    found = extract_embedded_tool_calls(text, NAMES)
    assert found is not None
    rest, [call] = found
    assert rest == "Let me look that up."
    assert (call.name, call.arguments) == ("search_notes", {"query": "tea"})
    fenced = 'Searching:\n```json\n{"name": "get_note", "arguments": {"path": "Tea"}}\n```'
    assert extract_embedded_tool_calls(fenced, NAMES) is not None
    # A bare object in prose, or a tag naming no tool, is no call.
    assert extract_embedded_tool_calls('See {"name": "search_notes"} here', NAMES) is None
    assert (
        extract_embedded_tool_calls('x <tool_call>{"name": "rm", "arguments": {}}', NAMES) is None
    )


@pytest.mark.parametrize(
    ("prefix", "holds"),
    [
        ("sea", None),
        ("search_notes(", True),
        ("search results show", False),
        ("[search_n", None),
        ("[search_notes(query=", True),
        ("Green", False),
        ("[[Tea]]", False),
        ("[TOOL_REQ", None),
        ("[1] tea", False),
    ],
)
def test_when_text_is_held_back(prefix: str, holds: bool | None) -> None:
    assert may_be_tool_call(prefix, NAMES) is holds


@pytest.mark.parametrize(
    "chunks",
    [
        ["<think>The user wants tea.", "</think>\n\n", "Green tea [[Tea]]."],
        ["<thi", "nk>\nhmm\n</think>Green tea [[Tea]]."],
    ],
)
async def test_a_leading_think_block_is_not_the_answer(chunks: list[str]) -> None:
    async with fake_provider("openai", [FakeTurn.text(chunks)]) as (url, _):
        model = model_for("openai", url)
        events = await collect(model)
        await model.aclose()
    assert text_of(events) == "Green tea [[Tea]]."
    assert calls_of(events) == []


async def test_a_call_written_after_streamed_prose_is_still_run() -> None:
    chunks = [
        "I will search ",
        "now.\n",
        '<tool_call>{"name": "search_notes", ',
        '"arguments": {"query": "tea"}}</tool_call>',
    ]
    async with fake_provider("ollama", [FakeTurn.text(chunks)]) as (url, _):
        model = model_for("ollama", url)
        events = await collect(model)
        await model.aclose()
    [call] = calls_of(events)
    assert (call.name, call.arguments) == ("search_notes", {"query": "tea"})
    assert events[-1] == Finished(Usage(prompt_tokens=12, completion_tokens=7), "tool_calls")


def test_extract_needs_tools() -> None:
    assert extract_tool_calls_from_content('{"name": "search_notes"}', ()) is None


def test_extract_reports_bad_arguments_instead_of_failing() -> None:
    calls = extract_tool_calls_from_content(
        '{"name": "search_notes", "arguments": "{\\"query\\": "}', NAMES
    )
    assert calls is not None
    assert calls[0].arguments_error is not None


async def test_wikilink_answers_stream_without_being_held() -> None:
    async with fake_provider("openai", [FakeTurn.text("[[Tea]] says green tea.")]) as (url, _):
        model = model_for("openai", url)
        events = await collect(model)
        await model.aclose()
    assert [e.text for e in events if isinstance(e, TextDelta)] == [
        "[[Tea]] ",
        "says ",
        "green ",
        "tea.",
    ]


# --- messages, errors ----------------------------------------------------------------------


def test_tool_messages_need_an_id_and_a_name() -> None:
    with pytest.raises(ValueError, match="tool_call_id and name"):
        Message(role="tool", content="x")
    with pytest.raises(ValueError, match="only assistant"):
        Message(role="user", content="x", tool_calls=[ToolCall(id="a", name="b")])
    call = ToolCall(id="abc", name="get_note", arguments={"path": "a.md"})
    assert Message.tool(call, "body").model_dump(exclude_defaults=True) == {
        "role": "tool",
        "content": "body",
        "tool_call_id": "abc",
        "name": "get_note",
    }


def test_usage_adds_up() -> None:
    total = Usage(prompt_tokens=3, completion_tokens=1) + Usage(
        prompt_tokens=2, completion_tokens=4
    )
    assert (total.prompt_tokens, total.completion_tokens, total.total_tokens) == (5, 5, 10)


def test_retry_after_as_seconds_or_http_date() -> None:
    assert parse_retry_after("2.5") == 2.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    later = parse_retry_after(
        time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 60))
    )
    assert later is not None and 55 < later <= 60


# --- select_model --------------------------------------------------------------------------


class StubExtractive:
    """Stands in for the extractive model (built elsewhere; it needs the index)."""

    name = "extractive"
    model = "extractive"
    supports_tools = False

    async def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AsyncIterator[ChatEvent]:
        yield Finished(Usage(), "stop")

    async def aclose(self) -> None:
        return None


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("MISTRAL_API_KEY", "OLLAMA_HOST", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


async def test_auto_picks_mistral_when_a_key_is_set(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("MISTRAL_API_KEY", "sk-test")
    model, why = await select_model(LlmSettings(), StubExtractive)
    assert isinstance(model, MistralModel)
    assert model.model == "mistral-medium-latest"
    assert "MISTRAL_API_KEY is set" in why
    await model.aclose()


async def test_auto_picks_ollama_when_it_answers(clean_env: pytest.MonkeyPatch) -> None:
    async with fake_provider("ollama", models=["qwen2.5:3b", "llama3.2:latest"]) as (url, server):
        clean_env.setenv("OLLAMA_HOST", url)
        model, why = await select_model(LlmSettings(), StubExtractive)
        assert isinstance(model, OllamaModel)
        assert model.host == url
        assert f"Ollama (qwen2.5:3b) at {url}" in why
        await model.aclose()
        model, _ = await select_model(LlmSettings(model="llama3.2"), StubExtractive)
        assert isinstance(model, OllamaModel)  # untagged name = ":latest"
        await model.aclose()
        assert server.probes == 2


async def test_auto_falls_back_when_ollama_lacks_the_model(clean_env: pytest.MonkeyPatch) -> None:
    async with fake_provider("ollama", models=["llama3.2:latest"]) as (url, _):
        clean_env.setenv("OLLAMA_HOST", url)
        model, why = await select_model(LlmSettings(), StubExtractive)
    assert isinstance(model, StubExtractive)
    assert "run `ollama pull qwen2.5:3b`" in why


async def test_auto_falls_back_to_extractive_when_nothing_answers(
    clean_env: pytest.MonkeyPatch,
) -> None:
    host = f"http://127.0.0.1:{free_port()}"
    clean_env.setenv("OLLAMA_HOST", host)
    started = time.monotonic()
    model, why = await select_model(LlmSettings(), StubExtractive)
    assert time.monotonic() - started < 1.5
    assert isinstance(model, StubExtractive)
    assert why == (
        "Using extractive answers (no language model): no MISTRAL_API_KEY is set and "
        f"Ollama at {host} is not reachable."
    )


async def test_explicit_profiles_are_taken_as_asked(clean_env: pytest.MonkeyPatch) -> None:
    settings = LlmSettings(profile="openai", base_url="http://127.0.0.1:8080", model="qwen")
    model, why = await select_model(settings, StubExtractive)
    assert isinstance(model, OpenAICompatModel)
    assert model.base_url == "http://127.0.0.1:8080/v1"
    assert "llm.profile is openai" in why
    await model.aclose()
    model, why = await select_model(LlmSettings(profile="ollama"), StubExtractive)
    assert isinstance(model, OllamaModel)
    assert model.host == "http://127.0.0.1:11434"
    await model.aclose()
    model, why = await select_model(LlmSettings(profile="extractive"), StubExtractive)
    assert isinstance(model, StubExtractive)
    model, why = await select_model(
        LlmSettings(profile="mistral", api_key="sk-settings"), StubExtractive
    )
    assert isinstance(model, MistralModel)
    await model.aclose()


async def test_mistral_profile_without_key_says_how_to_set_one(
    clean_env: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ModelError, match="MISTRAL_API_KEY"):
        await select_model(LlmSettings(profile="mistral"), StubExtractive)
