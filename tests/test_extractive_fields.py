"""A field the note asked about doesn't record (`agent/extractive/fields.py`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_helpers import ask, done_of, indexed_notes
from vault_agent.agent.extractive import NOT_COVERED, ExtractiveAnswerer
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex

BOOK = '---\ncategories:\n  - "[[Books]]"\nauthor: {author}\nyear: {year}\nrating: 7\n{extra}---\n'
REFERENCES = {
    "References/The Machine Stops.md": BOOK.format(author="E. M. Forster", year=1909, extra="")
    + "## Quotes\n\nThere was the button that produced literature.\n",
    "References/Out of Control.md": BOOK.format(
        author="Kevin Kelly", year=1994, extra="isbn: 201483408\npages: 528\n"
    )
    + "A book about emergence and complex systems.\n",
    "References/Kevin Kelly.md": '---\ncategories:\n  - "[[People]]"\ntype: author\n---\n'
    "Writer, founding editor of Wired.\n\n## Podcast episodes\n\nHe was a guest of Well Made.\n",
    "References/Well Made 145.md": "---\n"
    "show: Well Made\nguests: Kevin Kelly\nepisode: 145\npublished: 2021-04-15\n---\n"
    "A conversation about tools and craft.\n",
}


@pytest.fixture(scope="module")
def references(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[VaultIndex]:
    with indexed_notes(tmp_path_factory.mktemp("fields"), REFERENCES, embedder, sparse) as index:
        yield index


async def answer(index: VaultIndex, question: str) -> str:
    return done_of(await ask(index, ExtractiveAnswerer(), question)).answer


async def test_a_field_notes_of_its_kind_record_and_the_named_note_lacks_is_not_covered(
    references: VaultIndex,
) -> None:
    # Another book records an ISBN; this one doesn't, nor does any of its sentences say one.
    text = await answer(references, "What's the ISBN of The Machine Stops?")
    assert text.startswith(NOT_COVERED), text
    assert "[[References/The Machine Stops]]" in text


async def test_a_field_the_named_note_records_answers(references: VaultIndex) -> None:
    text = await answer(references, "What's the ISBN of Out of Control?")
    assert text.startswith("isbn: 201483408"), text


async def test_a_field_of_another_kind_of_note_is_no_field_the_named_note_lacks(
    references: VaultIndex,
) -> None:
    # Kevin Kelly's note (a person's), found first for his name, records no `published`, but
    # an episode's does: the question is about the episode he was a guest of.
    text = await answer(references, "When was the podcast episode with Kevin Kelly published?")
    assert not text.startswith(NOT_COVERED), text
