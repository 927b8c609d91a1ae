"""CLI start-up benchmark: `vault-agent --help`, a cold `search` and a cold `ask`, beside the
time Python takes to import onnxruntime and numpy.

    uv run python -m bench.cli [--vault PATH] [--runs 5] [--no-bytecode] [--json out.json]

Every timing is a new process (`subprocess`), wall clock from start to exit; the table shows
the median of `--runs`, and the CPU time the process used (its threads included), which a busy
machine changes less than the wall clock. The commands take turns run after run, so a busy
machine slows them all alike, and the targets are ratios against the baseline measured in the
same run. "Cold" means no sidecar is running: each command starts Python, opens the index,
syncs it (nothing changed) and answers. The vault is indexed once beforehand into a temporary
data dir, and each command runs once unmeasured: that writes Python's bytecode (into a
temporary cache, so the measure does not depend on whether the environment writes
`__pycache__`) and the model caches, as any start after the first finds them. `--no-bytecode`
measures with no bytecode cache at all (PYTHONDONTWRITEBYTECODE=1), every command and the
baseline alike.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

REPO = Path(__file__).resolve().parents[1]
DEFAULT_VAULT = REPO / "examples" / "vault"
QUERY = "sourdough starter"
QUESTION = "When did I last feed the sourdough starter?"  # the question of `make demo`
BASELINE = "baseline"


@dataclass(frozen=True)
class Measure:
    """One command line the table has a row for, with its target (a multiple of the
    baseline's median; None: shown, not judged)."""

    name: str
    label: str
    target: float | None


MEASURES = (
    Measure(BASELINE, 'python -c "import onnxruntime, numpy"', None),
    Measure("help", "vault-agent --help", 1.5),
    Measure("search", "vault-agent search (cold)", 4.0),
    Measure("ask", "vault-agent ask --profile extractive (cold)", None),
)


def cli() -> list[str]:
    """`vault-agent`: the console script beside this Python, as a user runs it."""
    script = Path(sys.executable).with_name("vault-agent")
    return [str(script)] if script.exists() else [sys.executable, "-m", "vault_agent.cli"]


def commands(vault: Path) -> dict[str, list[str]]:
    """The command line of each measure."""
    where = ["--vault", str(vault)]
    return {
        BASELINE: [sys.executable, "-c", "import onnxruntime, numpy"],
        "help": [*cli(), "--help"],
        "search": [*cli(), "search", QUERY, *where],
        "ask": [*cli(), "ask", QUESTION, *where, "--profile", "extractive"],
    }


def environment(work: Path, bytecode: bool) -> dict[str, str]:
    """The environment every command runs in: a private data dir, no language model."""
    ours = ("VAULT_AGENT_", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
    env = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
    env.pop("MISTRAL_API_KEY", None)
    env |= {
        "VAULT_AGENT_DATA_DIR": str(work / "data"),
        "VAULT_AGENT_CONFIG_DIR": str(work / "config"),
        "COLUMNS": "100",
    }
    if bytecode:
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def timed_run(command: Sequence[str], env: Mapping[str, str]) -> tuple[float, float]:
    """Seconds one run of `command` takes, start to exit, and the CPU seconds it used (user
    and system, its threads included); a failure stops the benchmark."""
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr.decode(errors='replace')}")
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    return seconds, cpu


Timings = dict[str, list[tuple[float, float]]]
"""Per measure, each run's (wall seconds, CPU seconds)."""


def measure(lines: Mapping[str, Sequence[str]], env: Mapping[str, str], runs: int) -> Timings:
    """`runs` timings of every command line, taking turns (after one unmeasured run each)."""
    for command in lines.values():
        timed_run(command, env)
    timings: Timings = {name: [] for name in lines}
    for _ in range(runs):
        for name, command in lines.items():
            timings[name].append(timed_run(command, env))
    return timings


def summarize(timings: Timings) -> dict[str, dict[str, float | bool | None]]:
    """Per measure: the median wall time, its multiple of the baseline's, whether it meets
    its target (None when it has none), and the median CPU time."""
    baseline = statistics.median(wall for wall, _ in timings[BASELINE])
    summary: dict[str, dict[str, float | bool | None]] = {}
    for item in MEASURES:
        if item.name not in timings:
            continue
        median = statistics.median(wall for wall, _ in timings[item.name])
        ratio = median / baseline
        met = None if item.target is None else ratio <= item.target
        cpu = statistics.median(cpu for _, cpu in timings[item.name])
        summary[item.name] = {"median_s": median, "ratio": ratio, "met": met, "cpu_s": cpu}
    return summary


def run(vault: Path, runs: int, bytecode: bool = True) -> dict[str, dict[str, float | bool | None]]:
    """Index `vault` into a temporary data dir, then time every measure."""
    with tempfile.TemporaryDirectory(prefix="vault-agent-bench-cli-") as work:
        env = environment(Path(work), bytecode)
        timed_run([*cli(), "index", "--vault", str(vault)], env)
        return summarize(measure(commands(vault), env, runs))


def print_table(summary: Mapping[str, Mapping[str, float | bool | None]], runs: int) -> None:
    """The medians beside the baseline, with the targets."""
    table = Table(title=f"vault-agent CLI start-up (median of {runs} runs, each a new process)")
    table.add_column("command")
    table.add_column("median", justify="right")
    table.add_column("x baseline", justify="right")
    table.add_column("target")
    table.add_column("CPU", justify="right")
    for item in MEASURES:
        row = summary.get(item.name)
        if row is None:
            continue
        target = "" if item.target is None else f"<= {item.target:g}x"
        if row["met"] is not None:
            target += " met" if row["met"] else " MISSED"
        cpu = f"{row['cpu_s']:.2f} s"
        table.add_row(item.label, f"{row['median_s']:.2f} s", f"x{row['ratio']:.2f}", target, cpu)
    Console().print(table)


def main() -> None:
    """Parse arguments, run, print, optionally write JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-bytecode", action="store_true", help="run without any bytecode cache")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    summary = run(args.vault.resolve(), args.runs, bytecode=not args.no_bytecode)
    print_table(summary, args.runs)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
