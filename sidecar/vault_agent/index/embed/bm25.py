"""Sparse BM25 term vectors, offline: fastembed's `Qdrant/bm25` with English stop words.

fastembed computes the term-frequency half of BM25 on our side; Qdrant applies IDF over the
collection (the sparse vector is created with the IDF modifier), so adding notes never
requires re-encoding old ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import platformdirs
from fastembed import SparseTextEmbedding
from stop_words import get_stop_words

from vault_agent.config import APP_NAME
from vault_agent.index.store.protocol import SparseVector
from vault_agent.private_files import private_dir

BM25_MODEL = "Qdrant/bm25"


class Bm25Encoder:
    """Encodes passages and queries as BM25 sparse vectors (Snowball-stemmed English)."""

    def __init__(self) -> None:
        # The model "weights" are just stop-word lists; we pass ours inline, so the folder
        # fastembed insists on stays empty and nothing is fetched.
        model_dir = Path(platformdirs.user_cache_dir(APP_NAME)) / "models" / "bm25"
        private_dir(model_dir)
        self._model = SparseTextEmbedding(
            BM25_MODEL,
            specific_model_path=str(model_dir),
            stopwords=set(get_stop_words("english")),
        )

    def embed_documents(self, texts: Sequence[str]) -> list[SparseVector]:
        """BM25 term weights for each passage, in input order."""
        return [
            SparseVector(indices=e.indices.tolist(), values=e.values.tolist())
            for e in self._model.embed(list(texts), batch_size=256)
        ]

    def embed_query(self, text: str) -> SparseVector:
        """Query terms, each weighted 1 (Qdrant's IDF modifier supplies the rest)."""
        embedding = next(iter(self._model.query_embed(text)))
        return SparseVector(indices=embedding.indices.tolist(), values=embedding.values.tolist())
