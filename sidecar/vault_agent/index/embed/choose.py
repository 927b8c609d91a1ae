"""Which text models read a vault: English or multilingual embeddings, BM25 in which language.

`index.embedding` says `english` (MiniLM), `multilingual` (USE), `auto` (the default), or
names a model served by Ollama or an OpenAI-compatible server (`ollama:<model>`,
`openai:<model>`: `remote.py`). Auto looks once, at the first index of a vault with notes in
it: it reads a sample of the notes (their reading text), names each one's language
(`py3langid`, a maintained language identifier that ships its model), and picks multilingual
when more than `1 - ENGLISH_SHARE` of them are in another language. BM25 stems and drops stop
words in the language most sampled notes are in; with a served model, which may read any
language, that sample decides BM25's language alone. The choice is kept in the vault's data
folder (`models.json`), so a vault keeps its models until the setting changes; a change
re-embeds the vault (every chunk records the models that wrote it, and another record counts
as changed).
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from vault_agent.config import Settings, server_model
from vault_agent.index.embed.minilm import Embedder, MiniLmEmbedder
from vault_agent.private_files import private_dir, write_private

if TYPE_CHECKING:
    from vault_agent.index.embed.bm25 import Bm25Encoder

log = logging.getLogger(__name__)

Family = Literal["english", "multilingual", "server"]
#: The packaged families `index.embedding` may name.
_PACKAGED: dict[str, Family] = {"english": "english", "multilingual": "multilingual"}
#: Notes read to decide.
SAMPLE = 80
#: With fewer notes than this, nothing is decided yet (the next index looks again).
MIN_SAMPLE = 5
#: Multilingual when fewer than this share of the sampled notes are in English.
ENGLISH_SHARE = 0.7
#: A language at least this share of the sampled notes are in is one the vault is written in.
SHARE = 0.1
#: Characters of each note's reading text given to the language identifier.
SAMPLE_CHARS = 2_000
_FILE = "models.json"


class ModelChoice(BaseModel):
    """What reads a vault, and why."""

    family: Family
    model: str | None = Field(
        default=None,
        description="The served model (family server), as index.embedding names it: "
        "ollama:<model> or openai:<model>.",
    )
    language: str = Field(description="The notes' main language: keyword search stems it.")
    languages: list[str] = Field(
        default_factory=list,
        description="Every language at least a tenth of the sampled notes are in.",
    )
    reason: str

    def describe(self) -> str:
        """One line for the user: "Embeddings: multilingual (USE v3); keyword search: de. ..."."""
        if self.family == "server":
            model = f"{self.model} (from a server)"
        elif self.family == "multilingual":
            model = "multilingual (USE v3)"
        else:
            model = "English (MiniLM)"
        return f"Embeddings: {model}; keyword search: {self.language}. {self.reason}"


@dataclass
class TextModels:
    """The dense and sparse encoders for one vault, and the choice behind them."""

    embedder: Embedder
    sparse: Bm25Encoder
    choice: ModelChoice


def text_models(settings: Settings) -> TextModels:
    """The encoders `settings` ask for (deciding `auto` from the vault, once)."""
    return models_for(choose(settings), settings)


def models_for(choice: ModelChoice, settings: Settings) -> TextModels:
    """The encoders of `choice` (MiniLM in the variant `settings` ask for; a served model at
    the server they name). Raises `EmbeddingError` when a served model can't be reached."""
    embedder: Embedder
    served = server_model(choice.model) if choice.family == "server" and choice.model else None
    if served is not None:
        from vault_agent.index.embed.remote import RemoteEmbedder  # imported only when chosen

        embedder = RemoteEmbedder.from_settings(served, settings)
    elif choice.family == "multilingual":
        from vault_agent.index.embed.use import UseEmbedder  # imported only when chosen

        embedder = UseEmbedder()
    else:
        embedder = MiniLmEmbedder.from_settings(settings.index)
    # Imported once the model is loading (on its own thread): BM25's language stack (ICU,
    # stemmers, the language identifier) imports meanwhile, as does what the caller opens next.
    from vault_agent.index.embed.bm25 import Bm25Encoder

    return TextModels(embedder, Bm25Encoder(choice.language, choice.languages), choice)


def choose(settings: Settings) -> ModelChoice:
    """The models for `settings`' vault: as set, as decided before, or decided now."""
    wanted = settings.index.embedding
    recorded = _recorded(settings)
    language = settings.index.language
    if server_model(wanted) is not None:
        return _served(settings, wanted, recorded, language)
    if wanted != "auto":
        lang = language or (recorded.language if recorded else None) or "en"
        family = _PACKAGED[wanted]
        choice = ModelChoice(family=family, language=lang, reason=f"index.embedding is {wanted}.")
        _record(settings, choice)
        return choice
    # A served model is never kept under auto: auto means the packaged models.
    if (
        recorded is not None
        and recorded.family != "server"
        and (language is None or language == recorded.language)
    ):
        return recorded
    choice = detect(settings.vault_root, language)
    if not choice.reason.startswith("Too few"):
        _record(settings, choice)
    return choice


def _served(
    settings: Settings, wanted: str, recorded: ModelChoice | None, language: str | None
) -> ModelChoice:
    """The served model `wanted`, with BM25 in the notes' language (sampled as auto does)."""
    if (
        recorded is not None
        and recorded.model == wanted
        and (language is None or language == recorded.language)
    ):
        return recorded
    sampled = detect(settings.vault_root, language)
    why = f"index.language is {language}." if language else sampled.reason
    choice = ModelChoice(
        family="server",
        model=wanted,
        language=sampled.language,
        languages=sampled.languages,
        reason=f"index.embedding is {wanted}. {why}",
    )
    if not sampled.reason.startswith("Too few"):
        _record(settings, choice)
    return choice


def detect(root: Path, language: str | None = None) -> ModelChoice:
    """Sample the notes of `root` and decide (see the module docstring)."""
    languages = Counter(_sampled_languages(root))
    total = sum(languages.values())
    if total < MIN_SAMPLE:
        return ModelChoice(
            family="english",
            language=language or "en",
            reason=f"Too few notes to judge their language ({total}); English until there are.",
        )
    main, _ = languages.most_common(1)[0]
    english = languages.get("en", 0)
    family: Family = "english" if english >= ENGLISH_SHARE * total else "multilingual"
    spread = ", ".join(f"{count} {code}" for code, count in languages.most_common(4))
    return ModelChoice(
        family=family,
        language=language or main,
        languages=[code for code, count in languages.most_common() if count >= SHARE * total],
        reason=f"Chosen automatically from {total} sampled notes ({spread}).",
    )


def _sampled_languages(root: Path) -> list[str]:
    # Only the first index of a vault samples it: every other start skips these imports.
    from vault_agent.index.embed.language import text_language
    from vault_agent.vault.files import is_note, scan_vault
    from vault_agent.vault.notes import parse_note
    from vault_agent.vault.reading_text import reading_text

    notes = sorted(f.file for f in scan_vault(root) if is_note(f.file) and f.file.endswith(".md"))
    step = max(1, len(notes) // SAMPLE)
    found = []
    for file in notes[::step][:SAMPLE]:
        try:
            text = reading_text(parse_note(file, (root / file).read_bytes()).body[:SAMPLE_CHARS])
        except Exception:  # one unreadable note says nothing about the others
            continue
        if len(text) >= 40:  # too little text names no language reliably
            found.append(text_language(text))
    return found


def _recorded(settings: Settings) -> ModelChoice | None:
    path = settings.vault_data_dir / _FILE
    try:
        return ModelChoice.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _record(settings: Settings, choice: ModelChoice) -> None:
    path = settings.vault_data_dir / _FILE
    try:
        private_dir(path.parent)
        write_private(path, json.dumps(choice.model_dump(), ensure_ascii=False).encode("utf-8"))
    except OSError as error:  # the choice is made again next time: nothing is lost
        log.warning("could not record the models chosen for %s: %s", settings.vault_root, error)
