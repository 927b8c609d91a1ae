"""The multilingual embedder's cost beside the English one's, on one translated vault.

    make bench            # or: uv run python -m bench.multilingual [--vault PATH] [--json out.json]

In one run, on the same machine: each embedder's raw throughput on the same chunk texts (the
vault's chunks as the multilingual index cuts them; best of two passes, alternating, so a
noisy neighbour slows both alike), then a full index of the vault with each (`index.embedding`
english, then multilingual). Target: the multilingual embedder within 2x of the English one's
chunks/s.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.core import chunk_texts
from vault_agent.config import IndexSettings, Settings
from vault_agent.index.embed.choose import Family, detect, models_for
from vault_agent.index.vault_index import VaultIndex
from vault_agent.vault.chunker import ChunkSizes

REPO = Path(__file__).resolve().parents[1]
DEFAULT_VAULT = REPO.parent / "shared" / "data" / "vaults" / "obsidian-help-de"
FAMILIES: tuple[Family, ...] = ("english", "multilingual")
#: The multilingual embedder may be at most this many times slower than the English one.
TARGET_RATIO = 2.0


def run(vault: Path) -> dict[str, float]:
    """Every measurement, by name."""
    detected = detect(vault)  # BM25 in the vault's language, as `auto` would choose
    models = {
        family: models_for(detected.model_copy(update={"family": family}), Settings(vault=vault))
        for family in FAMILIES
    }
    embedders = {family: model.embedder for family, model in models.items()}
    # The chunks as the multilingual index cuts them (by its own token estimate).
    multilingual = embedders["multilingual"]
    sizes = ChunkSizes(max_size=multilingual.max_tokens, measure=multilingual.count_tokens)
    texts = chunk_texts(vault, sizes)
    results: dict[str, float] = {"chunks_compared": len(texts)}
    best = dict.fromkeys(FAMILIES, float("inf"))
    for _ in range(2):
        for family, embedder in embedders.items():
            started = time.perf_counter()
            embedder.embed_documents(texts)
            best[family] = min(best[family], time.perf_counter() - started)
    for family in FAMILIES:
        results[f"{family}_chunks_per_s"] = len(texts) / best[family]
        with tempfile.TemporaryDirectory(prefix="vault-agent-bench-") as data_dir:
            settings = Settings(
                vault=vault, data_dir=Path(data_dir), index=IndexSettings(embedding=family)
            )
            with VaultIndex(settings, models[family].embedder, models[family].sparse) as index:
                started = time.perf_counter()
                report = index.indexer.sync()
                results[f"{family}_index_seconds"] = time.perf_counter() - started
                results[f"{family}_chunks"] = report.chunks
    results["notes"] = report.indexed
    results["ratio"] = results["english_chunks_per_s"] / results["multilingual_chunks_per_s"]
    # Peak resident memory of this process, both models loaded (Linux reports KiB).
    results["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return results


def print_table(vault: Path, results: dict[str, float]) -> None:
    """The results with their target."""
    table = Table(title=f"vault-agent multilingual embedder: {vault.name}")
    table.add_column("measure")
    table.add_column("English (MiniLM int8)", justify="right")
    table.add_column("multilingual (USE v3)", justify="right")
    table.add_column("target")
    table.add_row(
        f"raw embedder, same {results['chunks_compared']:.0f} chunks",
        f"{results['english_chunks_per_s']:.1f} chunks/s",
        f"{results['multilingual_chunks_per_s']:.1f} chunks/s",
        f"takes {results['ratio']:.2f}x MiniLM's time (target <= {TARGET_RATIO:.0f}x)",
    )
    table.add_row(
        f"full index, {results['notes']:.0f} notes",
        f"{results['english_index_seconds']:.1f} s ({results['english_chunks']:.0f} chunks)",
        f"{results['multilingual_index_seconds']:.1f} s "
        f"({results['multilingual_chunks']:.0f} chunks)",
        "",
    )
    table.add_row("peak RSS, both loaded", f"{results['peak_rss_mb']:.0f} MB", "", "")
    Console().print(table)


def main() -> None:
    """Parse arguments, run, print, optionally write JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    results = run(args.vault)
    print_table(args.vault, results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
