"""Per-file statuses (`index/sync/status.py`): an unchanged file's status is kept as a chunk
count and made a `FileStatus` only when asked for; it must read exactly as a stored one."""

from __future__ import annotations

from vault_agent.index.sync.status import FileStatus, FileStatuses


def test_kept_files_read_as_indexed_statuses_and_keep_earlier_warnings() -> None:
    statuses = FileStatuses()
    statuses.keep("a.md", 3)
    warned = FileStatus(file="b.md", state="indexed", chunks=2, warnings=["bad frontmatter"])
    statuses.set(warned)
    statuses.keep("b.md", 2)  # unchanged since: its warnings stay
    statuses.set(FileStatus(file="c.md", state="failed", reason="could not read"))
    statuses.keep("c.md", 1)  # readable again: indexed, the failure forgotten
    assert statuses.listed() == [
        FileStatus(file="a.md", state="indexed", chunks=3),
        warned,
        FileStatus(file="c.md", state="indexed", chunks=1),
    ]
    statuses.set(FileStatus(file="a.md", state="skipped", reason="too big"))
    statuses.pop("c.md")
    assert statuses.files() == {"a.md", "b.md"}
    assert "c.md" not in statuses
    assert statuses.get("a.md") == FileStatus(file="a.md", state="skipped", reason="too big")
    assert statuses.get("c.md") is None
