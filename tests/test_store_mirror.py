"""The Edge store's file state mirror (`store/state_mirror.py`): what it serves always equals a
scroll of the shard, and whenever it can't vouch for that (a write it didn't see, a crash before
its commit, a damaged file, a failed write) the store reads the shard and rebuilds it."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from test_store import CHUNKS, NOTES, PLAN, make_chunk
from vault_agent.index.store.edge import EdgeStore, mirror_path
from vault_agent.index.store.protocol import FileState
from vault_agent.index.store.qdrant import QdrantStore


def scrolled(store: EdgeStore, source: str | None = None) -> dict[str, FileState]:
    """File states read from the shard itself, as without the mirror."""
    return QdrantStore.file_states(store, source)


@pytest.fixture
def shard(tmp_path: Path) -> Path:
    return tmp_path / "edge"


@pytest.fixture
def store(shard: Path) -> Iterator[EdgeStore]:
    with EdgeStore(shard) as edge:
        yield edge


def no_scroll(monkeypatch: pytest.MonkeyPatch, store: EdgeStore) -> None:
    """Fail the test if the store reads the shard's points for file states."""

    def refused(*args: object) -> None:
        raise AssertionError("file states were read from the shard")

    monkeypatch.setattr(store, "_points_for_mirror", refused)
    monkeypatch.setattr(store, "_scroll_page", refused)


def test_the_mirror_follows_every_kind_of_write(store: EdgeStore) -> None:
    assert store.file_states() == {}
    store.upsert(CHUNKS)
    assert store.file_states() == scrolled(store)
    store.upsert([make_chunk(NOTES[0], 1, content_hash="newer")])  # a file mixing versions
    store.upsert([make_chunk(NOTES[1], 0, chunk_count=5)])  # and one half written
    store.delete_files([NOTES[2].file, "not/indexed.md"])
    store.set_payload(NOTES[3].file, {"mtime": 12.5, "size": 7, "title": "renamed"})
    store.set_links(NOTES[4].file, [PLAN])
    assert store._states.live
    for source in (None, "vault", "web"):
        assert store.file_states(source) == scrolled(store, source)
    some = [PLAN, NOTES[3].file, "not/indexed.md"]
    assert store.file_states("vault", some) == QdrantStore.file_states(store, "vault", some)
    assert store.file_states()[PLAN].content_hash == ""
    assert store.file_states()[NOTES[3].file].mtime == 12.5


def test_a_reopened_store_reads_states_from_the_mirror(
    shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with EdgeStore(shard) as first:
        first.upsert(CHUNKS)
        first.delete_files([NOTES[2].file])
        expected = first.file_states()
    with EdgeStore(shard) as second:
        assert second._states.live
        no_scroll(monkeypatch, second)
        assert second.file_states() == expected
        assert second.file_states("vault", [PLAN]) == {PLAN: expected[PLAN]}


def test_a_write_the_mirror_missed_makes_the_next_process_read_the_shard(shard: Path) -> None:
    with EdgeStore(shard) as first:
        first.upsert(CHUNKS)
        first.file_states()
        # What a crash between the shard's write and the mirror's commit leaves behind (or
        # an older version of the sidecar writing without the mirror).
        QdrantStore.delete_files(first, [PLAN])
        QdrantStore.upsert(first, [make_chunk(NOTES[1], 0, content_hash="changed")])
    with EdgeStore(shard) as second:
        assert not second._states.live
        assert second.file_states() == scrolled(second)
        assert PLAN not in second.file_states()
        assert second._states.live  # rebuilt by that full read
    with EdgeStore(shard) as third:
        assert third._states.live
        assert third.file_states() == scrolled(third)


def test_a_failed_write_stops_the_mirror_until_it_is_rebuilt(
    store: EdgeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.upsert(CHUNKS)

    def half_then_fail(chunks: list[object]) -> None:
        EdgeStore._upsert(store, chunks[:1])  # type: ignore[arg-type]
        raise ConnectionError("engine gave up")

    monkeypatch.setattr(store, "_upsert", half_then_fail)
    with pytest.raises(ConnectionError):
        store.upsert([make_chunk(NOTES[0], 0, content_hash="v2"), make_chunk(NOTES[0], 1)])
    assert not store._states.live
    # A few files' states come from the shard; a full read rebuilds the mirror.
    assert store.file_states(files=[PLAN]) == QdrantStore.file_states(store, files=[PLAN])
    assert store.file_states() == scrolled(store)
    assert store._states.live
    assert store.file_states()[PLAN].content_hash == ""


def test_a_damaged_mirror_is_started_again(shard: Path) -> None:
    with EdgeStore(shard) as first:
        first.upsert(CHUNKS)
        expected = first.file_states()
    mirror = mirror_path(shard)
    mirror.write_bytes(b"not a database" * 100)
    for leftover in mirror.parent.glob(mirror.name + "-*"):
        leftover.unlink()
    with EdgeStore(shard) as second:
        assert not second._states.live
        assert second.file_states() == expected
        assert second._states.live
    with EdgeStore(shard) as third:
        assert third._states.live


def test_a_rebuilt_shard_is_not_answered_from_an_old_mirror(shard: Path) -> None:
    with EdgeStore(shard) as first:
        first.upsert(CHUNKS)
        first.file_states()
    for path in sorted(shard.rglob("*"), reverse=True):  # the user deletes the index folder
        path.rmdir() if path.is_dir() else path.unlink()
    shard.rmdir()
    with EdgeStore(shard) as second:
        assert not second._states.live
        assert second.file_states() == {}


def test_every_write_moves_the_shards_generation(store: EdgeStore) -> None:
    # The mirror's check rests on this: an engine upgrade that broke it must fail here.
    seen = {store._generation()}
    store.upsert(CHUNKS)
    seen.add(store._generation())
    store.set_links(PLAN, ["Inbox/idea.md"])
    seen.add(store._generation())
    store.set_payload(PLAN, {"mtime": 1.0})
    seen.add(store._generation())
    store.delete_files([PLAN])
    seen.add(store._generation())
    assert None not in seen and len(seen) == 5


def test_the_mirror_is_private(store: EdgeStore) -> None:
    store.upsert(CHUNKS)
    for path in mirror_path(store.path).parent.glob(mirror_path(store.path).name + "*"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_a_mirror_that_cannot_be_opened_leaves_the_store_working(shard: Path) -> None:
    mirror_path(shard).mkdir(parents=True)  # in the way: not a file SQLite can open
    with EdgeStore(shard) as store:
        store.upsert(CHUNKS)
        assert not store._states.live
        assert store.file_states() == scrolled(store)
        assert len(store.file_states()) == len({chunk.payload.file for chunk in CHUNKS})
