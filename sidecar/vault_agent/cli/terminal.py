"""Text of notes and of a model, as the terminal shows it: its words, never its controls.

A note, or a model it steered, can write sequences a terminal acts on: OSC 8 puts a link behind
words (`verify`, to a URL holding a PIN), OSC 52 sets the clipboard (a command to paste into a
shell), CSI clears the screen or moves the cursor (and can fake what was printed). So every C0
control but the line break and the tab, DEL and every C1 control (some terminals read U+009B as
CSI) is shown as U+FFFD, and a carriage return is dropped; what is left is put in a rich `Text`,
never read as markup (`[link=...]` makes the same hidden link).
"""

from __future__ import annotations

import logging

from rich.text import Text

_CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]
_SHOWN = {code: "\ufffd" for code in _CONTROLS} | {ord("\r"): None}


def plain(text: str) -> str:
    """`text` without anything a terminal would act on (see the module docstring)."""
    return text.translate(_SHOWN)


def shown(text: str, style: str = "") -> Text:
    """`text` as words to print: no control acted on, no markup read."""
    return Text(plain(text), style=style)


class PlainFormatter(logging.Formatter):
    """Log lines as words: a note's file name or a library's message holding terminal
    controls is shown, never acted on (line breaks and tabs of a traceback stay)."""

    def format(self, record: logging.LogRecord) -> str:
        return plain(super().format(record))


def log_plainly(level: int = logging.WARNING) -> None:
    """Log to stderr at `level` and above, each line through `PlainFormatter`."""
    handler = logging.StreamHandler()
    handler.setFormatter(PlainFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
