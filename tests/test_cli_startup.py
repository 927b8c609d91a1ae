"""The CLI starts fast: `--help` loads no index, server, agent or model stack, and a search
loads none of what it doesn't use (measured by bench/cli.py; these keep it so)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bench.cli import MEASURES, summarize

from vault_agent.index.embed.minilm import MiniLmEmbedder

#: Never imported by `--help`: the index, the server, the agent, the models and their stacks.
#: (typer itself loads pydantic's package and, to render help, markdown-it.)
HELP_NEVER = (
    "vault_agent.index",
    "vault_agent.server",
    "vault_agent.agent",
    "vault_agent.llm",
    "vault_agent.config",
    "onnxruntime",
    "numpy",
    "qdrant_edge",
    "qdrant_client",
    "aiohttp",
    "pydantic_settings",
    "tokenizers",
    "yaml",
    "httpx",
)
#: Never imported by a search of an indexed, unchanged vault: what only other commands, other
#: profiles, PDFs or changed notes need.
SEARCH_NEVER = (
    "vault_agent.server",
    "vault_agent.llm",
    "aiohttp",
    "mistralai",
    "ollama",
    "httpx",
    "fastembed",
    "huggingface_hub",
    "onnx",
    "onnxruntime.quantization",
    "pypdfium2",
    "markdown_it",
    "yaml",
    "watchfiles",
    "vault_agent.index.documents",  # other sources' stack: made on first use
)
#: Not imported by the modules a command loads before it opens the index
#: (`cli/common.py`, `cli/printing.py`): `open_index` starts loading the embedding model
#: first, so that it loads while these import and the store opens.
BEFORE_THE_MODEL = (
    "vault_agent.index.vault_index",
    "vault_agent.index.sync",
    "vault_agent.index.search",
    "vault_agent.index.store.edge",
    "qdrant_edge",
    "vault_agent.index.embed.bm25",
    "py3langid",
)


def imported(args: list[str], env: dict[str, str] | None = None) -> set[str]:
    """The modules `python -m vault_agent.cli ARGS` imports (from `-X importtime`)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "vault_agent.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(re.findall(r"^import time:.*\|\s*(\S+)\s*$", done.stderr, re.MULTILINE))


def loaded(modules: set[str], packages: tuple[str, ...]) -> set[str]:
    return {m for m in modules if any(m == p or m.startswith(f"{p}.") for p in packages)}


@pytest.mark.parametrize(
    "args", [["--help"], ["search", "--help"], ["ask", "--help"], ["sources", "add", "--help"]]
)
def test_help_loads_only_the_command_line(args: list[str]) -> None:
    modules = imported(args)
    assert "typer" in modules  # the parse worked: importtime saw the imports
    assert loaded(modules, HELP_NEVER) == set()


def test_a_search_loads_nothing_it_does_not_use(tmp_path: Path, embedder: MiniLmEmbedder) -> None:
    # `embedder` has derived the int8 model already: deriving it (once per machine) is the
    # one time onnx and its quantiser are imported.
    vault = tmp_path / "vault"
    vault.mkdir()
    for day in range(6):  # enough notes for their language to be decided once, at `index`
        text = f"# Day {day}\n\nFed the sourdough starter at seven, then baked two loaves.\n"
        (vault / f"day {day}.md").write_text(text, encoding="utf-8")
    env = dict(os.environ, VAULT_AGENT_DATA_DIR=str(tmp_path / "data"))
    imported(["index", "--vault", str(vault)], env)
    modules = imported(["search", "starter", "--vault", str(vault)], env)
    assert "vault_agent.index.vault_index" in modules
    assert loaded(modules, SEARCH_NEVER) == set()


def test_a_command_starts_the_model_before_importing_the_index_stack() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-c",
            "import vault_agent.cli.common, vault_agent.cli.printing",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    modules = set(re.findall(r"^import time:.*\|\s*(\S+)\s*$", done.stderr, re.MULTILINE))
    assert "vault_agent.config" in modules  # the import ran: importtime saw it
    assert loaded(modules, BEFORE_THE_MODEL) == set()


def test_the_benchmark_judges_medians_against_the_baseline() -> None:
    walls = {
        "baseline": [0.30, 0.20, 0.25],
        "help": [0.40, 0.35, 0.90],  # median 0.40: x1.6, over 1.5
        "search": [0.90, 1.00, 0.95],  # median 0.95: x3.8, within 4
        "ask": [2.0, 2.0, 2.0],
    }
    summary = summarize({name: [(w, w / 2) for w in runs] for name, runs in walls.items()})
    assert summary["baseline"]["ratio"] == 1.0
    assert summary["help"]["ratio"] == pytest.approx(1.6)
    assert summary["help"]["met"] is False
    assert summary["search"]["met"] is True
    assert summary["ask"]["met"] is None  # no target: shown, not judged
    assert summary["search"]["cpu_s"] == pytest.approx(0.475)
    assert MEASURES[0].name == "baseline"


COLLECTOR = """
import gc
from vault_agent.cli.collector import freeze_at_exit, startup_done
usual = gc.get_threshold()[0]
startup_done()
before = gc.get_freeze_count()
freeze_at_exit()
loading = gc.get_threshold()[0]
startup_done()
print(before, gc.get_freeze_count(), usual, loading, gc.get_threshold()[0])
"""


def test_only_the_console_script_freezes_its_objects() -> None:
    # A process that merely imports the CLI (like this one) keeps collecting everything; the
    # console script's process collects seldom while its command loads, then freezes what it
    # loaded and collects as usual again (cli/collector.py).
    done = subprocess.run(
        [sys.executable, "-c", COLLECTOR], capture_output=True, text=True, check=True
    )
    before, after, usual, loading, then = map(int, done.stdout.split())
    assert before == 0 and after > 1000
    assert loading > 100 * usual and then == usual


LEAVING = """
import atexit, sys, tempfile, threading, time
from pathlib import Path
from vault_agent.cli.fast_exit import leave
folder = tempfile.TemporaryDirectory()  # removed by its finalizer at exit
Path(sys.argv[1]).write_text(folder.name)
atexit.register(lambda: print("exit hook ran"))
if sys.argv[2] == "thread":
    def late() -> None:
        time.sleep(0.3)
        Path(folder.name, "written").write_text("late")
        Path(sys.argv[1] + ".thread").write_text("done")
    threading.Thread(target=late).start()
print("a line still in the buffer")
leave(int(sys.argv[3]) if sys.argv[3].isdigit() else sys.argv[3])
"""


@pytest.mark.parametrize(
    ("thread", "code", "status"),
    [("none", "0", 0), ("none", "3", 3), ("none", "bad vault", 1), ("thread", "0", 0)],
)
def test_a_command_ends_with_its_status_its_output_and_its_exit_hooks(
    tmp_path: Path, thread: str, code: str, status: int
) -> None:
    # cli/fast_exit.py skips the interpreter's teardown, not what exiting promises: buffered
    # output written, atexit hooks and finalizers run, a still-working thread waited for.
    memo = tmp_path / "folder"
    done = subprocess.run(
        [sys.executable, "-c", LEAVING, str(memo), thread, code],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == status, done.stderr
    assert done.stdout.splitlines() == ["a line still in the buffer", "exit hook ran"]
    assert not Path(memo.read_text()).exists()  # the temporary folder was cleaned up
    assert (Path(f"{memo}.thread").exists()) == (thread == "thread")
    if not code.isdigit():
        assert done.stderr.strip() == code


def test_the_console_script_keeps_the_exit_status_of_its_command(tmp_path: Path) -> None:
    env = dict(os.environ, VAULT_AGENT_DATA_DIR=str(tmp_path / "data"))
    usage = subprocess.run(
        [sys.executable, "-m", "vault_agent.cli", "search"], capture_output=True, env=env
    )
    assert usage.returncode == 2 and b"Missing argument" in usage.stderr
    missing = tmp_path / "no such vault"
    failed = subprocess.run(
        [sys.executable, "-m", "vault_agent.cli", "search", "x", "--vault", str(missing)],
        capture_output=True,
        env=env,
    )
    assert failed.returncode == 1 and b"error" in failed.stderr
