"""Vault Agent: answers questions about an Obsidian vault with cited wikilinks."""

__version__ = "0.1.0"
