"""The load benchmark's machinery, run for two seconds with five clients, so that it keeps
working. The real load test is `uv run python -m bench.load` (50 clients, 60 s): not part of
the test command.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import REPO
from server_support import IndexedCopy, api_settings, copy_indexed
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex

sys.path.insert(0, str(REPO))  # bench/ lives beside tests/
from bench.load import EDITED, run_load

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_short_load_run_has_no_errors_and_loses_no_update(
    indexed_example: IndexedCopy, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    copy = copy_indexed(indexed_example, tmp_path)
    settings = api_settings(copy.vault, tmp_path, store=copy.store())
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        report = await run_load(
            index, settings, clients=5, duration_s=2.0, edit_every_s=0.3, latency_s=0.01
        )
    figures = report.summary()
    assert figures["search"]["requests"] > 0 and figures["ask"]["requests"] > 0
    assert report.errors == {"search": 0, "ask": 0}, report.samples
    assert report.server_warnings == []
    assert len(report.edits) >= len(EDITED)
    assert report.lost_updates == 0, (report.stale_files, report.edits)
    assert figures["edits"]["searchable_p95_ms"] is not None
