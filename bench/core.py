"""Sidecar core benchmark: indexing overhead, no-change re-sync, search latency.

    make bench            # or: uv run python -m bench.core [--vault PATH] [--json out.json]

Everything is measured in one run on one machine, and the indexing target is a ratio against
the raw embedder on the very same chunks, so a noisy machine moves both sides together.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.common import percentile
from vault_agent.config import Settings
from vault_agent.index.store.protocol import SearchFilter
from vault_agent.index.vault_index import VaultIndex
from vault_agent.vault.chunker import ChunkSizes, chunk_note
from vault_agent.vault.files import is_note, is_pdf, scan_vault
from vault_agent.vault.notes import NoteError, parse_note

REPO = Path(__file__).resolve().parents[1]
DEFAULT_VAULT = REPO.parent / "shared" / "data" / "vaults" / "obsidian-developer-docs"
QUERIES = [
    "how do I register a command",
    "add a settings tab to my plugin",
    "render markdown in a view",
    "listen to file changes in the vault",
    "editor extension with CodeMirror",
    "submit a plugin to the community list",
    "read frontmatter of a file",
    "create a modal dialog",
    "status bar item",
    "mobile compatibility of plugins",
    "workspace leaf and custom view",
    "icons available for ribbon",
    "themes and CSS variables",
    "release a new version with GitHub actions",
    "request an external URL",
    "metadata cache resolved links",
    "vault adapter read binary file",
    "post processor for code blocks",
    "how do I debug a plugin",
    "user interface guidelines for settings",
]


def run(vault: Path, repeats: int) -> dict[str, float]:
    """Run every measurement and return the numbers by name."""
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="vault-agent-bench-") as data_dir:
        settings = Settings(vault=vault, data_dir=Path(data_dir))
        with VaultIndex(settings) as vault_index:
            # The raw embedder runs before and after the full index, and the faster of the two
            # counts: the comparison then doesn't hinge on what else the machine did meanwhile.
            texts = chunk_texts(vault)
            raw_seconds = [_time_embedding(vault_index, texts)]
            started = time.perf_counter()
            report = vault_index.indexer.sync()
            results["index_seconds"] = time.perf_counter() - started
            results["notes"] = report.indexed
            results["chunks"] = report.chunks
            raw_seconds.append(_time_embedding(vault_index, texts))
            results["embed_seconds"] = min(raw_seconds)

            resyncs = []
            for _ in range(3):
                started = time.perf_counter()
                vault_index.indexer.sync()
                resyncs.append(time.perf_counter() - started)
            results["resync_seconds"] = min(resyncs)

            for label, search_filter in [
                ("plain", None),
                ("filtered", SearchFilter(folders=["Plugins"])),
            ]:
                latencies = []
                for _ in range(repeats):
                    for query in QUERIES:
                        started = time.perf_counter()
                        vault_index.searcher.search(query, search_filter, limit=10)
                        latencies.append((time.perf_counter() - started) * 1000)
                results[f"search_{label}_p50_ms"] = statistics.median(latencies)
                results[f"search_{label}_p95_ms"] = percentile(latencies, 0.95)

        # A fresh process-like start: new VaultIndex, graph rebuilt from the link cache.
        with VaultIndex(settings) as reopened:
            started = time.perf_counter()
            reopened.indexer.sync()
            results["resync_after_restart_seconds"] = time.perf_counter() - started

    results["index_chunks_per_s"] = results["chunks"] / results["index_seconds"]
    results["embed_chunks_per_s"] = results["chunks"] / results["embed_seconds"]
    results["pipeline_overhead"] = results["index_seconds"] / results["embed_seconds"] - 1
    return results


def _time_embedding(vault_index: VaultIndex, texts: list[str]) -> float:
    started = time.perf_counter()
    vault_index.embedder.embed_documents(texts)
    return time.perf_counter() - started


def chunk_texts(vault: Path, sizes: ChunkSizes | None = None) -> list[str]:
    """The embedded text of every chunk of the vault's markdown notes, cut to `sizes` (PDFs
    are left out: their text is extracted page by page, not parsed as a note)."""
    texts: list[str] = []
    for vault_file in scan_vault(vault):
        if not is_note(vault_file.file) or is_pdf(vault_file.file):
            continue
        try:
            note = parse_note(vault_file.file, (vault / vault_file.file).read_bytes())
        except NoteError:
            continue
        texts.extend(chunk.embed_text for chunk in chunk_note(note, sizes))
    return texts


def print_table(vault: Path, results: dict[str, float]) -> None:
    """Print the results with their targets."""
    table = Table(title=f"vault-agent core benchmark: {vault.name}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("target")
    overhead = results["pipeline_overhead"]
    rows = [
        ("notes / chunks", f"{results['notes']:.0f} / {results['chunks']:.0f}", ""),
        ("full index", f"{results['index_seconds']:.1f} s", ""),
        ("index throughput", f"{results['index_chunks_per_s']:.1f} chunks/s", ""),
        ("raw embedder, same chunks", f"{results['embed_chunks_per_s']:.1f} chunks/s", ""),
        ("pipeline overhead", f"{overhead:+.1%}", "< 15%"),
        ("no-change re-sync", f"{results['resync_seconds']:.2f} s", "< 2 s"),
        ("re-sync after restart", f"{results['resync_after_restart_seconds']:.2f} s", "< 2 s"),
    ]
    for label in ("plain", "filtered"):
        rows.append(
            (
                f"hybrid search p50 / p95 ({label})",
                f"{results[f'search_{label}_p50_ms']:.1f} / "
                f"{results[f'search_{label}_p95_ms']:.1f} ms",
                "p95 < 50 ms",
            )
        )
    for row in rows:
        table.add_row(*row)
    Console().print(table)


def main() -> None:
    """Parse arguments, run, print, optionally write JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    results = run(args.vault, args.repeats)
    print_table(args.vault, results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
