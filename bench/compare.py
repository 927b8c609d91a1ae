"""Vault Agent side by side with what a user would pick instead: same vault, same model, one run.

    make bench-compare
    uv run --group compare python -m bench.compare [--vault PATH] [--limit N] [--json out.json]

Three systems index the same notes with the same embedding model (our MiniLmEmbedder, same
batch size, same threads) on the same machine, one after the other, each in a fresh process:

  vault-agent       our pipeline: Indexer into the default Qdrant Edge store, hybrid search
                    (dense + BM25, fused) through our Searcher.
  qdrant-local      qdrant-client's local mode (`QdrantClient(path=...)`) fed our chunks and our
                    dense vectors, written in the same batches as our indexer; dense search.
  langchain-chroma  how LangChain tools for Obsidian build it: markdown header splitter, then
                    the recursive character splitter (1000/200), `Chroma.from_documents` with a
                    persist directory, `similarity_search`. Needs the opt-in `compare` group.

For each: full index time from the files to a searchable index (model already loaded), the part
of it spent embedding, and its CPU time (steadier than wall time on a busy machine); search
p50/p95 over one fixed query set (note titles and headings, a warm-up pass first; query
embedding included, and also shown without); peak RSS of that system's process (and the peak
while searching only); the index size on disk, measured once the process has exited. Ratios are
against vault-agent (x2 = twice its time, memory or disk). The notes are copied (markdown only,
the first `--limit` in path order) to a temp dir that all three read. "source note in top 10"
is a sanity check (each query is some note's title or heading), not a retrieval benchmark.
Results: a table, and JSON in bench/results/compare-<date>.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.common import disk_usage, parsed_notes, percentile

REPO = Path(__file__).resolve().parents[1]
DEFAULT_VAULT = REPO.parent / "shared" / "data" / "vaults" / "obsidian-developer-docs"
RESULTS_DIR = REPO / "bench" / "results"

VAULT_AGENT = "vault-agent"
QDRANT_LOCAL = "qdrant-local"
LANGCHAIN_CHROMA = "langchain-chroma"
SYSTEMS = (VAULT_AGENT, QDRANT_LOCAL, LANGCHAIN_CHROMA)
DESCRIPTIONS = {
    VAULT_AGENT: "our indexer + Qdrant Edge, hybrid search (Searcher)",
    QDRANT_LOCAL: "qdrant-client local mode, our chunks and vectors, dense search",
    LANGCHAIN_CHROMA: "LangChain splitters + Chroma (persistent), similarity_search",
}
#: The modules system (c) needs: the `compare` dependency group, not installed by default.
CHROMA_MODULES = ("chromadb", "langchain_chroma", "langchain_core", "langchain_text_splitters")

#: Results per query, for every system.
TOP_K = 10
#: LangChain's usual settings in tutorials and Obsidian RAG tools.
LC_CHUNK_SIZE = 1000
LC_CHUNK_OVERLAP = 200
LC_HEADERS = [("#", "h1"), ("##", "h2"), ("###", "h3")]
_FRONTMATTER = re.compile(r"\A---\r?\n.*?\r?\n---\r?\n", re.DOTALL)


@dataclass
class Spec:
    """What every worker process gets: the vault, the queries and the shared settings."""

    vault: str
    queries: list[str]
    expected: list[list[str]]  # per query: the notes it was made from (the sanity check)
    batch_size: int
    threads: int | None
    write_batch_chunks: int
    repeats: int


# ----------------------------------------------------------------------------- helpers


def _proc_status_kb(field: str) -> int | None:
    """A `/proc/self/status` value in kB (VmRSS: now, VmHWM: peak); None off Linux."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    """Reset this process's peak RSS (VmHWM) to its current RSS; False where unsupported."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _mb(kilobytes: int | None) -> float | None:
    return None if kilobytes is None else kilobytes / 1024


class TimedEmbedder:
    """Our MiniLmEmbedder, counting the time spent embedding passages and the last query."""

    def __init__(self, batch_size: int, threads: int | None) -> None:
        from vault_agent.index.embed.minilm import MiniLmEmbedder

        self.inner = MiniLmEmbedder(batch_size=batch_size, threads=threads)
        self.model_name = self.inner.model_name
        self.dim = self.inner.dim
        self.documents_seconds = 0.0
        self.documents = 0
        self.document_chars = 0
        self.query_seconds = 0.0

    def embed_documents(self, texts: Sequence[str]) -> list[Any]:
        """Embed passages (counted)."""
        started = time.perf_counter()
        vectors = self.inner.embed_documents(texts)
        self.documents_seconds += time.perf_counter() - started
        self.documents += len(texts)
        self.document_chars += sum(len(text) for text in texts)
        return vectors

    def embed_query(self, text: str) -> Any:
        """Embed one query; its time is kept in `query_seconds`."""
        started = time.perf_counter()
        vector = self.inner.embed_query(text)
        self.query_seconds = time.perf_counter() - started
        return vector


# ----------------------------------------------------------------------------- the vault


def copy_notes(source: Path, target: Path, limit: int | None) -> int:
    """Copy the markdown notes of `source` (the indexer's ignore rules, path order, the first
    `limit` when given) to `target`; returns how many."""
    from vault_agent.config import IndexSettings
    from vault_agent.vault.files import scan_vault

    files = sorted(
        vault_file.file
        for vault_file in scan_vault(source, IndexSettings().ignore)
        if vault_file.file.lower().endswith(".md")
    )
    if limit is not None:
        files = files[:limit]
    for file in files:
        destination = target / file
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / file, destination)
    target.mkdir(parents=True, exist_ok=True)
    return len(files)


def build_queries(vault: Path, count: int, seed: int = 7) -> tuple[list[str], list[list[str]]]:
    """`count` queries drawn (seeded) from the note titles and headings of `vault`, each with
    the notes carrying that title or heading. Two to ten words; shorter ones only when the
    vault has too few."""
    names: dict[str, tuple[str, set[str]]] = {}  # lower-cased text -> (text, files)
    for note in parsed_notes(vault):
        headings = [section.heading_path[-1] for section in note.sections if section.heading_path]
        for name in [note.title, *headings]:
            text = " ".join(name.replace("#", " ").split())
            if text and len(text) <= 80:
                names.setdefault(text.lower(), (text, set()))[1].add(note.file)
    ordered = sorted(names)
    wanted = [key for key in ordered if 2 <= len(key.split()) <= 10]
    if len(wanted) < count:
        chosen = set(wanted)
        wanted += [key for key in ordered if key not in chosen]
    picked = random.Random(seed).sample(wanted, min(count, len(wanted)))
    return [names[key][0] for key in picked], [sorted(names[key][1]) for key in picked]


# ----------------------------------------------------------------------------- the systems


@dataclass
class Built:
    """A system's index, ready to be searched and then closed."""

    notes: int
    chunks: int
    search: Callable[[str], list[str]]  # query -> the files of the hits, best first
    close: Callable[[], None]


def _build_vault_agent(spec: Spec, work: Path, embedder: TimedEmbedder) -> Built:
    from vault_agent.config import IndexSettings, Settings, StoreSettings
    from vault_agent.index.vault_index import VaultIndex

    settings = Settings(
        vault=Path(spec.vault),
        data_dir=work,
        store=StoreSettings(),  # the default Qdrant Edge store, whatever the environment says
        index=IndexSettings(
            embed_batch_size=spec.batch_size,
            embed_threads=spec.threads,
            write_batch_chunks=spec.write_batch_chunks,
        ),
    )
    vault_index = VaultIndex(settings, embedder=embedder)
    report = vault_index.indexer.sync()

    def search(query: str) -> list[str]:
        return [hit.file for hit in vault_index.searcher.search(query, limit=TOP_K)]

    return Built(report.indexed, report.chunks, search, vault_index.close)


def _our_chunks(vault: Path) -> Iterator[tuple[str, str, list[Any]]]:
    """(file, title, chunks) per note, read, parsed and chunked as our indexer does."""
    from vault_agent.vault.chunker import chunk_note

    for note in parsed_notes(vault):
        yield note.file, note.title, chunk_note(note)


def _build_qdrant_local(spec: Spec, work: Path, embedder: TimedEmbedder) -> Built:
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(work / "qdrant"))
    client.create_collection(
        "notes",
        vectors_config=models.VectorParams(size=embedder.dim, distance=models.Distance.COSINE),
    )
    notes = chunks = 0
    batch: list[tuple[str, str, Any]] = []

    def write() -> None:
        nonlocal chunks
        vectors = embedder.embed_documents([chunk.embed_text for _, _, chunk in batch])
        points = [
            models.PointStruct(
                id=chunks + position,
                vector=vector.tolist(),
                payload={
                    "file": file,
                    "title": title,
                    "heading": chunk.heading,
                    "chunk_index": chunk.chunk_index,
                    "body": chunk.body,
                },
            )
            for position, ((file, title, chunk), vector) in enumerate(
                zip(batch, vectors, strict=True)
            )
        ]
        client.upsert("notes", points=points)
        chunks += len(points)
        batch.clear()

    # The same shape as our indexer: whole notes gathered until a write batch is full.
    for file, title, note_chunks in _our_chunks(Path(spec.vault)):
        notes += 1
        batch.extend((file, title, chunk) for chunk in note_chunks)
        if len(batch) >= spec.write_batch_chunks:
            write()
    if batch:
        write()

    def search(query: str) -> list[str]:
        found = client.query_points(
            "notes",
            query=embedder.embed_query(query).tolist(),
            limit=TOP_K,
            with_payload=["file"],
        )
        return [str((point.payload or {})["file"]) for point in found.points]

    return Built(notes, chunks, search, client.close)


def _build_langchain_chroma(spec: Spec, work: Path, embedder: TimedEmbedder) -> Built:
    os.environ["ANONYMIZED_TELEMETRY"] = "False"
    import chromadb
    from langchain_chroma import Chroma
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

    class MiniLmEmbeddings(Embeddings):
        """LangChain's Embeddings over our embedder: the same model, nothing downloaded
        (Chroma's own default embedding function would fetch one)."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [vector.tolist() for vector in embedder.embed_documents(texts)]

        def embed_query(self, text: str) -> list[float]:
            return [float(value) for value in embedder.embed_query(text)]

    vault = Path(spec.vault)
    headers = MarkdownHeaderTextSplitter(headers_to_split_on=LC_HEADERS, strip_headers=False)
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=LC_CHUNK_SIZE, chunk_overlap=LC_CHUNK_OVERLAP
    )
    documents: list[Document] = []
    notes = 0
    for path in sorted(vault.rglob("*.md")):
        source = path.relative_to(vault).as_posix()
        text = _FRONTMATTER.sub("", path.read_text(encoding="utf-8", errors="replace"), count=1)
        sections = headers.split_text(text)
        for section in sections:
            section.metadata["source"] = source
        documents.extend(splitter.split_documents(sections))
        notes += 1
    store = Chroma.from_documents(
        documents,
        MiniLmEmbeddings(),
        collection_name="notes",
        persist_directory=str(work / "chroma"),
        client_settings=chromadb.config.Settings(anonymized_telemetry=False),
    )

    def search(query: str) -> list[str]:
        return [str(doc.metadata["source"]) for doc in store.similarity_search(query, k=TOP_K)]

    return Built(notes, len(documents), search, lambda: None)


BUILDERS: dict[str, Callable[[Spec, Path, TimedEmbedder], Built]] = {
    VAULT_AGENT: _build_vault_agent,
    QDRANT_LOCAL: _build_qdrant_local,
    LANGCHAIN_CHROMA: _build_langchain_chroma,
}


# ----------------------------------------------------------------------------- one worker


def run_worker(system: str, spec: Spec, work: Path) -> dict[str, Any]:
    """Measure one system in this process (meant to be a fresh one): load the model, index,
    search, close, then measure the disk."""
    started = time.perf_counter()
    embedder = TimedEmbedder(spec.batch_size, spec.threads)
    model_load_s = time.perf_counter() - started
    rss_model_kb = _proc_status_kb("VmRSS")

    store_dir = work / "store"
    store_dir.mkdir(parents=True)
    started, cpu_started = time.perf_counter(), time.process_time()
    built = BUILDERS[system](spec, store_dir, embedder)
    index_s = time.perf_counter() - started
    index_cpu_s = time.process_time() - cpu_started
    embed_s = embedder.documents_seconds
    rss_indexed_kb = _proc_status_kb("VmHWM")
    # From here on, the peak is the search phase's alone (Linux: "5" resets VmHWM).
    search_peak_known = _reset_peak_rss()

    for query in spec.queries:  # warm-up
        built.search(query)
    totals: list[float] = []
    without_embedding: list[float] = []
    hits = 0
    for repeat in range(spec.repeats):
        for query, expected in zip(spec.queries, spec.expected, strict=True):
            started = time.perf_counter()
            files = built.search(query)
            elapsed = time.perf_counter() - started
            totals.append(elapsed * 1000)
            without_embedding.append((elapsed - embedder.query_seconds) * 1000)
            if repeat == 0:
                hits += bool(set(files) & set(expected))
    rss_search_kb = _proc_status_kb("VmHWM") if search_peak_known else None
    notes, chunks = built.notes, built.chunks
    built.close()
    return {
        "system": system,
        "description": DESCRIPTIONS[system],
        "notes": notes,
        "chunks": chunks,
        "model_load_s": model_load_s,
        "index_s": index_s,
        "index_cpu_s": index_cpu_s,
        "embed_s": embed_s,
        "embedded_texts": embedder.documents,
        "embedded_chars": embedder.document_chars,
        "model": embedder.model_name,
        "index_chunks_per_s": chunks / index_s,
        "non_embed_s": index_s - embed_s,
        "search_p50_ms": statistics.median(totals),
        "search_p95_ms": percentile(totals, 0.95),
        "search_no_embed_p50_ms": statistics.median(without_embedding),
        "search_no_embed_p95_ms": percentile(without_embedding, 0.95),
        "searches": len(totals),
        "source_in_top10": hits / len(spec.queries),
        "rss_after_model_mb": _mb(rss_model_kb),
        "rss_peak_index_mb": _mb(rss_indexed_kb),
        "rss_peak_search_mb": _mb(rss_search_kb),
    }


# ----------------------------------------------------------------------------- the parent


def run_system(system: str, spec_path: Path, work: Path) -> dict[str, Any]:
    """Run one system in a fresh child process; its row, with the child's peak RSS as the
    kernel counted it (wait4: the process and any children it waited for)."""
    out = work / "result.json"
    work.mkdir(parents=True)
    command = [
        sys.executable,
        "-m",
        "bench.compare",
        "--worker",
        system,
        "--spec",
        str(spec_path),
        "--work",
        str(work),
    ]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall_s = time.perf_counter() - started
    if process.returncode != 0:
        return {"system": system, "error": f"worker exited with {process.returncode}"}
    row: dict[str, Any] = json.loads(out.read_text())
    # ru_maxrss is in kB on Linux. The worker's reset of VmHWM before searching resets this
    # too, so the indexing peak it read just before counts as well.
    peaks = [usage.ru_maxrss / 1024, row["rss_peak_index_mb"], row["rss_peak_search_mb"]]
    row["peak_rss_mb"] = max(peak for peak in peaks if peak is not None)
    row["process_wall_s"] = wall_s
    # Measured once the process is gone: whatever it flushes on the way out is counted.
    row["disk_bytes"], row["disk_apparent_bytes"] = disk_usage(work / "store")
    return row


def chroma_available() -> bool:
    """Whether the opt-in `compare` group (chromadb, LangChain) is installed."""
    return all(importlib.util.find_spec(name) is not None for name in CHROMA_MODULES)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Copy the notes, make the queries, run every system in its own process."""
    from vault_agent.config import IndexSettings
    from vault_agent.index.embed.minilm import MiniLmEmbedder

    defaults = IndexSettings()
    systems = [name.strip() for name in args.systems.split(",") if name.strip()]
    unknown = set(systems) - set(SYSTEMS)
    if unknown:
        raise SystemExit(f"unknown systems: {', '.join(sorted(unknown))} (known: {SYSTEMS})")
    with tempfile.TemporaryDirectory(prefix="vault-agent-compare-") as temporary:
        root = Path(temporary)
        vault = root / "vault" / args.vault.resolve().name
        notes = copy_notes(args.vault, vault, args.limit)
        queries, expected = build_queries(vault, args.queries)
        if not queries:
            raise SystemExit(f"no notes with titles or headings in {args.vault}")
        spec = Spec(
            vault=str(vault),
            queries=queries,
            expected=expected,
            batch_size=args.batch_size or defaults.embed_batch_size,
            threads=args.threads if args.threads is not None else defaults.embed_threads,
            write_batch_chunks=defaults.write_batch_chunks,
            repeats=args.repeats,
        )
        # Build the model's cache (a derived model, symlinks) once here, so that no system
        # pays for it; and learn the model's name.
        model = MiniLmEmbedder(batch_size=spec.batch_size, threads=spec.threads).model_name
        spec_path = root / "spec.json"
        spec_path.write_text(json.dumps(asdict(spec)))
        load_before = os.getloadavg()
        rows = []
        for system in systems:
            if system == LANGCHAIN_CHROMA and not chroma_available():
                rows.append(
                    {
                        "system": system,
                        "skipped": "the compare group is not installed "
                        "(uv run --group compare python -m bench.compare)",
                    }
                )
                continue
            print(f"running {system} ...", file=sys.stderr, flush=True)
            rows.append(run_system(system, spec_path, root / system))
        load_after = os.getloadavg()
    _add_ratios(rows)
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "vault": str(args.vault),
        "notes": notes,
        "limit": args.limit,
        "queries": queries,
        "top_k": TOP_K,
        "settings": {
            "model": model,
            "embed_batch_size": spec.batch_size,
            "embed_threads": spec.threads,
            "write_batch_chunks": spec.write_batch_chunks,
            "repeats": spec.repeats,
            "langchain_chunk_size": LC_CHUNK_SIZE,
            "langchain_chunk_overlap": LC_CHUNK_OVERLAP,
        },
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "loadavg_before": load_before,
            "loadavg_after": load_after,
        },
        "systems": rows,
    }


RATIO_KEYS = (
    "index_s",
    "index_cpu_s",
    "embed_s",
    "non_embed_s",
    "search_p50_ms",
    "search_p95_ms",
    "search_no_embed_p50_ms",
    "search_no_embed_p95_ms",
    "peak_rss_mb",
    "rss_peak_search_mb",
    "disk_bytes",
)


def _add_ratios(rows: list[dict[str, Any]]) -> None:
    """`ratios`: each measure over vault-agent's (when vault-agent ran)."""
    base = next((row for row in rows if row["system"] == VAULT_AGENT and "index_s" in row), None)
    if base is None:
        return
    for row in rows:
        if "index_s" in row:
            row["ratios"] = {
                key: row[key] / base[key] if row[key] is not None and base[key] else None
                for key in RATIO_KEYS
            }


def print_table(results: dict[str, Any], console: Console | None = None) -> None:
    """One column per system, one row per measure, ratios against vault-agent."""
    rows = results["systems"]
    table = Table(
        title=f"Vault Agent vs alternatives: {Path(results['vault']).name}, "
        f"{results['notes']} notes, {len(results['queries'])} queries x "
        f"{results['settings']['repeats']}, top {results['top_k']}"
    )
    table.add_column("measure", no_wrap=True)
    for row in rows:
        table.add_column(row["system"], justify="right")

    def cell(row: dict[str, Any], key: str, fmt: Callable[[Any], str], ratio: bool) -> str:
        if "skipped" in row or "error" in row:
            return "-"
        text = fmt(row[key])
        factor = row.get("ratios", {}).get(key) if ratio else None
        if factor is not None and row["system"] != VAULT_AGENT:
            text += f" (x{factor:.2f})"
        return text

    def ms(value: float) -> str:
        return f"{value:.1f} ms"

    def seconds(value: float) -> str:
        return f"{value:.1f} s"

    def megabytes(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.0f} MB"

    measures: list[tuple[str, str, Callable[[Any], str], bool]] = [
        ("chunks", "chunks", lambda v: f"{v:,}", False),
        ("text embedded", "embedded_chars", lambda v: f"{v / 1e6:.2f} M chars", False),
        ("full index", "index_s", seconds, True),
        ("  of which embedding", "embed_s", seconds, True),
        ("  everything else", "non_embed_s", seconds, True),
        ("index throughput", "index_chunks_per_s", lambda v: f"{v:.1f} chunks/s", False),
        ("index CPU time", "index_cpu_s", seconds, True),
        ("search p50", "search_p50_ms", ms, True),
        ("  without query embedding", "search_no_embed_p50_ms", ms, True),
        ("search p95", "search_p95_ms", ms, True),
        ("  without query embedding", "search_no_embed_p95_ms", ms, True),
        ("peak RSS", "peak_rss_mb", megabytes, True),
        ("  with the model loaded", "rss_after_model_mb", megabytes, False),
        ("  peak while searching", "rss_peak_search_mb", megabytes, True),
        ("index on disk", "disk_bytes", lambda v: f"{v / 2**20:.1f} MB", True),
        ("source note in top 10", "source_in_top10", lambda v: f"{v:.0%}", False),
    ]
    for label, key, fmt, ratio in measures:
        table.add_row(label, *(cell(row, key, fmt, ratio) for row in rows))
    console = console or Console(width=max(Console().width, 120))
    console.print(table)
    settings = results["settings"]
    console.print(
        f"model {settings['model']}, batch {settings['embed_batch_size']}, threads "
        f"{settings['embed_threads'] or 'all'} ({results['machine']['cpus']} CPUs, load "
        f"{results['machine']['loadavg_before'][0]:.1f} before, "
        f"{results['machine']['loadavg_after'][0]:.1f} after); ratios: x vault-agent"
    )
    for row in rows:
        if "skipped" in row:
            console.print(f"{row['system']}: skipped, {row['skipped']}")
        elif "error" in row:
            console.print(f"{row['system']}: failed, {row['error']}")


def main(argv: Sequence[str] | None = None) -> None:
    """Parse arguments; run the comparison (or, with --worker, one system of it)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT, help="any vault folder")
    parser.add_argument("--limit", type=int, help="only the first N notes (path order)")
    parser.add_argument("--queries", type=int, default=50, help="queries in the fixed set")
    parser.add_argument("--repeats", type=int, default=3, help="timed passes over the queries")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated")
    parser.add_argument("--batch-size", type=int, help="embedding batch size (ours by default)")
    parser.add_argument("--threads", type=int, help="ONNX threads (ours by default: all cores)")
    parser.add_argument("--json", type=Path, help="default: bench/results/compare-<date>.json")
    parser.add_argument("--worker", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--spec", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        spec = Spec(**json.loads(args.spec.read_text()))
        row = run_worker(args.worker, spec, args.work)
        (args.work / "result.json").write_text(json.dumps(row))
        return

    if not args.vault.is_dir():
        raise SystemExit(f"vault folder not found: {args.vault}")
    results = run(args)
    print_table(results)
    out = args.json or RESULTS_DIR / f"compare-{dt.date.today().isoformat()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
