"""`make_app`: the aiohttp application serving one vault to the Obsidian plugin.

What it shares lives under typed keys (`keys.py`); each client is opened and closed by a
``cleanup_ctx`` generator, so shutdown runs in reverse: the chat model's connections close,
the background indexer stops (no worker thread touches the store after it), and the store is
released last (with Qdrant Edge, its folder lock, so the CLI can open the index again). While
it runs, no log line may hold its token (:mod:`vault_agent.server.redaction`).

Tests and benchmarks pass in what they built once (an open `VaultIndex`, the embedders, a
model); the app then borrows it and does not close it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import AsyncIterator

from aiohttp import web

from vault_agent.agent.extractive import ExtractiveAnswerer
from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import Embedder
from vault_agent.index.vault_index import VaultIndex
from vault_agent.llm.model import (
    ChatModel,
)
from vault_agent.local_http import url_secrets
from vault_agent.server.errors import error_middleware
from vault_agent.server.index_service import BackgroundIndexer, IndexHolder
from vault_agent.server.keys import INDEX, INDEXER, MODELS, OPENAPI, SETTINGS, TOKEN
from vault_agent.server.model_service import ModelService
from vault_agent.server.openapi import build_openapi
from vault_agent.server.redaction import secrets_redacted
from vault_agent.server.routes import ROUTES, setup_routes
from vault_agent.server.security import (
    add_response_headers,
    auth_middleware,
    expect_middleware,
    host_middleware,
    origin_middleware,
)
from vault_agent.server.token import resolve_token

#: Keys the clients read from the environment when the settings name none.
SECRET_ENVIRONMENT = ("MISTRAL_API_KEY", "OPENAI_API_KEY", "QDRANT_API_KEY")


def make_app(
    settings: Settings,
    *,
    token: str | None = None,
    vault_index: VaultIndex | None = None,
    embedder: Embedder | None = None,
    sparse: Bm25Encoder | None = None,
    model: ChatModel | None = None,
    background_indexer: bool = True,
    watch: bool = True,
) -> web.Application:
    """The API for `settings.vault`.

    `token` defaults to the one `resolve_token` finds (environment, else the token file).
    With `background_indexer`, the index is synced at start-up and then (with `watch`) kept
    in step with the vault; `POST /v1/index/sync` works either way.
    """
    app = web.Application(
        # Order matters: errors outermost (everything leaves in the error shape), then Host
        # and Origin, which need no token, an Expect the sidecar can't meet, then the token.
        middlewares=[
            error_middleware,
            host_middleware,
            origin_middleware,
            expect_middleware,
            auth_middleware,
        ],
        client_max_size=settings.server.max_body_bytes,
    )
    app[SETTINGS] = settings
    app[TOKEN] = token if token is not None else resolve_token(settings).value
    holder = IndexHolder(settings, index=vault_index, embedder=embedder, sparse=sparse)
    app[INDEX] = holder
    app[INDEXER] = BackgroundIndexer(holder, watch=watch)
    app[MODELS] = ModelService(settings.llm, lambda: ExtractiveAnswerer(holder.embedder), model)
    setup_routes(app, ROUTES)
    app[OPENAPI] = build_openapi(ROUTES)
    app.on_response_prepare.append(add_response_headers)
    app.cleanup_ctx.extend(
        [
            _redaction_ctx,
            _index_ctx,
            functools.partial(_indexer_ctx, start=background_indexer),
            _model_ctx,
        ]
    )
    return app


async def _redaction_ctx(app: web.Application) -> AsyncIterator[None]:
    """The token, the API keys and what the configured URLs carry are kept out of every log
    line while the app runs (first in, last out)."""
    with secrets_redacted(app[TOKEN], *_configured_secrets(app[SETTINGS])):
        yield


def _configured_secrets(settings: Settings) -> list[str]:
    """API keys, and the user parts and long query values of the servers' URLs (settings and
    the environment variables that stand in for them)."""
    keys = [settings.llm.api_key, settings.store.api_key, settings.index.embedding_api_key]
    urls = [settings.llm.base_url, settings.index.embedding_url, settings.store.url]
    urls += [os.environ.get(name) for name in ("OLLAMA_HOST", "OPENAI_BASE_URL")]
    found = [key.get_secret_value() for key in keys if key is not None]
    found += [os.environ.get(name, "") for name in SECRET_ENVIRONMENT]
    found += [part for url in urls for part in url_secrets(url)]
    return [secret for secret in dict.fromkeys(found) if secret]


async def _index_ctx(app: web.Application) -> AsyncIterator[None]:
    """Open the index (a failure leaves the app up, answering 503); release it last."""
    holder = app[INDEX]
    await holder.open()
    yield
    await holder.close()


async def _indexer_ctx(app: web.Application, *, start: bool) -> AsyncIterator[None]:
    """Start-up sync and watching; stopped (always: a requested sync may be running) before
    the index closes."""
    indexer = app[INDEXER]
    if start:
        indexer.start()
    yield
    await indexer.stop()


async def _model_ctx(app: web.Application) -> AsyncIterator[None]:
    """Select the default chat model; close its connections at shutdown."""
    models = app[MODELS]
    await models.start()
    yield
    await models.close()
