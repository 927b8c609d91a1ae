"""Schemathesis fuzzes the document API (`/v1/sources/...`) against the OpenAPI document, as
test_server_fuzz.py does for the other routes: no input may cause a 5xx, every answer must
match the document. These routes write and embed, so they run over a private copy of the
example index, seeded with a few documents whose names the generator is likely to hit.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings

from server_support import AUTH, TOKEN, IndexedCopy, api_settings, copy_indexed
from vault_agent.index.documents.models import (
    Document,
)
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex
from vault_agent.server.app import make_app
from vault_agent.server.openapi import build_openapi
from vault_agent.server.routes import ROUTES
from vault_agent.server.runner import start_server

MAX_EXAMPLES = 50


@pytest.fixture(scope="module")
def sources_api(
    indexed_example: IndexedCopy,
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """The API over a private index, served from a background thread; yields its base URL."""
    root = Path(tmp_path_factory.mktemp("sources-fuzz"))
    copy = copy_indexed(indexed_example, root)
    config = api_settings(copy.vault, root, store=copy.store())
    started = threading.Event()
    state: dict[str, object] = {}

    async def serve(index: VaultIndex) -> None:
        app = make_app(config, token=TOKEN, vault_index=index, background_indexer=False)
        runner, port = await start_server(app, 0)
        stop = asyncio.Event()
        state.update(url=f"http://127.0.0.1:{port}", stop=stop, loop=asyncio.get_running_loop())
        started.set()
        await stop.wait()
        await runner.cleanup()

    with VaultIndex(config, embedder=embedder, sparse=sparse) as index:
        seeds = [Document(id=doc_id, text=f"Seed document {doc_id}.") for doc_id in "0aA"]
        for source in ("0", "a"):
            index.documents.replace(source, seeds)
        thread = threading.Thread(target=asyncio.run, args=(serve(index),), daemon=True)
        thread.start()
        assert started.wait(timeout=60), "the API did not start"
        yield str(state["url"])
        loop, stop = state["loop"], state["stop"]
        assert isinstance(loop, asyncio.AbstractEventLoop) and isinstance(stop, asyncio.Event)
        loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=30)


schema = schemathesis.openapi.from_dict(build_openapi(ROUTES)).include(path_regex="^/v1/sources")


def test_the_document_api_is_in_the_document() -> None:
    paths = build_openapi(ROUTES)["paths"]
    assert {
        "/v1/sources",
        "/v1/sources/{source}",
        "/v1/sources/{source}/documents",
        "/v1/sources/{source}/documents/{doc_id}",
    } <= set(paths)
    assert set(paths["/v1/sources/{source}/documents"]) == {"get", "put", "post"}
    assert set(paths["/v1/sources/{source}/documents/{doc_id}"]) == {"get", "patch", "delete"}


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,  # no .hypothesis folder left in the repository
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_document_api_conforms_to_its_openapi_document(
    case: schemathesis.Case[Any], sources_api: str
) -> None:
    case.call_and_validate(base_url=sources_api, headers=AUTH, timeout=120)
