"""The scale benchmark's parts at toy size, so the benchmark can't silently rot, and the vault
generator's promises (deterministic, real structure, links that resolve)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from bench.scale import EDITS, index_worker, restart_worker, store_worker
from bench.vaultgen import generate_vault

from conftest import shared_data
from vault_agent.vault.notes import parse_note


def digest(vault: Path) -> str:
    files = sorted(vault.rglob("*.md"))
    return hashlib.sha256(
        b"".join(p.relative_to(vault).as_posix().encode() + p.read_bytes() for p in files)
    ).hexdigest()


@pytest.fixture(scope="module")
def small_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    shared_data("bench", "scifact", "corpus.jsonl")  # the generator's text
    vault = tmp_path_factory.mktemp("gen") / "vault"
    generate_vault(vault, 120, seed=3)
    return vault


def test_generated_vault_is_deterministic_and_structured(small_vault: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    counts = generate_vault(again, 120, seed=3)
    assert sum(counts.values()) == 120 == len(list(again.rglob("*.md")))
    assert digest(again) == digest(small_vault)
    assert counts["paper"] and counts["daily"] and counts["topic"]
    notes = [
        parse_note(p.relative_to(small_vault).as_posix(), p.read_bytes())
        for p in small_vault.rglob("*.md")
    ]
    titles = {note.title.lower() for note in notes} | {
        Path(note.file).stem.lower() for note in notes
    }
    # Every wikilink the generator writes resolves (borrowed prose keeps its markdown links).
    links = [link for note in notes for link in note.links if link.kind == "wikilink"]
    assert len(links) > 120  # a linked vault, not a pile of files
    assert all(link.target.lower() in titles for link in links)
    dailies = [note for note in notes if note.file.startswith("Daily/")]
    assert dailies and all(note.date and note.type == "daily" for note in dailies)
    assert all(re.fullmatch(r"Daily/\d{4}/\d{4}-\d\d-\d\d\.md", note.file) for note in dailies)
    assert sum(1 for note in notes if note.tags) > 60
    with pytest.raises(FileExistsError):
        generate_vault(small_vault, 10)


def test_vault_workers_measure_everything(small_vault: Path, tmp_path: Path) -> None:
    result = index_worker(small_vault, tmp_path) | restart_worker(small_vault, tmp_path)
    assert result["notes"] == 120 and result["failed"] == 0
    assert result["chunks"] >= 120
    assert len(result["searchable_ms"]) == EDITS  # every edit was found by search
    assert all(0 < ms < 30_000 for ms in result["searchable_ms"])
    assert 0 < result["resync_seconds"] < result["index_seconds"]
    assert 0 < result["embed_seconds_in_pipeline"] < result["index_seconds"]
    assert result["search_p95_ms"] > 0 and result["filtered_p95_ms"] > 0
    assert result["index_peak_rss_mb"] >= result["rss_model_loaded_mb"] > 0
    assert result["restart_peak_rss_mb"] > 0
    assert result["disk_mb"] > 0


def test_store_worker_fills_and_queries_the_store() -> None:
    result = store_worker(3_000)
    assert result["points"] == 3_000
    assert result["upsert_points_per_s"] > 0
    assert 0 < result["search_p50_ms"] <= result["search_p95_ms"]
    assert result["file_states_seconds"] > 0 and result["disk_mb"] > 0
    assert result["file_states_scroll_seconds"] > 0
