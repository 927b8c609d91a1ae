"""HTTP API benchmark: ``/v1/search`` latency over HTTP, and concurrent ``/v1/ask`` throughput.

    uv run python -m bench.server [--vault PATH] [--searches 300] [--latency-ms 200]

The API runs as ``vault-agent serve`` runs it (same runner, real socket, real index). Questions
are answered by the real OpenAI-compatible client talking to the fake provider of the test suite
(tests/fake_llm.py) with a fixed latency per model call; each question takes two model calls
(search, then answer), so a question costs at least twice that latency and the throughput shows
what the sidecar adds on top when many questions run at once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from rich.console import Console
from rich.table import Table

from bench.common import percentile
from vault_agent.config import LlmSettings, Settings
from vault_agent.index.vault_index import VaultIndex
from vault_agent.server.app import make_app
from vault_agent.server.runner import start_server

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the fake provider lives with the tests
from fake_llm import FakeLLMServer, FakeTurn  # noqa: E402

TOKEN = "bench-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
QUERIES = [
    "when did I last feed the sourdough starter",
    "irrigation decision for the garden",
    "what did we decide in the Tidepool retro",
    "miso soup recipe",
    "books on my reading list",
    "who is Maya",
    "raised bed soil mix",
    "Kyoto trip plans",
    "pickled green beans brine ratio",
    "architecture of Tidepool",
]
QUESTION = {"question": "When did I last feed the sourdough starter?"}


class LatencyFake(FakeLLMServer):
    """The fake OpenAI-compatible provider: waits `latency_s`, then searches or answers."""

    def __init__(self, latency_s: float) -> None:
        super().__init__("openai")
        self.latency_s = latency_s

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(self.latency_s)
        body = await request.json()
        if body["messages"][-1]["role"] == "tool":
            turn = FakeTurn.text("Gus was last fed on 2026-11-11 [[Daily/2026-11-11]].")
        else:
            turn = FakeTurn.tool_calls([("search_notes", {"query": "sourdough starter fed"})])
        # The parent re-reads the cached body without yielding, so the turn stays ours.
        self.script.appendleft(turn)
        return await super()._chat(request)


async def run(vault: Path, searches: int, latency_s: float, levels: list[int]) -> dict[str, Any]:
    """Every measurement, by name."""
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="vault-agent-bench-") as data_dir:
        root = Path(data_dir)
        fake = LatencyFake(latency_s)
        await fake.start()
        llm = LlmSettings(profile="openai", base_url=fake.base_url, model="m", max_retries=0)
        settings = Settings(vault=vault, data_dir=root / "data", config_dir=root, llm=llm)
        index = await asyncio.to_thread(VaultIndex, settings)
        try:
            report = await asyncio.to_thread(index.indexer.sync)
            results["notes"], results["chunks"] = report.indexed, report.chunks
            app = make_app(settings, token=TOKEN, vault_index=index, background_indexer=False)
            runner, port = await start_server(app, 0)
            base = f"http://127.0.0.1:{port}"
            try:
                connector = aiohttp.TCPConnector(limit=0)
                async with aiohttp.ClientSession(base, connector=connector) as session:
                    results.update(await _search_latency(session, index, searches))
                    for level in levels:
                        results[f"ask_{level}"] = await _ask_throughput(session, level)
            finally:
                await runner.cleanup()
        finally:
            await asyncio.to_thread(index.close)
            await fake.close()
    return results


async def _search_latency(
    session: aiohttp.ClientSession, index: VaultIndex, count: int
) -> dict[str, float]:
    over_http: list[float] = []
    in_process: list[float] = []
    for query in QUERIES:  # warm-up: the first inference of a model is slower
        index.searcher.search(query)
    for i in range(count):
        query = QUERIES[i % len(QUERIES)]
        started = time.perf_counter()
        async with session.post("/v1/search", json={"query": query}, headers=AUTH) as response:
            assert response.status == 200, await response.text()
            await response.read()
        over_http.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        index.searcher.search(query)
        in_process.append((time.perf_counter() - started) * 1000)
    return {
        "search_http_p50_ms": statistics.median(over_http),
        "search_http_p95_ms": percentile(over_http, 0.95),
        "search_direct_p50_ms": statistics.median(in_process),
        "search_direct_p95_ms": percentile(in_process, 0.95),
    }


async def _ask_throughput(session: aiohttp.ClientSession, concurrency: int) -> dict[str, float]:
    async def one() -> float:
        started = time.perf_counter()
        async with session.post("/v1/ask", json=QUESTION, headers=AUTH) as response:
            body = await response.text()
        assert "event: done" in body, body[-300:]
        return time.perf_counter() - started

    rounds = 3
    started = time.perf_counter()
    latencies: list[float] = []
    for _ in range(rounds):
        latencies += await asyncio.gather(*(one() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    return {
        "asks": len(latencies),
        "per_s": len(latencies) / elapsed,
        "p50_ms": statistics.median(latencies) * 1000,
        "p95_ms": percentile(latencies, 0.95) * 1000,
    }


def print_table(vault: Path, latency_s: float, results: dict[str, Any], levels: list[int]) -> None:
    """The results as a table."""
    table = Table(title=f"vault-agent HTTP API benchmark: {vault.name}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("notes / chunks", f"{results['notes']} / {results['chunks']}")
    table.add_row(
        "POST /v1/search p50 / p95 (HTTP)",
        f"{results['search_http_p50_ms']:.1f} / {results['search_http_p95_ms']:.1f} ms",
    )
    table.add_row(
        "same searches in-process p50 / p95",
        f"{results['search_direct_p50_ms']:.1f} / {results['search_direct_p95_ms']:.1f} ms",
    )
    floor = 2 * latency_s * 1000
    for level in levels:
        asks = results[f"ask_{level}"]
        table.add_row(
            f"POST /v1/ask x{level} concurrent ({latency_s * 1000:.0f} ms/model call)",
            f"{asks['per_s']:.1f} asks/s, p50 {asks['p50_ms']:.0f} / p95 {asks['p95_ms']:.0f} ms"
            f" (floor {floor:.0f} ms)",
        )
    Console().print(table)


def main() -> None:
    """Parse arguments, run, print, optionally write JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 10, 20, 50])
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    latency_s = args.latency_ms / 1000
    results = asyncio.run(run(args.vault, args.searches, latency_s, args.concurrency))
    print_table(args.vault, latency_s, results, args.concurrency)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
