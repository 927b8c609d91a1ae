"""Tool calls as text: arguments that arrive as JSON strings, and calls written into content.

Providers send arguments as a JSON string (Mistral, OpenAI) or an object (Ollama). Small local
models often write the call itself as the answer (a JSON object, a fenced block,
`<tool_call>` tags, a `[TOOL_CALLS]` marker): `extract_tool_calls_from_content` recovers them,
and `may_be_tool_call` tells a streaming reader when to hold text back until the turn ends.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Any

from vault_agent.llm.messages import ToolCall, new_tool_call_id


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


def may_be_tool_call(prefix: str) -> bool | None:
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
