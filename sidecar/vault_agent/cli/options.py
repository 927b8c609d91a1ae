"""Options that several commands take. Only typer and the standard library are imported here:
`main.py` declares every command with them, and `vault-agent --help` loads nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        help="Vault folder (default: the vault containing the current folder, "
        "else $VAULT_AGENT_VAULT, else the current folder).",
        file_okay=False,
    ),
]
PortOption = Annotated[
    int | None,
    typer.Option(min=1, max=65535, help="The running sidecar's port (default 8765)."),
]
ProfileOption = Annotated[
    str | None,
    typer.Option(help="auto, mistral, ollama, openai or extractive (default: llm.profile)."),
]
VerboseOption = Annotated[bool, typer.Option("--verbose", "-v", help="Show the tool calls.")]
NoSyncOption = Annotated[
    bool, typer.Option("--no-sync", help="Use the index as it is, without syncing.")
]
