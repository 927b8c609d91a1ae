"""Scale benchmark: big generated vaults, the embedder side by side, the store alone.

    make bench-scale      # or: uv run python -m bench.scale [--sizes 1000,10000,50000]
                          #     [--store-points 100000,500000] [--json out.json]

Three parts, each measurement in a fresh process so its peak RSS is its own:

1. Embedding throughput on the same sample of chunks: plain fastembed (the packaged model
   with fastembed's defaults: batches of 256 in input order, ONNX threads = cores), the
   packaged model sorted by length in batches of 16 (our setup before issue 7), and the
   dynamic int8 model with one worker and with one worker per core (the default).
2. Per vault size (bench/vaultgen.py, real text): full index time and chunks/s, pipeline
   overhead against the raw embedder measured in the same process, peak RSS, index size on
   disk, no-change re-sync; then, in a new process as a real restart is, the re-sync after a
   restart, save-to-searchable under the watcher, and hybrid search p50/p95 with and without
   filters.
3. The Edge store alone with synthetic vectors (no embedding): upsert rate, hybrid search
   with and without a filter, file states, RSS and disk at 100k and 500k points.

Generated vaults are kept in the user cache dir (they are deterministic) so a re-run skips
writing them. Times are from one noisy 2-core machine: compare ratios within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs
from rich.console import Console
from rich.table import Table

from bench.common import disk_usage, parsed_notes, percentile
from bench.vaultgen import GENERATOR_VERSION, SCIFACT, generate_vault
from vault_agent.config import APP_NAME, Settings
from vault_agent.index.embed.minilm import MiniLmEmbedder, Vector
from vault_agent.index.store.protocol import (
    DENSE_DIM,
    ChunkPayload,
    EmbeddedChunk,
    SearchFilter,
    SparseVector,
    VectorQuery,
    point_id,
)
from vault_agent.index.vault_index import VaultIndex
from vault_agent.vault.chunker import chunk_note
from vault_agent.vault.files import is_note, scan_vault

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
VAULT_CACHE = Path(platformdirs.user_cache_dir(APP_NAME)) / "bench-vaults"
SEED = 7
EMBED_SAMPLE = 400
RAW_SAMPLE = 300
SEARCHES = 40
EDITS = 6
FILTERS = (
    SearchFilter(tags=["daily"]),
    SearchFilter(folders=["Resources"]),
    SearchFilter(types=["paper"]),
    SearchFilter(date_from=dt.date(2024, 1, 1), date_to=dt.date(2025, 12, 31)),
)


# -- shared helpers ----------------------------------------------------------------------------


def peak_rss_mb() -> float:
    """This process's peak resident set size so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def disk_mb(path: Path) -> float:
    """Space actually used under `path` (allocated blocks, as du counts: Qdrant preallocates
    sparse files whose apparent size is far larger)."""
    return disk_usage(path)[0] / 1e6


def sample_chunk_texts(vault: Path, count: int, seed: int = SEED) -> list[str]:
    """Embedded texts of the chunks of `count`-ish random notes (as the indexer makes them)."""
    files = [f.file for f in scan_vault(vault) if is_note(f.file)]
    random.Random(seed).shuffle(files)
    texts: list[str] = []
    for note in parsed_notes(vault, files):
        texts.extend(chunk.embed_text for chunk in chunk_note(note))
        if len(texts) >= count:
            break
    return texts[:count]


def queries(vault: Path, count: int) -> list[str]:
    """Half SciFact claims (about the literature notes), half titles of the vault's notes."""
    claims = [
        json.loads(line)["text"]
        for line in (SCIFACT.parent / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    titles = [Path(f.file).stem for f in scan_vault(vault) if is_note(f.file)]
    rng = random.Random(SEED)
    return rng.sample(claims, count // 2) + rng.sample(titles, count - count // 2)


def timed(function: Callable[[], object]) -> float:
    """Seconds one call takes."""
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def run_worker(arguments: list[str]) -> dict[str, Any]:
    """Run `python -m bench.scale <arguments>` in a fresh process; its JSON result."""
    with tempfile.NamedTemporaryFile(suffix=".json") as output:
        subprocess.run(
            [sys.executable, "-m", "bench.scale", *arguments, "--out", output.name],
            check=True,
            cwd=REPO,
        )
        result: dict[str, Any] = json.loads(Path(output.name).read_text(encoding="utf-8"))
        return result


def generated_vault(notes: int) -> Path:
    """The generated vault of `notes` notes, written once and kept in the cache dir."""
    vault = VAULT_CACHE / f"vault-{notes}-seed{SEED}-v{GENERATOR_VERSION}"
    done = vault.with_suffix(".done")
    if not done.exists():
        if vault.exists():  # a half-written one from an interrupted run
            subprocess.run(["rm", "-rf", str(vault)], check=True)
        VAULT_CACHE.mkdir(parents=True, exist_ok=True)
        generate_vault(vault, notes, SEED)
        done.touch()
    return vault


# -- part 1: embedding throughput --------------------------------------------------------------


def embed_worker(vault: Path, variant: str, sample: int) -> dict[str, Any]:
    """Chunks/s of one embedding setup on the sample (a warm-up first)."""
    texts = sample_chunk_texts(vault, sample)
    if variant == "plain-fastembed":
        embedder = MiniLmEmbedder(variant="packaged")
        # The same session, driven with fastembed's own defaults: batches of 256, input order
        # (the embedder computes what fastembed does: tests/test_embedder.py).
        model = embedder._model

        def embed(batch: list[str]) -> object:
            return [model.encode(batch[i : i + 256]) for i in range(0, len(batch), 256)]
    else:
        if variant == "packaged-sorted-b16":
            embedder = MiniLmEmbedder(batch_size=16, variant="packaged")
        elif variant == "dynamic-int8-1-worker":
            embedder = MiniLmEmbedder(threads=1)
        else:
            embedder = MiniLmEmbedder()

        def embed(batch: list[str]) -> object:
            return embedder.embed_documents(batch)

    embed(texts[:16])
    seconds = timed(lambda: embed(texts))
    return {"chunks": len(texts), "seconds": seconds, "chunks_per_s": len(texts) / seconds}


# -- part 2: one vault -------------------------------------------------------------------------


class TimingEmbedder:
    """The real embedder, adding up the time spent in it."""

    def __init__(self, inner: MiniLmEmbedder) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dim = inner.dim
        self.max_tokens = inner.max_tokens
        self.count_tokens = inner.count_tokens
        self.seconds = 0.0

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        started = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - started

    def embed_query(self, text: str) -> Vector:
        return self.inner.embed_query(text)


def index_worker(vault: Path, data_dir: Path) -> dict[str, Any]:
    """The first index of `vault` into `data_dir` and the no-change re-syncs, in this process
    (a fresh one: its peak RSS is the full index's)."""
    result: dict[str, Any] = {}
    inner = MiniLmEmbedder()
    embedder = TimingEmbedder(inner)
    sample = sample_chunk_texts(vault, RAW_SAMPLE)
    inner.embed_documents(sample[:16])
    result["rss_model_loaded_mb"] = peak_rss_mb()
    raw_rates = [len(sample) / timed(lambda: inner.embed_documents(sample))]
    settings = Settings(vault=vault, data_dir=data_dir)
    with VaultIndex(settings, embedder=embedder) as index:
        started = time.perf_counter()
        report = index.indexer.sync()
        result["index_seconds"] = time.perf_counter() - started
        result["notes"] = report.indexed
        result["chunks"] = report.chunks
        result["failed"] = report.failed
        result["embed_seconds_in_pipeline"] = embedder.seconds
        result["rss_after_index_mb"] = peak_rss_mb()
        raw_rates.append(len(sample) / timed(lambda: inner.embed_documents(sample)))
        result["raw_chunks_per_s"] = max(raw_rates)
        result["resync_seconds"] = statistics.median(timed(index.indexer.sync) for _ in range(3))
    result["disk_mb"] = disk_mb(data_dir)
    result["index_peak_rss_mb"] = peak_rss_mb()
    chunks, seconds = result["chunks"], result["index_seconds"]
    result["chunks_per_s"] = chunks / seconds
    result["pipeline_overhead"] = seconds / (chunks / result["raw_chunks_per_s"]) - 1
    return result


def restart_worker(vault: Path, data_dir: Path) -> dict[str, Any]:
    """A sidecar restarting on the index `index_worker` left: the first sync, then the watcher
    and searches, in this process (a fresh one, as a restart is)."""
    result: dict[str, Any] = {}
    # The embedder `index_worker` wrote with: left to choose, the sidecar picks multilingual
    # embeddings for these vaults (a third of the sampled notes aren't English), and the
    # "restart" re-embedded the whole vault.
    with VaultIndex(Settings(vault=vault, data_dir=data_dir), embedder=MiniLmEmbedder()) as index:
        result["resync_after_restart_seconds"] = timed(index.indexer.sync)
        result["searchable_ms"] = asyncio.run(_save_to_searchable(index, vault))
        result.update(_search_latencies(index, vault))
    result["restart_peak_rss_mb"] = peak_rss_mb()
    return result


def vault_measures(vault: Path) -> dict[str, Any]:
    """Every per-vault measurement: the first index and the restart, each in its own process;
    `peak_rss_mb` is the larger of their peaks."""
    with tempfile.TemporaryDirectory(prefix="vault-agent-scale-") as data_dir:
        where = ["--vault", str(vault), "--data-dir", data_dir]
        result = run_worker(["index", *where]) | run_worker(["restart", *where])
    result["peak_rss_mb"] = max(result["index_peak_rss_mb"], result["restart_peak_rss_mb"])
    return result


async def _save_to_searchable(index: VaultIndex, vault: Path) -> list[float]:
    """Milliseconds from writing a note to the watcher-indexed new word being found."""
    stop = asyncio.Event()
    watcher = asyncio.create_task(index.indexer.watch(stop))
    await asyncio.sleep(2.0)  # inotify watches are set up by now, even at 50k notes
    files = sorted(f.file for f in scan_vault(vault) if is_note(f.file))
    rng = random.Random(SEED)
    latencies = []
    try:
        for number in range(EDITS):
            file = rng.choice(files)
            word = f"zqx{number}vb{rng.randrange(10**6)}"
            path = vault / file
            original = path.read_bytes()
            try:
                path.write_bytes(original + f"\nEdited: {word}\n".encode())
                written = time.perf_counter()
                while time.perf_counter() - written < 30:
                    hits = await asyncio.to_thread(index.searcher.search, word, None, 3, "sparse")
                    if any(hit.file == file for hit in hits):
                        latencies.append((time.perf_counter() - written) * 1000)
                        break
                    await asyncio.sleep(0.01)
            finally:
                path.write_bytes(original)  # the cached vault stays as generated
            await asyncio.sleep(0.5)
    finally:
        stop.set()
        await watcher
    index.indexer.sync()  # the restored originals
    return latencies


def _search_latencies(index: VaultIndex, vault: Path) -> dict[str, float]:
    asked = queries(vault, SEARCHES)
    for query in asked[:5]:  # warm-up
        index.searcher.search(query)
    plain = [timed(lambda q=q: index.searcher.search(q)) * 1000 for q in asked]
    filtered = [
        timed(lambda q=q, f=f: index.searcher.search(q, f)) * 1000
        for q, f in zip(asked, FILTERS * len(asked), strict=False)
    ]
    return {
        "search_p50_ms": percentile(plain, 0.5),
        "search_p95_ms": percentile(plain, 0.95),
        "filtered_p50_ms": percentile(filtered, 0.5),
        "filtered_p95_ms": percentile(filtered, 0.95),
    }


# -- part 3: the store alone ---------------------------------------------------------------------


def store_worker(points: int) -> dict[str, Any]:
    """Upsert `points` synthetic points into an Edge store, then query and read states."""
    from vault_agent.index.store.edge import EdgeStore
    from vault_agent.index.store.qdrant import QdrantStore

    rng = np.random.default_rng(SEED)
    vault_id = Settings(vault=REPO).vault_id
    result: dict[str, Any] = {"points": points}
    with tempfile.TemporaryDirectory(prefix="vault-agent-store-") as folder:
        store = EdgeStore(Path(folder) / "edge")
        upsert_seconds = 0.0
        batch = 1000
        for start in range(0, points, batch):
            chunks = _synthetic_chunks(rng, vault_id, start, min(batch, points - start))
            upsert_seconds += timed(lambda chunks=chunks: store.upsert(chunks))
        result["upsert_points_per_s"] = points / upsert_seconds
        result["file_states_seconds"] = timed(store.file_states)  # from its mirror
        # What a start without a valid mirror pays: every point's keys read from the shard.
        result["file_states_scroll_seconds"] = timed(lambda: QdrantStore.file_states(store))
        plain, filtered = [], []
        for _ in range(5 + SEARCHES):
            dense = _unit(rng.standard_normal(DENSE_DIM)).tolist()
            sparse = _sparse(rng)
            # What one hybrid search asks the store: both candidate lists in one call.
            queries = [VectorQuery(dense, 100), VectorQuery(sparse, 100)]
            plain.append(timed(lambda q=queries: store.search(q)))
            folder_filter = SearchFilter(folders=[f"folder{rng.integers(0, 50)}"])
            filtered.append(timed(lambda q=queries, f=folder_filter: store.search(q, f)))
        plain, filtered = plain[5:], filtered[5:]  # warm-up dropped
        result["search_p50_ms"] = percentile(plain, 0.5) * 1000
        result["search_p95_ms"] = percentile(plain, 0.95) * 1000
        result["filtered_p50_ms"] = percentile(filtered, 0.5) * 1000
        result["filtered_p95_ms"] = percentile(filtered, 0.95) * 1000
        store.close()
        result["disk_mb"] = disk_mb(Path(folder))
    result["peak_rss_mb"] = peak_rss_mb()
    return result


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / np.linalg.norm(vector)


def _sparse(rng: np.random.Generator) -> SparseVector:
    terms = sorted({int(t) for t in rng.integers(0, 30_000, 40)})
    return SparseVector(indices=terms, values=[float(v) for v in rng.random(len(terms))])


def _synthetic_chunks(
    rng: np.random.Generator, vault_id: Any, start: int, count: int
) -> list[EmbeddedChunk]:
    dense = rng.standard_normal((count, DENSE_DIM)).astype(np.float32)
    dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    chunks = []
    for offset in range(count):
        number = start + offset
        note = number // 3
        file = f"folder{note % 50}/note{note}.md"
        payload = ChunkPayload(
            file=file,
            title=f"note {note}",
            chunk_index=number % 3,
            chunk_count=3,
            body="synthetic body text of a realistic length " * 12,
            tags=[f"tag{note % 40}"],
            folders=[f"folder{note % 50}"],
            mtime=float(note),
            size=2000,
            content_hash=f"h{note}",
            embedding_model="synthetic",
        )
        chunks.append(
            EmbeddedChunk.model_construct(
                id=point_id(vault_id, file, number % 3),
                dense=dense[offset].tolist(),
                sparse=_sparse(rng),
                payload=payload,
            )
        )
    return chunks


# -- the report ------------------------------------------------------------------------------------


def run(sizes: list[int], store_points: list[int], embed_sample: int) -> dict[str, Any]:
    """Every part, each measurement in its own process."""
    results: dict[str, Any] = {"embedding": {}, "vaults": {}, "store": {}}
    vaults = {size: generated_vault(size) for size in sizes}
    sample_vault = vaults[min(sizes, key=lambda size: abs(size - 10_000))]
    for variant in (
        "plain-fastembed",
        "packaged-sorted-b16",
        "dynamic-int8-1-worker",
        "dynamic-int8",
    ):
        arguments = ["--vault", str(sample_vault), "--variant", variant]
        results["embedding"][variant] = run_worker(
            ["embed", *arguments, "--sample", str(embed_sample)]
        )
    for size, vault in vaults.items():
        results["vaults"][str(size)] = vault_measures(vault)
    for points in store_points:
        results["store"][str(points)] = run_worker(["store", "--points", str(points)])
    return results


Row = tuple[str, Callable[[dict[str, Any]], str], str]
"""A table row: label, how to show one column's result, target ("" for none)."""


def print_tables(results: dict[str, Any]) -> None:
    """The three tables."""
    console = Console()
    embedding = results["embedding"]
    if embedding:
        baseline = embedding["plain-fastembed"]["chunks_per_s"]
        table = Table(title="Embedding throughput, same chunks, one run")
        for column in ("setup", "chunks/s", "vs plain fastembed"):
            table.add_column(column, justify="right" if column != "setup" else "left")
        for variant, row in embedding.items():
            rate = row["chunks_per_s"]
            table.add_row(variant, f"{rate:.1f}", f"x{rate / baseline:.2f}")
        console.print(table)
    if results["vaults"]:
        rows: list[Row] = [
            ("notes / chunks", lambda r: f"{r['notes']:,} / {r['chunks']:,}", ""),
            ("full index", lambda r: f"{r['index_seconds']:.0f} s", ""),
            ("index throughput", lambda r: f"{r['chunks_per_s']:.1f} chunks/s", ""),
            ("raw embedder, same process", lambda r: f"{r['raw_chunks_per_s']:.1f} chunks/s", ""),
            ("pipeline overhead", lambda r: f"{r['pipeline_overhead']:+.1%}", "< 15% at 10k"),
            ("peak RSS", lambda r: f"{r['peak_rss_mb']:.0f} MB", "< 1.5 GB at 50k"),
            ("  in the full index", lambda r: f"{r['index_peak_rss_mb']:.0f} MB", ""),
            ("  after a restart", lambda r: f"{r['restart_peak_rss_mb']:.0f} MB", ""),
            ("RSS with the model loaded", lambda r: f"{r['rss_model_loaded_mb']:.0f} MB", ""),
            ("index on disk", lambda r: f"{r['disk_mb']:.0f} MB", ""),
            ("no-change re-sync", lambda r: f"{r['resync_seconds']:.2f} s", "< 3 s at 10k"),
            (
                "re-sync after restart",
                lambda r: f"{r['resync_after_restart_seconds']:.2f} s",
                "",
            ),
            (
                "save to searchable p50 / max",
                lambda r: (
                    f"{percentile(r['searchable_ms'], 0.5):.0f} / {max(r['searchable_ms']):.0f} ms"
                ),
                "< 1 s",
            ),
            (
                "hybrid search p50 / p95",
                lambda r: f"{r['search_p50_ms']:.1f} / {r['search_p95_ms']:.1f} ms",
                "p95 < 50 ms at 50k",
            ),
            (
                "hybrid + filter p50 / p95",
                lambda r: f"{r['filtered_p50_ms']:.1f} / {r['filtered_p95_ms']:.1f} ms",
                "p95 < 50 ms at 50k",
            ),
        ]
        console.print(
            _measures_table(
                "Generated vaults (bench/vaultgen.py)", results["vaults"], "notes", rows
            )
        )
    if results["store"]:
        store_rows: list[Row] = [
            ("upsert", lambda r: f"{r['upsert_points_per_s']:,.0f} points/s", ""),
            (
                "hybrid p50 / p95",
                lambda r: f"{r['search_p50_ms']:.1f} / {r['search_p95_ms']:.1f} ms",
                "",
            ),
            (
                "hybrid + folder filter p50 / p95",
                lambda r: f"{r['filtered_p50_ms']:.1f} / {r['filtered_p95_ms']:.1f} ms",
                "",
            ),
            (
                "file states (all, from the mirror)",
                lambda r: f"{r['file_states_seconds']:.2f} s",
                "",
            ),
            (
                "file states (all, scrolling the shard)",
                lambda r: f"{r['file_states_scroll_seconds']:.2f} s",
                "",
            ),
            ("peak RSS", lambda r: f"{r['peak_rss_mb']:.0f} MB", ""),
            ("on disk", lambda r: f"{r['disk_mb']:.0f} MB", ""),
        ]
        title = "Qdrant Edge store alone, synthetic 384-d points"
        console.print(_measures_table(title, results["store"], "points", store_rows))


def _measures_table(title: str, columns: dict[str, Any], unit: str, rows: list[Row]) -> Table:
    """One column per result (keyed by its size), one row per measure, targets last."""
    table = Table(title=title)
    table.add_column("measure")
    for size in columns:
        table.add_column(f"{int(size):,} {unit}", justify="right")
    with_targets = any(target for _, _, target in rows)
    if with_targets:
        table.add_column("target")
    for label, cell, target in rows:
        cells = [cell(result) for result in columns.values()]
        table.add_row(label, *cells, *([target] if with_targets else []))
    return table


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m bench.scale` runs everything; the subcommands are its worker processes."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command")
    embed = sub.add_parser("embed")
    embed.add_argument("--vault", type=Path, required=True)
    embed.add_argument("--variant", required=True)
    embed.add_argument("--sample", type=int, default=EMBED_SAMPLE)
    index = sub.add_parser("index")
    restart = sub.add_parser("restart")
    for worker in (index, restart):
        worker.add_argument("--vault", type=Path, required=True)
        worker.add_argument("--data-dir", type=Path, required=True)
    store = sub.add_parser("store")
    store.add_argument("--points", type=int, required=True)
    for worker in (embed, index, restart, store):
        worker.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--store-points", default="100000,500000")
    parser.add_argument("--embed-sample", type=int, default=EMBED_SAMPLE)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    if args.command is not None:
        if args.command == "embed":
            outcome = embed_worker(args.vault, args.variant, args.sample)
        elif args.command == "index":
            outcome = index_worker(args.vault, args.data_dir)
        elif args.command == "restart":
            outcome = restart_worker(args.vault, args.data_dir)
        else:
            outcome = store_worker(args.points)
        args.out.write_text(json.dumps(outcome), encoding="utf-8")
        return

    sizes = [int(size) for size in args.sizes.split(",") if size]
    points = [int(count) for count in args.store_points.split(",") if count]
    results = run(sizes, points, args.embed_sample)
    results["machine"] = {"cores": os.cpu_count(), "load_after": os.getloadavg()[0]}
    print_tables(results)
    output = args.json or RESULTS / f"scale-{dt.date.today().isoformat()}.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(results, indent=2), encoding="utf-8")
    Console().print(f"Wrote {output}")


if __name__ == "__main__":
    main()
