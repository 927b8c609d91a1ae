"""Each provider against its API's own documented examples (tests/data/providers/, README there).

A fixture holds a documented response (an SSE transcript, NDJSON lines or one JSON body) that
the fake server replays to the real provider class, and what the provider must make of it:
the answer's text, its tool calls, the finish reason and token counts, or the error. When the
fixture also holds the documented request, the provider is given the same conversation and
tools, and what it sends must carry every documented field with the documented value.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from fake_llm import FakeTurn, Kind, fake_provider, model_for
from vault_agent.llm import errors
from vault_agent.llm.messages import Message, ToolCall, ToolSpec
from vault_agent.llm.model import ChatEvent, ChatModel, Finished, TextDelta, ToolCallsReady
from vault_agent.llm.tool_text import parse_tool_arguments

FIXTURES = Path(__file__).parent / "data" / "providers"
MESSAGE_KEYS = ("role", "content", "tool_call_id", "name", "tool_name")


def fixtures(*, with_request: bool = False) -> list[Any]:
    """Every fixture file as a pytest param named by its path."""
    found = []
    for path in sorted(FIXTURES.glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if with_request and "request" not in data:
            continue
        found.append(pytest.param(data, id=f"{path.parent.name}/{path.stem}"))
    return found


def test_every_profile_has_fixtures_and_every_fixture_says_where_it_is_documented() -> None:
    files = sorted(FIXTURES.glob("*/*.json"))
    assert {path.parent.name for path in files} == {"mistral", "ollama", "openai"}
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["profile"] == path.parent.name
        assert data["title"] and data["documented_at"]
        assert f"{path.parent.name}/{path.name}" in readme, f"{path.name} is not in the README"


@pytest.mark.parametrize("fixture", fixtures())
async def test_documented_response_is_read(fixture: dict[str, Any]) -> None:
    kind: Kind = fixture["profile"]
    tools = [ToolSpec.model_validate(tool) for tool in fixture.get("tools", [])]
    expect = fixture["expect"]
    async with fake_provider(kind, [FakeTurn.replay(fixture["response"])]) as (url, server):
        model = model_for(kind, url, max_retries=0)
        try:
            if "error" in expect:
                with pytest.raises(getattr(errors, expect["error"])):
                    await collect(model, tools)
                return
            events = await collect(model, tools)
        finally:
            await model.aclose()
    assert len(server.requests) == 1
    assert_stream_shape(events)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == expect["text"]
    calls = [call for e in events if isinstance(e, ToolCallsReady) for call in e.calls]
    assert [(c.name, c.arguments, c.arguments_error) for c in calls] == [
        (want["name"], want["arguments"], None) for want in expect["calls"]
    ]
    for call, want in zip(calls, expect["calls"], strict=True):
        assert call.id == want.get("id", call.id) and call.id
    finished = events[-1]
    assert isinstance(finished, Finished)
    assert finished.finish_reason == expect["finish_reason"]
    assert [finished.usage.prompt_tokens, finished.usage.completion_tokens] == expect["usage"]


@pytest.mark.parametrize("fixture", fixtures(with_request=True))
async def test_documented_request_is_what_we_send(fixture: dict[str, Any]) -> None:
    kind: Kind = fixture["profile"]
    documented = fixture["request"]
    messages = neutral_messages(documented["messages"])
    tools = [ToolSpec.model_validate(tool["function"]) for tool in documented.get("tools", [])]
    async with fake_provider(kind, [FakeTurn.replay(fixture["response"])]) as (url, server):
        model = model_for(kind, url, max_retries=0)
        await collect(model, tools, messages)
        await model.aclose()
    [sent] = server.requests
    assert len(sent.messages) == len(documented["messages"])
    for ours, doc in zip(sent.messages, documented["messages"], strict=True):
        assert_message_as_documented(ours, doc)
    assert len(sent.tools) == len(documented.get("tools", []))
    for ours, doc in zip(sent.tools, documented.get("tools", []), strict=True):
        assert ours["type"] == doc["type"] == "function"
        for key in ("name", "description", "parameters"):
            assert ours["function"][key] == doc["function"][key], key


# --- helpers -------------------------------------------------------------------------------


async def collect(
    model: ChatModel, tools: Sequence[ToolSpec], messages: Sequence[Message] | None = None
) -> list[ChatEvent]:
    conversation = messages or [Message.user("What does the documentation say?")]
    return [event async for event in model.stream(conversation, tools)]


def assert_stream_shape(events: Sequence[ChatEvent]) -> None:
    """TextDelta*, then at most one ToolCallsReady, then exactly one Finished."""
    kinds = [type(e).__name__ for e in events]
    text = kinds.count("TextDelta")
    assert kinds[:text] == ["TextDelta"] * text, kinds
    assert kinds[text:] in (["Finished"], ["ToolCallsReady", "Finished"]), kinds


def neutral_messages(wire: Sequence[dict[str, Any]]) -> list[Message]:
    """A documented conversation (any provider's wire shape) as our own messages."""
    out: list[Message] = []
    calls: list[ToolCall] = []
    for message in wire:
        role = message["role"]
        if role == "assistant":
            new = []
            for i, item in enumerate(message.get("tool_calls") or []):
                function = item.get("function", item)
                arguments, error = parse_tool_arguments(function.get("arguments"))
                assert error is None, error
                call_id = item.get("id") or f"call{len(calls) + i:05d}"
                new.append(ToolCall(id=call_id, name=function["name"], arguments=arguments))
            calls += new
            out.append(Message.assistant(message.get("content") or "", new))
        elif role == "tool":
            wanted_id = message.get("tool_call_id")
            wanted_name = message.get("tool_name") or message.get("name")
            call = next(
                c for c in calls if c.id == wanted_id or (not wanted_id and c.name == wanted_name)
            )
            out.append(Message.tool(call, message["content"]))
        else:
            out.append(Message(role=role, content=message["content"]))
    return out


def assert_message_as_documented(ours: dict[str, Any], doc: dict[str, Any]) -> None:
    """Every documented field is sent with the documented value.

    Empty content is empty however it is written ("", null or absent); arguments compare as
    JSON values but keep their documented type (a string stays a string, an object an object).
    """
    for key in MESSAGE_KEYS:
        if key not in doc:
            continue
        if key == "content":
            assert (ours.get(key) or "") == (doc[key] or ""), (key, ours, doc)
        else:
            assert ours.get(key) == doc[key], (key, ours, doc)
    doc_calls = doc.get("tool_calls") or []
    our_calls = ours.get("tool_calls") or []
    assert len(our_calls) == len(doc_calls), (ours, doc)
    for mine, theirs in zip(our_calls, doc_calls, strict=True):
        for key in ("id", "type"):
            if key in theirs:
                assert mine.get(key) == theirs[key], (key, mine, theirs)
        sent, documented = mine["function"], theirs["function"]
        assert sent["name"] == documented["name"]
        assert type(sent["arguments"]) is type(documented["arguments"])
        assert parse_tool_arguments(sent["arguments"]) == parse_tool_arguments(
            documented["arguments"]
        )
