"""`ask` (and `chat`): a question, with the note the user points at as context, answered by the
agent while its events print."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import typer
from pydantic import ValidationError

from vault_agent.agent.events import DoneEvent
from vault_agent.agent.extractive import ExtractiveAnswerer
from vault_agent.agent.loop import run_agent
from vault_agent.agent.prompts import ActiveNote, neighbourhood_of
from vault_agent.agent.reader import ToolsContext
from vault_agent.agent.request import AgentRequest
from vault_agent.cli.answer_printer import AnswerPrinter
from vault_agent.cli.common import errors, load_settings, open_index, sync_with_progress
from vault_agent.index.vault_index import VaultIndex
from vault_agent.llm.errors import ModelError
from vault_agent.llm.registry import select_model
from vault_agent.validation import problem_lines
from vault_agent.vault.files import read_vault_file

PROFILES = ("auto", "mistral", "ollama", "openai", "extractive")


@contextlib.contextmanager
def question_index(vault: Path | None, profile: str | None, no_sync: bool) -> Iterator[VaultIndex]:
    """The vault's index, synced (unless `no_sync`), with `profile` chosen for its answers."""
    settings = load_settings(vault)
    if profile is not None:
        if profile not in PROFILES:
            errors.print(f"[red]error:[/red] unknown profile {profile!r}; use one of {PROFILES}")
            raise typer.Exit(2)
        settings = settings.model_copy(
            update={"llm": settings.llm.model_copy(update={"profile": profile})}
        )
    with open_index(settings) as vault_index:
        if not no_sync:
            sync_with_progress(vault_index)
        yield vault_index


def ask_request(question: str, vault_index: VaultIndex, note: Path | None) -> AgentRequest:
    """The question, with ``note`` (read from disk) and its linked notes as context; a
    request the API would refuse (an empty question, one too long) exits 2 with the reason."""
    context = _note_context(vault_index, note) if note is not None else {}
    try:
        return AgentRequest.model_validate({"question": question, **context})
    except ValidationError as error:
        errors.print(f"[red]error:[/red] {'; '.join(problem_lines(error, 'request'))}")
        raise typer.Exit(2) from error


def _note_context(vault_index: VaultIndex, note: Path) -> dict[str, object]:
    """``note`` (a path in the vault, or an absolute one inside it) and its linked notes.
    Read as the index reads a note (`read_vault_file`): a note-named symlink into a hidden or
    ignored file (`.obsidian/plugins/x/data.json`) is refused, a FIFO is not waited on."""
    settings = vault_index.settings
    root = settings.vault_root
    path = note.expanduser()
    relative = path.as_posix()
    if path.is_absolute():
        # The folder resolved, not the note: a symlinked note is judged as a symlink.
        resolved = path.parent.resolve() / path.name
        relative = resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else ""
    try:
        raw = read_vault_file(root, relative, settings.index.ignore)
        content = raw.decode("utf-8", errors="replace")
    except (OSError, ValueError) as error:  # PathOutsideVaultError, RefusedFileError
        reason = "it is outside the vault" if not relative else str(error)
        errors.print(f"[red]error:[/red] can't read --note {note}: {reason}")
        raise typer.Exit(1) from error
    return {
        "active_note": ActiveNote(path=relative, content=content),
        "neighbourhood": neighbourhood_of(vault_index.graph, relative),
    }


async def answer(request: AgentRequest, vault_index: VaultIndex, verbose: bool) -> DoneEvent | None:
    """Run the agent, printing as events arrive: the final event, or None when it failed."""
    settings = vault_index.settings
    try:
        model, reason = await select_model(
            settings.llm, lambda: ExtractiveAnswerer(vault_index.embedder)
        )
    except ModelError as error:
        errors.print(f"[red]error:[/red] {error}")
        return None
    errors.print(f"[dim]{reason}[/dim]")
    printer = AnswerPrinter(verbose)
    try:
        with printer:
            async for event in run_agent(
                request, model, ToolsContext.from_index(vault_index), settings
            ):
                printer.show(event)
    finally:
        await model.aclose()
    return printer.done
