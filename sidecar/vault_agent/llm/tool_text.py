"""Tool calls as text: arguments that arrive as JSON strings, and calls written into content.

Providers send arguments as a JSON string (Mistral, OpenAI) or an object (Ollama). Small local
models often write the call itself as the answer: a JSON object, a fenced block, `<tool_call>`
tags (Qwen/Hermes), LM Studio's `[TOOL_REQUEST]` block, a `[TOOL_CALLS]` marker, or a Python
call list (`pythonic.py`). `extract_tool_calls_from_content` recovers a text made only of
calls; `extract_embedded_tool_calls` finds tagged or fenced calls after some prose; and
`may_be_tool_call` tells a streaming reader when to hold text back until the turn ends.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Any

from vault_agent.llm.messages import ToolCall, new_tool_call_id
from vault_agent.llm.pythonic import pythonic_calls

#: Deeper than any tool's arguments go (a list of strings in an object): a model sending more
#: is broken, and every event repeating its call would have to carry it.
MAX_ARGUMENT_DEPTH = 16
_TOO_DEEP = f"arguments are nested more than {MAX_ARGUMENT_DEPTH} levels deep"


def parse_tool_arguments(raw: object) -> tuple[dict[str, Any], str | None]:
    """Arguments as a dict, or ``({}, error)`` when they are not a JSON object.

    Providers send a JSON string (Mistral, OpenAI) or an object (Ollama); an empty string or
    ``null`` means "no arguments". Small models also send the object encoded twice (a JSON
    string holding a JSON string) and Ollama may pass a string through where its API
    documents an object: both are decoded.
    """
    if raw is None:
        return {}, None
    if isinstance(raw, Mapping):
        if nested_deeper_than(raw, MAX_ARGUMENT_DEPTH):
            return {}, _TOO_DEEP
        return dict(raw), None
    if not isinstance(raw, str):
        return {}, f"arguments must be a JSON object, got {type(raw).__name__}: {raw!r:.200}"
    value: Any = raw
    for _ in range(2):  # a string, or a string holding a string
        if not value.strip():
            return {}, None
        try:
            value = json.loads(value)
        except ValueError as exc:
            excerpt = raw if len(raw) <= 200 else raw[:200] + "..."
            return {}, f"arguments are not valid JSON ({exc}): {excerpt}"
        except RecursionError:  # nested past what Python's decoder follows
            return {}, _TOO_DEEP
        if not isinstance(value, str):
            break
    if value is None:
        return {}, None
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}: {raw[:200]}"
    if nested_deeper_than(value, MAX_ARGUMENT_DEPTH):
        return {}, _TOO_DEEP
    return value, None


def nested_deeper_than(value: object, limit: int) -> bool:
    """True when lists and objects in `value` nest more than `limit` levels deep (walked
    without recursion: the value may be nested thousands deep)."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Collection[object] = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def extract_tool_calls_from_content(
    text: str, tool_names: Collection[str]
) -> list[ToolCall] | None:
    """Recover tool calls that a model wrote as text instead of ``tool_calls``.

    Small local models often answer with the call itself: ``{"name": "search_notes",
    "arguments": {...}}``, a list of those, several of them one per line, the same inside a
    ```` ```json ```` fence, ``<tool_call>...</tool_call>`` tags (Qwen/Hermes),
    ``[TOOL_REQUEST]...[END_TOOL_REQUEST]`` (LM Studio), after a ``[TOOL_CALLS]`` /
    ``<|python_tag|>`` marker, or as Python calls, ``[search_notes(query='tea')]`` (Llama 3.2).
    ``parameters``/``args`` are accepted for ``arguments``, and OpenAI's ``{"function": {...}}``
    wrapping too.

    The whole text must be tool calls, and every call must name one of ``tool_names``;
    otherwise this returns None and the text stays an answer.
    """
    if not tool_names:
        return None
    payloads = _tool_call_payloads(text)
    if payloads is None:
        return pythonic_calls(text, tool_names)
    return _calls_from_payloads(payloads, tool_names)


def extract_embedded_tool_calls(
    text: str, tool_names: Collection[str]
) -> tuple[str, list[ToolCall]] | None:
    """Calls written after some prose: ``"Let me search. <tool_call>{...}</tool_call>"``.

    Only explicit forms count here (tags, LM Studio's block, a ```` ```json ```` fence holding
    a call), never a bare JSON object inside prose. Returns the text without the calls, and
    the calls; None when there are none, or when one of them is not a call of a known tool.
    """
    if not tool_names:
        return None
    found = list(_EMBEDDED.finditer(text))
    if not found:
        return None
    calls: list[ToolCall] = []
    for match in found:
        body = next(group for group in match.groups() if group is not None)
        got = _calls_from_payloads([body.strip()], tool_names)
        if got is None:
            return None
        calls.extend(got)
    rest = _EMBEDDED.sub("", text).strip()
    return rest, calls


_PREFIX_MARKERS = ("[TOOL_CALLS]", "<|python_tag|>")
# Blocks that hold one call each, as (open, close); generation often stops before the close.
_BLOCKS = (("<tool_call>", "</tool_call>"), ("[TOOL_REQUEST]", "[END_TOOL_REQUEST]"))
_FENCE_LANGS = ("", "json", "tool_call", "tool_code")
_FENCED = re.compile(r"```([\w-]*)[ \t]*\n?(.*?)\n?```", re.DOTALL)
_EMBEDDED = re.compile(
    r"<tool_call>(.*?)(?:</tool_call>|\Z)"
    r"|\[TOOL_REQUEST\](.*?)(?:\[END_TOOL_REQUEST\]|\Z)"
    r"|```(?:json|tool_call|tool_code)[ \t]*\n(\s*\{.*?)\n?```",
    re.DOTALL,
)


def _tool_call_payloads(text: str) -> list[str] | None:
    """The JSON texts inside ``text`` if it is shaped like JSON tool calls, else None."""
    s = text.strip()
    for marker in _PREFIX_MARKERS:
        if s.startswith(marker):
            s = s[len(marker) :].strip()
    for opening, closing in _BLOCKS:
        if s.startswith(opening):
            return _blocks(s, opening, closing)
    fenced = _FENCED.fullmatch(s)
    if fenced:
        if fenced.group(1).lower() not in _FENCE_LANGS:
            return None
        return _tool_call_payloads(fenced.group(2))
    return [s] if s[:1] in ("{", "[") and _looks_like_json(s) else None


def _blocks(text: str, opening: str, closing: str) -> list[str] | None:
    """The bodies of ``opening...closing`` blocks, if the text is made of nothing else."""
    if not text.endswith(closing):
        text += closing
    pattern = re.compile(rf"\s*{re.escape(opening)}(.*?){re.escape(closing)}\s*", re.DOTALL)
    blocks = list(pattern.finditer(text))
    if "".join(m.group(0) for m in blocks) != text:
        return None
    return [m.group(1).strip() for m in blocks]


def _looks_like_json(text: str) -> bool:
    """``[{...}]`` or ``{...}``, not ``[search_notes(...)]`` (a Python call list)."""
    return text[0] == "{" or text[1:].lstrip()[:1] in ("{", "]")


def _calls_from_payloads(payloads: list[str], tool_names: Collection[str]) -> list[ToolCall] | None:
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
        except (ValueError, RecursionError):
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
    arguments, error = parse_tool_arguments(raw)
    return ToolCall(id=new_tool_call_id(), name=name, arguments=arguments, arguments_error=error)


def may_be_tool_call(prefix: str, tool_names: Collection[str] = ()) -> bool | None:
    """Could text starting with ``prefix`` be a tool call written as content?

    True: hold it back until the turn ends. False: stream it. None: need more characters.
    Answers rarely open with ``{``, a bare fence, a marker or a tool's name followed by ``(``,
    so holding costs little; ``[[`` (a wikilink) is passed straight through.
    """
    s = prefix.lstrip()
    if not s:
        return None
    if s[0] == "{":
        return True
    for marker in (*_PREFIX_MARKERS, *(opening for opening, _ in _BLOCKS)):
        if s.startswith(marker):
            return True
        if marker.startswith(s):
            return None
    if s[0] == "[":
        rest = s[1:].lstrip()
        if not rest:
            return None
        return True if rest[0] == "{" else _may_be_python_call(rest, tool_names)
    if s.startswith("```"):
        if "\n" not in s:
            return None if len(s) < 20 else False
        return s[3 : s.index("\n")].strip().lower() in _FENCE_LANGS
    if "```".startswith(s):
        return None
    return _may_be_python_call(s, tool_names)


def _may_be_python_call(text: str, tool_names: Collection[str]) -> bool | None:
    """``search_notes(`` opens a Python call of a tool; a word that no tool starts with can't."""
    match = re.match(r"[A-Za-z_][\w.]*", text)
    if match is None:
        return False
    name = match.group(0)
    if match.end() == len(text):
        return None if any(tool.startswith(name) for tool in tool_names) else False
    return name in tool_names and text[match.end()] == "("
