"""Index a folder of notes for an evaluation, through the product's own `VaultIndex`.

The index always goes into a fresh Qdrant Edge shard in `data_dir`, whatever the user's store
settings say: an evaluation must never write into a real vault's index, and Edge is the store
users run by default.
"""

from __future__ import annotations

from pathlib import Path

from vault_agent.config import Settings, StoreSettings
from vault_agent.evaluation.progress import OnProgress, no_progress
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import Embedder
from vault_agent.index.sync.status import (
    IndexProgress,
    SyncReport,
)
from vault_agent.index.vault_index import VaultIndex


def index_folder(
    vault: Path,
    data_dir: Path,
    embedder: Embedder,
    sparse: Bm25Encoder,
    on_progress: OnProgress = no_progress,
) -> tuple[VaultIndex, SyncReport]:
    """Open (and sync) an index of `vault` kept under `data_dir`; the caller closes it."""
    settings = Settings(vault=vault, data_dir=data_dir, store=StoreSettings())
    vault_index = VaultIndex(settings, embedder=embedder, sparse=sparse)
    try:

        def show(state: IndexProgress) -> None:
            on_progress("indexing", state.files_done, state.files_total)

        report = vault_index.indexer.sync(on_progress=show)
    except BaseException:
        vault_index.close()
        raise
    return vault_index, report
