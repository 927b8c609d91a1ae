"""Shared fixtures: the real embedding models (loaded once) and paths to test data."""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import pytest

from vault_agent.config import Settings
from vault_agent.index import vault_index as vault_index_module
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.choose import ModelChoice, TextModels
from vault_agent.index.embed.minilm import MiniLmEmbedder, Vector
from vault_agent.index.vault_index import VaultIndex

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_VAULT = REPO / "examples" / "vault"
SHARED_DATA = REPO.parent / "shared" / "data"
CANARY = "CANARY-5f1c0de: this file is outside the vault"

# The HTTP API tests' fixtures (a served index, fake providers) live in their own module.
pytest_plugins = ["server_support"]


def shared_data(*parts: str) -> Path:
    """A path under ../shared/data, skipping the test when the data is not beside the repo."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared test data not found at {path}")
    return path


def shared_notes(vault: str, notes: Iterable[str], target: Path) -> Path:
    """A vault at `target` holding `notes` (paths in the vault) of the shared vault `vault`."""
    source = shared_data("vaults", vault)
    for note in notes:
        (target / note).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / note, target / note)
    return target


class WrappedEmbedder:
    """The real embedder, delegated to: a test's subclass watches or changes
    `embed_documents` (counts, records, holds or fails it) and leaves the rest as it is."""

    def __init__(self, inner: MiniLmEmbedder) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dim = inner.dim
        self.max_tokens = inner.max_tokens
        self.count_tokens = inner.count_tokens

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vector:
        return self.inner.embed_query(text)


@pytest.fixture(scope="session")
def vector_cache(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Dense vectors cached across test sessions (keyed by model and exact text); only for
    this session when pytest runs without its cache (`-p no:cacheprovider`)."""
    cache = getattr(request.config, "cache", None)
    if cache is None:
        return tmp_path_factory.mktemp("vault-agent-eval")
    return Path(cache.mkdir("vault-agent-eval"))


@pytest.fixture(scope="session")
def embedder() -> MiniLmEmbedder:
    """The real MiniLM model, loaded once per test session."""
    return MiniLmEmbedder()


@pytest.fixture(scope="session")
def sparse() -> Bm25Encoder:
    """The real BM25 encoder, loaded once per test session."""
    return Bm25Encoder()


@pytest.fixture
def session_models(
    monkeypatch: pytest.MonkeyPatch, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> TextModels:
    """Every VaultIndex the test opens (CLI, server) reads with the session's English models."""
    models = TextModels(
        embedder, sparse, ModelChoice(family="english", language="en", reason="test")
    )
    monkeypatch.setattr(vault_index_module, "text_models", lambda _settings: models)
    return models


@pytest.fixture(scope="session")
def agent_index(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[VaultIndex]:
    """A copy of examples/vault, indexed once per session for the agent tests (read-only).

    Beside the vault lies ``canary.md``, a file no tool may ever return (path traversal).
    """
    root = tmp_path_factory.mktemp("agent")
    shutil.copytree(EXAMPLE_VAULT, root / "vault")
    (root / "canary.md").write_text(f"# Canary\n\n{CANARY}\n", encoding="utf-8")
    settings = Settings(vault=root / "vault", data_dir=root / "data")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        yield index
