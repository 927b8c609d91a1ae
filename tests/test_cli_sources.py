"""`vault-agent sources list | add | remove`: on an index no process holds, the CLI opens it
itself; when a running sidecar holds it (Qdrant Edge lets one process in), the CLI goes through
that sidecar's API, and says which it did. A sidecar serving another vault is never written to.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from server_support import TOKEN, api_settings
from test_security_egress import RecordingProxy, proxy  # noqa: F401 (a fixture)
from vault_agent.cli.main import app
from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.server.app import make_app
from vault_agent.server.runner import start_server

DOCUMENTS = [
    {
        "id": "skellig-1904",
        "title": "Skellig lighthouse log",
        "url": "https://example.org/skellig-log",
        "text": "On 3 June the keeper counted 412 storm petrels.",
    },
    {"id": "puffins", "text": "Puffins dig burrows in the turf.", "tags": ["birds"]},
]


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-note vault, with data and config dirs of its own (and the test token)."""
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "Welcome.md").write_text("# Welcome\n\nA note.\n", encoding="utf-8")
    monkeypatch.setenv("VAULT_AGENT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("VAULT_AGENT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("VAULT_AGENT_TOKEN", TOKEN)
    monkeypatch.delenv("VAULT_AGENT_VAULT", raising=False)
    return folder


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "documents.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in DOCUMENTS) + "\n\n", encoding="utf-8")
    return path


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def sources_of(vault: Path, *options: str) -> dict[str, int]:
    code, out, _ = run("sources", "list", "--vault", str(vault), "--json", *options)
    assert code == 0, out
    return {info["source"]: info["documents"] for info in json.loads(out)}


def test_without_a_sidecar_the_cli_opens_the_index_itself(vault: Path, jsonl: Path) -> None:
    code, out, err = run("sources", "add", "field-notes", str(jsonl), "--vault", str(vault))
    assert code == 0, err
    assert "opened it directly" in err
    assert "field-notes: 2 added, 0 updated, 0 unchanged (2 chunks embedded)" in out
    code, out, err = run("sources", "add", "field-notes", str(jsonl), "--vault", str(vault))
    assert "0 added, 0 updated, 2 unchanged (0 chunks embedded)" in out
    assert sources_of(vault) == {"vault": 0, "field-notes": 2}
    code, out, _ = run("sources", "list", "--vault", str(vault))
    assert code == 0 and "field-notes" in out and "api" in out
    code, out, _ = run("sources", "remove", "field-notes", "--vault", str(vault))
    assert (code, out.strip()) == (0, "Removed field-notes: 2 documents, 2 chunks.")
    code, out, _ = run("sources", "remove", "field-notes", "--vault", str(vault))
    assert "Nothing to remove" in out
    assert sources_of(vault) == {"vault": 0}


def test_bad_input_is_refused_before_anything_is_written(
    vault: Path, jsonl: Path, tmp_path: Path
) -> None:
    code, _, err = run("sources", "add", "vault", str(jsonl), "--vault", str(vault))
    assert code == 2 and "'vault' is reserved" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(DOCUMENTS[0]) + '\n{"id": "notext"}\n', encoding="utf-8")
    code, _, err = run("sources", "add", "clips", str(bad), "--vault", str(vault))
    assert code == 2 and "bad.jsonl, line 2: text: Field required" in " ".join(err.split())
    huge = tmp_path / "huge.jsonl"
    huge.write_text(json.dumps({"id": "big", "text": "a" * 1_000_001}), encoding="utf-8")
    code, _, err = run("sources", "add", "clips", str(huge), "--vault", str(vault))
    assert code == 2 and "over the limit of 1,000,000 bytes" in " ".join(err.split())
    # A line no document could fill is refused as it is read, not once the file is in memory:
    # a stream without an end (`/dev/zero`) would never be.
    endless = tmp_path / "endless.jsonl"
    endless.write_text(json.dumps(DOCUMENTS[0]) + "\n" + "0" * 7_000_000, encoding="utf-8")
    code, _, err = run("sources", "add", "clips", str(endless), "--vault", str(vault))
    assert code == 2 and "endless.jsonl, line 2: over 6,100,000 characters" in " ".join(err.split())
    code, _, err = run("sources", "remove", "Bad Name", "--vault", str(vault))
    assert code == 2 and "invalid source name" in err
    assert sources_of(vault) == {"vault": 0}


class RunningSidecar:
    """A sidecar (the app on a real port) serving `settings` from a thread of its own."""

    def __init__(self, settings: Settings, embedder: MiniLmEmbedder, sparse: Bm25Encoder) -> None:
        self.settings = settings
        self.embedder = embedder
        self.sparse = sparse
        self.port = 0
        self._started = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._serve(),), daemon=True)

    def __enter__(self) -> RunningSidecar:
        self._thread.start()
        assert self._started.wait(timeout=60), "the sidecar did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=30)

    async def _serve(self) -> None:
        # The app opens the index itself: it holds the Edge lock, as `vault-agent serve` does.
        app = make_app(
            self.settings,
            token=TOKEN,
            embedder=self.embedder,
            sparse=self.sparse,
            background_indexer=False,
        )
        runner, self.port = await start_server(app, 0)
        self._stop = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._started.set()
        await self._stop.wait()
        await runner.cleanup()


@pytest.fixture
def sidecar(
    vault: Path, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[RunningSidecar]:
    settings = api_settings(vault, tmp_path)  # the same data dir as the CLI's
    with RunningSidecar(settings, embedder, sparse) as running:
        yield running


def test_with_a_sidecar_holding_the_index_the_cli_goes_through_it(
    vault: Path, jsonl: Path, sidecar: RunningSidecar
) -> None:
    port = str(sidecar.port)
    code, out, err = run(
        "sources", "add", "field-notes", str(jsonl), "--vault", str(vault), "--port", port
    )
    assert code == 0, err
    assert f"sending this through http://127.0.0.1:{port}" in " ".join(err.split())
    assert "2 added" in out
    assert sources_of(vault, "--port", port) == {"vault": 0, "field-notes": 2}
    code, out, err = run("sources", "remove", "field-notes", "--vault", str(vault), "--port", port)
    assert code == 0 and "Removed field-notes: 2 documents" in out
    assert sources_of(vault, "--port", port) == {"vault": 0}


def test_a_sidecar_serving_another_vault_is_not_written_to(
    vault: Path,
    jsonl: Path,
    tmp_path: Path,
    sidecar: RunningSidecar,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    other = tmp_path / "other-vault"
    other.mkdir()
    # The other vault's index folder is the one the sidecar holds: the CLI can't open it.
    monkeypatch.setenv("VAULT_AGENT_STORE__PATH", str(sidecar.settings.edge_path))
    code, _, err = run(
        "sources", "add", "clips", str(jsonl), "--vault", str(other), "--port", str(sidecar.port)
    )
    assert code == 1
    assert "serves another vault" in " ".join(err.split())


def test_a_held_index_with_no_sidecar_to_talk_to_is_explained(
    vault: Path, jsonl: Path, sidecar: RunningSidecar
) -> None:
    code, _, err = run("sources", "list", "--vault", str(vault), "--port", "1")
    assert code == 1
    assert "no sidecar answers on http://127.0.0.1:1" in " ".join(err.split())


def test_through_the_sidecar_nothing_goes_through_a_proxy(
    vault: Path,
    jsonl: Path,
    sidecar: RunningSidecar,
    proxy: RecordingProxy,  # noqa: F811 (the fixture imported above)
) -> None:
    # The token and the documents are the user's: HTTP_PROXY and ALL_PROXY name a proxy for
    # the web, not for 127.0.0.1.
    code, _, err = run(
        "sources", "add", "field-notes", str(jsonl), "--vault", str(vault),
        "--port", str(sidecar.port),
    )  # fmt: skip
    assert code == 0, err
    assert proxy.received == []
    assert sources_of(vault, "--port", str(sidecar.port))["field-notes"] == 2


def test_another_program_on_the_port_gets_no_token(
    vault: Path, jsonl: Path, sidecar: RunningSidecar
) -> None:
    # The real sidecar holds the index (the CLI can't open it); another program holds the
    # port the user names (or the default one while the sidecar is down).
    impostor = RecordingProxy()
    try:
        port = impostor.url.rsplit(":", 1)[1]
        code, _, err = run(
            "sources", "add", "clips", str(jsonl), "--vault", str(vault), "--port", port
        )
    finally:
        impostor.close()
    assert code == 1
    assert TOKEN.encode() not in b"".join(impostor.received)
    assert b"/v1/health?challenge=" in b"".join(impostor.received)
    assert "could not prove it holds the token" in " ".join(err.split()), err
