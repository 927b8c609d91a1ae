"""Environment variables the providers read, named once: `registry.py` looks at them to choose
a provider without importing the provider's SDK."""

from __future__ import annotations

#: Mistral's API key (the mistral profile's, and what makes `auto` choose Mistral).
MISTRAL_KEY_ENV = "MISTRAL_API_KEY"
