"""Typed keys for what the application shares between its handlers (aiohttp ``web.AppKey``).

Kept apart from `app.py` so handlers and middlewares can import them without importing the
factory that imports them.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from vault_agent.config import Settings
from vault_agent.server.index_service import BackgroundIndexer, IndexHolder
from vault_agent.server.model_service import ModelService

SETTINGS = web.AppKey("settings", Settings)
INDEX = web.AppKey("index", IndexHolder)
INDEXER = web.AppKey("indexer", BackgroundIndexer)
MODELS = web.AppKey("models", ModelService)
TOKEN = web.AppKey("token", str)
PUBLIC_ROUTES = web.AppKey("public_routes", frozenset[web.AbstractRoute])
OPENAPI = web.AppKey("openapi", dict[str, Any])
