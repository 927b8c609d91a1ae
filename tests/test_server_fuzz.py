"""Schemathesis fuzzes the API against its own /v1/openapi.json: no input may cause a 5xx, and
every answer must match what the document promises (status codes, content types, schemas).

The server runs in a thread of its own (schemathesis calls it with blocking `requests`), over
the session's index, answering questions with the extractive profile. Examples are bounded per
operation so the whole run stays well under two minutes on two cores.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.config import SchemathesisConfig

from server_support import AUTH, TOKEN, ServedVault, api_settings
from vault_agent.server.app import make_app
from vault_agent.server.openapi import build_openapi
from vault_agent.server.routes import ROUTES
from vault_agent.server.runner import start_server

MAX_EXAMPLES = 25


@pytest.fixture(scope="module")
def live_api(served_vault: ServedVault, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The API on a real socket, served from a background thread; yields its base URL."""
    config = api_settings(served_vault.vault, Path(tmp_path_factory.mktemp("fuzz")))
    started = threading.Event()
    state: dict[str, object] = {}

    async def serve() -> None:
        index = served_vault.index
        app = make_app(config, token=TOKEN, vault_index=index, background_indexer=False)
        runner, port = await start_server(app, 0)
        stop = asyncio.Event()
        state.update(url=f"http://127.0.0.1:{port}", stop=stop, loop=asyncio.get_running_loop())
        started.set()
        await stop.wait()
        await runner.cleanup()

    thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
    thread.start()
    assert started.wait(timeout=60), "the API did not start"
    yield str(state["url"])
    loop = state["loop"]
    stop = state["stop"]
    assert isinstance(loop, asyncio.AbstractEventLoop) and isinstance(stop, asyncio.Event)
    loop.call_soon_threadsafe(stop.set)
    thread.join(timeout=30)


# Schemathesis' fixture-based loader (`from_fixture`) does not run on pytest 9, so the schema is
# the document the app serves, built the same way; the first test proves the two are equal.
DOCUMENT = build_openapi(ROUTES)
# The document API writes (and embeds): it is fuzzed over an index of its own, in
# test_sources_fuzz.py, so the session's shared index stays as it is.
# A note path (in the URL of /v1/notes, the body of /v1/related) is any string, but one that
# resolves outside the vault ("\\", "/etc/passwd",
# "a/../..") is refused with a documented 400, which no JSON schema pattern can express.
PATH_TAKING = ("/v1/notes/{path}", "/v1/related")
# A schema-violating body may also be too large: the documented 413 refuses it just as well.
REJECTED = [
    *("400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"),
    "5xx",
]
CONFIG = SchemathesisConfig.from_dict(
    {
        # Every call carries the token (`AUTH`): a case generated without the credential would
        # go out with it anyway, and the server's right 200 read as invalid data accepted.
        # Requests without a token or with a wrong one are tested in test_server_token.py.
        "generation": {"with-security-parameters": False},
        "checks": {"negative_data_rejection": {"expected-statuses": REJECTED}},
        "operations": [
            {
                "include-path": path,
                "checks": {
                    "positive_data_acceptance": {
                        "expected-statuses": ["2xx", "400", "401", "403", "404"]
                    }
                },
            }
            for path in PATH_TAKING
        ],
    }
)
schema = schemathesis.openapi.from_dict(DOCUMENT, config=CONFIG).exclude(path_regex="^/v1/sources")


def test_fuzzed_document_is_the_served_one(live_api: str) -> None:
    request = urllib.request.Request(f"{live_api}/v1/openapi.json", headers=AUTH)
    with urllib.request.urlopen(request, timeout=30) as response:
        served = json.loads(response.read())
    assert served == json.loads(json.dumps(DOCUMENT))


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,  # no .hypothesis folder left in the repository
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_openapi_document(case: schemathesis.Case[Any], live_api: str) -> None:
    case.call_and_validate(base_url=live_api, headers=AUTH, timeout=60)
