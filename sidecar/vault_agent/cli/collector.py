"""Python's cycle collector in a `vault-agent` process.

A command imports about a thousand modules and opens the index: objects that all live until
the process ends. The cycle collector would scan them at every full collection, and once more
at exit; in a cold `vault-agent search` that was 0.2-0.3 s (bench/cli.py). So, in a process the
console script started, the collector runs seldom while the command's stack loads (a young
generation of 100,000 objects instead of 700: 20 ms of a cold search), and what loaded is
frozen (`gc.freeze`) once the index is open, and everything at exit; then the usual thresholds
come back for whatever the command goes on to make. A command that never opens an index (the
server opens its own) still collects, only less often. A process that only imports the CLI (the
tests, through typer's runner) is left alone: freezing its objects would keep its garbage.
"""

from __future__ import annotations

import atexit
import gc

#: The young generation's threshold while a command loads (Python's default is 700).
STARTUP_THRESHOLD = 100_000

_frozen_by_us = False
_usual_thresholds = gc.get_threshold()


def freeze_at_exit() -> None:
    """Make this process one whose startup objects are frozen (the console script's), collect
    seldom until its index is open (`startup_done`), and freeze everything at exit: nothing
    relies on that last pass (the index, its caches and files are closed explicitly; the
    interpreter flushes stdout itself)."""
    global _frozen_by_us
    _frozen_by_us = True
    gc.set_threshold(STARTUP_THRESHOLD, *_usual_thresholds[1:])
    atexit.register(gc.freeze)


def startup_done() -> None:
    """The command's stack is loaded and its index open: freeze what exists, and collect as
    usual from now on (in a process `freeze_at_exit` marked)."""
    if _frozen_by_us:
        gc.freeze()
        gc.set_threshold(*_usual_thresholds)
