"""Crash consistency: kill -9 the indexer at seeded writes, change the vault, restart: the index
converges to exactly what a clean index of the vault holds, point for point.

Each run happens in a process of its own (crash_child.py) that sends itself SIGKILL at the n-th
write to the index: before it, after it, or half-way through an upsert. A seed picks where the
first run dies; the vault is then edited (a note shrinks, one is deleted, one renamed, one
added, an alias moves); a second run is killed at another seeded write, and a third runs
to the end (here, in the test's process). The result is compared with a clean index of the
same vault built from scratch: same point ids, same payloads (links included), same vectors, no
duplicates, nothing missing.

tests/test_indexer.py kills the real CLI (model and all) at seeded moments; this module kills
at seeded writes, so every kind of write is hit, and uses a hashing embedder so that a run
costs only its imports.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from qdrant_edge import ScrollRequest

from crash_child import MODES, open_index
from vault_agent.config import Settings
from vault_agent.index.store.edge import EdgeStore

CHILD = Path(__file__).with_name("crash_child.py")
BATCH = 1  # chunks per write batch: many writes, so many places to die
SEEDS = [101, 107, 111, 202, 303, 404]  # first kills: 19, 8 (half), 27, 25, 2, 3 of 29
KILLED = -9

LONG = "\n\n".join(f"## Part {i}\n\n" + f"Paragraph {i} about tidal pools. " * 40 for i in range(4))
NOTES = {
    "Home.md": "# Home\n\nSee [[Garden]], [[Gus]] and [[Kitchen/Bread]]. Also [[Later]].\n",
    "Garden.md": "---\naliases: [Plot]\ntags: [garden]\n---\n# Garden\n\nTomatoes. [[Home]]\n",
    "Kitchen/Bread.md": "# Bread\n\nUses the starter [[Gus]].\n" + LONG,
    "Kitchen/Starter.md": "---\naliases: [Gus]\n---\n# Starter\n\nFeed daily.\n",
    "Kitchen/Soup.md": "# Soup\n\nMiso, tofu, [[Plot|garden]] spring onions.\n",
    "Daily/2026-11-01.md": "# 2026-11-01\n\nFed [[Gus]]. Walked to the [[Garden]].\n",
    "Daily/2026-11-02.md": "# 2026-11-02\n\nBaked [[Kitchen/Bread|bread]].\n" + LONG,
    "Projects/Tide.md": "# Tide\n\n" + LONG + "\n\nLinks: [[Home]], [[Projects/Old]].\n",
    "Projects/Old.md": "# Old\n\nAn old project, soon deleted. [[Tide]]\n",
    "Projects/Move me.md": "# Move me\n\nA note that will be renamed. [[Home]]\n",
    "Reading.md": "# Reading\n\n- [[Books]]\n- [[Garden#Tomatoes]]\n",
    "Books.md": "# Books\n\nA list of books. Linked from [[Reading]].\n",
}


def build_vault(vault: Path) -> None:
    for file, text in NOTES.items():
        path = vault / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def change_vault(vault: Path) -> None:
    """What a user does between two crashes: shrink, delete, rename, add, relink."""
    (vault / "Projects/Tide.md").write_text("# Tide\n\nNow short. [[Home]]\n", encoding="utf-8")
    (vault / "Projects/Old.md").unlink()
    (vault / "Projects/Move me.md").rename(vault / "Projects/Moved.md")
    (vault / "Later.md").write_text("# Later\n\nThe target [[Home]] named.\n", encoding="utf-8")
    (vault / "Kitchen/Starter.md").write_text(
        "---\naliases: [Levain]\n---\n# Starter\n\nFeed daily, renamed alias.\n", encoding="utf-8"
    )


def run_child(vault: Path, data_dir: Path, kill_at: int, mode: str = "before") -> tuple[int, str]:
    """Run one sync in a child process; (return code, output)."""
    done = subprocess.run(
        [sys.executable, str(CHILD), str(vault), str(data_dir), str(kill_at), mode, str(BATCH)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, KILLED), done.stderr[-2000:]
    return done.returncode, done.stdout


def index_contents(vault: Path, data_dir: Path) -> list[tuple[str, str, list[float] | None]]:
    """Every stored point as (id, payload as JSON, dense vector), sorted by id."""
    settings = Settings(vault=vault, data_dir=data_dir)
    store = EdgeStore(settings.edge_path)
    try:
        points: list[tuple[str, str, list[float] | None]] = []
        offset: Any = None
        shard = store._live()
        while True:
            records, offset = shard.scroll(
                ScrollRequest(offset=offset, limit=256, with_payload=True, with_vector=True)
            )
            for record in records:
                vectors = record.vector if isinstance(record.vector, dict) else {}
                dense = vectors.get("fast-all-minilm-l6-v2")
                rounded = [round(float(v), 5) for v in dense] if isinstance(dense, list) else None
                points.append((str(record.id), json.dumps(record.payload, sort_keys=True), rounded))
            if offset is None or not records:
                break
        assert store.count() == len(points)
        return sorted(points)
    finally:
        store.close()


def clean_contents(vault: Path, data_dir: Path) -> list[tuple[str, str, list[float] | None]]:
    """Sync the index in `data_dir` (a fresh one when the folder is new) with the vault as it
    is now, in this process, then read it back."""
    with open_index(vault, data_dir, BATCH) as index:
        index.indexer.sync()
    return index_contents(vault, data_dir)


def differences(
    got: list[tuple[str, str, list[float] | None]], want: list[tuple[str, str, list[float] | None]]
) -> list[str]:
    """What differs, point by point and key by key (empty when the indexes are equal)."""
    found = []
    wanted = {point_id: (payload, vector) for point_id, payload, vector in want}
    for point_id, payload, vector in got:
        if point_id not in wanted:
            found.append(f"extra point {point_id}: {json.loads(payload)['file']}")
            continue
        want_payload, want_vector = wanted.pop(point_id)
        have, expected = json.loads(payload), json.loads(want_payload)
        file = have.get("file")
        found += [
            f"{file} #{have.get('chunk_index')} {key}: {have.get(key)!r} != {expected.get(key)!r}"
            for key in sorted(set(have) | set(expected))
            if have.get(key) != expected.get(key)
        ]
        if vector != want_vector:
            found.append(f"{file} #{have.get('chunk_index')}: another vector")
    found += [f"missing point {pid}: {json.loads(p)['file']}" for pid, (p, _) in wanted.items()]
    return found


def files_of(contents: list[tuple[str, str, list[float] | None]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, payload, _ in contents:
        file = json.loads(payload)["file"]
        counts[file] = counts.get(file, 0) + 1
    return counts


@pytest.fixture(scope="module")
def fresh_writes(tmp_path_factory: pytest.TempPathFactory) -> int:
    """How many writes indexing the vault from scratch takes (a run that is never killed)."""
    root = tmp_path_factory.mktemp("count")
    build_vault(root / "vault")
    code, output = run_child(root / "vault", root / "data", 0)
    assert code == 0
    writes = int(output.split()[-1])
    assert writes > 10  # enough places to die in
    shutil.rmtree(root)
    return writes


@pytest.mark.parametrize("seed", SEEDS)
def test_kill_9_at_seeded_writes_twice_then_resume_equals_a_clean_index(
    seed: int, tmp_path: Path, fresh_writes: int
) -> None:
    rng = random.Random(seed)
    vault, data_dir = tmp_path / "vault", tmp_path / "data"
    build_vault(vault)

    first = rng.randint(1, fresh_writes)
    code, _ = run_child(vault, data_dir, first, rng.choice(MODES))
    assert code == KILLED, f"run 1 should die at write {first} of {fresh_writes}"

    change_vault(vault)
    second = rng.randint(1, 12)
    run_child(vault, data_dir, second, rng.choice(MODES))  # dies, or finishes first

    resumed = clean_contents(vault, data_dir)  # the restart: a sync over what is left
    clean = clean_contents(vault, tmp_path / "clean")
    assert [point[0] for point in resumed] == [point[0] for point in clean]  # same ids, once each
    assert files_of(resumed) == files_of(clean)  # no file missing or left over
    assert differences(resumed, clean) == []  # payloads (links too) and vectors


@pytest.mark.parametrize(
    ("scenario", "kill_at"),
    # Writes: a cache commit as the graph loads, then (edited) delete, upsert, the commit
    # recording Linker's links [4]; or (added) upsert, commit, the commit saying Linker's links
    # are being rewritten, the rewrite, the commit recording it [6].
    [("edited, then its link target deleted", 4), ("link target added, then deleted", 6)],
)
def test_links_written_just_before_a_crash_are_corrected_after_it(
    scenario: str, kill_at: int, tmp_path: Path
) -> None:
    """The `links` payload is rewritten without re-embedding when link resolution moves; a
    crash between that write and saving the link cache must not leave stale links behind."""
    vault, data_dir = tmp_path / "vault", tmp_path / "data"
    vault.mkdir()
    linker = vault / "Linker.md"
    target = vault / "Target.md"
    linker.write_text("# Linker\n\nSee [[Target]].\n", encoding="utf-8")
    if scenario.startswith("edited"):
        target.write_text("# Target\n\nHere.\n", encoding="utf-8")
    assert run_child(vault, data_dir, 0)[0] == 0

    if scenario.startswith("edited"):
        # The edit writes Linker's chunks (links: [Target]) then dies before the cache commit.
        linker.write_text("# Linker\n\nSee [[Target]], edited.\n", encoding="utf-8")
    else:
        # The new target makes Linker's link resolve: a links rewrite, then death before the
        # cache records it.
        target.write_text("# Target\n\nHere now.\n", encoding="utf-8")
    code, _ = run_child(vault, data_dir, kill_at, "before")
    assert code == KILLED

    target.unlink()
    resumed = clean_contents(vault, data_dir)  # the restart
    assert differences(resumed, clean_contents(vault, tmp_path / "clean")) == []
