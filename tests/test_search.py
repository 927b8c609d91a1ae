"""Hybrid search and its filters over the example vault, and `vault-agent search` itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import Any, cast

import pytest

from conftest import EXAMPLE_VAULT
from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.search.fusion import fuse, fuse_scores
from vault_agent.index.search.hits import (
    make_snippet,
)
from vault_agent.index.search.related import related_notes
from vault_agent.index.search.searcher import BOOST_POOL, LEADING_CHUNKS, Searcher
from vault_agent.index.store.protocol import ChunkPayload, SearchFilter, Store, StoredHit
from vault_agent.index.vault_index import VaultIndex


@pytest.fixture(scope="module")
def example(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[VaultIndex]:
    """The example vault (read in place, never changed), indexed once for this module."""
    settings = Settings(vault=EXAMPLE_VAULT, data_dir=tmp_path_factory.mktemp("search-data"))
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as vault_index:
        vault_index.indexer.sync()
        yield vault_index


def files(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [hit.file for hit in hits]


def test_question_finds_the_note_that_answers_it(example: VaultIndex) -> None:
    hits = example.searcher.search("what did we decide about watering the garden", limit=5)
    assert "Projects/Garden/Garden Irrigation.md" in files(hits)[:3]


def test_keyword_only_match_is_found(example: VaultIndex) -> None:
    # "Kinosaki" is a rare proper noun: BM25 must carry it even where the dense model can't.
    hits = example.searcher.search("Kinosaki", limit=3)
    assert any("Kinosaki" in hit.snippet for hit in hits)


def test_dense_and_sparse_modes_differ_from_hybrid(example: VaultIndex) -> None:
    query = "starter feeding schedule"
    dense = files(example.searcher.search(query, mode="dense", limit=10))
    sparse = files(example.searcher.search(query, mode="sparse", limit=10))
    hybrid = files(example.searcher.search(query, mode="hybrid", limit=10))
    assert dense and sparse and hybrid
    assert hybrid != dense or hybrid != sparse


class RecordingStore:
    """The real store, noting which payloads a search asks for."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.fetched: list[list[str]] = []
        self.searches_with_payloads = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def search(self, *args: Any, **kwargs: Any) -> list[list[StoredHit]]:
        self.searches_with_payloads += 1
        return self.store.search(*args, **kwargs)

    def payloads(self, ids: Sequence[str]) -> dict[str, ChunkPayload]:
        self.fetched.append(list(ids))
        return self.store.payloads(ids)


def test_hybrid_search_fetches_payloads_only_for_the_chunks_fusion_keeps(
    example: VaultIndex,
) -> None:
    recording = RecordingStore(example.store)
    searcher = Searcher(cast(Store, recording), example.embedder, example.sparse)
    hits = searcher.search("when did I feed the sourdough starter", limit=3)
    assert hits == example.searcher.search("when did I feed the sourdough starter", limit=3)
    assert hits[0].file == "Recipes/Sourdough Starter.md"
    # The candidate lists (dense, BM25, a probe per term) came without payloads; one fetch,
    # of distinct chunks, at most the pool the boosts read and the head of each list.
    assert recording.searches_with_payloads == 0
    (fetched,) = recording.fetched
    assert len(set(fetched)) == len(fetched) <= BOOST_POOL + 2 * LEADING_CHUNKS
    assert {hit.file for hit in hits} <= {
        payload.file for payload in example.store.payloads(fetched).values()
    }


def test_fusing_scores_ranks_as_fusing_hits() -> None:
    def hit(point: str, score: float) -> StoredHit:
        payload = ChunkPayload(
            file=f"{point}.md", title=point, chunk_index=0, chunk_count=1, body="", content_hash=""
        )
        return StoredHit(id=point, score=score, payload=payload)

    lists = [
        [hit("a", 0.9), hit("b", 0.5), hit("c", 0.1)],
        [hit("c", 7.0), hit("d", 3.0), hit("a", 1.0)],
    ]
    scored = [[(h.id, h.score) for h in hits] for hits in lists]
    for method in ("dbsf", "rrf"):
        fused = fuse(lists, method)  # type: ignore[arg-type]
        assert [(h.id, h.score) for h in fused] == fuse_scores(scored, method)  # type: ignore[arg-type]
        assert {h.id: h.payload.file for h in fused} == {p: f"{p}.md" for p in "abcd"}


def test_one_hit_per_note_by_default(example: VaultIndex) -> None:
    hits = example.searcher.search("sourdough", limit=10)
    assert len(files(hits)) == len(set(files(hits)))
    chunks = example.searcher.search("sourdough", limit=10, one_per_note=False)
    assert len(set(files(chunks))) < len(chunks)


def test_tag_filter_matches_nested_children(example: VaultIndex) -> None:
    hits = example.searcher.search("plans", SearchFilter(tags=["project"]), limit=20)
    assert hits
    for hit in hits:
        assert "project" in hit.tags
    assert any(tag.startswith("project/") for hit in hits for tag in hit.tags)


def test_folder_filter_keeps_only_that_subtree(example: VaultIndex) -> None:
    hits = example.searcher.search("ideas", SearchFilter(folders=["Projects/Garden"]), limit=20)
    assert hits
    assert all(hit.file.startswith("Projects/Garden/") for hit in hits)


def test_type_filter(example: VaultIndex) -> None:
    hits = example.searcher.search("who works on data", SearchFilter(types=["person"]), limit=20)
    assert hits
    assert all(hit.type == "person" for hit in hits)
    assert "People/Maya Okafor.md" in files(hits)[:3]


def test_date_range_filter_is_inclusive(example: VaultIndex) -> None:
    window = SearchFilter(date_from=date(2026, 11, 5), date_to=date(2026, 11, 11))
    hits = example.searcher.search("what happened", window, limit=50)
    dates = sorted(hit.date for hit in hits if hit.date)
    assert dates
    assert dates[0] >= "2026-11-05"
    assert dates[-1] <= "2026-11-11"
    assert "2026-11-11" in dates
    assert "2026-11-05" in dates


def test_hit_carries_heading_and_a_snippet_with_query_words(example: VaultIndex) -> None:
    (hit,) = example.searcher.search("ryokan booking vegetarian kaiseki", limit=1)
    assert hit.snippet
    assert "ryokan" in hit.snippet.lower() or "kaiseki" in hit.snippet.lower()
    assert hit.wikilink.startswith("[[") and hit.wikilink.endswith("]]")
    assert hit.file.removesuffix(".md") in hit.wikilink


def test_snippet_picks_the_best_sentence_and_trims() -> None:
    body = "Unrelated opening. The irrigation timer runs at dawn. " + "Filler words. " * 40
    snippet = make_snippet(body, "irrigation timer", max_chars=60)
    assert snippet.startswith("The irrigation timer runs at dawn.")
    assert len(snippet) <= 60


def test_cli_search_prints_json_hits(tmp_path: Path) -> None:
    env = {**os.environ, "VAULT_AGENT_DATA_DIR": str(tmp_path / "data")}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "vault_agent.cli",
            "search",
            "sourdough starter feeding",
            "--vault",
            str(EXAMPLE_VAULT),
            "--json",
            "--limit",
            "3",
            "--tag",
            "sourdough",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    hits = json.loads(result.stdout)["hits"]
    assert 1 <= len(hits) <= 3
    assert {"file", "heading", "score", "snippet"} <= set(hits[0])
    assert all("sourdough" in hit["tags"] for hit in hits)


def test_cli_search_prints_a_readable_table(tmp_path: Path) -> None:
    env = {**os.environ, "VAULT_AGENT_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "160"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "vault_agent.cli",
            "search",
            "irrigation decision",
            "--vault",
            str(EXAMPLE_VAULT),
            "--limit",
            "3",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    assert "[[Projects/Garden/Garden Irrigation" in result.stdout


def test_cli_reports_a_missing_vault_clearly(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "vault_agent.cli", "search", "x", "--vault", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "Traceback" not in result.stderr


#: Notes alike in words; only one is the note a question names by its title.
THEME_NOTES = {
    "Minimal Theme": "The Minimal theme styles checkboxes. Put `!` inside the checkbox for "
    "important, `?` for a question, `*` for a star.",
    "ITS Theme": "The ITS theme offers many checkbox characters: `f` inside the checkbox marks "
    "fire, `b` a bookmark, `i` information.",
    "Things Theme": "Alternative checkboxes: `>` forwarded, `<` scheduling, `!` important, `f` "
    "is fire in this set, `k` key.",
    "Styling checkboxes": "Which character goes inside the checkbox decides the status and its "
    "icon. A fire status, a star status, a question status: each theme picks its own "
    "characters for checkbox statuses.",
}


def test_a_question_naming_a_note_by_its_title_ranks_it_first(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, body in THEME_NOTES.items():
        (vault / f"{name}.md").write_text(f"# {name}\n\n{body}\n", encoding="utf-8")
    settings = Settings(vault=vault, data_dir=tmp_path / "data")
    query = "With the Things theme, which character inside the checkbox gives the fire status?"
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        assert files(index.searcher.search(query, limit=4))[0] == "Things Theme.md"
        # Without the title match the note that talks most like the question wins.
        unnamed = index.searcher.with_options(titles=False)
        assert files(unnamed.search(query, limit=4))[0] == "Styling checkboxes.md"


def test_keyword_search_reads_a_notes_aliases_and_folders(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    vault = tmp_path / "vault"
    (vault / "Kestrelwood" / "Zephyrine").mkdir(parents=True)
    (vault / "Kestrelwood" / "Zephyrine" / "Plan.md").write_text(
        "# Plan\n\nShip the first prototype in March.\n", encoding="utf-8"
    )
    (vault / "Gardening.md").write_text(
        "---\naliases: [Quillonbed]\n---\n# Gardening\n\nWater early.\n", encoding="utf-8"
    )
    (vault / "Other.md").write_text("# Other\n\nNothing to see.\n", encoding="utf-8")
    settings = Settings(vault=vault, data_dir=tmp_path / "data")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        search = index.searcher.search
        plan = ["Kestrelwood/Zephyrine/Plan.md"]
        # The innermost folder is in the chunk's own text (chunker.innermost_folder), the
        # outer ones on its line of other names: keyword search reads both.
        assert files(search("zephyrine", limit=1, mode="sparse")) == plan
        assert files(search("kestrelwood", limit=1, mode="sparse")) == plan
        assert files(search("quillonbed", limit=1, mode="sparse")) == ["Gardening.md"]


def test_a_long_note_has_related_notes_too(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    # Each of its chunks took the 50 nearest chunks as candidates: all its own, then left out,
    # so a note of more than 50 alike sections had no related notes at all.
    vault = tmp_path / "vault"
    vault.mkdir()
    sections = "".join(
        f"## Day {n}\n\nFed the sourdough starter with rye flour and water, day {n}. "
        "It rose by half in six hours in the warm kitchen, smelled sour and fruity, and fell "
        "back by the evening, so it was fed again before bed with a little more rye flour "
        "than the day before, to keep it strong for the loaf at the weekend.\n\n"
        for n in range(80)
    )
    (vault / "Starter log.md").write_text(f"# Starter log\n\n{sections}", encoding="utf-8")
    (vault / "Sourdough.md").write_text("# Sourdough\n\nFeed the starter rye flour.\n")
    (vault / "Taxes.md").write_text("# Taxes\n\nFile the tax return by April.\n")
    settings = Settings(vault=vault, data_dir=tmp_path / "data")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        assert index.store.count(SearchFilter(files=["Starter log.md"])) > 50
        related = related_notes(index.store, "Starter log.md")
        assert related is not None
        assert [note.file for note in related] == ["Sourdough.md", "Taxes.md"]
