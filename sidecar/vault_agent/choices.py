"""The named choices of the settings, as plain `Literal` types.

They live apart from `config.py` (which builds pydantic models) so that the CLI can declare its
options with them while `vault-agent --help` imports nothing but typer.
"""

from __future__ import annotations

from typing import Literal

LlmProfile = Literal["auto", "mistral", "ollama", "openai", "extractive"]
EmbeddingVariant = Literal["dynamic-int8", "packaged"]
EmbeddingChoice = Literal["auto", "english", "multilingual"]
