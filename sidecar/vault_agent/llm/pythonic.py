"""Tool calls written as Python: ``[get_weather(city='Paris'), search_notes(query="tea")]``.

Llama 3.2 and 4, ToolACE and Olmo 3 write calls this way (vLLM documents it as its
``pythonic`` format); served without that parser, the calls arrive as the answer's text. They
are read with :mod:`ast`, never executed: only calls of known tools with keyword arguments
whose values are literals (``True``/``true``, ``None``/``null`` included) are accepted.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from typing import Any

from vault_agent.llm.messages import ToolCall, new_tool_call_id

_JSON_NAMES = {"true": True, "false": False, "null": None}


def pythonic_calls(text: str, tool_names: Collection[str]) -> list[ToolCall] | None:
    """The calls in ``text`` if it is one call or a list of calls of ``tool_names``, else None."""
    source = text.strip()
    if source.startswith("```") and source.endswith("```"):
        source = source.strip("`").removeprefix("python").strip()
    if not source or not (source[0].isalpha() or source[0] in "[_("):
        return None
    try:
        tree = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    nodes = tree.elts if isinstance(tree, ast.List | ast.Tuple) else [tree]
    calls: list[ToolCall] = []
    for node in nodes:
        call = _call(node, tool_names)
        if call is None:
            return None
        calls.append(call)
    return calls or None


def _call(node: ast.expr, tool_names: Collection[str]) -> ToolCall | None:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return None
    name = node.func.id
    if name not in tool_names or node.args:
        return None
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:  # **kwargs
            return None
        try:
            arguments[keyword.arg] = _literal(keyword.value)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return None
    return ToolCall(id=new_tool_call_id(), name=name, arguments=arguments)


def _literal(node: ast.expr) -> Any:
    """A literal value; ``true``/``false``/``null`` as JSON writes them too."""
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        values: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise ValueError("** in a dict")
            values[_literal(key)] = _literal(value)
        return values
    return ast.literal_eval(node)
