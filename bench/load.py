"""Load test: many clients searching and asking on 127.0.0.1 while the watcher re-indexes edits.

    uv run python -m bench.load        # [--clients 50] [--duration 60] [--vault PATH] [--json F]

The sidecar runs as `vault-agent serve` runs it (same runner, real socket), over a copy of the
vault, with its background indexer watching that copy. Questions are answered by the real
OpenAI-compatible client talking to the test suite's fake provider (tests/fake_llm.py) with a
fixed latency per model call (a search turn, then a cited answer). Meanwhile an editor rewrites
a few notes, each version carrying a word of its own, and a checker measures how long each
version takes to be searchable.

Reported: requests and errors per kind (an error is a non-200 answer, a question whose stream
does not end in ``done``, a timeout, or a warning the sidecar logged), latency p50/p95/p99,
edits made, edit-to-searchable latency, and lost updates: edits never seen by search, or notes
whose indexed content differs from the file on disk once the watcher has settled. Bounded by
`--duration`; exits non-zero on any error or lost update. Not part of `make test`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import logging
import random
import shutil
import string
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from rich.console import Console
from rich.table import Table

from bench.common import percentile
from bench.server import QUERIES, LatencyFake
from vault_agent.config import LlmSettings, Settings
from vault_agent.index.vault_index import VaultIndex
from vault_agent.server.app import make_app
from vault_agent.server.keys import INDEXER
from vault_agent.server.runner import start_server

REPO = Path(__file__).resolve().parents[1]
TOKEN = "load-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
QUESTION = {"question": "When did I last feed the sourdough starter?"}
EDITED = [f"Load/Edited {i}.md" for i in range(5)]
REQUEST_TIMEOUT_S = 60.0
SETTLE_S = 20.0
"""After the load stops, how long the watcher gets to index the last edits."""


@dataclass
class Edit:
    """One version of an edited note."""

    file: str
    word: str
    written: float
    seen: float | None = None


@dataclass
class LoadReport:
    """What happened, in numbers."""

    clients: int
    seconds: float
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"search": [], "ask": []})
    errors: dict[str, int] = field(default_factory=lambda: {"search": 0, "ask": 0})
    samples: list[str] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    server_warnings: list[str] = field(default_factory=list)
    stale_files: list[str] = field(default_factory=list)

    @property
    def lost_updates(self) -> int:
        """Edits never seen by search, plus notes whose index differs from the disk."""
        return sum(edit.seen is None for edit in self.edits) + len(self.stale_files)

    @property
    def failed(self) -> int:
        return sum(self.errors.values()) + len(self.server_warnings)

    def summary(self) -> dict[str, Any]:
        """The figures, JSON-ready."""
        out: dict[str, Any] = {"clients": self.clients, "seconds": round(self.seconds, 1)}
        for kind, values in self.latencies.items():
            ms = [v * 1000 for v in values]
            out[kind] = {
                "requests": len(values),
                "errors": self.errors[kind],
                "per_s": round(len(values) / self.seconds, 1) if self.seconds else 0.0,
                "p50_ms": round(percentile(ms, 0.5), 1) if ms else None,
                "p95_ms": round(percentile(ms, 0.95), 1) if ms else None,
                "p99_ms": round(percentile(ms, 0.99), 1) if ms else None,
            }
        visible = [(e.seen - e.written) * 1000 for e in self.edits if e.seen is not None]
        out["edits"] = {
            "made": len(self.edits),
            "searchable_p50_ms": round(percentile(visible, 0.5), 1) if visible else None,
            "searchable_p95_ms": round(percentile(visible, 0.95), 1) if visible else None,
            "lost_updates": self.lost_updates,
            "stale_files": self.stale_files,
        }
        out["server_warnings"] = self.server_warnings[:10]
        out["error_samples"] = self.samples[:10]
        return out


class _Warnings(logging.Handler):
    """Collects what the sidecar logs at WARNING and above while the load runs."""

    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(f"{record.name}: {record.getMessage()}"[:300])


@contextlib.contextmanager
def _capture_warnings(into: list[str]) -> Iterator[None]:
    handler = _Warnings(into)
    logger = logging.getLogger("vault_agent")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


def _word(number: int) -> str:
    """A made-up word of letters only, one per edit (BM25 keeps it as a single token)."""
    letters = "".join(string.ascii_lowercase[(number // 26**i) % 26] for i in range(5))
    return f"zloadq{letters}"


async def run_load(
    index: VaultIndex,
    settings: Settings,
    *,
    clients: int = 50,
    duration_s: float = 60.0,
    ask_share: float = 0.3,
    edit_every_s: float = 0.5,
    latency_s: float = 0.05,
    seed: int = 8,
) -> LoadReport:
    """Serve `index` (its vault is edited: pass a copy) and put it under load; the report.

    The edited notes (`EDITED`) are created first and indexed before the clock starts."""
    vault = index.settings.vault_root
    for file in EDITED:
        (vault / file).parent.mkdir(parents=True, exist_ok=True)
        (vault / file).write_text(f"# {Path(file).stem}\n\nNot edited yet.\n", encoding="utf-8")
    await asyncio.to_thread(index.indexer.sync)

    report = LoadReport(clients=clients, seconds=0.0)
    fake = LatencyFake(latency_s)
    await fake.start()
    llm = LlmSettings(profile="openai", base_url=fake.base_url, model="m", max_retries=0)
    app = make_app(
        settings.model_copy(update={"llm": llm}),
        token=TOKEN,
        vault_index=index,
        background_indexer=True,
        watch=True,
    )
    runner, port = await start_server(app, 0)
    try:
        with _capture_warnings(report.server_warnings):
            connector = aiohttp.TCPConnector(limit=0)
            timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
            async with aiohttp.ClientSession(
                f"http://127.0.0.1:{port}", connector=connector, timeout=timeout
            ) as session:
                await _until_watching(app)
                started = time.perf_counter()
                deadline = time.monotonic() + duration_s
                rng = random.Random(seed)
                tasks = [
                    _client(session, report, deadline, ask_share, random.Random(rng.random()))
                    for _ in range(clients)
                ]
                tasks.append(_editor(session, report, vault, deadline, edit_every_s))
                await asyncio.gather(*tasks)
                report.seconds = time.perf_counter() - started
                await _settle(session, report, index)
    finally:
        await runner.cleanup()
        await fake.close()
    return report


async def _until_watching(app: Any) -> None:
    indexer = app[INDEXER]
    deadline = time.monotonic() + 60
    while not indexer.watching:
        if time.monotonic() > deadline:
            raise RuntimeError("the sidecar's watcher did not start")
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # inotify is set up once the watcher runs


async def _client(
    session: aiohttp.ClientSession,
    report: LoadReport,
    deadline: float,
    ask_share: float,
    rng: random.Random,
) -> None:
    while time.monotonic() < deadline:
        kind = "ask" if rng.random() < ask_share else "search"
        started = time.perf_counter()
        try:
            ok, detail = await (_ask(session) if kind == "ask" else _search(session, rng))
        except (aiohttp.ClientError, TimeoutError) as error:
            ok, detail = False, f"{type(error).__name__}: {error}"
        report.latencies[kind].append(time.perf_counter() - started)
        if not ok:
            report.errors[kind] += 1
            report.samples.append(f"{kind}: {detail}"[:300])


async def _search(session: aiohttp.ClientSession, rng: random.Random) -> tuple[bool, str]:
    body = {"query": rng.choice(QUERIES), "limit": 5}
    async with session.post("/v1/search", json=body, headers=AUTH) as response:
        text = await response.text()
    return response.status == 200 and '"hits"' in text, f"{response.status} {text[:200]}"


async def _ask(session: aiohttp.ClientSession) -> tuple[bool, str]:
    async with session.post("/v1/ask", json=QUESTION, headers=AUTH) as response:
        text = await response.text()
    last = text.strip().rsplit("event:", 1)[-1]
    ok = response.status == 200 and last.startswith(" done")
    return ok, f"{response.status} {last[:200]}"


async def _editor(
    session: aiohttp.ClientSession,
    report: LoadReport,
    vault: Path,
    deadline: float,
    every_s: float,
) -> None:
    """Rewrite the edited notes in turn; each version is watched until search finds it."""
    checks = []
    number = 0
    while time.monotonic() < deadline:
        file = EDITED[number % len(EDITED)]
        edit = Edit(file=file, word=_word(number), written=time.monotonic())
        text = f"# {Path(file).stem}\n\nVersion {number} mentions {edit.word}.\n"
        await asyncio.to_thread((vault / file).write_text, text, "utf-8")
        report.edits.append(edit)
        checks.append(asyncio.create_task(_until_searchable(session, edit, deadline + SETTLE_S)))
        number += 1
        await asyncio.sleep(every_s)
    await asyncio.gather(*checks)


async def _until_searchable(session: aiohttp.ClientSession, edit: Edit, until: float) -> None:
    body = {"query": edit.word, "limit": 3, "mode": "sparse"}
    while time.monotonic() < until:
        with contextlib.suppress(aiohttp.ClientError, TimeoutError):
            async with session.post("/v1/search", json=body, headers=AUTH) as response:
                if response.status == 200:
                    hits = (await response.json())["hits"]
                    if any(hit["file"] == edit.file for hit in hits):
                        edit.seen = time.monotonic()
                        return
        await asyncio.sleep(0.1)


async def _settle(session: aiohttp.ClientSession, report: LoadReport, index: VaultIndex) -> None:
    """Wait for the watcher to index the last edits, then compare the index with the disk."""
    vault = index.settings.vault_root
    deadline = time.monotonic() + SETTLE_S
    while True:
        states = await asyncio.to_thread(index.store.file_states)
        stale = [
            file
            for file in EDITED
            if file not in states
            or states[file].content_hash != hashlib.sha256((vault / file).read_bytes()).hexdigest()
        ]
        if not stale or time.monotonic() > deadline:
            report.stale_files = stale
            return
        await asyncio.sleep(0.2)


def print_report(report: LoadReport, latency_s: float) -> None:
    """The figures as a table."""
    figures = report.summary()
    table = Table(
        title=f"vault-agent load: {report.clients} clients for {report.seconds:.0f} s, "
        f"watcher re-indexing edits, fake model {latency_s * 1000:.0f} ms/call"
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    for kind in ("search", "ask"):
        k = figures[kind]
        table.add_row(
            f"{kind}: requests (per s) / errors",
            f"{k['requests']} ({k['per_s']}/s) / {k['errors']}",
        )
        table.add_row(
            f"{kind}: p50 / p95 / p99", f"{k['p50_ms']} / {k['p95_ms']} / {k['p99_ms']} ms"
        )
    edits = figures["edits"]
    table.add_row("edits made", str(edits["made"]))
    table.add_row(
        "edit to searchable p50 / p95",
        f"{edits['searchable_p50_ms']} / {edits['searchable_p95_ms']} ms",
    )
    table.add_row("lost updates", str(edits["lost_updates"]))
    table.add_row("sidecar warnings", str(len(report.server_warnings)))
    Console().print(table)
    for sample in figures["error_samples"] + figures["server_warnings"]:
        Console().print(f"  [red]{sample}[/red]")


async def _main(args: argparse.Namespace) -> LoadReport:
    with tempfile.TemporaryDirectory(prefix="vault-agent-load-") as folder:
        root = Path(folder)
        shutil.copytree(args.vault, root / "vault")
        settings = Settings(vault=root / "vault", data_dir=root / "data", config_dir=root)
        index = await asyncio.to_thread(VaultIndex, settings)
        try:
            await asyncio.to_thread(index.indexer.sync)
            return await run_load(
                index,
                settings,
                clients=args.clients,
                duration_s=args.duration,
                ask_share=args.ask_share,
                edit_every_s=args.edit_every,
                latency_s=args.latency_ms / 1000,
            )
        finally:
            await asyncio.to_thread(index.close)


def main() -> None:
    """Parse arguments, run, print, optionally write JSON; non-zero exit on errors or losses."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--ask-share", type=float, default=0.3, help="share of questions")
    parser.add_argument("--edit-every", type=float, default=0.5, help="seconds between edits")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="per fake model call")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    report = asyncio.run(_main(args))
    print_report(report, args.latency_ms / 1000)
    if args.json:
        args.json.write_text(json.dumps(report.summary(), indent=2))
    sys.exit(1 if report.failed or report.lost_updates else 0)


if __name__ == "__main__":
    main()
