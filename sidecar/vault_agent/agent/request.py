"""One question, with what the editor knows: the body of `POST /v1/ask` and of `vault-agent ask`.

The API stays stateless: earlier turns of the conversation come with each question.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from vault_agent.agent.prompts import DEFAULT_CONTEXT_BUDGET, ActiveNote, NeighbourNote
from vault_agent.choices import LlmProfile

#: Earlier turns sent to a model (the newest ones).
HISTORY_TURNS = 10


class HistoryTurn(BaseModel):
    """An earlier turn of the conversation."""

    role: Literal["user", "assistant"]
    content: str = Field(max_length=200_000)


class AgentRequest(BaseModel):
    """One question, with what the editor knows (the body of ``POST /v1/ask``)."""

    question: str = Field(min_length=1, max_length=8_000)
    active_note: ActiveNote | None = None
    neighbourhood: list[NeighbourNote] = Field(default_factory=list, max_length=200)
    selection: str | None = Field(default=None, max_length=200_000)
    history: list[HistoryTurn] = Field(default_factory=list, max_length=200)
    profile: LlmProfile | None = Field(
        default=None, description="Overrides llm.profile for this question."
    )
    context_budget: int = Field(
        default=DEFAULT_CONTEXT_BUDGET,
        ge=0,
        le=100_000,
        description="Characters of active note, selection and neighbourhood sent as context.",
    )
