"""What the commands that open the index share: the consoles, settings, the open index and a
sync with a progress bar. (Their options are in `options.py`, which loads none of this.)"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from vault_agent.cli.collector import startup_done
from vault_agent.config import Settings
from vault_agent.index.embed.errors import EmbeddingError
from vault_agent.index.store.errors import StoreError
from vault_agent.vault.files import VaultFolderError

if TYPE_CHECKING:
    from vault_agent.index.sync.status import IndexProgress, SyncReport
    from vault_agent.index.vault_index import VaultIndex

console = Console()
errors = Console(stderr=True)


def load_settings(vault: Path | None) -> Settings:
    """Settings from the environment, with the vault chosen as the CLI documents."""
    settings = Settings()
    if vault is not None:
        return settings.model_copy(update={"vault": vault})
    if "VAULT_AGENT_VAULT" not in os.environ:
        enclosing = enclosing_vault(Path.cwd())
        if enclosing is not None:
            return settings.model_copy(update={"vault": enclosing})
    return settings


def open_index(settings: Settings) -> VaultIndex:
    """Open the vault's index or exit with a message a user can act on.

    The models are chosen first, so the embedding model loads (on a thread of its own,
    without the GIL) while the rest of the index stack imports and the store opens: a cold
    `search` used to wait for it after those (bench/cli.py)."""
    from vault_agent.index.embed.choose import text_models

    try:
        models = text_models(settings)
        from vault_agent.index.vault_index import VaultIndex

        vault_index = VaultIndex(settings, models=models)
    except (StoreError, EmbeddingError, FileNotFoundError, VaultFolderError) as error:
        errors.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from error
    startup_done()
    return vault_index


def sync_with_progress(vault_index: VaultIndex, quiet: bool = False) -> SyncReport:
    """Sync the index, with a progress bar on a terminal; a store error, or a vault folder
    gone or unreadable, exits 1."""
    try:
        if quiet or not sys.stderr.isatty():
            return vault_index.indexer.sync()
        # Imported for the bar only: scripts and pipes never draw one (startup time).
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[chunks]} chunks"),
            TimeElapsedColumn(),
            console=errors,
            transient=True,
        ) as progress:
            task = progress.add_task("Scanning", total=None, chunks=0)

            def show(state: IndexProgress) -> None:
                progress.update(
                    task,
                    description=state.state.capitalize(),
                    total=state.files_total or None,
                    completed=state.files_done,
                    chunks=state.chunks_done,
                )

            return vault_index.indexer.sync(on_progress=show)
    except (StoreError, EmbeddingError, VaultFolderError) as error:
        errors.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from error


def enclosing_vault(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        if (folder / ".obsidian").is_dir():
            return folder
    return None
