"""Documents of other sources in a vault's store (`vault_agent.index.documents.store`): chunked and
embedded like notes, written only when they changed, never touched by a vault sync, and kept
apart per vault collection. Runs against both stores with the real embedding models; the
documents are tiny, so little is embedded."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from conftest import EXAMPLE_VAULT, WrappedEmbedder
from vault_agent.agent.events import DoneEvent
from vault_agent.agent.extractive import ExtractiveAnswerer
from vault_agent.agent.loop import run_agent
from vault_agent.agent.reader import ToolsContext
from vault_agent.agent.request import AgentRequest
from vault_agent.config import Settings
from vault_agent.index.documents.models import (
    Document,
    DocumentChanges,
    DocumentError,
    DocumentLimitError,
    ReservedSourceError,
    document_file,
    is_document_file,
)
from vault_agent.index.documents.store import Documents
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder, Vector
from vault_agent.index.ingest import Ingest
from vault_agent.index.search.searcher import Searcher
from vault_agent.index.store.edge import EdgeStore
from vault_agent.index.store.protocol import VAULT_SOURCE, SearchFilter, Store
from vault_agent.index.store.server import ServerStore
from vault_agent.index.vault_index import VaultIndex
from vault_agent.vault.chunker import chunk_note
from vault_agent.vault.files import scan_vault
from vault_agent.vault.graph import LinkGraph
from vault_agent.vault.notes import parse_note

VAULT_ID = uuid.UUID("6f1c2a4e-0000-4000-8000-0000000000d0")
LONG_TEXT = (
    "# Skellig lighthouse log\n\nThe keeper counted 412 storm petrels on 3 June.\n\n"
    "## Weather\n\n"
    + "A westerly gale blew for three days and the landing was closed. " * 30
    + "\n\n## Supplies\n\nThe relief boat brought paraffin, flour and a new lens cloth."
)


class RecordingEmbedder(WrappedEmbedder):
    """The real embedder, remembering every passage it embedded."""

    def __init__(self, inner: MiniLmEmbedder) -> None:
        super().__init__(inner)
        self.texts: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        self.texts += texts
        return self.inner.embed_documents(texts)


@pytest.fixture
def recording(embedder: MiniLmEmbedder) -> RecordingEmbedder:
    return RecordingEmbedder(embedder)


def open_store(kind: str, path: Path, collection: str = "vault-agent-test") -> Store:
    if kind == "edge":
        return EdgeStore(path / f"edge-{collection}")
    return ServerStore(QdrantClient(":memory:"), collection)


@pytest.fixture(params=["edge", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened = open_store(request.param, tmp_path)
    yield opened
    opened.close()


@pytest.fixture
def documents(store: Store, recording: RecordingEmbedder, sparse: Bm25Encoder) -> Documents:
    return Documents(Ingest(store, recording, sparse, VAULT_ID))


def test_a_document_is_chunked_and_embedded_exactly_like_a_note(
    documents: Documents, recording: RecordingEmbedder
) -> None:
    report = documents.upsert(
        "logs", [Document(id="skellig-1904", text=LONG_TEXT, title="Skellig log 1904")]
    )
    file = document_file("logs", "skellig-1904")
    note = parse_note(file, LONG_TEXT.encode()).model_copy(update={"title": "Skellig log 1904"})
    expected = chunk_note(note, documents.ingest.sizes)
    assert len(expected) > 1
    assert recording.texts == [chunk.embed_text for chunk in expected]
    assert report.added == ["skellig-1904"] and report.chunks_embedded == len(expected)
    stored = sorted(documents.store.scroll(SearchFilter(files=[file])), key=lambda c: c.chunk_index)
    assert [(c.heading, c.body) for c in stored] == [(c.heading, c.body) for c in expected]
    first = stored[0]
    assert (first.source, first.title) == ("logs", "Skellig log 1904")
    assert first.chunk_count == len(expected)
    assert (first.date, first.links, first.folders) == (None, [], [])
    assert first.document is not None and first.document.id == "skellig-1904"


def test_search_finds_documents_and_a_source_filter_narrows_to_them(
    documents: Documents, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    documents.upsert(
        "logs",
        [
            Document(id="a", text=LONG_TEXT, url="https://example.org/skellig"),
            Document(id="b", text="Sourdough wants a warm kitchen.", tags=["Food/Bread"]),
        ],
    )
    searcher = Searcher(documents.store, embedder, sparse)
    hits = searcher.search("how many storm petrels", SearchFilter(sources=["logs"]), limit=2)
    assert hits[0].file == "logs://a" and hits[0].url == "https://example.org/skellig"
    assert hits[0].source == "logs"
    tagged = searcher.search("bread", SearchFilter(tags=["food"]), limit=5)
    assert [hit.file for hit in tagged] == ["logs://b"]  # tags expand like a note's
    assert searcher.search("storm petrels", SearchFilter(sources=["vault"])) == []


def test_unchanged_documents_and_metadata_changes_are_not_embedded_again(
    documents: Documents, recording: RecordingEmbedder
) -> None:
    document = Document(id="a", text="The keeper counted 412 storm petrels.", tags=["birds"])
    documents.upsert("logs", [document])
    embedded = len(recording.texts)
    again = documents.upsert("logs", [document])
    assert again.unchanged == ["a"] and again.chunks_embedded == 0
    retagged = document.model_copy(update={"tags": ["seabirds"], "metadata": {"page": 3}})
    changed = documents.upsert("logs", [retagged])
    assert changed.updated == ["a"] and changed.chunks_embedded == 0
    patched = documents.patch(
        "logs", "a", DocumentChanges.model_validate({"url": "https://example.org/a"})
    )
    assert len(recording.texts) == embedded  # none of the three embedded anything
    assert patched is not None
    assert (patched.tags, patched.metadata, patched.url) == (
        ["seabirds"],
        {"page": 3},
        "https://example.org/a",
    )
    stored = next(iter(documents.store.scroll(SearchFilter(files=["logs://a"]))))
    assert stored.tags == ["seabirds"]


def test_a_new_text_or_title_is_embedded_again(
    documents: Documents, recording: RecordingEmbedder
) -> None:
    documents.upsert("logs", [Document(id="a", text="Petrels nest in stone walls.")])
    before = len(recording.texts)
    retitled = documents.patch("logs", "a", DocumentChanges.model_validate({"title": "Petrels"}))
    assert retitled is not None and retitled.title == "Petrels"
    assert recording.texts[before:] == ["Petrels\n\nPetrels nest in stone walls."]
    rewritten = documents.patch(
        "logs", "a", DocumentChanges.model_validate({"text": "Puffins dig burrows."})
    )
    assert rewritten is not None and rewritten.text == "Puffins dig burrows."
    assert recording.texts[-1] == "Petrels\n\nPuffins dig burrows."


def test_replace_keeps_exactly_the_documents_given(documents: Documents) -> None:
    documents.upsert("logs", [Document(id=i, text=f"Entry {i}.") for i in ("a", "b", "c")])
    documents.upsert("other", [Document(id="a", text="Another source's a.")])
    report = documents.replace(
        "logs", [Document(id="b", text="Entry b."), Document(id="d", text="New.")]
    )
    assert (report.added, report.unchanged, report.deleted) == (["d"], ["b"], ["a", "c"])
    assert [doc.id for doc in documents.list_documents("logs")] == ["b", "d"]
    assert [doc.id for doc in documents.list_documents("other")] == ["a"]
    assert documents.replace("logs", []).deleted == ["b", "d"]
    assert [info.source for info in documents.sources()] == [VAULT_SOURCE, "other"]


def test_delete_is_idempotent_and_a_source_goes_as_a_whole(documents: Documents) -> None:
    documents.upsert("logs", [Document(id="a", text=LONG_TEXT), Document(id="b", text="B.")])
    assert documents.delete("logs", "b") == 1
    assert documents.delete("logs", "b") == 0
    assert documents.delete_source("logs") == (1, 4)
    assert documents.delete_source("logs") == (0, 0)
    assert documents.store.count() == 0


def test_sources_report_counts_model_and_times(documents: Documents) -> None:
    documents.upsert("logs", [Document(id="a", text=LONG_TEXT), Document(id="b", text="B.")])
    vault, logs = documents.sources()
    assert (vault.source, vault.managed_by, vault.documents) == ("vault", "indexer", 0)
    assert (logs.source, logs.managed_by, logs.documents, logs.chunks) == ("logs", "api", 2, 5)
    assert logs.embedding_model == documents.ingest.model_name
    assert logs.created is not None and logs.updated is not None
    assert logs.created <= logs.updated


def test_the_vault_source_and_malformed_names_are_refused(documents: Documents) -> None:
    with pytest.raises(ReservedSourceError):
        documents.upsert("vault", [Document(id="a", text="x")])
    with pytest.raises(ReservedSourceError):
        documents.delete_source("vault")
    with pytest.raises(DocumentError, match="invalid source name"):
        documents.upsert("Web Clips", [Document(id="a", text="x")])
    with pytest.raises(DocumentError, match="invalid document id"):
        documents.get("logs", "a/b")
    with pytest.raises(DocumentLimitError, match="over the limit of 100"):
        documents.upsert("logs", [Document(id=f"d{i}", text="x") for i in range(101)])
    with pytest.raises(DocumentLimitError, match="1,000,000 bytes"):
        documents.upsert("logs", [Document(id="big", text="€" * 333_334)])  # 1,000,002 bytes
    assert documents.store.count() == 0


def test_each_vault_collection_holds_only_its_own_documents(
    tmp_path: Path, recording: RecordingEmbedder, sparse: Bm25Encoder
) -> None:
    client = QdrantClient(":memory:")  # one Qdrant server, one collection per vault
    pairs = [
        (ServerStore(client, "vault-agent-a"), ServerStore(client, "vault-agent-b")),
        (EdgeStore(tmp_path / "a"), EdgeStore(tmp_path / "b")),
    ]
    for first_store, second_store in pairs:
        first = Documents(Ingest(first_store, recording, sparse, uuid.uuid4()))
        second = Documents(Ingest(second_store, recording, sparse, uuid.uuid4()))
        first.upsert("logs", [Document(id="a", text="Only in the first vault.")])
        assert [doc.id for doc in first.list_documents("logs")] == ["a"]
        assert second.list_documents("logs") == []
        assert [info.source for info in second.sources()] == [VAULT_SOURCE]
        assert second_store.count() == 0
        first_store.close()
        second_store.close()


def test_a_vault_sync_never_deletes_or_rewrites_documents(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    vault = tmp_path / "vault"
    (vault / "clips").mkdir(parents=True)
    (vault / "clips" / "a1.md").write_text("# A1\n\nA vault note named like a document.\n")
    (vault / "Other.md").write_text("# Other\n\nLinks to [[a1]].\n")
    settings = Settings(vault=vault, data_dir=tmp_path / "data")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        docs = [
            Document(id="a1.md", text="Document a1 of the clips source."),
            Document(id="b", text="B."),
        ]
        index.documents.upsert("clips", docs)
        assert set(index.store.file_states(VAULT_SOURCE)) == {"clips/a1.md", "Other.md"}
        (vault / "clips" / "a1.md").unlink()
        (vault / "Other.md").write_text("# Other\n\nChanged.\n")
        report = index.indexer.sync()  # a full scan: every stored vault file not on disk goes
        assert report.deleted == 1 and report.indexed == 1
        index.indexer.sync(["clips/a1.md", "Other.md", "clips://b"])  # watch mode, by path
        assert [doc.id for doc in index.documents.list_documents("clips")] == ["a1.md", "b"]
        assert index.documents.get("clips", "a1.md") is not None
        assert set(index.store.file_states(VAULT_SOURCE)) == {"Other.md"}
        assert index.indexer.file_status()[0].file == "Other.md"
        assert "clips://a1.md" not in index.graph


def test_no_vault_path_can_be_a_document_file() -> None:
    files = [vault_file.file for vault_file in scan_vault(EXAMPLE_VAULT, [])]
    assert files and not any(is_document_file(file) for file in files)
    assert is_document_file(document_file("clips", "a1"))


async def test_the_extractive_profile_quotes_and_cites_documents(
    documents: Documents, embedder: MiniLmEmbedder, sparse: Bm25Encoder, tmp_path: Path
) -> None:
    url = "https://example.org/skellig"
    documents.upsert(
        "field-notes",
        [
            Document(id="log", text="412 storm petrels nested there.", url=url, title="Log"),
            Document(id="puffins", text="Puffins dig burrows in the turf.", title="Puffins"),
        ],
    )
    context = ToolsContext(
        store=documents.store,
        searcher=Searcher(documents.store, embedder, sparse),
        graph=LinkGraph(),
        vault_root=tmp_path,
        documents=documents,
    )
    events = [
        event
        async for event in run_agent(
            AgentRequest(question="How many storm petrels nested?"),
            ExtractiveAnswerer(),
            context,
            Settings(vault=tmp_path, data_dir=tmp_path / "data"),
        )
    ]
    done = events[-1]
    assert isinstance(done, DoneEvent), done
    assert done.answer.splitlines()[0] == f"412 storm petrels nested there. [Log]({url})"
    assert done.removed_citations == [] and done.sources[0].file == "field-notes://log"
