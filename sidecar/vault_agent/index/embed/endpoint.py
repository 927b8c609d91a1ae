"""Where a served embedding model is asked: the URL and key for `index.embedding`'s
`ollama:<model>` or `openai:<model>`.

The server defaults to the one the chat model already uses, read the same way (`llm/` reads
the same settings and variables; the index may not import it): `index.embedding_url`, else
`llm.base_url` when `llm.profile` speaks the same protocol, else `OLLAMA_HOST` /
`OPENAI_BASE_URL`, else the local defaults of Ollama and LM Studio. The key, likewise:
`index.embedding_api_key`, else (OpenAI-compatible servers only, as for chat) `llm.api_key` of
the openai profile, else `OPENAI_API_KEY`.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import httpx
from ollama._client import _parse_host
from pydantic import BaseModel, SecretStr

from vault_agent.config import EmbeddingProtocol, ServerModel, Settings
from vault_agent.local_http import shown_url

OLLAMA_HOST_ENV = "OLLAMA_HOST"
OPENAI_BASE_URL_ENV = "OPENAI_BASE_URL"
OPENAI_API_KEY_ENV = "OPENAI_API_KEY"
#: LM Studio's default (llama.cpp's server listens on :8080, vLLM on :8000).
OPENAI_DEFAULT_URL = "http://127.0.0.1:1234/v1"


class EmbeddingEndpoint(BaseModel):
    """One served model: how to speak to it, where, and with which key."""

    protocol: EmbeddingProtocol
    model: str
    url: str
    """Ollama: the host (`http://127.0.0.1:11434`); OpenAI-compatible: the base URL (`.../v1`)."""
    api_key: SecretStr | None = None

    @property
    def model_name(self) -> str:
        """The id every chunk records: another one re-embeds the vault. An Ollama model name
        is the same model on any host; an OpenAI-compatible server's name may be anything
        (llama.cpp answers to any), so its host is part of the id."""
        if self.protocol == "ollama":
            return f"ollama:{self.model}"
        parts = urlsplit(self.url)
        host = f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname
        return f"openai:{self.model}@{host}"

    @property
    def who(self) -> str:
        """The server and model, for messages: "Ollama at http://... (model bge-m3)"."""
        server = "Ollama" if self.protocol == "ollama" else "the OpenAI-compatible server"
        return f"{server} at {shown_url(self.url)} (model {self.model})"


def endpoint_for(served: ServerModel, settings: Settings) -> EmbeddingEndpoint:
    """The endpoint of `served` under `settings` (see the module docstring)."""
    index, llm = settings.index, settings.llm
    same_server = llm.profile == served.protocol
    url = index.embedding_url or (llm.base_url if same_server else None)
    key = index.embedding_api_key
    if served.protocol == "ollama":
        # The ollama SDK's parser: a host is read exactly as the ollama CLI reads it.
        return EmbeddingEndpoint(
            protocol="ollama",
            model=served.model,
            url=str(_parse_host(url or os.environ.get(OLLAMA_HOST_ENV))),
            api_key=key,
        )
    key = key or (llm.api_key if same_server else None)
    if key is None and os.environ.get(OPENAI_API_KEY_ENV):
        key = SecretStr(os.environ[OPENAI_API_KEY_ENV])
    return EmbeddingEndpoint(
        protocol="openai",
        model=served.model,
        url=openai_base_url(url or os.environ.get(OPENAI_BASE_URL_ENV) or OPENAI_DEFAULT_URL),
        api_key=key,
    )


def openai_base_url(url: str) -> str:
    """``http://host:port`` means ``http://host:port/v1``; a URL with a path is kept."""
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    return url + "/v1" if httpx.URL(url).path in ("", "/") else url
