"""One index sync in a process of its own that kills itself (SIGKILL) at a chosen write.

    python tests/crash_child.py VAULT DATA_DIR KILL_AT MODE [BATCH]

Counts every write the sync makes to the index (store upserts, deletes, payload rewrites, and
commits of the link cache) and at write number KILL_AT sends itself SIGKILL: before the write
(MODE "before"), after it ("after"), or, for an upsert, after writing half of its points
("half"). KILL_AT 0 never kills: the sync runs to the end and prints ``writes N``.

Embeddings come from `HashEmbedder` (deterministic, no model to load), so a run costs about a
second and two indexes of the same vault are equal point for point, vectors included.
"""

from __future__ import annotations

import hashlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import Vector
from vault_agent.index.store.protocol import DENSE_DIM
from vault_agent.index.vault_index import VaultIndex

MODES = ("before", "after", "half")
STORE_WRITES = ("delete_files", "upsert", "set_links", "set_payload")


class HashEmbedder:
    """A unit vector derived from the text's SHA-512: same text, same vector."""

    model_name = "sha512-test-embedder"
    dim = DENSE_DIM

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        return [self.embed_query(text) for text in texts]

    def embed_query(self, text: str) -> Vector:
        digest = hashlib.sha512(text.encode()).digest() * (DENSE_DIM // 64 + 1)
        values = np.frombuffer(digest[:DENSE_DIM], dtype=np.uint8).astype(np.float32) - 127.5
        vector: Vector = values / np.linalg.norm(values)
        return vector


class KillSwitch:
    """Counts writes; at number `kill_at` the process dies as `mode` says."""

    def __init__(self, kill_at: int, mode: str) -> None:
        self.kill_at = kill_at
        self.mode = mode
        self.writes = 0

    def install(self, index: VaultIndex) -> None:
        for name in STORE_WRITES:
            if hasattr(index.store, name):
                setattr(index.store, name, self._wrap(name, getattr(index.store, name)))
        cache = index.indexer.link_cache
        cache.commit = self._wrap("link_cache.commit", cache.commit)  # type: ignore[method-assign]

    def _wrap(self, name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def write(*args: Any) -> Any:
            self.writes += 1
            if self.writes == self.kill_at:
                if self.mode == "after":
                    real(*args)
                elif self.mode == "half" and name == "upsert" and len(args[0]) > 1:
                    real(args[0][: len(args[0]) // 2])
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args)

        return write


def open_index(vault: Path, data_dir: Path, batch: int) -> VaultIndex:
    """The vault's index as every run (killed, resumed or clean) opens it."""
    settings = Settings(vault=vault, data_dir=data_dir)
    settings.index.write_batch_chunks = batch
    return VaultIndex(settings, embedder=HashEmbedder(), sparse=Bm25Encoder())


def main(argv: list[str]) -> None:
    vault, data_dir, kill_at, mode, *rest = argv
    assert mode in MODES, mode
    index = open_index(Path(vault), Path(data_dir), int(rest[0]) if rest else 3)
    switch = KillSwitch(int(kill_at), mode)
    switch.install(index)
    index.indexer.sync()
    index.close()
    print(f"writes {switch.writes}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
