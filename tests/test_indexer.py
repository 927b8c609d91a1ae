"""The indexer against the real model and a real Qdrant Edge shard, over real vault files."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLE_VAULT, WrappedEmbedder
from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder, Vector
from vault_agent.index.store.open import open_store
from vault_agent.index.store.protocol import SearchFilter, point_id
from vault_agent.index.sync import indexer as indexer_module
from vault_agent.index.vault_index import VaultIndex


class CountingEmbedder(WrappedEmbedder):
    """The real embedder, counting how many texts it embeds."""

    def __init__(self, inner: MiniLmEmbedder) -> None:
        super().__init__(inner)
        self.embedded = 0

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        self.embedded += len(texts)
        return self.inner.embed_documents(texts)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A private copy of the example vault that a test may change."""
    copy = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, copy)
    return copy


@pytest.fixture
def counting(embedder: MiniLmEmbedder) -> CountingEmbedder:
    return CountingEmbedder(embedder)


@pytest.fixture
def index(
    vault: Path, tmp_path: Path, counting: CountingEmbedder, sparse: Bm25Encoder
) -> Iterator[VaultIndex]:
    settings = Settings(vault=vault, data_dir=tmp_path / "data")
    with VaultIndex(settings, embedder=counting, sparse=sparse) as vault_index:
        vault_index.indexer.sync()
        yield vault_index


def files_passed_to(monkeypatch: pytest.MonkeyPatch, function: str, position: int) -> list[str]:
    """The `file` argument (at `position`) of each call the indexer makes to `function` from
    now on: which files it reads or parses."""
    files: list[str] = []
    real = getattr(indexer_module, function)

    def recording(*args: Any) -> Any:
        files.append(args[position])
        return real(*args)

    monkeypatch.setattr(indexer_module, function, recording)
    return files


def note_count(vault: Path) -> int:
    return sum(1 for p in vault.rglob("*.md") if not any(s.startswith(".") for s in p.parts))


def files_in_store(vault_index: VaultIndex) -> set[str]:
    return set(vault_index.store.file_states())


def test_full_sync_indexes_every_note(index: VaultIndex, vault: Path) -> None:
    statuses = index.indexer.file_status()
    assert len(statuses) == note_count(vault)
    assert all(s.state == "indexed" for s in statuses), [
        s for s in statuses if s.state != "indexed"
    ]
    assert len(files_in_store(index)) == note_count(vault)
    chunks = sum(s.chunks for s in statuses)
    assert index.store.count() == chunks


def test_no_change_resync_embeds_nothing(index: VaultIndex, counting: CountingEmbedder) -> None:
    counting.embedded = 0
    report = index.indexer.sync()
    assert counting.embedded == 0
    assert report.indexed == 0
    assert report.unchanged == report.scanned


def test_no_change_resync_reads_no_file(
    vault: Path,
    tmp_path: Path,
    counting: CountingEmbedder,
    sparse: Bm25Encoder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # mtimes needing 17 significant digits, which Qdrant hands back with 16: the mtime/size
    # shortcut must still hold, so an unchanged vault is neither read nor hashed.
    needs_17_digits = (1795318135_134364100, 1795318135_788723500, 1795318135_228762100)
    for number, path in enumerate(sorted(vault.rglob("*.md"))):
        os.utime(path, ns=(needs_17_digits[number % 3],) * 2)
    settings = Settings(vault=vault, data_dir=tmp_path / "reads")
    with VaultIndex(settings, embedder=counting, sparse=sparse) as vault_index:
        vault_index.indexer.sync()
        resolved = files_passed_to(monkeypatch, "resolve_in_vault", 1)
        reads = files_passed_to(monkeypatch, "read_vault_file", 1)
        report = vault_index.indexer.sync()
        assert resolved == reads == []
        assert report.indexed == 0


def test_touched_but_unchanged_note_is_not_reembedded(
    index: VaultIndex, vault: Path, counting: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = next(vault.rglob("*.md"))
    later = time.time() + 10
    os.utime(note, (later, later))
    counting.embedded = 0
    reads = files_passed_to(monkeypatch, "read_vault_file", 1)
    report = index.indexer.sync()
    assert counting.embedded == 0
    assert report.indexed == 0
    assert reads == [note.relative_to(vault).as_posix()]
    # Found by the file-system audit: its new mtime was never stored, so every later sync
    # read and hashed it again (after a checkout or a restore, the whole vault, every time).
    report = index.indexer.sync()
    assert reads == [note.relative_to(vault).as_posix()], "read again by the next sync"
    assert report.unchanged == report.scanned


def test_edited_note_is_reembedded_and_its_old_chunks_removed(
    index: VaultIndex, vault: Path
) -> None:
    note = vault / "Edited note.md"
    note.write_text("# Plan\n\n" + "Long paragraph about quinoa salads. " * 200)
    index.indexer.sync()
    long_count = index.store.count(SearchFilter(files=["Edited note.md"]))
    assert long_count > 1

    note.write_text("# Plan\n\nNow only a note about marmalade.")
    index.indexer.sync()
    assert index.store.count(SearchFilter(files=["Edited note.md"])) == 1
    hits = index.searcher.search("marmalade", limit=1)
    assert hits[0].file == "Edited note.md"
    bodies = [p.body for p in index.store.scroll(SearchFilter(files=["Edited note.md"]))]
    assert not any("quinoa" in body for body in bodies)


def test_deleted_note_leaves_the_index(index: VaultIndex, vault: Path) -> None:
    victim = sorted(vault.rglob("*.md"))[0]
    relative = victim.relative_to(vault).as_posix()
    assert relative in files_in_store(index)
    victim.unlink()
    report = index.indexer.sync()
    assert report.deleted == 1
    assert relative not in files_in_store(index)
    assert index.store.count(SearchFilter(files=[relative])) == 0
    assert relative not in {s.file for s in index.indexer.file_status()}


def test_renamed_note_keeps_no_stale_chunks(index: VaultIndex, vault: Path) -> None:
    source = sorted(vault.rglob("*.md"))[0]
    old = source.relative_to(vault).as_posix()
    source.rename(vault / "Renamed note.md")
    index.indexer.sync()
    stored = files_in_store(index)
    assert old not in stored
    assert "Renamed note.md" in stored
    assert index.store.count() == sum(s.chunks for s in index.indexer.file_status())


def test_bad_files_get_a_reason_and_good_ones_still_index(index: VaultIndex, vault: Path) -> None:
    (vault / "binary.md").write_bytes(b"\x00\x01\x02PNG\x00" * 100)
    (vault / "broken frontmatter.md").write_text(
        "---\ntags: [unclosed\ntitle: oops: : :\n---\n# Still here\n\nThe kumquat harvest.\n"
    )
    (vault / "latin1.md").write_bytes("Café crème brûlée recipe notes".encode("cp1252"))
    index.settings.index.max_file_bytes = 50_000
    (vault / "huge.md").write_text("word " * 20_000)
    index.indexer.sync()
    status = {s.file: s for s in index.indexer.file_status()}
    assert status["binary.md"].state == "skipped"
    assert status["binary.md"].reason
    assert status["huge.md"].state == "skipped"
    assert "limit" in (status["huge.md"].reason or "")
    assert status["broken frontmatter.md"].state == "indexed"
    assert any("frontmatter" in w for w in status["broken frontmatter.md"].warnings)
    assert status["latin1.md"].state == "indexed"
    assert index.searcher.search("kumquat harvest", limit=1)[0].file == "broken frontmatter.md"
    assert index.searcher.search("crème brûlée", limit=1)[0].file == "latin1.md"


def test_a_note_whose_chunking_fails_is_reported_and_the_others_still_index(
    index: VaultIndex, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A note the parser took but the chunker (or what it calls) can't: an error of ours,
    # which stopped the whole sync, and so every search and answer, when it escaped.
    (vault / "Chunked badly.md").write_text("# Fine\n\nThe quince jelly set overnight.\n")
    (vault / "Good.md").write_text("The medlar tree fruited this year.\n")
    prepare = index.indexer.ingest.prepare

    def failing(note: Any, *args: Any, **kwargs: Any) -> Any:
        if note.file == "Chunked badly.md":
            raise AssertionError("expected name token")
        return prepare(note, *args, **kwargs)

    monkeypatch.setattr(index.indexer.ingest, "prepare", failing)
    index.indexer.sync()
    status = {s.file: s for s in index.indexer.file_status()}
    assert status["Chunked badly.md"].state == "failed"
    assert "expected name token" in (status["Chunked badly.md"].reason or "")
    assert index.searcher.search("medlar tree", limit=1)[0].file == "Good.md"


def test_an_html_block_python_cannot_parse_is_read_as_text(index: VaultIndex, vault: Path) -> None:
    (vault / "Diagram.md").write_text("<div><![[Flowchart]]</div>\n\nThe loquat flowchart.\n")
    index.indexer.sync()
    status = {s.file: s for s in index.indexer.file_status()}
    assert status["Diagram.md"].state == "indexed"
    assert index.searcher.search("loquat flowchart", limit=1)[0].file == "Diagram.md"


def test_new_note_resolves_earlier_dangling_links_in_the_payload(
    index: VaultIndex, vault: Path
) -> None:
    (vault / "Linker.md").write_text("See [[Brand New Target]] for details.\n")
    index.indexer.sync()
    (payload,) = index.store.scroll(SearchFilter(files=["Linker.md"]))
    assert payload.links == []
    (vault / "Brand New Target.md").write_text("The target exists now.\n")
    index.indexer.sync()
    (payload,) = index.store.scroll(SearchFilter(files=["Linker.md"]))
    assert payload.links == ["Brand New Target.md"]
    assert "Linker.md" in index.graph.backlinks("Brand New Target.md")


def test_a_long_note_stores_its_links_on_its_first_chunk_only(
    index: VaultIndex, vault: Path
) -> None:
    section = " ".join(f"Paragraph word{i} about the harbour survey." for i in range(60))
    sections = [f"## Part {n}\n\n{section} See [[Target {n}]].\n" for n in range(3)]
    (vault / "Long.md").write_text("# Long\n\n" + "\n".join(sections))
    (vault / "Target 0.md").write_text("Zero.\n")
    index.indexer.sync()

    def stored() -> dict[int, list[str]]:
        chunks = index.store.scroll(SearchFilter(files=["Long.md"]))
        return {chunk.chunk_index: chunk.links for chunk in chunks}

    links = stored()
    assert len(links) >= 3  # the test needs a note of several chunks
    assert links.pop(0) == ["Target 0.md"]
    assert all(chunk_links == [] for chunk_links in links.values())
    (vault / "Target 2.md").write_text("Two.\n")  # a rewrite of the stored links
    index.indexer.sync()
    links = stored()
    assert links.pop(0) == ["Target 0.md", "Target 2.md"]
    assert all(chunk_links == [] for chunk_links in links.values())
    assert index.graph.backlinks("Target 2.md") == ["Long.md"]


def test_graph_survives_a_restart_without_reparsing(
    index: VaultIndex,
    vault: Path,
    counting: CountingEmbedder,
    sparse: Bm25Encoder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (vault / "Linker.md").write_text("See [[Brand New Target]].\n")
    (vault / "Brand New Target.md").write_text("Target.\n")
    index.indexer.sync()
    settings = index.settings
    index.close()
    parsed = files_passed_to(monkeypatch, "parse_note", 0)
    with VaultIndex(settings, embedder=counting, sparse=sparse) as reopened:
        counting.embedded = 0
        reopened.indexer.sync()
        assert counting.embedded == 0
        assert parsed == []  # the graph came from the link cache
        assert reopened.graph.backlinks("Brand New Target.md") == ["Linker.md"]
    index.store = reopened.store  # the fixture closes it again; closing twice must be harmless


def test_a_restart_picks_up_exactly_what_changed_while_the_sidecar_was_down(
    index: VaultIndex, vault: Path, counting: CountingEmbedder, sparse: Bm25Encoder
) -> None:
    settings = index.settings
    before = files_in_store(index)
    index.close()
    edited = vault / "Recipes" / "Country Loaf.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "\nRye this time.\n")
    removed = sorted(vault.rglob("*.md"))[0]
    assert removed != edited
    removed.unlink()
    (vault / "Fresh.md").write_text("A new note about [[Country Loaf]].\n")
    with VaultIndex(settings, embedder=counting, sparse=sparse) as reopened:
        assert reopened.store._states.live  # type: ignore[attr-defined]  # no scroll needed
        report = reopened.indexer.sync()
        assert (report.indexed, report.deleted) == (2, 1)
        assert report.unchanged == report.scanned - 2
        removed_file = removed.relative_to(vault).as_posix()
        assert files_in_store(reopened) == (before - {removed_file}) | {"Fresh.md"}
        assert "Fresh.md" in reopened.graph.backlinks("Recipes/Country Loaf.md")
        assert removed_file not in reopened.graph.files()
        assert reopened.searcher.search("Rye this time", limit=1)[0].file == (
            "Recipes/Country Loaf.md"
        )
        assert reopened.indexer.sync().indexed == 0
    index.store = reopened.store


def test_a_damaged_link_cache_is_rebuilt_from_the_notes(
    index: VaultIndex,
    vault: Path,
    counting: CountingEmbedder,
    sparse: Bm25Encoder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = index.settings
    index.close()
    cache = index.indexer.link_cache.path
    cache.write_bytes(b"not a database" * 100)
    for leftover in cache.parent.glob(cache.name + "-*"):
        leftover.unlink()
    with VaultIndex(settings, embedder=counting, sparse=sparse) as reopened:
        reopened.indexer.sync()
        assert "Recipes/Country Loaf.md" in reopened.graph.backlinks("Recipes/Sourdough Starter.md")
    parsed = files_passed_to(monkeypatch, "parse_note", 0)
    with VaultIndex(settings, embedder=counting, sparse=sparse) as again:
        again.indexer.sync()
        assert parsed == []  # rebuilt once, then read back
    index.store = again.store


def test_an_edit_looks_only_at_links_that_can_have_moved(
    index: VaultIndex, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Saving one note must cost the same in a vault of 50 notes or 50,000: the sync looks at
    # the links of the notes whose resolution changed, not at every note's.
    looked_at: list[str] = []
    outgoing = index.graph.outgoing
    monkeypatch.setattr(index.graph, "outgoing", lambda f: looked_at.append(f) or outgoing(f))
    note = vault / "Recipes" / "Country Loaf.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nBaked again.\n", encoding="utf-8")
    index.indexer.sync(["Recipes/Country Loaf.md"])
    assert set(looked_at) == {"Recipes/Country Loaf.md"}
    assert note_count(vault) > 10


def test_links_a_failed_rewrite_left_behind_are_rewritten_by_the_next_sync(
    index: VaultIndex, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (vault / "A.md").write_text("See [[Later]].\n")
    (vault / "B.md").write_text("Also [[Later]].\n")
    index.indexer.sync()
    set_links = index.store.set_links
    calls: list[str] = []

    def flaky(file: str, links: list[str]) -> None:
        calls.append(file)
        if len(calls) == 2:
            raise ConnectionError("store went away")
        set_links(file, links)

    monkeypatch.setattr(index.store, "set_links", flaky)
    (vault / "Later.md").write_text("Here now.\n")
    with pytest.raises(ConnectionError):
        index.indexer.sync(["Later.md"])
    index.indexer.sync([])  # nothing changed on disk: only the leftover rewrite
    for file in ("A.md", "B.md"):
        (payload,) = index.store.scroll(SearchFilter(files=[file]))
        assert payload.links == ["Later.md"], file


def test_switching_the_embedding_model_reembeds_every_note_once(
    vault: Path, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    # Vectors of two models must never be mixed in one index: the model is stored with each
    # chunk, and a note embedded by another model counts as changed.
    settings = Settings(vault=vault, data_dir=tmp_path / "switch")
    packaged = CountingEmbedder(MiniLmEmbedder(variant="packaged"))
    with VaultIndex(settings, embedder=packaged, sparse=sparse) as first:
        first.indexer.sync()
        chunks = first.store.count(SearchFilter())
    switched = CountingEmbedder(embedder)
    with VaultIndex(settings, embedder=switched, sparse=sparse) as second:
        report = second.indexer.sync()
        assert report.indexed == note_count(vault)
        assert switched.embedded == chunks
        assert {c.embedding_model for c in second.store.scroll(SearchFilter())} == {
            second.ingest.model_name
        }
        assert second.ingest.model_name.startswith(embedder.model_name)
        switched.embedded = 0
        second.indexer.sync()
        assert switched.embedded == 0


def test_index_data_lives_outside_the_vault(index: VaultIndex, vault: Path) -> None:
    before = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*"))
    shutil.copytree(EXAMPLE_VAULT, vault.parent / "pristine")
    pristine = sorted(
        p.relative_to(vault.parent / "pristine").as_posix()
        for p in (vault.parent / "pristine").rglob("*")
    )
    assert before == pristine
    assert not index.settings.edge_path.is_relative_to(vault)


def test_an_interrupted_sync_converges_to_the_clean_index(
    vault: Path, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    settings = Settings(vault=vault, data_dir=tmp_path / "interrupted")
    settings.index.write_batch_chunks = 8
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as vault_index:
        real_upsert = vault_index.store.upsert
        calls = 0

        def failing_upsert(chunks: object) -> None:
            nonlocal calls
            calls += 1
            if calls == 2:
                # Write half the batch, then die, as a kill -9 mid-write would.
                real_upsert(chunks[: len(chunks) // 2])  # type: ignore[index]
                raise KeyboardInterrupt
            real_upsert(chunks)  # type: ignore[arg-type]

        vault_index.store.upsert = failing_upsert  # type: ignore[method-assign]
        with pytest.raises(KeyboardInterrupt):
            vault_index.indexer.sync()
        vault_index.store.upsert = real_upsert  # type: ignore[method-assign]
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as resumed:
        resumed.indexer.sync()
    assert index_contents(settings) == clean_index_contents(vault, tmp_path, embedder, sparse)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kill_9_during_indexing_then_resync_converges(
    seed: int, vault: Path, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    data_dir = tmp_path / f"killed-{seed}"
    env = {
        **os.environ,
        "VAULT_AGENT_DATA_DIR": str(data_dir),
        "VAULT_AGENT_INDEX__WRITE_BATCH_CHUNKS": "4",
    }
    command = [sys.executable, "-m", "vault_agent.cli", "index", "--vault", str(vault)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # Model loading takes about a second, the example vault a few more to embed: a seeded
    # delay in that window lands the kill before, during or between writes.
    time.sleep(random.Random(seed).uniform(1.5, 5.0))
    process.kill()
    process.wait()
    settings = Settings(vault=vault, data_dir=data_dir)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as resumed:
        resumed.indexer.sync()
    assert index_contents(settings) == clean_index_contents(vault, tmp_path, embedder, sparse)


def index_contents(settings: Settings) -> list[tuple[str, str, int, str]]:
    """Every point as (id, file, chunk_index, content_hash), sorted; duplicates would show."""
    store = open_store(settings)
    try:
        payloads = list(store.scroll())
        assert store.count() == len(payloads)
        return sorted(
            (
                point_id(settings.vault_id, p.file, p.chunk_index),
                p.file,
                p.chunk_index,
                p.content_hash,
            )
            for p in payloads
        )
    finally:
        store.close()


def clean_index_contents(
    vault: Path, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> list[tuple[str, str, int, str]]:
    clean = Settings(vault=vault, data_dir=tmp_path / "clean")
    with VaultIndex(clean, embedder=embedder, sparse=sparse) as vault_index:
        vault_index.indexer.sync()
    return index_contents(clean)


def test_watch_reindexes_a_saved_note(index: VaultIndex, vault: Path) -> None:
    # How fast is measured in bench/ (target under a second); here: that it happens at all.
    async def scenario() -> None:
        stop = asyncio.Event()
        synced = asyncio.Event()
        watcher = asyncio.create_task(
            index.indexer.watch(stop=stop, on_sync=lambda report: synced.set())
        )
        await asyncio.sleep(0.5)  # let inotify start watching
        (vault / "Fresh idea.md").write_text("# Idea\n\nA solar-powered dehydrator for apricots.\n")
        while index.searcher.search("dehydrator apricots", limit=1)[0].file != "Fresh idea.md":
            await asyncio.wait_for(synced.wait(), timeout=5)
            synced.clear()
        stop.set()
        await watcher

    asyncio.run(scenario())
    assert index.store.count(SearchFilter(files=["Fresh idea.md"])) == 1


def test_progress_reports_totals_while_indexing(
    vault: Path, tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    settings = Settings(vault=vault, data_dir=tmp_path / "progress")
    settings.index.write_batch_chunks = 8
    seen: list[tuple[str, int, int]] = []
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as vault_index:
        vault_index.indexer.sync(
            on_progress=lambda p: seen.append((p.state, p.files_total, p.files_done))
        )
        assert vault_index.indexer.progress.state == "idle"
    indexing = [(total, done) for state, total, done in seen if state == "indexing"]
    assert len(indexing) > 2  # several batches, each reported
    assert all(total == note_count(vault) for total, _ in indexing)
    assert indexing[-1][1] == note_count(vault)
    assert [done for _, done in indexing] == sorted(done for _, done in indexing)
