"""Vault Agent: answers questions about an Obsidian vault with cited wikilinks."""

import os

__version__ = "0.1.0"

# ONNX Runtime (1.29 and later, under fastembed and the multilingual encoder) sends usage
# telemetry to Microsoft from Linux and macOS, and writes a device id under ~/.cache, unless
# this is set before it starts. Nothing here talks to a server the user did not configure:
# it is set on import of the package, before any model loads. A user's own value is kept.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
