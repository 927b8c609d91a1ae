"""Running the model's tool calls for one request: nothing a model sends can crash it.

Malformed or invalid arguments, unknown tools and failing lookups all come back as an error
result whose text tells the model what to fix; a tool name written loosely
(``functions.search_notes``, ``Search-Notes``, ``search_note``) runs the tool it plainly means;
a call repeated word for word gets the same result, said plainly, and is marked ``repeated``
(the loop stops a model that only repeats itself). The store is synchronous, so calls run in
worker threads (``asyncio.to_thread``), several at once when the model asks for parallel calls.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import logging
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from vault_agent.agent.reader import NoteReader, ToolError, ToolsContext
from vault_agent.agent.tool_args import NAME_MAX_CHARS
from vault_agent.agent.tools import TOOLS, Tool, ToolResult, argument_schema
from vault_agent.llm.messages import ToolCall
from vault_agent.validation import where

log = logging.getLogger(__name__)

REPEATED = (
    "(You already made this exact call; the result is the same. Answer from it, or make a "
    "different call.)"
)
NEAR_NAME = 0.85
"""How alike a misspelt tool name must be to the one tool it is taken for (difflib ratio)."""


class Toolbox:
    """Runs the model's tool calls for one request; never raises for anything the model sent."""

    def __init__(
        self,
        context: ToolsContext,
        overrides: Mapping[str, str] | None = None,
        source_file: str = "",
    ) -> None:
        self.reader = NoteReader(context, dict(overrides or {}), source_file)
        self._done: dict[str, ToolResult] = {}

    async def run(self, call: ToolCall) -> ToolResult:
        """Run one call in a worker thread; errors come back as error results."""
        if call.arguments_error:
            return ToolResult.error(
                f"the arguments of {call.name} could not be read ({call.arguments_error}). "
                "Send them again as one JSON object."
            )
        tool = find_tool(call.name)
        if tool is None:
            return ToolResult.error(_no_such_tool(call.name))
        try:
            arguments = tool.arguments.model_validate(
                call.arguments, context={"today": self.reader.context.current_date()}
            )
        except ValidationError as error:
            return ToolResult.error(_explain(tool.name, error))
        key = f"{tool.name}:{arguments.model_dump_json()}"
        if key in self._done:
            # Small models repeat a call they already made; the same answer, said plainly.
            earlier = self._done[key]
            return ToolResult(
                content=f"{REPEATED}\n{earlier.content}",
                summary="repeated call: " + earlier.summary,
                notes=earlier.notes,
                ok=earlier.ok,
                repeated=True,
                ranked=earlier.ranked,
            )
        result = await asyncio.to_thread(self._run_sync, tool, arguments)
        self._done[key] = result
        return result

    def _run_sync(self, tool: Tool[Any], arguments: BaseModel) -> ToolResult:
        try:
            return tool.function(self.reader, arguments)
        except ToolError as error:
            return ToolResult.error(str(error))
        except Exception as error:  # a broken index must not end the conversation
            log.exception("tool %s failed", tool.name)
            return ToolResult.error(f"{tool.name} failed: {error}")


def find_tool(name: str) -> Tool[Any] | None:
    """The tool ``name`` means: exact, else written loosely, else a unique near spelling."""
    if name in TOOLS:
        return TOOLS[name]
    if len(name) > NAME_MAX_CHARS:
        return None  # no tool's name, however loosely written
    plain = _plain_name(name)
    if plain in TOOLS:
        return TOOLS[plain]
    close = difflib.get_close_matches(plain, TOOLS, n=2, cutoff=NEAR_NAME)
    return TOOLS[close[0]] if len(close) == 1 else None


def _plain_name(name: str) -> str:
    """``functions.Search-Notes()`` -> ``search_notes``."""
    plain = name.strip().strip("`'\"").removesuffix("()").lower()
    plain = re.sub(r"^(?:functions|function|tools|tool|default_api)[.:/]", "", plain)
    return re.sub(r"[\s-]+", "_", plain)


def _no_such_tool(name: str) -> str:
    guess = difflib.get_close_matches(_plain_name(name[:100]), TOOLS, n=1, cutoff=0.5)
    hint = f" Did you mean {guess[0]}?" if guess else ""
    return f"there is no tool '{name[:100]}'.{hint} The tools are: {', '.join(TOOLS)}"


def _explain(name: str, error: ValidationError) -> str:
    problems = []
    for item in error.errors(include_url=False):
        got = json.dumps(item.get("input"), default=str)[:80]
        problems.append(f"{where(item, 'arguments')}: {item['msg']} (got {got})")
    schema = json.dumps(argument_schema(TOOLS[name].arguments)["properties"])
    return f"invalid arguments for {name}: {'; '.join(problems)}. Expected: {schema}"
