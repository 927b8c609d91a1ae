"""Embeddings from a server (`index.embedding: ollama:<model> | openai:<model>`).

The real `RemoteEmbedder`, the real indexer and Qdrant Edge, against fake servers on 127.0.0.1
that speak Ollama's and OpenAI's wire formats (fake_embedding_server.py): batching, retries,
timeouts, a dead server, the dimension read from the first answer, the model id on every
chunk, and examples/vault indexed and searched through each protocol.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import SecretStr, ValidationError
from typer.testing import CliRunner

from conftest import EXAMPLE_VAULT
from fake_embedding_server import MODEL, FakeEmbeddingServer, bag_of_words
from server_support import AUTH, api_settings, serve_api
from vault_agent.cli.main import app
from vault_agent.config import Settings, server_model
from vault_agent.index.embed.choose import choose
from vault_agent.index.embed.endpoint import EmbeddingEndpoint, endpoint_for
from vault_agent.index.embed.errors import EmbeddingError
from vault_agent.index.embed.remote import PROBE_TEXT, RemoteEmbedder
from vault_agent.index.embed.task_prefixes import SEARCH_INSTRUCTION, prefixes_for
from vault_agent.index.store.protocol import SearchFilter
from vault_agent.index.vault_index import VaultIndex

#: A question only one note of examples/vault answers, in words that note uses.
QUESTION = "How long should the kombu and shiitake soak for the dashi?"
ANSWER = "Recipes/Miso Soup.md"


@pytest.fixture
def fake() -> Iterator[FakeEmbeddingServer]:
    with FakeEmbeddingServer(dim=256) as server:
        yield server


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault")
    return tmp_path / "vault"


def served(vault: Path, fake_url: str, protocol: str = "ollama", **index: Any) -> Settings:
    """Settings whose `index.embedding` names the fake server's model."""
    return Settings(
        vault=vault,
        data_dir=vault.parent / "data",
        index={
            "embedding": f"{protocol}:{MODEL}",
            "embedding_url": fake_url,
            "embedding_max_retries": 1,
            "embedding_timeout_s": 5,
            **index,
        },
    )


def endpoint(protocol: str, url: str, api_key: str | None = None) -> EmbeddingEndpoint:
    base = url + "/v1" if protocol == "openai" else url
    key = SecretStr(api_key) if api_key else None
    return EmbeddingEndpoint.model_validate(
        {"protocol": protocol, "model": MODEL, "url": base, "api_key": key}
    )


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- the client ---------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["ollama", "openai"])
def test_both_wire_formats_give_unit_vectors_in_input_order(protocol: str) -> None:
    with FakeEmbeddingServer(dim=200, api_key="sk-test") as fake:
        embedder = RemoteEmbedder(endpoint(protocol, fake.url, "sk-test"), batch_size=8)
        try:
            texts = ["sourdough starter feeding", "kombu dashi", "garden irrigation drip"]
            vectors = embedder.embed_documents(texts)
            query = embedder.embed_query("kombu dashi")
        finally:
            embedder.close()
        assert embedder.dim == 200  # read from the probe's answer
        assert fake.batches[0] == [PROBE_TEXT]
        # The OpenAI fake answers in reverse order and unnormalised: sorted and normalised here.
        for text, vector in zip(texts, vectors, strict=True):
            assert vector.shape == (200,) and vector.dtype == np.float32
            assert float(vector @ bag_of_words(text, 200)) == pytest.approx(1.0, abs=1e-5)
        assert float(query @ vectors[1]) == pytest.approx(1.0, abs=1e-5)
        assert fake.requests[-1].headers["authorization"] == "Bearer sk-test"
        path = "/api/embed" if protocol == "ollama" else "/v1/embeddings"
        assert fake.requests[-1].path == path
    name = f"openai:{MODEL}@127.0.0.1:{fake.port}" if protocol == "openai" else f"ollama:{MODEL}"
    assert embedder.model_name == name


def test_texts_go_in_batches_of_at_most_the_batch_size(fake: FakeEmbeddingServer) -> None:
    embedder = RemoteEmbedder(endpoint("ollama", fake.url), batch_size=3)
    texts = [f"note number {i} about topic {i}" for i in range(10)]
    vectors = embedder.embed_documents(texts)
    embedder.close()
    batches = fake.batches[1:]  # after the probe
    assert [len(batch) for batch in batches] == [3, 3, 3, 1]
    assert [text for batch in batches for text in batch] == texts
    assert len(vectors) == 10


@pytest.mark.parametrize("protocol", ["ollama", "openai"])
def test_a_503_and_a_429_are_retried_then_succeed(fake: FakeEmbeddingServer, protocol: str) -> None:
    embedder = RemoteEmbedder(endpoint(protocol, fake.url), max_retries=2, backoff_s=0.01)
    fake.fail_next(503, 429)
    vector = embedder.embed_query("miso soup")
    embedder.close()
    assert float(vector @ bag_of_words("miso soup", 256)) == pytest.approx(1.0, abs=1e-5)
    assert fake.batches[1:] == [["miso soup"]] * 3  # two failures, then the answer


def test_a_server_that_keeps_failing_gives_up_with_its_message(
    fake: FakeEmbeddingServer,
) -> None:
    embedder = RemoteEmbedder(endpoint("openai", fake.url), max_retries=1, backoff_s=0.01)
    fake.fail_next(503, 503, 503)
    with pytest.raises(EmbeddingError) as raised:
        embedder.embed_query("miso soup")
    embedder.close()
    message = str(raised.value)
    assert f"{fake.url}/v1" in message and "HTTP 503" in message
    assert "scripted failure 503" in message  # the server's own words, from error.message
    assert len(fake.requests) == 1 + 2  # the probe, then one try and one retry


def test_a_missing_model_says_how_to_pull_it(fake: FakeEmbeddingServer) -> None:
    missing = EmbeddingEndpoint(protocol="ollama", model="mxbai-embed-large", url=fake.url)
    with pytest.raises(
        EmbeddingError, match=r"mxbai-embed-large.*not found.*ollama pull mxbai-embed-large"
    ):
        RemoteEmbedder(missing, backoff_s=0.01)
    assert len(fake.requests) == 1  # a 404 is not retried


def test_a_wrong_api_key_names_the_setting() -> None:
    with (
        FakeEmbeddingServer(api_key="right") as fake,
        pytest.raises(EmbeddingError, match=r"HTTP 401.*index\.embedding_api_key"),
    ):
        RemoteEmbedder(endpoint("openai", fake.url, "wrong"))


def test_a_slow_server_times_out_with_a_clear_error(fake: FakeEmbeddingServer) -> None:
    embedder = RemoteEmbedder(endpoint("ollama", fake.url), timeout_s=0.3, backoff_s=0.01)
    fake.delay_s = 2.0
    started = time.monotonic()
    with pytest.raises(EmbeddingError) as raised:
        embedder.embed_documents(["a passage about bread"])
    embedder.close()
    assert time.monotonic() - started < 1.5  # not retried: a silent server is not asked again
    assert f"Ollama at {fake.url}" in str(raised.value)
    assert "index.embedding_timeout_s" in str(raised.value)


def test_a_dead_server_at_load_is_a_clear_error() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(EmbeddingError) as raised:
        RemoteEmbedder(endpoint("ollama", url), max_retries=1, backoff_s=0.01)
    message = str(raised.value)
    assert f"cannot reach Ollama at {url} (model {MODEL})" in message
    assert "ollama serve" in message and "index.embedding_url" in message


def test_vectors_of_another_size_than_the_first_answer_are_refused(
    fake: FakeEmbeddingServer,
) -> None:
    embedder = RemoteEmbedder(endpoint("ollama", fake.url))
    fake.dim = 128  # the model behind the name was swapped
    with pytest.raises(EmbeddingError, match=r"\[128\] dimensions where 256 were expected"):
        embedder.embed_query("anything")
    embedder.close()


# -- settings -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["olama:bge-m3", "ollama:", "ollama: bge-m3", "bge-m3", "x"])
def test_a_bad_embedding_setting_names_every_accepted_form(value: str) -> None:
    with pytest.raises(ValidationError) as raised:
        Settings(index={"embedding": value})
    errors = raised.value.errors()
    assert len(errors) == 1 and errors[0]["loc"] == ("index", "embedding")
    assert "auto, english, multilingual, ollama:<model> or openai:<model>" in errors[0]["msg"]


def test_server_models_are_read_from_the_setting_and_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tagged = server_model(Settings(index={"embedding": "ollama:bge-m3:latest"}).index.embedding)
    assert tagged is not None and (tagged.protocol, tagged.model) == ("ollama", "bge-m3:latest")
    assert server_model("multilingual") is None
    monkeypatch.setenv("VAULT_AGENT_INDEX__EMBEDDING", "openai:text-embedding-3-small")
    assert Settings().index.embedding == "openai:text-embedding-3-small"


def test_the_server_defaults_to_the_chat_models_own(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OLLAMA_HOST", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    ollama = server_model("ollama:bge-m3")
    openai = server_model("openai:nomic")
    assert ollama is not None and openai is not None
    assert endpoint_for(ollama, Settings()).url == "http://127.0.0.1:11434"
    assert endpoint_for(openai, Settings()).url == "http://127.0.0.1:1234/v1"
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11434")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://lmstudio.lan:1234")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert endpoint_for(ollama, Settings()).url == "http://gpu-box:11434"
    from_env = endpoint_for(openai, Settings())
    assert from_env.url == "http://lmstudio.lan:1234/v1"
    assert from_env.api_key is not None and from_env.api_key.get_secret_value() == "sk-env"
    # The chat profile's server and key, when it speaks the same protocol...
    llm = {"profile": "openai", "base_url": "http://vllm:8000/v1", "api_key": "sk-llm"}
    same = endpoint_for(openai, Settings(llm=llm))
    assert same.url == "http://vllm:8000/v1" and same.api_key == SecretStr("sk-llm")
    other = endpoint_for(ollama, Settings(llm=llm))
    assert other.url == "http://gpu-box:11434" and other.api_key is None
    # ...and index.embedding_url above all.
    own = Settings(llm=llm, index={"embedding_url": "http://127.0.0.1:8080/"})
    assert endpoint_for(openai, own).url == "http://127.0.0.1:8080/v1"
    assert endpoint_for(openai, own).model_name == "openai:nomic@127.0.0.1:8080"


def test_keyword_search_reads_the_notes_language_and_auto_forgets_the_server(
    vault: Path, fake: FakeEmbeddingServer
) -> None:
    settings = served(vault, fake.url, language=None)
    choice = choose(settings)
    assert (choice.family, choice.model, choice.language) == ("server", f"ollama:{MODEL}", "en")
    assert choice.reason.startswith(f"index.embedding is ollama:{MODEL}. Chosen automatically")
    assert "(from a server)" in choice.describe()
    assert choose(settings) == choice  # recorded, not sampled again
    auto = Settings(vault=vault, data_dir=settings.data_dir)
    assert choose(auto).family == "english"  # back to the packaged models
    german = served(vault, fake.url, language="de")
    assert choose(german).language == "de" and "index.language is de" in choose(german).reason


# -- the index ----------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["ollama", "openai"])
def test_examples_vault_is_indexed_through_the_server_and_searched(
    vault: Path, fake: FakeEmbeddingServer, protocol: str
) -> None:
    """The issue's acceptance test: the server-embedding option indexes examples/vault against
    the fakes and searches it."""
    with VaultIndex(served(vault, fake.url, protocol, embed_batch_size=8)) as index:
        assert index.models is not None and index.models.family == "server"
        report = index.indexer.sync()
        assert report.indexed == report.scanned == 38 and report.failed == 0
        assert index.store.count() == report.chunks
        assert max(len(batch) for batch in fake.batches) <= 8
        dense = index.searcher.search(QUESTION, limit=3, mode="dense")
        assert dense[0].file == ANSWER, [hit.file for hit in dense]
        hybrid = index.searcher.search(QUESTION, limit=3)
        assert hybrid[0].file == ANSWER
    with VaultIndex(served(vault, fake.url, protocol)) as index:
        assert index.indexer.sync().unchanged == 38  # nothing re-embedded


def test_the_store_opens_with_the_dimension_of_the_first_answer_and_every_chunk_names_the_model(
    vault: Path,
) -> None:
    with FakeEmbeddingServer(dim=200) as small, FakeEmbeddingServer(dim=96) as smaller:
        with VaultIndex(served(vault, small.url)) as index:
            assert index.embedder.dim == 200
            first = index.indexer.sync()
            assert len(index.store.dense_vectors(ANSWER)[0]) == 200
            ids = {payload.embedding_model for payload in index.store.scroll()}
            assert ids == {index.ingest.model_name}
            assert index.ingest.model_name.startswith(f"ollama:{MODEL}+{index.sparse.name}")
        # Another server model of another size: the index is rebuilt and every note re-embedded.
        with VaultIndex(served(vault, smaller.url, "openai")) as index:
            assert index.embedder.dim == 96
            again = index.indexer.sync()
            assert again.indexed == first.indexed and again.unchanged == 0
            assert len(index.store.dense_vectors(ANSWER)[0]) == 96
            ids = {payload.embedding_model for payload in index.store.scroll()}
            assert ids == {index.ingest.model_name}
            assert index.ingest.model_name.startswith(f"openai:{MODEL}@127.0.0.1:{smaller.port}+")


def _stored(index: VaultIndex) -> dict[str, str]:
    """Each stored file's content hash."""
    return {file: state.content_hash for file, state in index.store.file_states().items()}


def test_a_server_failing_mid_sync_leaves_the_index_as_it_was_and_the_next_sync_catches_up(
    vault: Path, fake: FakeEmbeddingServer
) -> None:
    # One file per batch, so the sync gets part of the way before the server fails.
    settings = served(vault, fake.url, write_batch_chunks=1)
    edited = ["Recipes/Miso Soup.md", "Recipes/Country Loaf.md", "Reading/The Overstory.md"]
    with VaultIndex(settings) as index:
        index.indexer.sync()
        before = _stored(index)
        for file in edited:
            with (vault / file).open("a", encoding="utf-8") as note:
                note.write("\nEdited while the embedding server was failing.\n")
        fake.fail_from(1)  # one more batch is embedded, then every request gets 503
        with pytest.raises(EmbeddingError, match=f"Ollama at {fake.url}.*HTTP 503"):
            index.indexer.sync()
        after = _stored(index)
        assert set(after) == set(before)  # no note left the index
        changed = [file for file in edited if after[file] != before[file]]
        assert len(changed) == 1  # the batch embedded before the failure was written
        statuses = {status.file: status for status in index.indexer.file_status()}
        failed = [file for file in edited if statuses[file].state == "failed"]
        assert len(failed) == 1
        assert f"not embedded: Ollama at {fake.url}" in (statuses[failed[0]].reason or "")
        assert index.indexer.progress.state == "error"
        assert fake.url in (index.indexer.progress.last_error or "")
        assert after[failed[0]] == before[failed[0]]  # its old version is kept, not wiped
        # The failed note's old version still answers (by keyword: questions need the server).
        assert index.store.count(SearchFilter(files=failed)) > 0
        assert index.searcher.search(QUESTION, limit=1, mode="sparse")[0].file == ANSWER
        fake.fail_from(None)
        report = index.indexer.sync()
        assert report.indexed == 2 and report.failed == 0
        assert all(_stored(index)[file] != before[file] for file in edited)
        assert index.indexer.sync().unchanged == 38


def test_a_dead_server_keeps_the_index_and_it_resumes_when_the_server_is_back(
    vault: Path,
) -> None:
    fake = FakeEmbeddingServer()
    port = fake.port
    settings = served(vault, fake.url)
    with VaultIndex(settings) as index:
        index.indexer.sync()
        chunks = index.store.count()
        fake.close()
        (vault / "Inbox" / "New idea.md").write_text("# New idea\n\nPickle the kombu too.\n")
        with pytest.raises(EmbeddingError, match=f"cannot reach Ollama at http://127.0.0.1:{port}"):
            index.indexer.sync()
        assert index.store.count() == chunks
        assert index.store.count(SearchFilter(files=[ANSWER])) > 0
        with FakeEmbeddingServer(port=port):  # back, on the same address
            report = index.indexer.sync()
        assert report.indexed == 1 and report.unchanged == 38


def test_the_cli_prints_an_unreachable_server_without_a_traceback(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("VAULT_AGENT_DATA_DIR", str(vault.parent / "data"))
    monkeypatch.setenv("VAULT_AGENT_INDEX__EMBEDDING", f"ollama:{MODEL}")
    monkeypatch.setenv("VAULT_AGENT_INDEX__EMBEDDING_URL", url)
    monkeypatch.setenv("VAULT_AGENT_INDEX__EMBEDDING_MAX_RETRIES", "0")
    result = CliRunner().invoke(app, ["index", "--vault", str(vault)])
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert f"error: cannot reach Ollama at {url} (model {MODEL})" in output
    assert "Traceback" not in result.output


async def test_the_server_reports_an_unreachable_embedding_server_in_its_index_status(
    vault: Path,
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    index = {"embedding": f"ollama:{MODEL}", "embedding_url": url, "embedding_max_retries": 0}
    settings = api_settings(vault, vault.parent, index=index)
    async with serve_api(settings, background_indexer=True) as api:
        deadline = time.monotonic() + 30
        body: dict[str, Any] = {}
        while time.monotonic() < deadline and not body.get("error"):
            async with api.session.get(api.url("/v1/index"), headers=AUTH) as response:
                body = await response.json()
            await asyncio.sleep(0.1)
        assert body["state"] == "unavailable"
        assert f"cannot reach Ollama at {url}" in body["error"]
        async with api.session.post(
            api.url("/v1/search"), json={"query": "miso"}, headers=AUTH
        ) as response:
            assert response.status == 503
            assert url in (await response.json())["error"]["message"]


@pytest.mark.parametrize(
    ("model", "query", "document"),
    [
        ("nomic-embed-text:v1.5", "search_query: ", "search_document: "),
        ("intfloat/multilingual-e5-small", "query: ", "passage: "),
        ("mxbai-embed-large", SEARCH_INSTRUCTION, ""),
        ("bge-m3", "", ""),
    ],
)
def test_a_served_model_gets_the_prefixes_its_card_documents(
    model: str, query: str, document: str
) -> None:
    with FakeEmbeddingServer(dim=64, model=model) as fake:
        embedder = RemoteEmbedder(EmbeddingEndpoint(protocol="ollama", model=model, url=fake.url))
        try:
            embedder.embed_documents(["Feed the starter twice a day."])
            embedder.embed_query("How often do I feed it?")
        finally:
            embedder.close()
    assert fake.batches[1:] == [
        [f"{document}Feed the starter twice a day."],
        [f"{query}How often do I feed it?"],
    ]
    # Vectors made with prefixes are other vectors: the model id chunks record says so.
    assert (embedder.model_name == f"ollama:{model}") is (not query and not document)


def test_the_prefix_settings_win_and_a_change_re_embeds(
    fake: FakeEmbeddingServer, vault: Path
) -> None:
    own = served(vault, fake.url, embedding_query_prefix="Q: ", embedding_document_prefix="")
    model = server_model(f"ollama:{MODEL}")
    assert model is not None
    embedder = RemoteEmbedder.from_settings(model, own)
    try:
        embedder.embed_documents(["Feed the starter."])
        embedder.embed_query("Feeding?")
    finally:
        embedder.close()
    assert fake.batches[-2:] == [["Feed the starter."], ["Q: Feeding?"]]
    unprefixed = prefixes_for(MODEL)
    assert embedder.model_name != f"ollama:{MODEL}{unprefixed.tag}"
