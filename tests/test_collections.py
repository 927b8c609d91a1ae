"""Questions asking for the notes of one kind, answered by listing them: a folder, a tag, a
`type` or a category note the members link to, as a vault keeps them."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from agent_helpers import ask, done_of, indexed_notes
from vault_agent.agent.extractive import ExtractiveAnswerer
from vault_agent.agent.extractive.collections import asked_kind
from vault_agent.agent.reader import ToolsContext
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex

#: A vault in kepano's style: each note links to its category in its properties.
CATEGORIES = {
    "Categories/Games.md": "---\ntags: [categories]\n---\n![[Games.base]]\n",
    "Categories/Movies.md": "---\ntags: [categories]\n---\n",
    "References/Breath of the Wild.md": '---\ncategories:\n  - "[[Games]]"\nlast: 2022-04\n'
    "rating: 7\n---\n",
    "References/Catan.md": '---\ncategories:\n  - "[[Games]]"\nrating: 9\n---\n'
    "A board game of trading.\n",
    "References/Blade Runner.md": '---\ncategories:\n  - "[[Movies]]"\n---\nSeen twice.\n',
    "Templates/Game Template.md": '---\ncategories:\n  - "[[Games]]"\nrating:\n---\n',
    "Journal/2024-02-01.md": "---\ntype: meeting\ncreated: 2024-02-01\n---\nMet Ana, roof.\n",
    "Journal/2024-03-05.md": "---\ntype: meeting\ncreated: 2024-03-05\n---\nMet Ben, lunch.\n",
    "Journal/2024-03-06.md": "Quiet day.\n",
    "Bücher/Der Zauberberg.md": "Von Thomas Mann.\n",
    "Bücher/Effi Briest.md": "Von Theodor Fontane.\n",
    "Lectures/Vendredi.md": "---\ntags: [livre]\n---\nDe Michel Tournier.\n",
    # An inbox kept as one note, which daily notes link to.
    "Inbox.md": "# Inbox\n\n- Call the plumber about the garden tap\n- Return the ladder\n",
    "Journal/2024-03-07.md": "Sorted the shed. Loose ends in [[Inbox]].\n",
}


@pytest.fixture(scope="module")
def categories(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[VaultIndex]:
    root = tmp_path_factory.mktemp("categories")
    with indexed_notes(root, CATEGORIES, embedder, sparse) as index:
        yield index


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What books have I read?", "books"),
        ("Which recipes do I have?", "recipes"),
        ("What games have I played recently?", "games"),
        ("What podcasts have I listened to?", "podcasts"),
        ("What movies did I watch in 2023?", "movies"),
        ("List my meetings", "meetings"),
        ("Welche Bücher habe ich gelesen?", "bücher"),
        ("Quelles recettes ai-je ?", "recettes"),
        ("¿Qué libros he leído?", "libros"),
        ("Welche Bücher habe ich über Gärten gelesen?", ""),
        ("Which books did I rate highest?", "books"),
        ("Show me all recipes.", "recipes"),
        # What a folder holds.
        ("What's in my inbox?", "inbox"),
        ("What is in the Recipes folder?", "recipes"),
        ("Was liegt in meinem Eingang?", "eingang"),
        ("¿Qué hay en mi bandeja?", "bandeja"),
        ("What is in my budget for the trip?", ""),
        # Some of them, or something of them, is no list.
        ("What notes do I have about gardening?", ""),
        ("What tags do evergreen notes get?", ""),
        ("What are my open tasks?", ""),
        ("What did I do on Monday?", ""),
    ],
)
def test_a_question_asking_for_the_notes_of_a_kind_is_told_from_others(
    question: str, kind: str
) -> None:
    assert asked_kind(question) == kind


async def _listed(index: VaultIndex, question: str) -> list[str]:
    context = ToolsContext.from_index(index)
    done = done_of(await ask(index, ExtractiveAnswerer(), question, context=context))
    return [line for line in done.answer.split("_Extractive")[0].splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("question", "heading", "notes", "first_says"),
    [
        # A folder: every recipe, by title, each with its first sentence.
        (
            "Which recipes do I have?",
            "5 notes in Recipes:",
            ["Country Loaf", "Miso Soup", "Pickled Green Beans", "Rosemary Focaccia"],
            "My everyday sourdough",
        ),
        # What a folder holds.
        ("What's in my inbox?", "1 note in Inbox:", ["Quick Capture"], "Things to sort later"),
        # A tag (the vault writes #book; the question "books").
        (
            "What books have I read?",
            "3 notes tagged #book:",
            ["Designing Data-Intensive Applications", "Flour Water Salt Yeast", "The Overstory"],
            "Recommended by Maya",
        ),
    ],
)
async def test_the_notes_of_a_folder_or_a_tag_are_listed(
    agent_index: VaultIndex, question: str, heading: str, notes: list[str], first_says: str
) -> None:
    lines = await _listed(agent_index, question)
    assert lines[0] == heading, lines
    titles = [line.split("]]")[0].rsplit("/", 1)[-1] for line in lines[1:]]
    assert titles[: len(notes)] == notes, lines
    assert first_says in lines[1], lines


async def test_the_notes_linking_to_a_category_are_listed_templates_left_out(
    categories: VaultIndex,
) -> None:
    lines = await _listed(categories, "What games have I played?")
    assert lines == [
        "2 notes linking to Games:",
        "- [[References/Breath of the Wild]]: last: 2022-04; rating: 7",  # its properties
        "- [[References/Catan]]: A board game of trading.",
    ]


async def test_the_notes_of_a_type_are_listed_newest_first_when_asked_for_recent_ones(
    categories: VaultIndex,
) -> None:
    lines = await _listed(categories, "Which meetings have I had recently?")
    assert lines[0] == "2 notes of type meeting:", lines
    assert lines[1].startswith("- [[Journal/2024-03-05]]: Met Ben"), lines
    assert lines[2].startswith("- [[Journal/2024-02-01]]: Met Ana"), lines


@pytest.mark.parametrize(
    ("question", "first"),
    [("Which games did I rate highest?", "Catan"), ("Which games did I rate lowest?", "Breath")],
)
async def test_the_notes_of_a_kind_ordered_by_the_property_the_question_names(
    categories: VaultIndex, question: str, first: str
) -> None:
    lines = await _listed(categories, question)
    assert lines[0] == "2 notes linking to Games, by rating:", lines
    assert lines[1].startswith(f"- [[References/{first}"), lines
    assert "(rating: 9)" in "".join(lines) and "(rating: 7)" in "".join(lines), lines


@pytest.mark.parametrize(
    ("question", "heading"),
    [
        ("Welche Bücher habe ich gelesen?", "2 notes in Bücher:"),
        ("Quels livres ai-je lus ?", "1 note tagged #livre:"),  # "livres": the tag "livre"
    ],
)
async def test_a_list_is_asked_in_other_languages_too(
    categories: VaultIndex, question: str, heading: str
) -> None:
    lines = await _listed(categories, question)
    assert lines[0] == heading, lines


async def test_a_kind_the_vault_does_not_keep_is_answered_as_any_question(
    categories: VaultIndex,
) -> None:
    lines = await _listed(categories, "What podcasts have I listened to?")
    assert not re.match(r"\d+ notes? ", lines[0]), lines  # no list: the vault keeps none


async def test_what_a_note_holds_is_asked_of_it_not_of_the_notes_linking_to_it(
    categories: VaultIndex,
) -> None:
    # "What's in my inbox?" of an Inbox note the journal links to: its items, not the list
    # of the notes that link to it (as "what games have I played?" lists a category's).
    lines = await _listed(categories, "What's in my inbox?")
    assert lines[:3] == [
        "Inbox holds:",
        "- Call the plumber about the garden tap [[Inbox]]",
        "- Return the ladder [[Inbox]]",
    ], lines
