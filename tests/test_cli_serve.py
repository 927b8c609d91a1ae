"""``vault-agent serve`` as a user runs it: a separate process, stopped with SIGTERM."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from server_support import IndexedCopy, copy_indexed
from vault_agent.index.store.edge import EdgeStore

STARTUP_TIMEOUT_S = 90


@dataclass
class Sidecar:
    """A running `vault-agent serve` and what it printed."""

    process: subprocess.Popen[str]
    lines: queue.Queue[str]
    copy: IndexedCopy
    config: Path

    def line(self) -> str:
        """The next line it prints (it prints once it listens)."""
        try:
            return self.lines.get(timeout=STARTUP_TIMEOUT_S)
        except queue.Empty:
            raise AssertionError(f"serve printed nothing within {STARTUP_TIMEOUT_S} s") from None


@pytest.fixture
def sidecar(indexed_example: IndexedCopy, tmp_path: Path) -> Iterator[Sidecar]:
    """`vault-agent serve --port 0` over a private indexed vault."""
    copy = copy_indexed(indexed_example, tmp_path)
    config = tmp_path / "config"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("VAULT_AGENT_")},
        "VAULT_AGENT_DATA_DIR": str(tmp_path / "data"),
        "VAULT_AGENT_CONFIG_DIR": str(config),
        "VAULT_AGENT_STORE__PATH": str(copy.shard),
        "VAULT_AGENT_LLM__PROFILE": "extractive",
    }
    command = [sys.executable, "-m", "vault_agent.cli", "serve", "--vault", str(copy.vault)]
    process = subprocess.Popen(
        [*command, "--port", "0"], env=env, stdout=subprocess.PIPE, text=True
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:  # a thread, so that waiting for a line can time out
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.strip())

    threading.Thread(target=pump, daemon=True).start()
    try:
        yield Sidecar(process, lines, copy, config)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def get(url: str, token: str | None = None) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(url)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_serve_listens_on_loopback_tells_where_the_token_is_and_stops_cleanly(
    sidecar: Sidecar,
) -> None:
    process, copy = sidecar.process, sidecar.copy
    lines = [sidecar.line(), sidecar.line()]
    url = lines[0].rsplit(" ", 1)[1]
    assert url.startswith("http://127.0.0.1:")
    token_file = sidecar.config / "token"
    token = token_file.read_text().strip()
    assert lines[1].startswith(f"Token: in {token_file}")
    assert token not in "\n".join(lines)

    assert get(f"{url}/v1/health")[0] == 200
    assert get(f"{url}/v1/index")[0] == 401
    status, index = get(f"{url}/v1/index", token)
    assert status == 200
    assert index["state"] in ("syncing", "watching", "idle")

    listening = [
        c.laddr
        for c in psutil.Process(process.pid).net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN
    ]
    assert listening
    assert {address.ip for address in listening} == {"127.0.0.1"}

    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    with EdgeStore(copy.shard) as store:  # the index lock was released on the way out
        assert store.count() > 0
