"""Deeply nested JSON from the model, wherever it is parsed: the stream chunk itself, a tool
call's arguments (as a string and as an object), a call written as text. Whatever the depth,
the answer's stream ends with its last event: `done` (the model was told what to fix) or an
`error` naming the model's fault, never an internal error or a stream left open. Found by an
audit: arguments 600 deep were parsed, then the event repeating them could not be written,
and the client waited forever."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Literal

import pytest

from fake_llm import FakeLLMServer, FakeTurn
from server_support import AUTH, ServedVault, api_settings, read_events, serve_api
from vault_agent.config import LlmSettings
from vault_agent.llm.tool_text import MAX_ARGUMENT_DEPTH, nested_deeper_than, parse_tool_arguments

Wire = Literal["mistral", "ollama", "openai"]
ANSWER = FakeTurn.text("Fed daily [[Recipes/Sourdough Starter]].")


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def sse(chunk: str) -> FakeTurn:
    return FakeTurn.raw([f"data: {chunk}", "", "data: [DONE]", ""])


def openai_delta(delta: dict[str, object], finish: str) -> str:
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
    chunk["choices"][0]["finish_reason"] = finish  # type: ignore[index]
    return json.dumps(chunk)


def cases(depth: int) -> dict[str, tuple[Wire, FakeTurn]]:
    deep = nested(depth)
    call = {"index": 0, "id": "c0", "type": "function", "function": {"name": "search_notes"}}
    as_string = {**call, "function": {"name": "search_notes", "arguments": "@"}}
    mistral = '{"id":"x","object":"chat.completion.chunk","model":"m","created":1,"choices":['
    return {
        "openai chunk": ("openai", sse(deep)),
        "openai arguments as a string": (
            "openai",
            sse(
                openai_delta({"tool_calls": [as_string]}, "tool_calls").replace(
                    '"@"', json.dumps(f'{{"query": "x", "tags": {deep}}}')
                )
            ),
        ),
        "openai arguments as an object": (
            "openai",
            sse(
                openai_delta({"tool_calls": [call]}, "tool_calls").replace(
                    '"name": "search_notes"}', f'"name": "search_notes", "arguments": {deep}}}'
                )
            ),
        ),
        "openai call written as text": (
            "openai",
            sse(
                openai_delta({"content": "@"}, "stop").replace(
                    '"@"',
                    json.dumps(f'{{"name": "search_notes", "arguments": {{"tags": {deep}}}}}'),
                )
            ),
        ),
        "ollama arguments": (
            "ollama",
            FakeTurn.raw(
                [
                    '{"message": {"role": "assistant", "content": "", "tool_calls": [{"function":'
                    f' {{"name": "search_notes", "arguments": {{"tags": {deep}}}}}}}]}}, '
                    '"done": false}',
                    json.dumps({"message": {"role": "assistant", "content": ""}, "done": True}),
                ]
            ),
        ),
        "mistral chunk": (
            "mistral",
            sse(
                mistral
                + f'{{"index": 0, "delta": {{"content": {deep}}}, "finish_reason": "stop"}}]}}'
            ),
        ),
    }


CASES = [(depth, name) for depth in (40, 600, 5_000) for name in cases(1)]


@pytest.mark.parametrize(("depth", "name"), CASES, ids=[f"{n}, {d} deep" for d, n in CASES])
@pytest.mark.asyncio(loop_scope="session")
async def test_nested_json_from_the_model_ends_the_answer_with_a_last_event(
    depth: int, name: str, served_vault: ServedVault, tmp_path: Path
) -> None:
    wire, turn = cases(depth)[name]
    fake = FakeLLMServer(wire, [turn, ANSWER, ANSWER])
    await fake.start()
    try:
        llm = LlmSettings(
            profile=wire,
            base_url=fake.base_url,
            api_key="k-123456789",
            model="m",
            max_retries=0,
            timeout_s=10,
        )
        settings = api_settings(served_vault.vault, tmp_path, llm=llm)
        async with (
            serve_api(settings, vault_index=served_vault.index) as api,
            api.session.post(
                api.url("/v1/ask"), json={"question": "starter?"}, headers=AUTH
            ) as response,
        ):
            assert response.status == 200
            async with asyncio.timeout(30):  # a stream left open fails here
                events = [event async for event in read_events(response)]
    finally:
        await fake.close()
    kind, last = events[-1]
    assert kind in ("done", "error"), events[-3:]
    assert kind == "done" or last["code"] != "internal", last


def test_arguments_nested_past_the_limit_are_refused_with_a_reason() -> None:
    within = {"tags": json.loads(nested(MAX_ARGUMENT_DEPTH - 1))}
    assert parse_tool_arguments(within) == (within, None)
    assert parse_tool_arguments(json.dumps(within)) == (within, None)
    for raw in ({"tags": json.loads(nested(MAX_ARGUMENT_DEPTH))}, f'{{"t": {nested(5_000)}}}'):
        arguments, error = parse_tool_arguments(raw)
        assert arguments == {} and error is not None and "nested more than" in error
    assert nested_deeper_than(json.loads(nested(900)), 899)  # walked without recursion
