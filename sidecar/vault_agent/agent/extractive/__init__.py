"""Answers without a language model (the `extractive` profile): sentences quoted from the notes.

`ExtractiveAnswerer` is what the agent loop runs instead of a `ChatModel` when no model is set
up (`agent/loop.py`): `plan.py` decides what to search, `units.py` cuts passages into quotable
units, `scoring.py` scores them against the question, `answerer.py` picks the ones that answer
and `compose.py` writes the answer. The answer goes through the same citation check and reaches
clients as the same events as a model's.
"""

from __future__ import annotations

from vault_agent.agent.extractive.answerer import Answer, answer
from vault_agent.agent.extractive.compose import (
    DISCLAIMER,
    NOT_COVERED,
    NOTHING,
    SEARCH_FAILED,
    UNSURE,
)
from vault_agent.agent.extractive.plan import SearchPlan, plan
from vault_agent.index.embed.minilm import Embedder


class ExtractiveAnswerer:
    """The extractive profile, as the loop and the callers that pick a model see it."""

    name = "extractive"
    model = "sentences from your notes"

    def __init__(self, embedder: Embedder | None = None) -> None:
        # The searcher brings its own embedder; this one is accepted for the callers' sake.
        self.embedder = embedder

    async def aclose(self) -> None:
        """Nothing to release."""


__all__ = [
    "DISCLAIMER",
    "NOTHING",
    "NOT_COVERED",
    "SEARCH_FAILED",
    "UNSURE",
    "Answer",
    "ExtractiveAnswerer",
    "SearchPlan",
    "answer",
    "plan",
]
