"""Which language a text is in: py3langid's answers, from the copy of its model unpacked once
into the cache (langid_model.py)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from vault_agent.index.embed.langid_model import load_identifier

TEXTS = [
    "When did I last feed the sourdough starter?",
    "Wann habe ich den Sauerteig zuletzt gefüttert?",
    "¿Cuándo alimenté la masa madre por última vez?",
    "上次给酸面团喂食是什么时候？",
    "サワードウのスターターにいつ餌をあげましたか",
    "Когда я в последний раз кормил закваску?",
    "kubernetes v1.29 kubectl apply -f deploy.yaml",
    "",
    "The starter was fed with rye flour and water at dawn. " * 40,
]
QUERY_LANGUAGES = ["ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "zh"]


@pytest.fixture(scope="module")
def reference() -> LanguageIdentifier:
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def test_the_unpacked_copy_answers_as_py3langid_does(
    tmp_path: Path, reference: LanguageIdentifier
) -> None:
    made = load_identifier(tmp_path)  # unpacks and keeps the copy
    mapped = load_identifier(tmp_path)  # maps the copy
    for identifier in (made, mapped):
        for text in TEXTS:
            assert identifier.classify(text) == reference.classify(text), text
            assert identifier.rank(text) == reference.rank(text), text
    restricted, expected = copy.copy(mapped), copy.copy(reference)
    restricted.set_languages(QUERY_LANGUAGES)
    expected.set_languages(QUERY_LANGUAGES)
    assert [restricted.classify(t) for t in TEXTS] == [expected.classify(t) for t in TEXTS]


def test_the_copy_is_made_once_and_whole(tmp_path: Path) -> None:
    load_identifier(tmp_path)
    # No temporary folder left beside it (the memo of the shipped file's digest is a file).
    (folder,) = [path for path in tmp_path.iterdir() if path.is_dir()]
    files = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    assert len(files) == 6
    load_identifier(tmp_path)
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == files


def test_a_damaged_copy_is_made_again(tmp_path: Path, reference: LanguageIdentifier) -> None:
    load_identifier(tmp_path)
    (folder,) = [path for path in tmp_path.iterdir() if path.is_dir()]
    table = folder / "nextmove.npy"
    table.write_bytes(table.read_bytes()[:1000])
    assert load_identifier(tmp_path).classify(TEXTS[1]) == reference.classify(TEXTS[1])
    assert table.stat().st_size > 1000


def test_without_a_usable_cache_the_model_is_unpacked_each_time(
    tmp_path: Path, reference: LanguageIdentifier
) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    assert load_identifier(not_a_folder).classify(TEXTS[2]) == reference.classify(TEXTS[2])
