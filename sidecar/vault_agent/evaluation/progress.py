"""How an evaluation reports progress: one callback, `(stage, done, total)`.

The runners stay free of any terminal code; the CLI turns these calls into rich progress bars.
"""

from __future__ import annotations

from collections.abc import Callable

#: `stage` is "indexing" or "querying"; `total` may be 0 while it is still unknown.
OnProgress = Callable[[str, int, int], None]


def no_progress(stage: str, done: int, total: int) -> None:
    """The default callback: report nothing."""
