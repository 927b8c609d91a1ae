"""Offline answers over vaults in other languages: real translated notes, USE as the reader."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from agent_helpers import ask, done_of
from conftest import shared_notes
from vault_agent.agent.extractive import ExtractiveAnswerer
from vault_agent.agent.reader import ToolsContext
from vault_agent.config import Settings
from vault_agent.index.embed.use import MODEL_NAME as USE_NAME
from vault_agent.index.search import confidence
from vault_agent.index.vault_index import VaultIndex

#: Questions in the vault's language and the sentence that answers each. With USE's cosine
#: alone (shared words weighing what they weigh for MiniLM) a neighbouring sentence of the
#: same note opens these answers instead.
CASES = [
    (
        "fr",
        ["Obsidian Publish/Personnaliser votre site.md", "Obsidian Publish/SEO.md"],
        "Où dois-je placer le fichier publish.css pour personnaliser mon site Publish ?",
        "doivent être situés dans le répertoire racine",
    ),
    (
        "ja",
        [
            "ライセンスと支払い/教育・非営利団体向け割引.md",
            "ライセンスと支払い/Catalystライセンス.md",
        ],
        "学生割引を使うと、SyncやPublishは何パーセント安くなりますか？",
        "が40%割引になります",
    ),
]


async def _answer(tmp_path: Path, language: str, notes: list[str], question: str) -> str:
    settings = Settings(
        vault=shared_notes(f"obsidian-help-{language}", notes, tmp_path / "vault"),
        data_dir=tmp_path / "data",
        index={"embedding": "multilingual", "language": language},
    )
    with VaultIndex(settings) as index:
        index.indexer.sync()
        context = ToolsContext.from_index(index)
        context.today = date(2026, 1, 1)
        events = await ask(index, ExtractiveAnswerer(), question, context=context)
    return done_of(events).answer


def _opening(answer: str) -> str:
    """The answer's first two quotes (each cited on its line), after any "may not answer"."""
    return "\n".join([line for line in answer.splitlines() if "[[" in line][:2])


@pytest.mark.parametrize(("language", "notes", "question", "evidence"), CASES)
async def test_shared_words_weigh_enough_for_use_to_open_with_the_answer(
    tmp_path: Path, language: str, notes: list[str], question: str, evidence: str
) -> None:
    answer = await _answer(tmp_path, language, notes, question)
    assert evidence in _opening(answer), answer


@pytest.mark.parametrize(("language", "notes", "question", "evidence"), CASES)
async def test_with_minilms_weight_for_shared_words_use_misses(
    tmp_path: Path,
    language: str,
    notes: list[str],
    question: str,
    evidence: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    light = replace(confidence.USE, lexical_weight=confidence.MINILM.lexical_weight)
    monkeypatch.setitem(confidence._CALIBRATIONS, USE_NAME, light)
    answer = await _answer(tmp_path, language, notes, question)
    assert evidence not in _opening(answer), answer
