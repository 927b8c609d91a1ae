"""Open tasks: counted per chunk at indexing, filtered on by the store, listed by the answer."""

from __future__ import annotations

import time

import pytest

from vault_agent.index.store.protocol import SearchFilter
from vault_agent.index.vault_index import VaultIndex
from vault_agent.vault.tasks import open_tasks


@pytest.mark.parametrize(
    ("body", "count"),
    [
        ("- [ ] call Dan\n- [x] book flights\n- [X] pay\n- [-] cancelled", 1),
        ("* [/] in progress\n+ [>] deferred\n1. [ ] numbered\n2) [?] asked", 4),
        ("> [!todo] Callout\n> - [ ] inside a callout\n>\n> - [x] done there", 1),
        ("  - [ ] nested under an item\n\t- [ ]", 2),  # an empty checkbox is a task too
        ("```markdown\n- [ ] an example in code\n```\n- [ ] a real one", 1),
        ("    - [ ] indented code, four spaces after a paragraph break", 0),
        ("- [] not a checkbox\n- [ ]no space after\n[ ] no list mark\n- plain item", 0),
        ("", 0),
    ],
)
def test_open_tasks_are_the_unchecked_checkboxes_outside_code(body: str, count: int) -> None:
    assert open_tasks(body) == count


def test_the_index_finds_the_passages_holding_an_open_task(agent_index: VaultIndex) -> None:
    holding = list(agent_index.store.scroll(SearchFilter(open_tasks=True)))
    assert {chunk.file for chunk in holding} == {
        "Projects/Kyoto Trip.md",
        "Projects/Garden/Garden Irrigation.md",
        "Meetings/2026-10-29 Tidepool Planning.md",
    }
    assert sum(chunk.open_tasks for chunk in holding) == 9
    assert all("- [ ]" in chunk.body for chunk in holding)


def test_counting_the_open_tasks_of_a_long_chunk_takes_linear_time() -> None:
    """Found by the complexity audit: each task's line was counted from the chunk's start
    (11 s for a megabyte of tasks between comments, which read as one chunk)."""
    body = "#\n%%\n- [ ] a\n%%\n" * 60_000  # 1 MB
    started = time.thread_time()
    assert open_tasks(body) == 60_000
    assert time.thread_time() - started < 1.0
