"""py3langid's model, unpacked once into the user cache dir and memory-mapped from there.

py3langid ships its model as LZMA-compressed arrays (4.5 MB); unpacking them (68 MB) takes
0.3-0.5 s, and every search names its query's language, so every cold `vault-agent search`
paid it. The unpacked arrays are kept as plain `.npy` files (no pickle) in a folder named after
the shipped file's hash (computed once per installed copy: `digest.py`), and mapped into
memory: opening them takes about 2 ms, and only the pages a text's walk touches are ever read.
An upgraded py3langid unpacks its own model again. The cache is only a copy: when it can't be
written or read, the model is unpacked as py3langid does it.

The big transition table stays a memory map rather than py3langid's stdlib array: a walk step
then costs about 2 us instead of 0.5 (a 2,000-character note in 2 ms, a query in microseconds);
tests/test_language.py checks the answers are py3langid's own.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from py3langid.langid import (  # type: ignore[import-untyped]
    MODEL_DIR,
    MODEL_FILE,
    LanguageIdentifier,
)
from py3langid.modelio import load_model  # type: ignore[import-untyped]

from vault_agent.index.embed.digest import file_digest
from vault_agent.private_files import private_dir

log = logging.getLogger(__name__)

#: Bump when the cached layout changes: the folder name includes it.
LAYOUT = "langid-npy-v1"
#: The arrays of py3langid's model, in the order its `load_model` returns them.
_ARRAYS = ("ptc", "pc", "classes", "nextmove", "nextmove_row", "out_feat")


def load_identifier(cache_dir: Path) -> LanguageIdentifier:
    """py3langid's identifier over all its languages (probabilities normalised), mapped from
    the unpacked copy in `cache_dir`, which is made first when missing."""
    source = Path(MODEL_DIR) / MODEL_FILE
    folder = cache_dir / f"langid-{file_digest(source, LAYOUT, cache_dir)[:16]}"
    try:
        return _mapped(folder)
    except (OSError, ValueError):
        # Not made yet, or damaged (then it is made again): unpack, keep a copy, map that.
        shutil.rmtree(folder, ignore_errors=True)
    model = load_model(source)
    try:
        _write(folder, model)
        return _mapped(folder)
    except (OSError, ValueError) as error:  # the next start unpacks it again: nothing is lost
        log.warning("could not keep the language model's arrays in %s: %s", cache_dir, error)
    ptc, pc, classes, nextmove, row, output = model
    return LanguageIdentifier(ptc, pc, classes, nextmove, output, norm_probs=True, tk_row=row)


def _mapped(folder: Path) -> LanguageIdentifier:
    arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r") for name in _ARRAYS}
    identifier = LanguageIdentifier(
        arrays["ptc"],
        np.asarray(arrays["pc"]),
        arrays["classes"].tolist(),
        arrays["nextmove"],
        arrays["out_feat"],
        norm_probs=True,
        tk_row=[],
    )
    # py3langid turns the 104,583 row numbers into Python ints shifted left by 8 bits, in a
    # Python loop (18 ms of every cold search, with the outputs' list); numpy shifts them in
    # one step, and the walk reads arrays as fast as lists (it already reads the mapped table).
    identifier.tk_row = arrays["nextmove_row"]
    identifier._rowbase = np.asarray(arrays["nextmove_row"], dtype=np.int64) << 8
    return identifier


def _write(folder: Path, model: tuple[Any, ...]) -> None:
    """Keep `model`'s arrays in `folder`, made whole beside it and then renamed, so no process
    ever maps a half-written copy."""
    private_dir(folder.parent)
    temporary = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".langid-"))
    try:
        for name, values in zip(_ARRAYS, model, strict=True):
            np.save(temporary / f"{name}.npy", np.asarray(values), allow_pickle=False)
        try:
            temporary.rename(folder)
        except OSError:
            if not folder.is_dir():  # else another process made it meanwhile: that one is used
                raise
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
