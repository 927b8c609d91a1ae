"""Where the sidecar's own requests go: to the servers the settings name, and nowhere else.

The sidecar calls out to a model server (Ollama, an OpenAI-compatible one), an embedding server
and a Qdrant server; each request carries notes. When they run on this machine, nothing may
leave it, whatever the environment says: a proxy named by ``HTTP_PROXY``/``HTTPS_PROXY``/
``ALL_PROXY`` (set on many company machines, for the browser's sake) must not see a request
meant for 127.0.0.1. A server elsewhere still goes through the proxy (a company network may need
it to reach a model's API): the last test shows the proxy of these tests is live.

Everything runs for real: `vault-agent serve`'s app on a socket, the fake servers of
fake_llm.py, fake_embedding_server.py and fake_qdrant.py on 127.0.0.1, and a recording "proxy"
that answers 502 to whatever reaches it.
"""

from __future__ import annotations

import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import EXAMPLE_VAULT
from fake_embedding_server import MODEL, FakeEmbeddingServer
from fake_llm import FakeLLMServer, FakeTurn
from fake_qdrant import FakeQdrant
from server_support import AUTH, ServedVault, api_settings, ask_served, serve_api
from vault_agent.config import IndexSettings, LlmSettings, StoreSettings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.local_http import direct_if_local, is_loopback, shown_url, url_secrets

pytestmark = pytest.mark.asyncio(loop_scope="session")

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
QUESTION = "When did I last feed the sourdough starter?"


class RecordingProxy:
    """A TCP server that keeps the first bytes of every connection and answers 502."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return  # closed
            with connection:
                connection.settimeout(2)
                try:
                    self.received.append(connection.recv(65536))
                    connection.sendall(
                        b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n"
                        b"Connection: close\r\n\r\n"
                    )
                except OSError:
                    pass

    def close(self) -> None:
        self._socket.close()
        self._thread.join(timeout=5)


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[RecordingProxy]:
    """A recording proxy, named by every proxy variable (both cases), with no exceptions."""
    recorder = RecordingProxy()
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, recorder.url)
        monkeypatch.setenv(name.lower(), recorder.url)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    try:
        yield recorder
    finally:
        recorder.close()


def vault_copy(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault")
    return tmp_path / "vault"


def search_then_cite() -> list[FakeTurn]:
    """A model that searches, then answers citing the daily note that says it."""
    return [
        FakeTurn.tool_calls([("search_notes", {"query": "feed the sourdough starter"})]),
        FakeTurn.text("Gus was last fed on 2026-11-11, see [[Daily/2026-11-11]]."),
    ]


@pytest.mark.parametrize(
    ("kind", "host"),
    [("ollama", "127.0.0.1"), ("openai", "127.0.0.1"), ("ollama", "localhost")],
)
async def test_a_local_model_server_is_dialled_directly_whatever_proxy_is_set(
    proxy: RecordingProxy,
    served_vault: ServedVault,
    tmp_path: Path,
    kind: str,
    host: str,
) -> None:
    fake = FakeLLMServer("ollama" if kind == "ollama" else "openai", search_then_cite())
    await fake.start()
    try:
        base_url = fake.base_url.replace("127.0.0.1", host)
        llm = LlmSettings(
            profile="ollama" if kind == "ollama" else "openai",
            base_url=base_url,
            model="qwen2.5:3b" if kind == "ollama" else "local-model",
            max_retries=0,
            timeout_s=30,
        )
        events = await ask_served(
            served_vault.vault, served_vault.index, tmp_path, llm, {"question": QUESTION}
        )
    finally:
        await fake.close()
    name, done = events[-1]
    assert name == "done", done
    assert "[[Daily/2026-11-11]]" in done["answer"]
    assert len(fake.requests) == 2
    # The note text the model was sent never went through the proxy.
    assert proxy.received == []


async def test_auto_probes_a_local_ollama_directly(
    proxy: RecordingProxy,
    served_vault: ServedVault,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = FakeLLMServer("ollama", search_then_cite())
    await fake.start()
    monkeypatch.setenv("OLLAMA_HOST", fake.base_url)
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    try:
        llm = LlmSettings(profile="auto", max_retries=0, timeout_s=30)
        events = await ask_served(
            served_vault.vault, served_vault.index, tmp_path, llm, {"question": QUESTION}
        )
    finally:
        await fake.close()
    name, done = events[-1]
    assert name == "done", done
    assert done["profile"] == "ollama"
    assert fake.probes >= 1
    assert proxy.received == []


@pytest.mark.parametrize("protocol", ["ollama", "openai"])
async def test_a_local_embedding_server_is_dialled_directly_whatever_proxy_is_set(
    proxy: RecordingProxy, tmp_path: Path, protocol: str
) -> None:
    vault = vault_copy(tmp_path)
    with FakeEmbeddingServer(dim=64) as fake:
        index = IndexSettings(
            embedding=f"{protocol}:{MODEL}",
            embedding_url=fake.url,
            embedding_max_retries=0,
            embedding_timeout_s=30,
        )
        settings = api_settings(vault, tmp_path, index=index)
        async with serve_api(settings) as api:
            async with api.session.post(
                api.url("/v1/index/sync"), json={"wait": True}, headers=AUTH
            ) as response:
                assert response.status == 200, await response.text()
                report = (await response.json())["report"]
            async with api.session.post(
                api.url("/v1/search"), json={"query": "sourdough starter"}, headers=AUTH
            ) as response:
                assert response.status == 200, await response.text()
                hits = (await response.json())["hits"]
        assert report["failed"] == 0 and report["indexed"] > 10
        assert hits
        assert len(fake.requests) > 1  # the probe, the notes' batches, the query
    assert proxy.received == []


async def test_a_local_qdrant_server_is_dialled_directly_whatever_proxy_is_set(
    proxy: RecordingProxy,
    tmp_path: Path,
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
) -> None:
    vault = vault_copy(tmp_path)
    qdrant = FakeQdrant().start()
    try:
        store = StoreSettings(url=qdrant.url, timeout_s=30, collection="egress")
        settings = api_settings(vault, tmp_path, store=store)
        async with serve_api(settings, embedder=embedder, sparse=sparse) as api:
            async with api.session.post(
                api.url("/v1/index/sync"), json={"wait": True}, headers=AUTH
            ) as response:
                assert response.status == 200, await response.text()
            async with api.session.post(
                api.url("/v1/search"), json={"query": "sourdough starter"}, headers=AUTH
            ) as response:
                assert response.status == 200, await response.text()
                assert (await response.json())["hits"]
        assert qdrant.requests > 0
    finally:
        qdrant.close()
    assert proxy.received == []


async def test_a_remote_model_server_still_goes_through_the_proxy(
    proxy: RecordingProxy, served_vault: ServedVault, tmp_path: Path
) -> None:
    """The proxy of these tests is live: a server elsewhere is reached through it."""
    llm = LlmSettings(
        profile="openai",
        base_url="http://models.example.invalid/v1",
        model="local-model",
        max_retries=0,
        timeout_s=5,
    )
    events = await ask_served(
        served_vault.vault, served_vault.index, tmp_path, llm, {"question": QUESTION}
    )
    assert events[-1][0] == "error"
    assert any(b"models.example.invalid" in request for request in proxy.received)


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:11434", True),
        ("http://127.8.9.10/v1", True),
        ("http://localhost:1234/v1", True),
        ("http://LOCALHOST.:1234", True),
        ("http://models.localhost", True),
        ("http://[::1]:6333", True),
        ("http://[::ffff:127.0.0.1]:6333", True),
        ("0.0.0.0:11434", True),  # OLLAMA_HOST as the server's bind address
        ("127.0.0.1:11434", True),
        ("http://127.0.0.1.nip.io", False),  # a name: resolved by whoever dials it
        ("http://localhost.example.com", False),
        ("http://10.0.0.7:11434", False),
        ("https://api.mistral.ai", False),
        ("http://[::1", False),  # not a URL
        ("", False),
    ],
)
async def test_which_urls_count_as_this_machine(url: str, local: bool) -> None:
    assert is_loopback(url) is local
    assert bool(direct_if_local(url)) is local


# --- secrets in a configured URL -------------------------------------------------------------

SECRET_PASSWORD = "pa55-w0rd-9q"
SECRET_KEY = "qk-7731-secret"


def with_secrets(url: str) -> str:
    """`url` carrying a password and a query key, as some gateways are configured."""
    scheme, rest = url.split("://", 1)
    return f"{scheme}://user:{SECRET_PASSWORD}@{rest}?api-key={SECRET_KEY}"


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        assert SECRET_PASSWORD not in text and SECRET_KEY not in text, text


async def test_a_model_urls_password_and_key_never_reach_an_event_or_a_log_line(
    served_vault: ServedVault, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG")
    fake = FakeLLMServer("openai", [FakeTurn.error(500), FakeTurn.error(500)])
    await fake.start()
    try:
        llm = LlmSettings(
            profile="openai",
            base_url=with_secrets(fake.base_url),
            model="local-model",
            max_retries=1,
            timeout_s=30,
        )
        events = await ask_served(
            served_vault.vault, served_vault.index, tmp_path, llm, {"question": QUESTION}
        )
    finally:
        await fake.close()
    assert events[-1][0] == "error", events[-1]
    assert "127.0.0.1" in events[-1][1]["message"]  # the server is still named
    assert_no_secret(str(events), *(record.getMessage() for record in caplog.records))


async def test_a_qdrant_or_embedding_urls_password_and_key_never_reach_an_answer_or_a_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    caplog.set_level("DEBUG")
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    vault = vault_copy(tmp_path)
    answers: list[str] = []
    store = StoreSettings(url=with_secrets(dead), timeout_s=1, collection="secrets")
    settings = api_settings(vault, tmp_path / "qdrant", store=store)
    async with serve_api(settings, embedder=embedder, sparse=sparse) as api:
        for path in ("/v1/index", "/v1/search"):
            method = api.session.get if path == "/v1/index" else api.session.post
            body = None if path == "/v1/index" else {"query": "sourdough"}
            async with method(api.url(path), json=body, headers=AUTH) as response:
                answers.append(await response.text())
    index = IndexSettings(
        embedding=f"openai:{MODEL}", embedding_url=with_secrets(dead), embedding_max_retries=0
    )
    settings = api_settings(vault, tmp_path / "embedding", index=index)
    async with (
        serve_api(settings) as api,
        api.session.get(api.url("/v1/index"), headers=AUTH) as response,
    ):
        answers.append(await response.text())
    assert any("127.0.0.1" in answer for answer in answers), answers
    assert_no_secret(*answers, *(record.getMessage() for record in caplog.records))


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://127.0.0.1:1234/v1", "http://127.0.0.1:1234/v1"),
        ("http://user:pass@gw.example:8080/v1?key=k#x", "http://***@gw.example:8080/v1?***#***"),
        ("https://ghp_token@gw.example", "https://***@gw.example"),
        ("http://[::1]:6333", "http://[::1]:6333"),
    ],
)
async def test_what_a_message_shows_of_a_url(url: str, shown: str) -> None:
    assert shown_url(url) == shown
    for secret in url_secrets(url):
        assert secret not in shown_url(url)
