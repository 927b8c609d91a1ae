"""bench/compare.py on a tiny vault, so the comparison can't silently rot: every system's row is
in the JSON with positive timings, memory and disk.

The LangChain + Chroma system needs the opt-in `compare` dependency group; without it, its test
is skipped and the other two still run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, shared_data

NOTES = 20


@pytest.fixture
def tiny_vault(tmp_path: Path) -> Path:
    """A few more notes than `--limit` takes, copied from a small shared vault."""
    source = shared_data("vaults", "kepano-obsidian")
    vault = tmp_path / "vault"
    notes = sorted(
        path for path in source.rglob("*.md") if ".obsidian" not in path.relative_to(source).parts
    )
    for path in notes[: NOTES + 5]:
        target = vault / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return vault


def run_compare(vault: Path, out: Path, systems: list[str]) -> dict[str, Any]:
    """Run the benchmark as a user would (`python -m bench.compare`) and read its JSON."""
    command = [
        sys.executable,
        "-m",
        "bench.compare",
        "--vault",
        str(vault),
        "--limit",
        str(NOTES),
        "--queries",
        "8",
        "--repeats",
        "1",
        "--systems",
        ",".join(systems),
        "--json",
        str(out),
    ]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-4000:]
    results: dict[str, Any] = json.loads(out.read_text())
    return results


def check_rows(results: dict[str, Any], systems: list[str]) -> None:
    """One complete row per system, in order, with plausible numbers."""
    assert results["notes"] == NOTES
    assert 0 < len(results["queries"]) <= 8
    assert [row["system"] for row in results["systems"]] == systems
    for row in results["systems"]:
        assert "error" not in row and "skipped" not in row, row
        assert row["notes"] == NOTES
        assert row["chunks"] >= NOTES
        for key in (
            "index_s",
            "embed_s",
            "index_chunks_per_s",
            "search_p50_ms",
            "search_p95_ms",
            "peak_rss_mb",
            "disk_bytes",
        ):
            assert row[key] > 0, (row["system"], key, row[key])
        assert row["search_p95_ms"] >= row["search_p50_ms"]
        assert row["embed_s"] <= row["index_s"]
        assert row["peak_rss_mb"] >= row["rss_after_model_mb"]
        assert row["source_in_top10"] > 0  # queries are the notes' own titles and headings


def test_compare_vault_agent_and_qdrant_local(tiny_vault: Path, tmp_path: Path) -> None:
    systems = ["vault-agent", "qdrant-local"]
    results = run_compare(tiny_vault, tmp_path / "compare.json", systems)
    check_rows(results, systems)
    ratios = results["systems"][1]["ratios"]
    assert ratios["index_s"] > 0 and ratios["search_p95_ms"] > 0
    assert results["systems"][0]["ratios"]["index_s"] == 1


def test_compare_langchain_chroma(tiny_vault: Path, tmp_path: Path) -> None:
    for module in ("chromadb", "langchain_chroma", "langchain_text_splitters"):
        pytest.importorskip(module, reason="the opt-in `compare` dependency group")
    results = run_compare(tiny_vault, tmp_path / "compare.json", ["langchain-chroma"])
    check_rows(results, ["langchain-chroma"])
