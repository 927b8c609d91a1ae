"""A sentence-transformers encoder run on onnxruntime: word-pieces in, one unit vector out.

This is what fastembed does for a custom model with mean pooling (its `TextEmbedding` with
`PoolingType.MEAN` and normalisation), computed the same way, so the vectors are the same:
the tokenizer truncates at the model's limit and pads a batch to its longest text, the model
runs on int64 ids with zero token types, and the token vectors the attention mask keeps are
averaged (in float64) and scaled to unit length. It is done here because importing fastembed
costs 0.4-0.6 s (it loads huggingface_hub, requests, httpx and PIL for downloads and images
we never use) on every start of the CLI, which answers a search in less than that.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort  # type: ignore[import-untyped]
from numpy.typing import NDArray
from tokenizers import Tokenizer

#: Guards against dividing by zero (an empty mask, a zero vector), fastembed's values.
_EPS_MASK = 1e-9
_EPS_NORM = 1e-12


class MeanPooledEncoder:
    """One ONNX model and its tokenizer; `encode` turns a batch of texts into unit vectors."""

    def __init__(
        self, model_file: Path, tokenizer_file: Path, max_tokens: int, threads: int | None
    ) -> None:
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        # A tokenizer.json may truncate and pad to a fixed length (MiniLM's: 128): the model
        # reads `max_tokens`, and a batch is padded only to its longest text, with the file's
        # pad token.
        padding = self.tokenizer.padding or {}
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.enable_padding(
            pad_id=padding.get("pad_id", 0), pad_token=padding.get("pad_token", "[PAD]")
        )
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads is not None:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = threads
        self.session = ort.InferenceSession(
            str(model_file), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {node.name for node in self.session.get_inputs()}

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """The unit vectors of `texts` (one batch, padded to its longest), one row each."""
        encodings = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feeds["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        tokens: NDArray[np.float32] = self.session.run(None, feeds)[0]
        # The kept tokens' mean, summed in float64 as fastembed does, then unit length.
        summed = np.sum(tokens, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
        pooled = summed / np.maximum(np.sum(mask, axis=1, keepdims=True), _EPS_MASK)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), _EPS_NORM)
        vectors: NDArray[np.float32] = (pooled / norms).astype(np.float32)
        return vectors
