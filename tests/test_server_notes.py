"""``GET /v1/notes/{path}``: a note rebuilt from its chunks, and never anything outside the vault.

Beside the served vault lies a canary file; every traversal trick (``../``, absolute paths,
URL-encoded and double-encoded dots and slashes, backslashes, a symlink inside the vault
pointing at the canary) must be refused and must never return its content. URLs are sent as
given (``encoded=True``) so the client cannot tidy the trick away before the server sees it.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from yarl import URL

from server_support import AUTH, CANARY, Api, ServedVault

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def get_raw(api: Api, raw_path: str) -> tuple[int, str]:
    url = URL(api.url("/v1/notes/") + raw_path, encoded=True)
    async with api.session.get(url, headers=AUTH) as response:
        return response.status, await response.text()


async def test_note_is_rebuilt_from_its_chunks(api: Api, served_vault: ServedVault) -> None:
    url = api.url("/v1/notes/Recipes/Sourdough%20Starter.md")
    async with api.session.get(url, headers=AUTH) as response:
        assert response.status == 200
        note = await response.json()
    assert note["file"] == "Recipes/Sourdough Starter.md"
    assert note["title"] == "Sourdough Starter"
    assert "My starter is called Gus" in note["markdown"]
    assert "Sourdough Starter > Reviving from the fridge" in note["headings"]
    stored = served_vault.index.store.count()
    assert 2 <= note["chunks"] < stored
    # Read from the note's first chunk, the only one that stores them.
    assert note["links"] == [
        "People/Ruth Adler.md",
        "Recipes/Country Loaf.md",
        "Recipes/Rosemary Focaccia.md",
    ]


async def test_note_is_found_without_its_md_suffix(api: Api) -> None:
    status, body = await get_raw(api, "Recipes/Sourdough%20Starter")
    assert status == 200
    assert '"file":"Recipes/Sourdough Starter.md"' in body


async def test_unknown_note_is_404(api: Api) -> None:
    status, body = await get_raw(api, "Recipes/Beef%20Wellington.md")
    assert status == 404
    assert '"note_not_found"' in body


TRICKS = [
    "../canary.md",
    "..%2Fcanary.md",
    "..%2fcanary",
    "%2e%2e%2fcanary.md",
    "%2E%2E/canary.md",
    "%2e%2e/%2e%2e/canary.md",
    "Recipes/../../canary.md",
    "Recipes/%2e%2e/%2e%2e/canary.md",
    "..%5Ccanary.md",
    "..\\canary.md",
    "%252e%252e%252fcanary.md",
    "....//canary.md",
    "%00../canary.md",
    "escape.md",
    "escape",
]


@pytest.mark.parametrize("trick", TRICKS)
async def test_traversal_never_returns_the_canary(api: Api, trick: str) -> None:
    status, body = await get_raw(api, trick)
    assert status in (400, 404), body
    assert CANARY not in body
    assert "Canary" not in body


@pytest.mark.parametrize("encode_slashes", [True, False])
async def test_absolute_path_is_refused(
    api: Api, served_vault: ServedVault, encode_slashes: bool
) -> None:
    absolute = str(served_vault.canary)
    raw = quote(absolute, safe="" if encode_slashes else "/")
    status, body = await get_raw(api, raw)
    assert status in (400, 404)
    assert CANARY not in body


async def test_symlink_out_of_the_vault_is_refused_as_outside(api: Api) -> None:
    status, body = await get_raw(api, "escape.md")
    assert status == 400
    assert '"path_outside_vault"' in body


async def test_encoded_dot_dot_is_refused_as_outside(api: Api) -> None:
    status, body = await get_raw(api, "%2e%2e%2fcanary.md")
    assert status == 400
    assert '"path_outside_vault"' in body
