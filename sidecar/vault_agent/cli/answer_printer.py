"""How `ask` and `chat` show an answer: live text on a terminal, then the checked answer, with
the tool calls and timings on stderr when asked. What a note or the model wrote is printed as
words (`terminal.shown`): no terminal control sequence, no rich markup."""

from __future__ import annotations

import json
import sys

from rich.live import Live
from rich.text import Text

from vault_agent.agent.events import (
    AgentEvent,
    DeltaEvent,
    DoneEvent,
    ErrorEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from vault_agent.cli.common import console, errors
from vault_agent.cli.terminal import plain, shown


class AnswerPrinter:
    """Shows events: live text on a terminal, the checked answer when done; trace on stderr."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        #: The final event, once the run ended with an answer (None while running, or on error).
        self.done: DoneEvent | None = None
        self._live = Live(console=console, auto_refresh=False) if console.is_terminal else None
        self._turn = 0
        self._text = ""

    def __enter__(self) -> AnswerPrinter:
        if self._live is not None:
            self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.stop()

    def show(self, event: AgentEvent) -> None:
        if isinstance(event, DeltaEvent):
            if event.turn != self._turn:  # a new turn: earlier text was thinking aloud
                self._turn, self._text = event.turn, ""
            self._text += event.text
            self._render(self._text)
        elif isinstance(event, ToolCallEvent) and self.verbose:
            arguments = json.dumps(event.arguments, ensure_ascii=False)
            errors.print(
                Text.assemble(shown(f"→ {event.name}", "cyan"), " ", shown(arguments)),
                highlight=False,
            )
        elif isinstance(event, ToolResultEvent) and self.verbose:
            colour = "green" if event.ok else "red"
            took = (f"({event.elapsed_ms:.0f} ms)", "dim")
            errors.print(
                Text.assemble(shown(f"← {event.summary}", colour), " ", took), highlight=False
            )
        elif isinstance(event, DoneEvent):
            self.done = event
            self._done(event)
        elif isinstance(event, ErrorEvent):
            self._render("")
            errors.print(
                Text.assemble((f"error ({event.code}):", "red"), " ", shown(event.message)),
                highlight=False,
            )

    def _done(self, event: DoneEvent) -> None:
        if self._live is not None:
            self._render(event.answer)
        else:
            sys.stdout.write(plain(event.answer) + "\n")
        for removed in event.removed_citations:
            errors.print(
                Text.assemble(
                    ("removed citation", "yellow"),
                    " ",
                    shown(f"{removed.citation}: {removed.reason}"),
                ),
                highlight=False,
            )
        if self.verbose:
            t = event.timings
            errors.print(
                f"[dim]{event.profile} ({event.model}), {event.turns} turns, "
                f"{event.usage.total_tokens} tokens; {t.total_ms:.0f} ms total, model "
                f"{t.model_ms:.0f} ms, tools {t.tools_ms:.0f} ms[/dim]"
            )

    def _render(self, text: str) -> None:
        if self._live is not None:
            self._live.update(shown(text), refresh=True)
