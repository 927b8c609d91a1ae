"""`CachedEmbedder`: dense vectors kept on disk, keyed by model and exact text.

Embedding SciFact's 5,183 abstracts takes several minutes on two cores, and most levers worth
trying (fusion, BM25, candidate depth) leave the embedded text alone. The cache makes those
re-runs free; a lever that changes the text re-embeds only the texts it changed.

Layout: one folder per model; new vectors are written in `.npz` shards of at least
`SHARD_SIZE` vectors (the rest on `flush()`), each atomically, so an interrupted run keeps
most of what it finished. Shards are merged into one when there are many.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vault_agent.index.embed.minilm import Embedder, Vector
from vault_agent.private_files import private_dir, private_file

#: Merge the shards into one file once there are more than this many.
COMPACT_AFTER = 64
#: New vectors are written once this many are waiting (queries arrive one at a time).
SHARD_SIZE = 64


class CachedEmbedder:
    """An `Embedder` that answers from `cache_dir` and asks `inner` only for unseen texts."""

    def __init__(self, inner: Embedder, cache_dir: Path) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dim = inner.dim
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", inner.model_name)
        self.folder = cache_dir / "embeddings" / slug
        private_dir(self.folder)
        self._vectors: dict[str, Vector] = _load(self.folder)
        self._unsaved: list[str] = []
        self.hits = 0
        self.misses = 0

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        """Vectors for `texts`, in order; only texts never seen before are embedded."""
        return self._embed(texts, "doc")

    def embed_query(self, text: str) -> Vector:
        """One query vector (cached too: an eval asks the same queries in several modes)."""
        return self._embed([text], "query")[0]

    def _embed(self, texts: Sequence[str], kind: str) -> list[Vector]:
        keys = [_key(self.model_name, kind, text) for text in texts]
        missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in self._vectors})
        if missing:
            by_key = dict(zip(keys, texts, strict=True))
            wanted = [by_key[k] for k in missing]
            if kind == "query":
                fresh = [self.inner.embed_query(t) for t in wanted]
            else:
                fresh = self.inner.embed_documents(wanted)
            self._vectors.update(zip(missing, fresh, strict=True))
            self._unsaved.extend(missing)
            if len(self._unsaved) >= SHARD_SIZE:
                self.flush()
        self.misses += len(missing)
        self.hits += len(keys) - len(missing)
        return [self._vectors[k] for k in keys]

    def flush(self) -> None:
        """Write the vectors not yet on disk."""
        if self._unsaved:
            _save_shard(self.folder, self._unsaved, [self._vectors[k] for k in self._unsaved])
            self._unsaved = []


def _key(model: str, kind: str, text: str) -> str:
    return hashlib.sha256(f"{model}\x00{kind}\x00{text}".encode()).hexdigest()


def _load(folder: Path) -> dict[str, Vector]:
    shards = sorted(folder.glob("*.npz"))
    vectors: dict[str, Vector] = {}
    for shard in shards:
        try:
            with np.load(shard) as data:
                keys, values = data["keys"], data["vectors"]
        except (OSError, ValueError, KeyError):  # a damaged shard is just a cache miss
            continue
        vectors.update(zip(keys.tolist(), values.astype(np.float32), strict=True))
    if len(shards) > COMPACT_AFTER and vectors:
        keys_all = list(vectors)
        _save_shard(folder, keys_all, [vectors[k] for k in keys_all])
        merged = _shard_name(keys_all)
        for shard in shards:
            if shard.name != merged:
                shard.unlink(missing_ok=True)
    return vectors


def _save_shard(folder: Path, keys: list[str], vectors: Sequence[Vector]) -> None:
    target = folder / _shard_name(keys)
    temporary = folder / f".{target.stem}.{os.getpid()}.npz"
    with private_file(temporary) as handle:
        np.savez(handle, keys=np.array(keys), vectors=np.stack(vectors).astype(np.float32))
    temporary.replace(target)  # readers never see half a shard


def _shard_name(keys: list[str]) -> str:
    return hashlib.sha256("".join(keys).encode()).hexdigest()[:16] + ".npz"
