"""`vault-agent chat`: a conversation with the vault in the terminal.

Each question is answered like `vault-agent ask` (the same run and the same printing: the
answer with its citations and Sources list), and carries the conversation so far as `history`,
the way the Obsidian plugin sends it, so a follow-up ("and before that?") is understood. The
history lives in memory for the session only; `/new` starts over, `/exit` or Ctrl-D leaves.
The index is opened and each question answered by `ask.py`'s own functions; `main.py`
declares the command and calls `chat_session`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from vault_agent.agent.events import DoneEvent
from vault_agent.agent.request import (
    HISTORY_TURNS,
    AgentRequest,
    HistoryTurn,
)
from vault_agent.cli.ask import answer, question_index
from vault_agent.cli.common import console

PROMPT = "[bold]you>[/bold] "
INTRO = (
    "Ask your vault anything; follow-up questions see the conversation. "
    "/new starts over, /exit (or Ctrl-D) leaves."
)
MAX_QUESTION_CHARS = 8_000

#: Answers one question, printing it as `ask` does: the final event, or None when it failed.
Ask = Callable[[AgentRequest], DoneEvent | None]


def chat_session(vault: Path | None, profile: str | None, verbose: bool, no_sync: bool) -> None:
    """Open the vault's index (synced unless `no_sync`) and converse on the terminal."""
    with question_index(vault, profile, no_sync) as vault_index:

        def ask(request: AgentRequest) -> DoneEvent | None:
            return asyncio.run(answer(request, vault_index, verbose))

        converse(ask, read=console.input, say=console.print)


def converse(ask: Ask, read: Callable[[str], str], say: Callable[[str], None]) -> int:
    """Read questions until /exit or the end of input, answering each with the history of
    the answered ones; returns how many were answered."""
    history: list[HistoryTurn] = []
    answered = 0
    say(INTRO)
    while True:
        try:
            line = read(PROMPT).strip()
        except (EOFError, KeyboardInterrupt):
            say("")
            return answered
        if not line:
            continue
        if line in ("/exit", "/quit"):
            return answered
        if line == "/new":
            history.clear()
            say("New conversation.")
            continue
        question = line[:MAX_QUESTION_CHARS]
        done = ask(AgentRequest(question=question, history=history[-2 * HISTORY_TURNS :]))
        if done is None:
            continue  # the error is printed; the failed question stays out of the history
        answered += 1
        history += [
            HistoryTurn(role="user", content=question),
            HistoryTurn(role="assistant", content=done.answer),
        ]
