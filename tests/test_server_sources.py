"""The document API end to end: a source added over HTTP answers a question, cited; patches and
deletes are followed by search; sources survive a restart without re-embedding; two vaults
never see each other's documents; every limit and the reserved `vault` source are refused with
a clear error. Real sockets, the real index of examples/vault (copied), the real models."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from conftest import WrappedEmbedder
from fake_llm import FakeTurn
from server_support import (
    AUTH,
    Api,
    IndexedCopy,
    api_settings,
    ask_events,
    copy_indexed,
    fake_llm_settings,
    observed_fake,
    serve_api,
)
from vault_agent.agent.reader import ToolsContext
from vault_agent.agent.toolbox import (
    Toolbox,
)
from vault_agent.config import ServerSettings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder, Vector
from vault_agent.index.store.protocol import VAULT_SOURCE, SearchFilter
from vault_agent.index.vault_index import VaultIndex
from vault_agent.llm.messages import (
    ToolCall,
)
from vault_agent.server.routes import ROUTES

LOG_URL = "https://example.org/skellig-log"
LOG = {
    "id": "skellig-1904",
    "title": "Skellig lighthouse log",
    "url": LOG_URL,
    "text": "# Skellig lighthouse log\n\nOn 3 June the keeper counted 412 storm petrels "
    "nesting in the walls below the lighthouse.",
    "tags": ["birds"],
    "created": "1904-06-03",
    "metadata": {"keeper": "T. Ryan", "pages": [12, 13]},
}
PUFFINS = {
    "id": "puffins",
    "title": "Puffin burrows",
    "text": "Puffins dig their burrows in the soft turf on the upper terraces of Skellig.",
}
PETREL_QUESTION = "How many storm petrels did the lighthouse keeper count?"

pytestmark = pytest.mark.asyncio(loop_scope="session")


class CountingEmbedder(WrappedEmbedder):
    """The real embedder, counting the passages it embeds (queries are free)."""

    def __init__(self, inner: MiniLmEmbedder) -> None:
        super().__init__(inner)
        self.passages = 0

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        self.passages += len(texts)
        return self.inner.embed_documents(texts)


@pytest.fixture(scope="module")
def counting(embedder: MiniLmEmbedder) -> CountingEmbedder:
    return CountingEmbedder(embedder)


@pytest.fixture(scope="module")
def sources_index(
    indexed_example: IndexedCopy,
    counting: CountingEmbedder,
    sparse: Bm25Encoder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[VaultIndex]:
    """A private copy of the example index: these tests write documents into it."""
    root = tmp_path_factory.mktemp("sources")
    copy = copy_indexed(indexed_example, root)
    settings = api_settings(copy.vault, root, store=copy.store())
    with VaultIndex(settings, embedder=counting, sparse=sparse) as index:
        yield index


@pytest.fixture
async def api(sources_index: VaultIndex, tmp_path: Path) -> AsyncIterator[Api]:
    """The API over the private index; every source but the vault is gone after each test."""
    settings = api_settings(sources_index.settings.vault, tmp_path)
    async with serve_api(settings, vault_index=sources_index) as running:
        yield running
    for info in sources_index.documents.sources()[1:]:
        sources_index.documents.delete_source(info.source)


async def call(
    api: Api, method: str, path: str, body: Any = None, **options: Any
) -> tuple[int, dict[str, Any]]:
    """One request with the token; (status, JSON answer)."""
    headers = options.pop("headers", AUTH)
    async with api.session.request(
        method, api.url(path), json=body, headers=headers, **options
    ) as response:
        return response.status, await response.json()


async def search(api: Api, query: str, **filters: Any) -> list[dict[str, Any]]:
    status, answer = await call(api, "POST", "/v1/search", {"query": query, **filters})
    assert status == 200, answer
    hits: list[dict[str, Any]] = answer["hits"]
    return hits


# -- the token ----------------------------------------------------------------------------------

SOURCE_ROUTES = [route for route in ROUTES if route.path.startswith("/v1/sources")]


def concrete(path: str) -> str:
    return path.replace("{source}", "field-notes").replace("{doc_id}", "skellig-1904")


@pytest.mark.parametrize("route", SOURCE_ROUTES, ids=lambda r: f"{r.method} {r.path}")
async def test_every_document_route_wants_the_token(api: Api, route: Any) -> None:
    path = concrete(route.path)
    body = {"documents": []} if route.body is not None else None
    if route.method == "PATCH":
        body = {"tags": []}
    for headers in ({}, {"Authorization": "Bearer wrong-token"}):
        status, answer = await call(api, route.method, path, body, headers=headers)
        assert status == 401, answer
        assert answer["error"]["code"] in ("missing_token", "invalid_token")
    status, answer = await call(api, route.method, path, body)
    assert status in (200, 404), answer


# -- a source answers questions -----------------------------------------------------------------


async def test_a_question_only_an_added_source_answers_is_answered_and_cited(api: Api) -> None:
    status, report = await call(
        api, "PUT", "/v1/sources/field-notes/documents", {"documents": [LOG, PUFFINS]}
    )
    assert status == 200, report
    assert report["added"] == ["skellig-1904", "puffins"] and report["documents"] == 2
    events = await ask_events(api, {"question": PETREL_QUESTION})
    done = events[-1][1]
    assert events[-1][0] == "done", events[-1]
    link = f"[Skellig lighthouse log]({LOG_URL})"
    assert link in done["answer"] and "412 storm petrels" in done["answer"]
    # The document is the first source; a note that only brushes the question (the example
    # vault's Tidepool retro sits at cosine 0.20-0.22, at the extractive cut-off) may follow.
    assert f"Sources:\n- {link}" in done["answer"]
    assert done["removed_citations"] == []
    assert done["sources"][0] == {
        "file": "field-notes://skellig-1904",
        "title": "Skellig lighthouse log",
        "heading": "",
        "source": "field-notes",
        "url": LOG_URL,
    }
    assert not any(source["file"] == "field-notes://puffins" for source in done["sources"])


async def test_citations_of_documents_are_checked_like_wikilinks(
    api: Api, sources_index: VaultIndex, tmp_path: Path
) -> None:
    other = {"id": "ledger", "text": "Paraffin ledger.", "url": "https://example.org/ledger"}
    await call(api, "PUT", "/v1/sources/field-notes/documents", {"documents": [LOG, PUFFINS]})
    await call(api, "PUT", "/v1/sources/archive/documents", {"documents": [other]})
    answer = (
        f"The keeper counted 412 petrels [Skellig lighthouse log]({LOG_URL}); puffins dig "
        "burrows [Puffin burrows (field-notes)]. See also [Lost diary (field-notes)], "
        "[the ledger](https://example.org/ledger) and [a map](https://example.com/map)."
    )

    def model(body: dict[str, Any]) -> FakeTurn:
        if body["messages"][-1]["role"] == "tool":
            return FakeTurn.text(answer)
        query = {"query": "storm petrels and puffins on Skellig", "sources": ["field-notes"]}
        return FakeTurn.tool_calls([("search_notes", query)])

    async with observed_fake(respond=model) as fake:
        llm = fake_llm_settings(fake.base_url)
        settings = api_settings(sources_index.settings.vault, tmp_path, llm=llm)
        async with serve_api(settings, vault_index=sources_index) as with_model:
            events = await ask_events(with_model, {"question": "What lives on Skellig?"})
    results = [data for name, data in events if name == "tool_result"]
    assert {note["source"] for note in results[0]["notes"]} == {"field-notes"}
    done = events[-1][1]
    assert events[-1][0] == "done", events[-1]
    assert [ref["file"] for ref in done["sources"]] == [
        "field-notes://skellig-1904",
        "field-notes://puffins",
    ]
    reason = "not among the documents retrieved for this answer"
    assert [(r["citation"], r["reason"]) for r in done["removed_citations"]] == [
        ("[Lost diary (field-notes)]", reason),
        ("[the ledger](https://example.org/ledger)", reason),
    ]
    body, sources = done["answer"].split("\n\nSources:\n")
    assert "[Puffin burrows (field-notes)]" in body and "Lost diary" not in body
    assert "the ledger" in body and "(https://example.org/ledger)" not in body
    # A web page no document is: a link only if the model was shown it; this one, its words.
    assert "a map" in body and "example.com/map" not in body
    assert sources == f"- [Skellig lighthouse log]({LOG_URL})\n- [Puffin burrows (field-notes)]"


# -- patches, deletes, search -------------------------------------------------------------------


async def test_search_follows_patches_and_deletes(api: Api, counting: CountingEmbedder) -> None:
    await call(api, "POST", "/v1/sources/field-notes/documents", {"documents": [LOG, PUFFINS]})
    hits = await search(api, "storm petrels counted", sources=["field-notes"])
    assert hits[0]["file"] == "field-notes://skellig-1904" and hits[0]["url"] == LOG_URL

    status, patched = await call(
        api,
        "PATCH",
        "/v1/sources/field-notes/documents/skellig-1904",
        {"text": "On 9 June the keeper logged 57 gannets diving off the north landing."},
    )
    assert status == 200, patched
    assert patched["text"].startswith("On 9 June") and patched["created"] == "1904-06-03"
    hits = await search(api, "gannets diving", sources=["field-notes"], limit=1)
    assert hits[0]["file"] == "field-notes://skellig-1904" and "gannets" in hits[0]["snippet"]
    hits = await search(api, "412 storm petrels nesting in the walls", sources=["field-notes"])
    assert all("petrels" not in hit["snippet"] for hit in hits)

    embedded = counting.passages
    status, patched = await call(
        api,
        "PATCH",
        "/v1/sources/field-notes/documents/skellig-1904",
        {"tags": ["Seabirds/Gannets"], "metadata": {}, "url": None},
    )
    assert status == 200, patched
    assert counting.passages == embedded  # no text, no title: nothing embedded again
    assert (patched["tags"], patched["metadata"], patched["url"]) == (
        ["Seabirds/Gannets"],
        {},
        None,
    )
    hits = await search(api, "gannets", tags=["seabirds"])
    assert [hit["file"] for hit in hits] == ["field-notes://skellig-1904"]

    status, answer = await call(api, "DELETE", "/v1/sources/field-notes/documents/skellig-1904")
    assert (status, answer["deleted"], answer["chunks"]) == (200, True, 1)
    hits = await search(api, "gannets diving off the north landing", sources=["field-notes"])
    assert [hit["file"] for hit in hits] == ["field-notes://puffins"]
    status, answer = await call(api, "DELETE", "/v1/sources/field-notes/documents/skellig-1904")
    assert (status, answer["deleted"], answer["chunks"]) == (200, False, 0)
    status, answer = await call(api, "GET", "/v1/sources/field-notes/documents/skellig-1904")
    assert (status, answer["error"]["code"]) == (404, "document_not_found")


async def test_put_replaces_post_adds_and_lists_page_by_id(
    api: Api, counting: CountingEmbedder
) -> None:
    docs = [{"id": f"d{i}", "text": f"Entry number {i} of the log."} for i in range(5)]
    status, report = await call(api, "PUT", "/v1/sources/log/documents", {"documents": docs})
    assert (status, report["added"]) == (200, [f"d{i}" for i in range(5)])
    embedded = counting.passages
    status, report = await call(api, "POST", "/v1/sources/log/documents", {"documents": docs[:2]})
    assert (report["unchanged"], report["chunks_embedded"]) == (["d0", "d1"], 0)
    assert counting.passages == embedded
    status, report = await call(
        api, "PUT", "/v1/sources/log/documents", {"documents": [docs[1], PUFFINS]}
    )
    assert (report["added"], report["unchanged"]) == (["puffins"], ["d1"])
    assert report["deleted"] == ["d0", "d2", "d3", "d4"] and report["documents"] == 2
    status, page = await call(api, "GET", "/v1/sources/log/documents?offset=1&limit=1")
    assert status == 200, page
    assert (page["total"], [d["id"] for d in page["documents"]]) == (2, ["puffins"])
    assert page["documents"][0]["text"] is None  # lists leave the text out
    status, page = await call(api, "GET", "/v1/sources/nothing-here/documents")
    assert (status, page["total"]) == (200, 0)
    # Found by the API fuzzer: a parameter given twice was read as its first value.
    status, error = await call(api, "GET", "/v1/sources/log/documents?offset=1&offset=x")
    assert (status, error["error"]["code"]) == (422, "invalid_request"), error
    assert "offset" in error["error"]["message"]
    status, answer = await call(api, "DELETE", "/v1/sources/log")
    assert (status, answer["deleted"], answer["documents"]) == (200, True, 2)
    status, answer = await call(api, "DELETE", "/v1/sources/log")
    assert (status, answer["deleted"]) == (200, False)


async def test_sources_list_the_vault_first_then_each_source(
    api: Api, sources_index: VaultIndex
) -> None:
    await call(api, "PUT", "/v1/sources/field-notes/documents", {"documents": [LOG, PUFFINS]})
    status, answer = await call(api, "GET", "/v1/sources")
    assert status == 200, answer
    assert answer["vault_id"] == str(sources_index.settings.vault_id)
    vault, notes = answer["sources"]
    store = sources_index.store
    assert vault["source"] == "vault" and vault["managed_by"] == "indexer"
    assert vault["documents"] == store.count(SearchFilter(sources=["vault"], chunk_index=0)) > 30
    assert vault["chunks"] == store.count(SearchFilter(sources=["vault"]))
    assert (notes["source"], notes["managed_by"], notes["documents"], notes["chunks"]) == (
        "field-notes",
        "api",
        2,
        2,
    )
    assert notes["embedding_model"] == sources_index.ingest.model_name
    assert notes["created"] and notes["updated"]


# -- persistence and isolation ------------------------------------------------------------------


async def test_sources_survive_a_restart_without_being_embedded_again(
    indexed_example: IndexedCopy,
    counting: CountingEmbedder,
    sparse: Bm25Encoder,
    tmp_path: Path,
) -> None:
    copy = copy_indexed(indexed_example, tmp_path)
    settings = api_settings(copy.vault, tmp_path, store=copy.store())
    # The app opens (and at shutdown closes) the index itself, as `vault-agent serve` does.
    async with serve_api(settings, embedder=counting, sparse=sparse) as api:
        status, _ = await call(
            api, "PUT", "/v1/sources/field-notes/documents", {"documents": [LOG, PUFFINS]}
        )
        assert status == 200
        status, before = await call(api, "GET", "/v1/sources/field-notes/documents/skellig-1904")
    embedded = counting.passages
    async with serve_api(settings, embedder=counting, sparse=sparse) as api:
        status, sources = await call(api, "GET", "/v1/sources")
        assert [(s["source"], s["documents"]) for s in sources["sources"][1:]] == [
            ("field-notes", 2)
        ]
        status, after = await call(api, "GET", "/v1/sources/field-notes/documents/skellig-1904")
        assert after == before
        hits = await search(api, "storm petrels counted", sources=["field-notes"])
        assert hits[0]["file"] == "field-notes://skellig-1904"
        # A vault sync looks at the vault's own points only: the documents stay.
        status, synced = await call(api, "POST", "/v1/index/sync", {"wait": True})
        assert status == 200 and synced["report"]["deleted"] == 0
        status, page = await call(api, "GET", "/v1/sources/field-notes/documents")
        assert page["total"] == 2
    assert counting.passages == embedded


async def test_two_vaults_served_by_two_sidecars_never_see_each_others_documents(
    indexed_example: IndexedCopy, embedder: MiniLmEmbedder, sparse: Bm25Encoder, tmp_path: Path
) -> None:
    first = copy_indexed(indexed_example, tmp_path / "first")
    second = copy_indexed(indexed_example, tmp_path / "second")
    first_settings = api_settings(first.vault, tmp_path / "first")
    second_settings = api_settings(second.vault, tmp_path / "second")
    assert first_settings.edge_path != second_settings.edge_path  # keyed by vault by default
    async with (
        serve_api(first_settings, embedder=embedder, sparse=sparse) as one,
        serve_api(second_settings, embedder=embedder, sparse=sparse) as two,
    ):
        await call(one, "PUT", "/v1/sources/field-notes/documents", {"documents": [LOG]})
        _, sources = await call(two, "GET", "/v1/sources")
        assert [s["source"] for s in sources["sources"]] == [VAULT_SOURCE]
        assert await search(two, "storm petrels", sources=["field-notes"]) == []
        status, _ = await call(two, "GET", "/v1/sources/field-notes/documents/skellig-1904")
        assert status == 404
        hits = await search(one, "storm petrels", sources=["field-notes"])
        assert [hit["file"] for hit in hits] == ["field-notes://skellig-1904"]
        _, ids = await call(one, "GET", "/v1/sources")
        _, other_ids = await call(two, "GET", "/v1/sources")
        assert ids["vault_id"] != other_ids["vault_id"]


# -- limits and the reserved source -------------------------------------------------------------


def doc(**fields: Any) -> dict[str, Any]:
    return {"id": "a1", "text": "Some text.", **fields}


LIMITS = [
    pytest.param(
        "POST",
        "/v1/sources/clips/documents",
        {"documents": [doc(id=f"d{i}") for i in range(101)]},
        422,
        "invalid_request",
        "at most 100 items",
        id="documents per request",
    ),
    pytest.param(
        "PUT",
        "/v1/sources/clips/documents",
        {"documents": [doc(text="a" * 1_000_001)]},
        413,
        "document_too_large",
        "1,000,001 bytes of text, over the limit of 1,000,000 bytes",
        id="bytes per document",
    ),
    pytest.param(
        "POST",
        "/v1/sources/clips/documents",
        {"documents": [doc(text="€" * 333_334)]},  # 333,334 characters, 1,000,002 bytes
        413,
        "document_too_large",
        "over the limit of 1,000,000 bytes",
        id="bytes, not characters",
    ),
    pytest.param(
        "PATCH",
        "/v1/sources/clips/documents/a1",
        {"text": "b" * 1_000_001},
        413,
        "document_too_large",
        "over the limit of 1,000,000 bytes",
        id="bytes of a patched text",
    ),
    pytest.param(
        "POST",
        "/v1/sources/clips/documents",
        {"documents": [doc(metadata={"notes": "x" * 17_000})]},
        422,
        "invalid_request",
        "over the 16,384-byte limit",
        id="metadata bytes",
    ),
    pytest.param(
        "POST",
        "/v1/sources/clips/documents",
        {"documents": [doc(metadata={"score": float("nan")})]},  # sent as JSON's NaN
        422,
        "invalid_request",
        "metadata holds NaN or an infinite number",
        id="NaN in metadata",
    ),
    pytest.param(
        "PATCH",
        "/v1/sources/clips/documents/a1",
        {"metadata": {"scores": [1, float("inf")]}},
        422,
        "invalid_request",
        "metadata holds NaN or an infinite number",
        id="an infinity in patched metadata",
    ),
    pytest.param(
        "POST",
        "/v1/sources/clips/documents",
        {"documents": [doc(title="t" * 501)]},
        422,
        "invalid_request",
        "at most 500 characters",
        id="title length",
    ),
    pytest.param(
        "POST",
        "/v1/sources/clips/documents",
        {"documents": [doc(tags=[f"t{i}" for i in range(51)])]},
        422,
        "invalid_request",
        "at most 50 items",
        id="tags per document",
    ),
    pytest.param(
        "POST",
        "/v1/sources/clips/documents",
        {"documents": [doc(url="javascript:alert(1)")]},
        422,
        "invalid_request",
        "documents.0.url",
        id="only web urls",
    ),
    pytest.param(
        "POST",
        "/v1/sources/clips/documents",
        {"documents": [doc(id="a/b")]},
        422,
        "invalid_request",
        "documents.0.id",
        id="document id in a body",
    ),
    pytest.param(
        "POST",
        "/v1/sources/Web%20Clips/documents",
        {"documents": [doc()]},
        422,
        "invalid_source",
        "invalid source name 'Web Clips'",
        id="source name",
    ),
    pytest.param(
        "GET",
        "/v1/sources/clips/documents/-a1",
        None,
        422,
        "invalid_document_id",
        "invalid document id '-a1'",
        id="document id in a path",
    ),
    pytest.param(
        "PATCH",
        "/v1/sources/clips/documents/a1",
        {},
        422,
        "invalid_request",
        "give at least one of text, title, url, tags, created, metadata",
        id="an empty patch",
    ),
    pytest.param(
        "PATCH",
        "/v1/sources/clips/documents/a1",
        {"text": None},
        422,
        "invalid_request",
        "text can't be null",
        id="a null text",
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "status", "code", "message"), LIMITS)
async def test_every_limit_is_refused_with_an_error_naming_it(
    api: Api,
    sources_index: VaultIndex,
    method: str,
    path: str,
    body: Any,
    status: int,
    code: str,
    message: str,
) -> None:
    await call(api, "PUT", "/v1/sources/clips/documents", {"documents": [doc()]})
    chunks = sources_index.store.count()
    got, answer = await call(api, method, path, body)
    assert (got, answer["error"]["code"]) == (status, code), answer
    assert message in answer["error"]["message"]
    assert sources_index.store.count() == chunks  # nothing written
    _, page = await call(api, "GET", "/v1/sources/clips/documents/a1")
    assert page["text"] == "Some text."


async def test_a_body_over_the_body_limit_is_refused_before_it_is_read(
    sources_index: VaultIndex, tmp_path: Path
) -> None:
    settings = api_settings(
        sources_index.settings.vault, tmp_path, server=ServerSettings(max_body_bytes=64 * 1024)
    )
    async with serve_api(settings, vault_index=sources_index) as api:
        body = {"documents": [doc(text="a" * 70_000)]}
        status, answer = await call(api, "PUT", "/v1/sources/clips/documents", body)
    assert (status, answer["error"]["code"]) == (413, "body_too_large")
    assert "65536" in answer["error"]["message"]
    assert sources_index.documents.sources()[1:] == []


@pytest.mark.parametrize("route", SOURCE_ROUTES[1:], ids=lambda r: f"{r.method} {r.path}")
async def test_the_vault_source_is_reserved_on_every_route(
    api: Api, sources_index: VaultIndex, route: Any
) -> None:
    chunks = sources_index.store.count(SearchFilter(sources=[VAULT_SOURCE]))
    path = route.path.replace("{source}", "vault").replace("{doc_id}", "Welcome.md")
    body: Any = {"documents": [doc()]} if route.body is not None else None
    if route.method == "PATCH":
        body = {"text": "overwritten"}
    status, answer = await call(api, route.method, path, body)
    assert (status, answer["error"]["code"]) == (403, "reserved_source"), answer
    assert "managed" in answer["error"]["message"] or "reserved" in answer["error"]["message"]
    assert sources_index.store.count(SearchFilter(sources=[VAULT_SOURCE])) == chunks


async def test_an_unknown_document_is_404_and_an_unknown_source_empty(api: Api) -> None:
    status, answer = await call(api, "PATCH", "/v1/sources/clips/documents/nope", {"tags": []})
    assert (status, answer["error"]["code"]) == (404, "document_not_found")
    assert "'nope'" in answer["error"]["message"]
    status, answer = await call(api, "GET", "/v1/sources/clips/documents/nope")
    assert status == 404
    status, answer = await call(api, "DELETE", "/v1/sources/clips")
    assert (status, answer["deleted"], answer["documents"]) == (200, False, 0)


async def test_documents_can_be_listed_and_read_back_as_sent(api: Api) -> None:
    await call(api, "POST", "/v1/sources/field-notes/documents", {"documents": [LOG]})
    status, stored = await call(api, "GET", "/v1/sources/field-notes/documents/skellig-1904")
    assert status == 200, stored
    assert stored["text"] == LOG["text"]
    for key in ("id", "title", "url", "tags", "created", "metadata"):
        assert stored[key] == LOG[key], key
    assert (stored["source"], stored["file"], stored["chunks"]) == (
        "field-notes",
        "field-notes://skellig-1904",
        1,
    )


async def test_the_agent_lists_and_searches_by_source(api: Api, sources_index: VaultIndex) -> None:
    await call(api, "PUT", "/v1/sources/field-notes/documents", {"documents": [LOG, PUFFINS]})
    toolbox = Toolbox(ToolsContext.from_index(sources_index))
    listed = await toolbox.run(
        ToolCall(id="call00001", name="list_notes", arguments={"source": "field-notes"})
    )
    assert listed.ok, listed.content
    assert listed.content.splitlines()[1:] == [
        "- [Puffin burrows (field-notes)] (from field-notes)",
        f"- [Skellig lighthouse log]({LOG_URL}) (from field-notes; #birds)",
    ]
    assert {(ref.source, ref.url) for ref in listed.notes} == {
        ("field-notes", None),
        ("field-notes", LOG_URL),
    }
    notes_only = await toolbox.run(
        ToolCall(
            id="call00002",
            name="search_notes",
            arguments={"query": "storm petrels", "sources": ["vault"]},
        )
    )
    assert all(ref.source == "vault" for ref in notes_only.notes)
    everything = await toolbox.run(
        ToolCall(
            id="call00003", name="search_notes", arguments={"query": "storm petrels lighthouse"}
        )
    )
    assert everything.notes[0].file == "field-notes://skellig-1904"
    assert (
        f"[1] [Skellig lighthouse log]({LOG_URL}) (from field-notes; #birds)" in everything.content
    )
