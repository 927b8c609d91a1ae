"""ONNX Runtime's own requests: none, once vault_agent is imported.

ONNX Runtime 1.29+ (under fastembed and the multilingual encoder) reports usage to Microsoft
from Linux and macOS; importing vault_agent turns that off (docs/reliability.md, "Bugs found
and fixed"). Apart from test_security_egress.py, whose tests share an event loop, since this
one has none.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Starts ONNX Runtime on a one-node model, after importing vault_agent or not (argv[1]).
_ORT_START = """
import sys
if sys.argv[1] == "vault_agent":
    import vault_agent  # noqa: F401
import onnx
import onnxruntime
from onnx import TensorProto, helper

value = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [value], [out])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
onnxruntime.InferenceSession(model.SerializeToString())
"""


def _ort_traces(home: Path, first: str) -> bool:
    """Whether ONNX Runtime, started in a process with `home` as its home (after importing
    `first`), left its telemetry device id there."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"CI", "GITHUB_ACTIONS", "ORT_DISABLE_TELEMETRY"}
    }
    env |= {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    subprocess.run([sys.executable, "-c", _ORT_START, first], env=env, check=True, timeout=120)
    return (home / ".cache" / "Microsoft").exists()


def test_onnx_runtime_sends_no_telemetry_once_vault_agent_is_imported(tmp_path: Path) -> None:
    # ONNX Runtime 1.29+ reports usage to Microsoft from Linux and macOS, and keeps a device id
    # under ~/.cache/Microsoft for it; a proxy once caught it dialling out mid-test.
    if not _ort_traces(tmp_path / "bare", "onnxruntime"):
        pytest.skip("this ONNX Runtime keeps no telemetry device id: nothing to turn off")
    assert not _ort_traces(tmp_path / "ours", "vault_agent")
