"""A note's tasks: its checkbox lines (``- [ ] call Dan``), as Obsidian and the Tasks plugin
read them.

Only whether a task is still open is read here, so the index can find the passages that hold
something still to do ("what are my open tasks?") without reading every note again.
"""

from __future__ import annotations

import re

from vault_agent.vault.markdown import code_lines

#: A checkbox's marks for done and cancelled (Obsidian's "x", and the Tasks plugin's "-"); any
#: other mark (" ", "/" in progress, ">" deferred...) is a task still open.
CLOSED_MARKS = frozenset("xX-")
#: A list item opening with a checkbox, also in a quote or a callout ("> - [ ] ...").
_TASK_LINE = re.compile(r"^[ \t>]*(?:[-*+]|\d+[.)])[ \t]+\[(.)\](?=[ \t]|$)", re.MULTILINE)


def open_tasks(body: str) -> int:
    """How many checkboxes of the markdown `body` are neither ticked off nor cancelled. One in
    a code block is an example of the syntax, not a task."""
    found = [match for match in _TASK_LINE.finditer(body) if match.group(1) not in CLOSED_MARKS]
    if not found:
        return 0
    code = code_lines(body)
    # Lines counted on from the task before, not from the start for each (quadratic).
    line, counted, outside = 0, 0, 0
    for match in found:
        line += body.count("\n", counted, match.start())
        counted = match.start()
        outside += line not in code
    return outside
