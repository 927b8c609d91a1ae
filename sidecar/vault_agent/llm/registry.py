"""The model providers, in one table (profile -> factory), and how ``llm.profile`` picks one.

``auto`` prefers Mistral when ``MISTRAL_API_KEY`` is set, then a running Ollama that has the
model pulled, then the extractive fallback (no language model: search results, cited). An
explicit profile is taken as asked; its errors surface on the first question, with a hint.
``llm.model`` and ``llm.base_url`` apply to whichever profile is used. The extractive answerer
is not a provider of this layer (it needs the search index): callers pass its factory in.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TypeVar

from vault_agent.config import LlmSettings
from vault_agent.llm.environment import MISTRAL_KEY_ENV
from vault_agent.llm.model import (
    ChatModel,
)
from vault_agent.local_http import direct_if_local, shown_url

PROBE_TIMEOUT_S = 1.0
#: What answers when no model does (the agent's extractive answerer).
F = TypeVar("F")

# Each provider's module is imported when its profile is used: the Mistral SDK alone takes
# 0.2-0.3 s to import, which `vault-agent ask --profile extractive` (or ollama) never needs;
# nor does it need httpx, which only `auto` uses here, to probe Ollama.


def _mistral(settings: LlmSettings) -> tuple[ChatModel, str]:
    from vault_agent.llm.mistral import MistralModel

    model = MistralModel.from_settings(settings)
    return model, f"Mistral ({model.model})"


def _ollama(settings: LlmSettings) -> tuple[ChatModel, str]:
    from vault_agent.llm.ollama import OllamaModel

    model = OllamaModel.from_settings(settings)
    return model, f"Ollama ({model.model}) at {model.host}"


def _openai(settings: LlmSettings) -> tuple[ChatModel, str]:
    from vault_agent.llm.openai_compat import OpenAICompatModel

    model = OpenAICompatModel.from_settings(settings)
    return model, f"the OpenAI-compatible server at {model.base_url} ({model.model})"


#: Profile -> builds its model from the settings, and names it for the user ("Mistral
#: (mistral-small-latest)").
PROVIDERS: dict[str, Callable[[LlmSettings], tuple[ChatModel, str]]] = {
    "mistral": _mistral,
    "ollama": _ollama,
    "openai": _openai,
}


async def select_model(
    settings: LlmSettings, extractive_factory: Callable[[], F]
) -> tuple[ChatModel | F, str]:
    """The model for ``settings.profile`` and a sentence for the user saying why it was chosen.

    ``extractive_factory`` builds the extractive answerer (it needs the search index, which this
    module does not know about; it is no `ChatModel`). Raises
    :class:`~vault_agent.llm.errors.ModelError` when the ``mistral`` profile is asked for
    without an API key.
    """
    profile = settings.profile
    if profile in PROVIDERS:
        model, name = PROVIDERS[profile](settings)
        return model, f"Using {name}: llm.profile is {profile}."
    if profile == "extractive":
        return extractive_factory(), (
            "Using extractive answers (no language model): llm.profile is extractive."
        )
    return await _auto(settings, extractive_factory)


async def _auto(
    settings: LlmSettings, extractive_factory: Callable[[], F]
) -> tuple[ChatModel | F, str]:
    if os.environ.get(MISTRAL_KEY_ENV):
        model, name = _mistral(settings)
        return model, f"Using {name} because {MISTRAL_KEY_ENV} is set."
    from vault_agent.llm.ollama import DEFAULT_MODEL as OLLAMA_DEFAULT_MODEL
    from vault_agent.llm.ollama import OllamaModel, resolve_host

    host = resolve_host(settings.base_url)
    wanted = settings.model or OLLAMA_DEFAULT_MODEL
    pulled = await ollama_models(host)
    if pulled is None:
        why = f"no {MISTRAL_KEY_ENV} is set and Ollama at {shown_url(host)} is not reachable"
    elif not _has_model(pulled, wanted):
        why = (
            f"no {MISTRAL_KEY_ENV} is set and Ollama at {shown_url(host)} has no model '{wanted}' "
            f"(run `ollama pull {wanted}`)"
        )
    else:
        ollama = OllamaModel.from_settings(settings.model_copy(update={"base_url": host}))
        return ollama, (
            f"Using Ollama ({ollama.model}) at {shown_url(host)} because no {MISTRAL_KEY_ENV} is "
            "set and Ollama answered."
        )
    return extractive_factory(), f"Using extractive answers (no language model): {why}."


async def ollama_models(host: str, timeout_s: float = PROBE_TIMEOUT_S) -> list[str] | None:
    """Names of the models pulled into the Ollama at ``host``, or None if it doesn't answer."""
    import httpx  # 0.05-0.1 s to import: only `auto` probes (see the providers above)

    try:
        # asyncio.timeout bounds the whole probe; httpx's timeout is per connect/read.
        async with (
            asyncio.timeout(timeout_s),
            httpx.AsyncClient(base_url=host, timeout=timeout_s, **direct_if_local(host)) as client,
        ):
            response = await client.get("/api/tags")
            response.raise_for_status()
            data = response.json()
    except (httpx.HTTPError, ValueError, TimeoutError):
        return None
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, list):
        return None
    return [str(m.get("name") or m.get("model")) for m in models if isinstance(m, dict)]


def _has_model(pulled: list[str], wanted: str) -> bool:
    # Ollama names an untagged model "<name>:latest".
    return wanted in pulled or (":" not in wanted and f"{wanted}:latest" in pulled)
