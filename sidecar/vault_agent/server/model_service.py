"""Which chat model answers a question: the one chosen at start-up, or one per request.

The default model is selected once (``llm.profile``, with ``auto`` probing what is available)
and shared by every question; its HTTP client is closed at shutdown. A request naming another
``profile`` gets a model of its own for that question, closed when the answer ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable

from vault_agent.agent.extractive import ExtractiveAnswerer
from vault_agent.choices import LlmProfile
from vault_agent.config import LlmSettings
from vault_agent.llm.errors import (
    ModelError,
)
from vault_agent.llm.model import (
    ChatModel,
)
from vault_agent.llm.registry import select_model


class ModelService:
    """Hands out chat models; owns the default one unless it was given one."""

    def __init__(
        self,
        settings: LlmSettings,
        extractive_factory: Callable[[], ExtractiveAnswerer],
        model: ChatModel | ExtractiveAnswerer | None = None,
    ) -> None:
        self.settings = settings
        self.reason = "model given by the caller" if model is not None else ""
        self.error: str | None = None
        self._extractive = extractive_factory
        self._default = model
        self._owned = model is None

    async def start(self) -> None:
        """Select the default model; a failure is kept and reported with each question."""
        if self._default is not None:
            return
        try:
            self._default, self.reason = await select_model(self.settings, self._extractive)
        except ModelError as error:
            self.error = str(error)

    async def close(self) -> None:
        """Close the default model's connections (if this service selected it)."""
        model, self._default = self._default, None
        if model is not None and self._owned:
            await model.aclose()

    @contextlib.asynccontextmanager
    async def model_for(
        self, profile: LlmProfile | None
    ) -> AsyncIterator[ChatModel | ExtractiveAnswerer]:
        """The model for one question. Raises `ModelError` when it can't be had."""
        if profile is None or profile == self.settings.profile:
            if self._default is None:
                raise ModelError(self.error or "no chat model is available")
            yield self._default
            return
        model, _ = await select_model(
            self.settings.model_copy(update={"profile": profile}), self._extractive
        )
        try:
            yield model
        finally:
            await model.aclose()
