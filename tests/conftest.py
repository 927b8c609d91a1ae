"""Shared fixtures: the real embedding models (loaded once) and paths to test data."""

from __future__ import annotations

from pathlib import Path

import pytest

from vault_agent.index.embedder import MiniLmEmbedder
from vault_agent.index.sparse import Bm25Encoder

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_VAULT = REPO / "examples" / "vault"
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_data(*parts: str) -> Path:
    """A path under ../shared/data, skipping the test when the data is not beside the repo."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared test data not found at {path}")
    return path


@pytest.fixture(scope="session")
def embedder() -> MiniLmEmbedder:
    """The real MiniLM model, loaded once per test session."""
    return MiniLmEmbedder()


@pytest.fixture(scope="session")
def sparse() -> Bm25Encoder:
    """The real BM25 encoder, loaded once per test session."""
    return Bm25Encoder()
