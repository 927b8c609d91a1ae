"""One settings model for the sidecar and the CLI: vault, store, LLM profile, limits.

Values come from (highest first) explicit arguments, ``VAULT_AGENT_*`` environment variables
(nested with ``__``, e.g. ``VAULT_AGENT_LLM__PROFILE=ollama``) and defaults. Index data and
config live in the platform's user dirs, keyed by vault, never inside the vault.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from pathlib import Path
from typing import Annotated, Literal

import platformdirs
from pydantic import AfterValidator, BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from vault_agent.choices import EmbeddingVariant, LlmProfile

APP_NAME = "vault-agent"
#: How an embedding server is spoken to: Ollama's /api/embed or OpenAI's /v1/embeddings.
EmbeddingProtocol = Literal["ollama", "openai"]


class ServerModel(BaseModel):
    """An embedding model served over HTTP, as `index.embedding` names it (`ollama:bge-m3`)."""

    protocol: EmbeddingProtocol
    model: str


def server_model(embedding: str) -> ServerModel | None:
    """The server model `index.embedding` names, or None for the packaged models."""
    protocol, colon, model = embedding.partition(":")
    if not colon or protocol not in ("ollama", "openai"):
        return None
    return ServerModel.model_validate({"protocol": protocol, "model": model})


def _check_embedding(value: str) -> str:
    # One message naming every accepted form: a union of types would report one error per
    # member, none of which says what to write.
    if value in ("auto", "english", "multilingual"):
        return value
    server = server_model(value)
    if server is not None and server.model and server.model == server.model.strip():
        return value
    raise ValueError(
        "index.embedding must be auto, english, multilingual, ollama:<model> or "
        f"openai:<model> (e.g. ollama:nomic-embed-text), not {value!r}"
    )


EmbeddingSetting = Annotated[str, AfterValidator(_check_embedding)]


class StoreSettings(BaseModel):
    """Where the Qdrant index lives: in-process Edge (default) or a Qdrant server/cluster."""

    url: str | None = Field(
        default=None,
        description="Qdrant server or cluster URL with its scheme (http:// or https://), e.g. "
        "https://qdrant.example.com:6333; unset means the embedded Qdrant Edge engine.",
    )
    api_key: SecretStr | None = Field(
        default=None,
        description="Qdrant API key (server mode); unset: the QDRANT_API_KEY environment "
        "variable, if any.",
    )
    ca_cert: Path | None = Field(
        default=None,
        description="PEM file of the CA certificate(s) that signed an https server's "
        "certificate (self-signed or company CA). Unset: the public CAs (certifi), or the "
        "file named by SSL_CERT_FILE.",
    )
    collection: str | None = Field(
        default=None,
        description="Collection name; defaults to one per vault (vault-agent-<folder>-<hash "
        "of its path>).",
    )
    timeout_s: float = Field(
        default=10.0, gt=0, description="Server request timeout, rounded up to whole seconds."
    )
    path: Path | None = Field(
        default=None, description="Edge shard folder; defaults to the user data dir."
    )


class LlmSettings(BaseModel):
    """Which chat model answers; the agent loop never sees the choice."""

    profile: LlmProfile = "auto"
    model: str | None = Field(default=None, description="Model name; each profile has a default.")
    base_url: str | None = Field(default=None, description="Server URL for ollama/openai/mistral.")
    api_key: SecretStr | None = None
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0)
    max_turns: int = Field(default=5, ge=1, le=20)
    max_answer_s: float = Field(
        default=600.0,
        gt=0,
        description="A question ends with a model_timeout error once the model has spent this "
        "long answering it, however it keeps its streams alive (a slow drip, keep-alives).",
    )
    max_answer_chars: int = Field(
        default=40_000,
        ge=100,
        description="A model's turn is stopped past this many characters of text (a model "
        "repeating itself), and its HTTP answer past 256 bytes per character: the question "
        "ends with a bad_response error instead of running on.",
    )


class IndexSettings(BaseModel):
    """What gets indexed and how big a file may be."""

    max_file_bytes: int = Field(default=5_000_000, gt=0)
    embed_batch_size: int = Field(
        default=16,
        ge=1,
        le=256,
        description="Texts embedded together: per ONNX run (packaged MiniLM) or per request "
        "to an embedding server.",
    )
    write_batch_chunks: int = Field(
        default=64,
        ge=1,
        description="Chunks embedded and written together: keeps both cores busy while memory "
        "stays flat however big the vault is.",
    )
    embed_threads: int | None = Field(
        default=None,
        description="Embedding threads (dynamic-int8: texts embedded in parallel; packaged: "
        "ONNX threads per batch); None = all cores.",
    )
    embedding: EmbeddingSetting = Field(
        default="auto",
        description="english: MiniLM; multilingual: the multilingual Universal Sentence "
        "Encoder (16 languages, one space for all); auto: decided from a sample of the "
        "vault's notes at its first index; ollama:<model> or openai:<model>: a model served "
        "by Ollama or an OpenAI-compatible server (see embedding_url). Changing it re-embeds "
        "the vault once.",
    )
    embedding_url: str | None = Field(
        default=None,
        description="The embedding server (ollama:/openai: models). Unset: llm.base_url when "
        "llm.profile is the same kind of server, else OLLAMA_HOST or OPENAI_BASE_URL, else "
        "http://127.0.0.1:11434 (Ollama) or http://127.0.0.1:1234/v1 (LM Studio).",
    )
    embedding_api_key: SecretStr | None = Field(
        default=None,
        description="Bearer key for the embedding server. Unset: llm.api_key when llm.profile "
        "is openai, else OPENAI_API_KEY (openai: models only).",
    )
    embedding_query_prefix: str | None = Field(
        default=None,
        description="Written before each question a served model embeds. Unset: what the "
        "model's card documents for its family (nomic-embed-text 'search_query: ', E5 "
        "'query: ', mxbai/arctic/BGE v1.5 their search instruction), else none; '' for none. "
        "Changing it re-embeds the vault once.",
    )
    embedding_document_prefix: str | None = Field(
        default=None,
        description="Written before each passage a served model embeds. Unset: the model "
        "family's (nomic-embed-text 'search_document: ', E5 'passage: '), else none; '' for "
        "none. Changing it re-embeds the vault once.",
    )
    embedding_timeout_s: float = Field(
        default=60.0,
        gt=0,
        description="Longest an embedding server may take to answer one request (a model is "
        "loaded on its first request).",
    )
    embedding_max_retries: int = Field(
        default=3,
        ge=0,
        le=10,
        description="Retries of a request an embedding server refused to connect, failed (5xx) "
        "or rate-limited (429), with exponential backoff.",
    )
    english_model: EmbeddingVariant = Field(
        default="dynamic-int8",
        description="MiniLM as dynamic-int8 (int8 matrix products, ~1.6x faster) or packaged "
        "(the model as shipped, fp32 products). Switching re-embeds the vault once.",
    )
    language: str | None = Field(
        default=None,
        description="The notes' language for keyword search (ISO 639-1, e.g. de): stemming "
        "and stop words. Unset: the language most sampled notes are in.",
    )
    pdf_max_bytes: int = Field(
        default=100_000_000,
        gt=0,
        description="Largest PDF read (papers with figures run to tens of MB, so PDFs have "
        "their own limit instead of max_file_bytes).",
    )
    pdf_max_pages: int = Field(default=2_000, gt=0, description="PDFs with more pages are skipped.")
    pdf_max_text_chars: int = Field(
        default=10_000_000,
        gt=0,
        description="PDFs with more text (in characters) are skipped: 2,000 "
        "dense pages hold about 10 million, but a small file can draw much more (350 KB: 10 "
        "million on one page), all of it to embed and store.",
    )
    pdf_timeout_s: float = Field(
        default=120.0, gt=0, description="Longest one PDF's text extraction may take."
    )
    pdf_workers: int = Field(
        default=1,
        ge=0,
        le=16,
        description="Processes extracting PDF text beside the indexer (0: inline, no timeout).",
    )
    pdf_max_memory_mb: int = Field(
        default=2_048,
        ge=64,
        description="Memory one PDF worker may take (its address space, where the system "
        "limits it: Linux). A PDF needing more (a small file drawing megabytes of text on a "
        "page: 1.7 GB for 350 KB) stops its worker and is not indexed, instead of taking the "
        "machine's memory.",
    )
    ignore: list[str] = Field(
        # node_modules at any depth: a code project kept in the vault brings thousands of
        # packages' READMEs (hidden folders, .git among them, are never indexed anyway).
        default_factory=lambda: [
            ".obsidian/**",
            ".trash/**",
            ".git/**",
            "node_modules/**",
            "**/node_modules/**",
        ],
        description="Glob patterns (vault-relative) that are never indexed.",
    )


class ServerSettings(BaseModel):
    """The local HTTP API (`vault-agent serve`). It always binds 127.0.0.1."""

    port: int = Field(default=8765, ge=0, le=65535, description="TCP port; 0 picks a free one.")
    max_body_bytes: int = Field(
        default=4 * 1024 * 1024,
        ge=1024,
        description="Largest request body; bigger ones get 413. Covers an unsaved active note "
        "of a few MB.",
    )
    body_timeout_s: float = Field(
        default=30.0, gt=0, description="Longest a request body may take to arrive (408 after)."
    )
    idle_timeout_s: float = Field(
        default=30.0,
        gt=0,
        description="A connection is closed when its next request's headers have not arrived "
        "this long after it opened or after its last answer (slow or idle clients).",
    )
    max_connections: int = Field(
        default=256,
        ge=1,
        description="Open connections at most; one more gets 503 too_many_connections and is "
        "closed (each holds a file descriptor; Obsidian needs a few).",
    )


class Settings(BaseSettings):
    """Everything the sidecar needs to run against one vault."""

    model_config = SettingsConfigDict(
        env_prefix="VAULT_AGENT_", env_nested_delimiter="__", extra="ignore"
    )

    vault: Path = Field(default_factory=Path.cwd)
    data_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_data_dir(APP_NAME)),
        description="Root for index data; each vault gets its own folder below it.",
    )
    config_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_config_dir(APP_NAME)),
        description="Where the sidecar token is kept.",
    )
    store: StoreSettings = Field(default_factory=StoreSettings)
    llm: LlmSettings = Field(default_factory=LlmSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    token: SecretStr | None = Field(
        default=None,
        description="Bearer token of the HTTP API (env VAULT_AGENT_TOKEN). Unset: generated "
        "once and kept in config_dir/token, readable by the user only.",
    )

    @property
    def vault_root(self) -> Path:
        """The vault folder, absolute and with symlinks resolved."""
        return self.vault.expanduser().resolve()

    @property
    def vault_id(self) -> uuid.UUID:
        """A stable id for this vault: uuid5 of its absolute path."""
        return uuid.uuid5(uuid.NAMESPACE_URL, self.vault_root.as_uri())

    @property
    def vault_slug(self) -> str:
        """A readable, filesystem-safe, unique name for this vault's data folder."""
        name = re.sub(r"[^A-Za-z0-9_-]+", "-", self.vault_root.name).strip("-") or "vault"
        digest = hashlib.sha1(self.vault_root.as_uri().encode()).hexdigest()[:10]
        return f"{name[:40]}-{digest}"

    @property
    def vault_data_dir(self) -> Path:
        """This vault's folder under the user data dir."""
        return self.data_dir / "vaults" / self.vault_slug

    @property
    def edge_path(self) -> Path:
        """The Qdrant Edge shard folder for this vault."""
        return self.store.path or self.vault_data_dir / "qdrant-edge"

    @property
    def collection_name(self) -> str:
        """The Qdrant collection for this vault (server mode): `store.collection` if set, else
        derived from the vault's absolute path, so vaults sharing a server never share a
        collection and a vault finds its own again."""
        return self.store.collection or f"vault-agent-{self.vault_slug}"
