"""Ending a `vault-agent` process once its command is done, without the interpreter's teardown.

A cold `vault-agent search` spent about 25 ms after printing its hits in tearing the
interpreter down: every module, the embedding model's session and the memory maps freed one by
one, all of which the operating system reclaims at once when the process ends (bench/cli.py).
So once a command has returned, and no other thread is still working, the process runs what
was registered to run at exit (`atexit`: logging's flush, `weakref.finalize` clean-ups such
as temporary folders), flushes its output and ends with the command's exit status. Nothing
relies on the teardown itself: the index, its caches and files are closed by the commands.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def leave(code: object) -> NoReturn:
    """End the process as `sys.exit(code)` would (the same status, the same exit hooks), but
    without freeing what it made; with another thread still running, exit as usual instead,
    so that Python waits for it."""
    main = threading.main_thread()
    if any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate()):
        raise SystemExit(code)
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): Python prints it and exits 1
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()  # public in effect: `help(atexit)` documents it
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`): nothing more can be written
            status = status or 120  # what Python exits with when its final flush fails
    os._exit(status)
