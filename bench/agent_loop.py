"""Agent loop benchmark: the loop's own time per turn, everything but the model.

    uv run python -m bench.agent_loop      # [--vault PATH] [--repeats N] [--provider KIND]

A fake provider (tests/fake_llm.py, the real client library over HTTP on 127.0.0.1) replays
scripted turns with no delay, so what remains of each run once model time is taken out is the
loop itself: building the context, running the tools (search embeds the query), the citation
check, the events. Model time is measured around each model call by the loop (``model_ms`` in
``done.timings``); overhead per turn = (total - model) / model calls. Target: < 50 ms per turn.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.common import percentile
from vault_agent.agent.events import DoneEvent
from vault_agent.agent.extractive import ExtractiveModel
from vault_agent.agent.loop import AgentRequest, run_agent
from vault_agent.agent.reader import ToolsContext
from vault_agent.config import LlmSettings, Settings
from vault_agent.index.vault_index import VaultIndex

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the fake providers live with the tests

from fake_llm import FakeTurn, Kind, fake_provider, model_for  # noqa: E402

DEFAULT_VAULT = REPO / "examples" / "vault"
TARGET_MS = 50.0
STARTER = "Recipes/Sourdough Starter"
ANSWER = (
    f"Gus is fed once a day [[{STARTER}#Feeding schedule]], last on 11 November "
    "[[Daily/2026-11-11]]. Also [[Recipes/Chocolate Cake]].\n\nSources:\n"
    f"- [[{STARTER}#Feeding schedule]]\n- [[Daily/2026-11-11]]"
)


@dataclass(frozen=True)
class Scenario:
    """A question and the model turns the fake replays for it."""

    name: str
    question: str
    script: Callable[[], list[FakeTurn]]
    active_note: str | None = None


SCENARIOS = [
    Scenario(
        "search, answer",
        "How often do I feed my starter?",
        lambda: [
            FakeTurn.tool_calls([("search_notes", {"query": "feeding the sourdough starter"})]),
            FakeTurn.text(ANSWER),
        ],
    ),
    Scenario(
        "3 parallel calls",
        "When did I last feed Gus?",
        lambda: [
            FakeTurn.tool_calls(
                [
                    ("search_notes", {"query": "fed the starter"}),
                    ("get_note", {"path": STARTER}),
                    ("recent_daily_notes", {"days": 14}),
                ]
            ),
            FakeTurn.text(ANSWER),
        ],
    ),
    Scenario(
        "open note, 3 tool turns",
        "What do my notes link to from here?",
        lambda: [
            FakeTurn.tool_calls([("note_links", {"path": STARTER})]),
            FakeTurn.tool_calls([("list_notes", {"type": "recipe"})]),
            FakeTurn.tool_calls([("search_notes", {"query": "starter", "type": "recipe"})]),
            FakeTurn.text(ANSWER),
        ],
        active_note=f"{STARTER}.md",
    ),
]


@dataclass
class Measured:
    """Per-run numbers of one scenario."""

    per_turn_ms: list[float]
    tools_ms: list[float]
    check_ms: list[float]
    model_ms: list[float]
    turns: int


async def measure(index: VaultIndex, scenario: Scenario, kind: Kind, repeats: int) -> Measured:
    """Run ``scenario`` ``repeats`` times (plus one warm-up) against a fresh fake each time."""
    context = ToolsContext.from_index(index)
    settings = index.settings.model_copy(update={"llm": LlmSettings()})
    request = _request(index, scenario)
    out = Measured([], [], [], [], 0)
    for attempt in range(repeats + 1):
        async with fake_provider(kind, scenario.script()) as (url, _):
            model = model_for(kind, url)
            done = await _done(request, model, context, settings)
            await model.aclose()
        if attempt == 0:
            continue  # warm-up: connection pools, lazy imports
        _record(out, done)
    return out


async def measure_extractive(index: VaultIndex, question: str, repeats: int) -> Measured:
    """The extractive profile: its "model" time is composing the answer from passages."""
    context = ToolsContext.from_index(index)
    settings = index.settings.model_copy(update={"llm": LlmSettings()})
    model = ExtractiveModel(index.embedder)
    out = Measured([], [], [], [], 0)
    for attempt in range(repeats + 1):
        done = await _done(AgentRequest(question=question), model, context, settings)
        if attempt:
            _record(out, done)
    return out


async def _done(
    request: AgentRequest, model: object, context: ToolsContext, settings: Settings
) -> DoneEvent:
    last = None
    async for event in run_agent(request, model, context, settings):  # type: ignore[arg-type]
        last = event
    if not isinstance(last, DoneEvent):
        raise RuntimeError(f"run ended with {last!r}")
    return last


def _record(out: Measured, done: DoneEvent) -> None:
    t = done.timings
    out.per_turn_ms.append(t.overhead_ms / done.turns)
    out.tools_ms.append(t.tools_ms)
    out.check_ms.append(t.check_ms)
    out.model_ms.append(t.model_ms)
    out.turns = done.turns


def _request(index: VaultIndex, scenario: Scenario) -> AgentRequest:
    if scenario.active_note is None:
        return AgentRequest(question=scenario.question)
    path = scenario.active_note
    content = (index.settings.vault_root / path).read_text(encoding="utf-8")
    neighbours = [
        {"path": f, "relation": "link", "depth": 1} for f in index.graph.outgoing(path)
    ] + [{"path": f, "relation": "backlink", "depth": 1} for f in index.graph.backlinks(path)]
    return AgentRequest.model_validate(
        {
            "question": scenario.question,
            "active_note": {"path": path, "content": content},
            "neighbourhood": neighbours,
        }
    )


def run(vault: Path, repeats: int, kinds: list[Kind]) -> dict[str, dict[str, float]]:
    """Index a copy of ``vault``, then measure every scenario with every provider."""
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="vault-agent-bench-") as tmp:
        shutil.copytree(vault, Path(tmp) / "vault")
        settings = Settings(vault=Path(tmp) / "vault", data_dir=Path(tmp) / "data")
        with VaultIndex(settings) as index:
            index.indexer.sync()
            for kind in kinds:
                for scenario in SCENARIOS:
                    measured = asyncio.run(measure(index, scenario, kind, repeats))
                    results[f"{kind}|{scenario.name}"] = _summary(measured)
            extractive = asyncio.run(
                measure_extractive(index, "When did I last feed the sourdough starter?", repeats)
            )
            results["extractive|search, compose"] = _summary(extractive)
    return results


def _summary(measured: Measured) -> dict[str, float]:
    return {
        "turns": measured.turns,
        "per_turn_p50_ms": statistics.median(measured.per_turn_ms),
        "per_turn_p95_ms": percentile(measured.per_turn_ms, 0.95),
        "tools_p50_ms": statistics.median(measured.tools_ms),
        "check_p50_ms": statistics.median(measured.check_ms),
        "model_p50_ms": statistics.median(measured.model_ms),
    }


def print_table(vault: Path, results: dict[str, dict[str, float]]) -> None:
    """One row per scenario; the per-turn overhead is the number with a target."""
    table = Table(title=f"vault-agent loop overhead: {vault.name} (model time excluded)")
    table.add_column("profile")
    table.add_column("scenario")
    for column in ("turns", "overhead/turn p50", "p95", "tools p50", "check p50", "model p50"):
        table.add_column(column, justify="right")
    table.add_column(f"p95 < {TARGET_MS:.0f} ms")
    for name, r in results.items():
        profile, scenario = name.split("|")
        table.add_row(
            profile,
            scenario,
            f"{r['turns']:.0f}",
            f"{r['per_turn_p50_ms']:.1f} ms",
            f"{r['per_turn_p95_ms']:.1f} ms",
            f"{r['tools_p50_ms']:.1f} ms",
            f"{r['check_p50_ms']:.2f} ms",
            f"{r['model_p50_ms']:.1f} ms",
            "yes" if r["per_turn_p95_ms"] < TARGET_MS else "NO",
        )
    console = Console()
    if not console.is_terminal:
        console = Console(width=120)  # a pipe or a log: don't squeeze the table into 80 columns
    console.print(table)
    console.print(
        "overhead/turn = (total - model time) / model calls: context, tools (search embeds the "
        "query), citation check, events. Model p50 is the fake's zero-delay HTTP round trips "
        "(for extractive: composing the answer), excluded."
    )


def main() -> None:
    """Parse arguments, run, print, optionally write JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument(
        "--provider",
        action="append",
        choices=["mistral", "ollama", "openai"],
        help="fake provider(s) to drive the loop with (default: all three)",
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    kinds: list[Kind] = args.provider or ["mistral", "ollama", "openai"]
    results = run(args.vault, args.repeats, kinds)
    print_table(args.vault, results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
