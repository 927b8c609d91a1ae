"""Terminal side of `vault-agent eval`: progress bars while it runs, tables when it is done.

Kept out of cli.py so the command there stays a few lines, and out of the runners so they
stay free of terminal code.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from vault_agent.evaluation.beir_eval import BeirResult
from vault_agent.evaluation.progress import OnProgress
from vault_agent.evaluation.questions import QuestionsResult
from vault_agent.evaluation.report import beir_table, misses_table, questions_table


@contextmanager
def progress_bars(console: Console) -> Iterator[OnProgress]:
    """A progress callback drawing one bar per stage (indexing, querying) on `console`."""
    with Progress(
        TextColumn("[bold]{task.description:<9}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as progress:
        tasks: dict[str, TaskID] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage.capitalize(), total=total or None)
            progress.update(tasks[stage], completed=done, total=total or None)

        yield update


def print_result(console: Console, result: BeirResult | QuestionsResult) -> None:
    """The result table (and, for a question file, the questions hybrid search missed)."""
    if isinstance(result, BeirResult):
        console.print(beir_table(result))
        return
    console.print(questions_table(result))
    missed = misses_table(result)
    if missed is not None:
        console.print(missed)
