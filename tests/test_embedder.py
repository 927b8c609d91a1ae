"""The packaged embedding models: pinned reference values, so a broken tokenizer fails loudly."""

from __future__ import annotations

import numpy as np
import pytest

from vault_agent.index.embedder import MiniLmEmbedder
from vault_agent.index.sparse import Bm25Encoder

LONG_TEXT = " ".join(
    f"Paragraph {i}: the sourdough starter was fed with rye flour and water at dawn."
    for i in range(40)
)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_reference_cosine_matches_the_int8_model(embedder: MiniLmEmbedder) -> None:
    # PyTorch reference: 0.755; these int8 weights: 0.753 (DESIGN.md).
    a, b = embedder.embed_documents(["A man is eating food.", "A man is eating a piece of bread."])
    assert cosine(a, b) == pytest.approx(0.753, abs=0.003)


def test_unrelated_sentences_are_far_apart(embedder: MiniLmEmbedder) -> None:
    a, b = embedder.embed_documents(["A man is eating food.", "The stock market fell today."])
    assert cosine(a, b) < 0.2


def test_vectors_are_unit_length_and_384_wide(embedder: MiniLmEmbedder) -> None:
    (vector,) = embedder.embed_documents(["hello"])
    assert vector.shape == (384,)
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-4)


def test_tokens_past_128_still_count(embedder: MiniLmEmbedder) -> None:
    # The packaged tokenizer.json truncates at 128 tokens; we must read up to 256, so the
    # embedding of a long text changes when words beyond token 128 change.
    words = LONG_TEXT.split()
    head = " ".join(words[:100])
    tail_a = " ".join(["astronomy telescopes galaxies"] * 10)
    tail_b = " ".join(["medieval castles knights"] * 10)
    a, b = embedder.embed_documents([f"{head} {tail_a}", f"{head} {tail_b}"])
    assert cosine(a, b) < 0.97


def test_padding_to_the_longest_does_not_change_a_short_text(embedder: MiniLmEmbedder) -> None:
    (alone,) = embedder.embed_documents(["Garden irrigation plan"])
    batched = embedder.embed_documents(["Garden irrigation plan", LONG_TEXT])
    assert cosine(alone, batched[0]) > 0.999


def test_documents_come_back_in_input_order(embedder: MiniLmEmbedder) -> None:
    texts = [LONG_TEXT, "short", "a medium length sentence about bread"]
    together = embedder.embed_documents(texts)
    for text, vector in zip(texts, together, strict=True):
        (alone,) = embedder.embed_documents([text])
        assert cosine(alone, vector) > 0.999


def test_query_and_document_embeddings_agree(embedder: MiniLmEmbedder) -> None:
    (document,) = embedder.embed_documents(["How to water tomatoes"])
    assert cosine(embedder.embed_query("How to water tomatoes"), document) > 0.999


def test_bm25_drops_stop_words_and_stems(sparse: Bm25Encoder) -> None:
    query = sparse.embed_query("the running foxes")
    (document,) = sparse.embed_documents(["A fox runs"])
    assert len(query.indices) == 2  # "the" is a stop word
    assert set(query.indices) == set(document.indices)  # running/runs -> run, foxes/fox -> fox


def test_bm25_weights_repeated_terms_higher(sparse: Bm25Encoder) -> None:
    once, thrice = sparse.embed_documents(["garden notes here", "garden garden garden notes"])
    weight_once = dict(zip(once.indices, once.values, strict=True))
    weight_thrice = dict(zip(thrice.indices, thrice.values, strict=True))
    (garden,) = sparse.embed_query("garden").indices
    assert weight_thrice[garden] > weight_once[garden]
