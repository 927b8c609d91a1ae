"""The configuration that points the sidecar at a Qdrant server or cluster, over real sockets:
URL (http or https), API key (store.api_key or QDRANT_API_KEY), TLS with a custom CA
(store.ca_cert), timeout, and one collection per vault.

The server is fake_qdrant.py's `FakeQdrant` (qdrant-client's in-memory engine behind a real
HTTP server), here serving HTTPS with a certificate made by the ``openssl`` command-line tool
and requiring an API key as Qdrant does. Stores are opened the way the sidecar opens them:
`Settings` (from arguments or ``VAULT_AGENT_*`` variables) -> `open_store` ->
`ServerStore.connect`. docs/qdrant-server.md describes the same settings for users.
"""

from __future__ import annotations

import os
import re
import shutil
import time
import zlib
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from fake_qdrant import Certificates, FakeQdrant, make_certificates, qdrant_behind_proxy
from vault_agent.config import Settings, StoreSettings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.store.errors import StoreError, StoreUnavailableError
from vault_agent.index.store.open import open_store
from vault_agent.index.store.protocol import (
    DENSE_DIM,
    ChunkPayload,
    EmbeddedChunk,
    SearchFilter,
    SparseVector,
    Store,
    VectorQuery,
    point_id,
)
from vault_agent.index.store.server import ServerStore
from vault_agent.index.vault_index import VaultIndex

KEY = "read-write-key-7f3a"
READ_ONLY_KEY = "read-only-key-19c2"
#: Variables that would change which server, key or CA the tests use.
_AMBIENT = ("QDRANT_API_KEY", "SSL_CERT_FILE", "SSL_CERT_DIR")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No setting from the machine running the tests leaks in."""
    for name in list(os.environ):
        if name.startswith("VAULT_AGENT_") or name in _AMBIENT:
            monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    """A test CA and a certificate it signed for 127.0.0.1 and localhost."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command-line tool is needed to make test certificates")
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def qdrant(certs: Certificates) -> Iterator[FakeQdrant]:
    """Qdrant over HTTPS, with a read-write and a read-only API key."""
    server = FakeQdrant(api_key=KEY, read_only_api_key=READ_ONLY_KEY, tls=certs).start()
    try:
        yield server
    finally:
        server.close()


def vault_at(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def settings_for(vault: Path, qdrant: FakeQdrant, certs: Certificates, **store: object) -> Settings:
    """Settings as a user writes them for this server: https URL, key, CA."""
    values: dict[str, object] = {"url": qdrant.url, "api_key": KEY, "ca_cert": certs.ca}
    values.update(store)
    return Settings(
        vault=vault,
        data_dir=vault.parent / "data",
        store=StoreSettings.model_validate(values),
    )


def chunk(settings: Settings, file: str, words: str) -> EmbeddedChunk:
    """One synthetic point: a seeded unit-ish dense vector and one sparse term per word."""
    seed = zlib.crc32(file.encode())
    dense = [((seed >> (i % 24)) & 7) + 1.0 for i in range(DENSE_DIM)]
    terms = sorted({zlib.crc32(w.encode()) for w in words.split()})
    return EmbeddedChunk(
        id=point_id(settings.vault_id, file, 0),
        dense=dense,
        sparse=SparseVector(indices=terms, values=[1.0] * len(terms)),
        payload=ChunkPayload(
            file=file,
            title=file.removesuffix(".md"),
            chunk_index=0,
            chunk_count=1,
            body=words,
            content_hash=f"hash-{file}",
        ),
    )


def files_found(store: Store, words: str) -> set[str]:
    """Files whose chunks match `words` by keyword."""
    terms = sorted({zlib.crc32(w.encode()) for w in words.split()})
    words_query = VectorQuery(SparseVector(indices=terms, values=[1.0] * len(terms)), 10)
    (hits,) = store.search([words_query])
    return {hit.payload.file for hit in hits}


# -- https, custom CA, API key ------------------------------------------------------------------


def test_a_vault_is_indexed_and_searched_over_https_with_a_custom_ca_and_key(
    tmp_path: Path,
    qdrant: FakeQdrant,
    certs: Certificates,
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
) -> None:
    vault = vault_at(tmp_path / "vault")
    (vault / "Starter.md").write_text("# Starter\n\nGus the sourdough starter is fed at eight.\n")
    (vault / "Garden.md").write_text("# Garden\n\nThe tomatoes need staking before the storm.\n")
    settings = settings_for(vault, qdrant, certs)
    assert settings.store.url is not None and settings.store.url.startswith("https://")

    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        assert isinstance(index.store, ServerStore)
        index.indexer.sync()
        hits = index.searcher.search("when is the sourdough starter fed?", limit=2)
        assert hits[0].file == "Starter.md"
        assert index.store.count() == 2

    assert qdrant.client.collection_exists(settings.collection_name)
    assert qdrant.client.count(settings.collection_name).count == 2
    assert qdrant.refused == 0 and qdrant.handshake_failures == 0


@pytest.mark.parametrize(
    ("key", "server_says"),
    [(None, "Must provide an API key"), ("not-the-key", "Invalid API key")],
)
def test_a_missing_or_wrong_key_is_a_clear_error_naming_the_url(
    tmp_path: Path, qdrant: FakeQdrant, certs: Certificates, key: str | None, server_says: str
) -> None:
    settings = settings_for(vault_at(tmp_path / "vault"), qdrant, certs, api_key=key)
    with pytest.raises(StoreUnavailableError) as raised:
        open_store(settings)
    message = str(raised.value)
    assert f"Qdrant at {qdrant.url} refused the request (401" in message
    assert server_says in message
    assert "check the API key (store.api_key or QDRANT_API_KEY)" in message
    assert "not-the-key" not in message  # a key is never echoed
    assert qdrant.refused >= 1
    assert not qdrant.client.collection_exists(settings.collection_name)


def test_a_read_only_key_can_search_an_index_but_not_write_it(
    tmp_path: Path, qdrant: FakeQdrant, certs: Certificates
) -> None:
    vault = vault_at(tmp_path / "vault")
    writer_settings = settings_for(vault, qdrant, certs)
    with closing(open_store(writer_settings)) as writer:
        writer.upsert([chunk(writer_settings, "Starter.md", "sourdough starter")])

    reader = open_store(settings_for(vault, qdrant, certs, api_key=READ_ONLY_KEY))
    try:
        assert reader.count() == 1
        assert files_found(reader, "sourdough") == {"Starter.md"}
        with pytest.raises(StoreUnavailableError, match=r"403.*indexing needs a read-write key"):
            reader.upsert([chunk(writer_settings, "Garden.md", "tomatoes")])
    finally:
        reader.close()
    assert qdrant.client.count(writer_settings.collection_name).count == 1


# -- TLS failures -------------------------------------------------------------------------------


def test_an_untrusted_certificate_fails_clearly_before_the_key_is_sent(
    tmp_path: Path, qdrant: FakeQdrant, certs: Certificates
) -> None:
    settings = settings_for(vault_at(tmp_path / "vault"), qdrant, certs, ca_cert=None)
    with pytest.raises(StoreUnavailableError) as raised:
        open_store(settings)
    message = str(raised.value)
    assert f"Qdrant at {qdrant.url} is unreachable" in message
    assert "CERTIFICATE_VERIFY_FAILED" in message
    assert "not trusted: set store.ca_cert to the PEM file of the CA that signed it" in message
    # The handshake failed, so no request (and no API key) ever reached the server. The
    # server thread notices the client's alert a moment after the client gave up.
    deadline = time.monotonic() + 5
    while qdrant.handshake_failures == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert qdrant.handshake_failures >= 1 and qdrant.requests == 0 and qdrant.refused == 0


def test_ssl_cert_file_is_honoured_when_store_ca_cert_is_unset(
    tmp_path: Path, qdrant: FakeQdrant, certs: Certificates, monkeypatch: pytest.MonkeyPatch
) -> None:
    # httpx reads it for its default TLS context; docs/qdrant-server.md promises it.
    monkeypatch.setenv("SSL_CERT_FILE", str(certs.ca))
    settings = settings_for(vault_at(tmp_path / "vault"), qdrant, certs, ca_cert=None)
    open_store(settings).close()
    assert qdrant.client.collection_exists(settings.collection_name)


def test_a_certificate_for_another_host_fails_clearly(tmp_path: Path, certs: Certificates) -> None:
    elsewhere = make_certificates(tmp_path / "elsewhere", hosts=("qdrant.invalid",), ca=certs)
    server = FakeQdrant(api_key=KEY, tls=elsewhere).start()
    try:
        settings = settings_for(vault_at(tmp_path / "vault"), server, certs)
        with pytest.raises(StoreUnavailableError, match="issued for another host name") as raised:
            open_store(settings)
        assert server.url in str(raised.value)
        assert server.requests == 0
    finally:
        server.close()


def test_https_to_a_plain_http_server_says_so(tmp_path: Path) -> None:
    server = FakeQdrant().start()
    try:
        url = server.url.replace("http://", "https://")
        settings = Settings(vault=vault_at(tmp_path / "vault"), store=StoreSettings(url=url))
        with pytest.raises(StoreUnavailableError, match="does not speak TLS: use http://"):
            open_store(settings)
    finally:
        server.close()


@pytest.mark.parametrize(
    ("ca_cert", "url_scheme", "expected"),
    [
        ("missing.pem", "https", r"cannot use store\.ca_cert .*missing\.pem: .*No such file"),
        ("", "https", r"store\.ca_cert must be a PEM file of CA certificates, not a folder"),
        ("server.key", "https", r"cannot use store\.ca_cert .*server\.key: .*NO_CERTIFICATE"),
        ("ca.pem", "http", r"store\.ca_cert is set but the Qdrant URL http://.* is plain http"),
    ],
)
def test_an_unusable_ca_setting_is_refused_clearly(
    tmp_path: Path,
    qdrant: FakeQdrant,
    certs: Certificates,
    ca_cert: str,
    url_scheme: str,
    expected: str,
) -> None:
    url = qdrant.url.replace("https", url_scheme)
    settings = settings_for(
        vault_at(tmp_path / "vault"), qdrant, certs, url=url, ca_cert=certs.ca.parent / ca_cert
    )
    with pytest.raises(StoreError, match=expected) as raised:
        open_store(settings)
    # A configuration mistake, not an outage: retrying will not help.
    assert not isinstance(raised.value, StoreUnavailableError)
    assert qdrant.requests == 0


@pytest.mark.parametrize("url", ["127.0.0.1:6333", "qdrant.example.com", "ftp://127.0.0.1:1"])
def test_a_url_without_http_or_https_is_refused(tmp_path: Path, url: str) -> None:
    settings = Settings(vault=vault_at(tmp_path / "vault"), store=StoreSettings(url=url))
    with pytest.raises(StoreError, match="must start with http:// or https://"):
        open_store(settings)


# -- one collection per vault -------------------------------------------------------------------


def test_two_vaults_on_one_server_get_separate_collections(
    tmp_path: Path, qdrant: FakeQdrant, certs: Certificates
) -> None:
    # The same folder name in two places: the name alone must not decide the collection.
    first = settings_for(vault_at(tmp_path / "work" / "Notes"), qdrant, certs)
    second = settings_for(vault_at(tmp_path / "home" / "Notes"), qdrant, certs)
    assert first.collection_name != second.collection_name
    assert first.collection_name.startswith("vault-agent-Notes-")

    with closing(open_store(first)) as a, closing(open_store(second)) as b:
        a.upsert([chunk(first, "Plan.md", "budget timeline shared")])
        b.upsert([chunk(second, "Recipe.md", "sourdough starter shared")])
        assert a.count() == 1 and b.count() == 1
        assert files_found(a, "shared") == {"Plan.md"}
        assert files_found(b, "shared") == {"Recipe.md"}
        assert [p.file for p in a.scroll()] == ["Plan.md"]
        assert set(b.file_states()) == {"Recipe.md"}
        # Deleting a file in one vault leaves the other's file of the same name alone.
        b.upsert([chunk(second, "Plan.md", "a different plan")])
        a.delete_files(["Plan.md"])
        assert a.count() == 0 and b.count(SearchFilter(files=["Plan.md"])) == 1

    names = {c.name for c in qdrant.client.get_collections().collections}
    assert names == {first.collection_name, second.collection_name}


def test_a_vault_always_finds_its_own_collection(
    tmp_path: Path, qdrant: FakeQdrant, certs: Certificates, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = vault_at(tmp_path / "Vault")
    (tmp_path / "link").symlink_to(vault)
    monkeypatch.chdir(tmp_path)
    spellings = [vault, Path("Vault"), tmp_path / "other" / ".." / "Vault", tmp_path / "link"]
    vault_at(tmp_path / "other")
    names = {settings_for(v, qdrant, certs).collection_name for v in spellings}
    assert len(names) == 1

    settings = settings_for(vault, qdrant, certs)
    with closing(open_store(settings)) as store:
        store.upsert([chunk(settings, "Starter.md", "sourdough")])
    # Another process (or a restart) of the same vault reopens the same points.
    with closing(open_store(settings_for(Path("Vault"), qdrant, certs))) as again:
        assert again.count() == 1


def test_store_collection_overrides_the_per_vault_name(
    tmp_path: Path, qdrant: FakeQdrant, certs: Certificates
) -> None:
    settings = settings_for(vault_at(tmp_path / "vault"), qdrant, certs, collection="team-notes")
    assert settings.collection_name == "team-notes"
    with closing(open_store(settings)) as store:
        assert isinstance(store, ServerStore) and store.collection == "team-notes"
    assert qdrant.client.collection_exists("team-notes")


# -- settings from the environment -------------------------------------------------------------


def test_settings_from_environment_variables_reach_the_store(
    tmp_path: Path, qdrant: FakeQdrant, certs: Certificates, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = vault_at(tmp_path / "vault")
    monkeypatch.setenv("VAULT_AGENT_VAULT", str(vault))
    monkeypatch.setenv("VAULT_AGENT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("VAULT_AGENT_STORE__URL", qdrant.url)
    monkeypatch.setenv("VAULT_AGENT_STORE__API_KEY", KEY)
    monkeypatch.setenv("VAULT_AGENT_STORE__CA_CERT", str(certs.ca))
    monkeypatch.setenv("VAULT_AGENT_STORE__COLLECTION", "from-env")
    monkeypatch.setenv("VAULT_AGENT_STORE__TIMEOUT_S", "2.5")

    settings = Settings()
    assert settings.store.url == qdrant.url
    assert settings.store.api_key is not None and settings.store.api_key.get_secret_value() == KEY
    assert settings.store.ca_cert == certs.ca
    assert settings.store.timeout_s == 2.5
    with closing(open_store(settings)) as store:
        store.upsert([chunk(settings, "Starter.md", "sourdough")])
    assert qdrant.client.count("from-env").count == 1
    assert qdrant.refused == 0


def test_qdrant_api_key_is_the_fallback_and_store_api_key_wins(
    tmp_path: Path, qdrant: FakeQdrant, certs: Certificates, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = vault_at(tmp_path / "vault")
    monkeypatch.setenv("QDRANT_API_KEY", KEY)
    open_store(settings_for(vault, qdrant, certs, api_key=None)).close()

    monkeypatch.setenv("QDRANT_API_KEY", "stale-key")
    open_store(settings_for(vault, qdrant, certs, api_key=KEY)).close()
    assert qdrant.refused == 0

    # An empty variable is no key at all (not an empty `api-key` header).
    monkeypatch.setenv("QDRANT_API_KEY", "")
    with pytest.raises(StoreUnavailableError, match="Must provide an API key"):
        open_store(settings_for(vault, qdrant, certs, api_key=None))


def test_the_timeout_from_the_environment_bounds_a_stalled_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with qdrant_behind_proxy() as (_, proxy):
        proxy.mode, proxy.delay_s = "slow", 3.0
        monkeypatch.setenv("VAULT_AGENT_VAULT", str(vault_at(tmp_path / "vault")))
        monkeypatch.setenv("VAULT_AGENT_STORE__URL", proxy.url)
        monkeypatch.setenv("VAULT_AGENT_STORE__TIMEOUT_S", "1")
        started = time.monotonic()
        with pytest.raises(
            StoreUnavailableError, match=re.escape(f"Qdrant at {proxy.url} is unreachable")
        ):
            open_store(Settings())
        assert time.monotonic() - started < 2.5
