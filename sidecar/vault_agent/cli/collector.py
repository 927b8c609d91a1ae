"""Python's cycle collector in a `vault-agent` process.

A command imports about a thousand modules and opens the index: objects that all live until
the process ends. The cycle collector would scan them at every full collection, and once more
at exit; in a cold `vault-agent search` that was 0.2-0.3 s (bench/cli.py). So, in a process the
console script started, they are frozen (`gc.freeze`): once the index is open, and everything
at exit. Objects made later are collected as usual. A process that only imports the CLI (the
tests, through typer's runner) is left alone: freezing its objects would keep its garbage.
"""

from __future__ import annotations

import atexit
import gc

_frozen_by_us = False


def freeze_at_exit() -> None:
    """Make this process one whose startup objects are frozen (the console script's), and
    freeze everything at exit: nothing relies on that last pass (the index, its caches and
    files are closed explicitly; the interpreter flushes stdout itself)."""
    global _frozen_by_us
    _frozen_by_us = True
    atexit.register(gc.freeze)


def startup_done() -> None:
    """The command's stack is loaded and its index open: freeze what exists (in a process
    `freeze_at_exit` marked)."""
    if _frozen_by_us:
        gc.freeze()
