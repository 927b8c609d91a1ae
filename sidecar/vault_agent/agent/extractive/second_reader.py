"""A second model's reading of how close a sentence comes to the question.

MiniLM was trained to tell which sentences say the same thing; a question and the sentence
that answers it often don't. The multilingual Universal Sentence Encoder, which the vault
already ships for other languages, was trained on question-answer pairs too, and errs
elsewhere: alone it ranks answers worse than MiniLM, together they rank them better (the
evidence sentence among an answer's first two: 184 -> 192 of 304 on the answer sets, at
`WEIGHT` 0.2 or 0.3; 0.4 and 0.5, 191 and 188). Its cosine is mapped onto MiniLM's scale, so
the answer's floors keep their meaning.

It loads on a process's first answer (about 0.75 s; loading it on a thread during the search
gained nothing, the load holds the interpreter): a cold `vault-agent ask` takes 1.5 s instead of
1.0 s, a running sidecar pays it once.

Only vaults MiniLM reads get a second reader: for the others USE is the first one already, or
a served model nobody measured it beside.
"""

from __future__ import annotations

import logging
import threading

from vault_agent.index.embed.minilm import MODEL_NAMES as MINILM_NAMES
from vault_agent.index.embed.minilm import Embedder

log = logging.getLogger(__name__)

#: The second reader's share of a sentence's closeness to the question.
WEIGHT = 0.3
#: USE's cosine as MiniLM's: the same mean and spread over the 10,000 units the answer sets
#: scored (MiniLM 0.425 +- 0.187, USE 0.309 +- 0.158).
SCALE = 1.18
SHIFT = 0.06

_lock = threading.Lock()
#: The second reader once loaded, or None once it failed to load (not tried again).
_reader: list[Embedder | None] = []


def second_reader(first: Embedder) -> Embedder | None:
    """The model that reads sentences beside `first`, loaded once per process; None when
    `first` is not MiniLM, or when the second model can't be loaded (answers are then scored
    by the first alone, as before there was a second)."""
    if first.model_name not in MINILM_NAMES.values():
        return None
    with _lock:  # two first questions at once load it once
        if not _reader:
            _reader.append(_load())
        return _reader[0]


def _load() -> Embedder | None:
    try:
        from vault_agent.index.embed.use import UseEmbedder  # loads only when needed

        reader = UseEmbedder()
        reader.load()
    except (ImportError, OSError, ValueError) as error:
        log.warning("answers are scored by one model: the second could not load (%s)", error)
        return None
    return reader


def blended(first: float, second: float) -> float:
    """One closeness from the first reader's cosine and the second's (on its own scale)."""
    return (1 - WEIGHT) * first + WEIGHT * (SCALE * second + SHIFT)
