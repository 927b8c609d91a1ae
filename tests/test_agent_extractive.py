"""The extractive profile (no model), the auto profile's choice, and `vault-agent ask`."""

from __future__ import annotations

import re
import shutil
import socket
import sys
import threading
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agent_helpers import ask, context_for, done_of, indexed_notes, names, of_type
from conftest import EXAMPLE_VAULT
from fake_llm import FakeTurn, fake_provider
from vault_agent.agent import loop as agent_loop
from vault_agent.agent.citations.links import (
    NoteRef,
    find_citations,
)
from vault_agent.agent.events import ToolCallEvent, ToolResultEvent
from vault_agent.agent.extractive import DISCLAIMER, NOT_COVERED, UNSURE, ExtractiveAnswerer
from vault_agent.agent.extractive.amounts import holds_amount
from vault_agent.agent.extractive.answerer import _stands_out
from vault_agent.agent.extractive.compose import compose
from vault_agent.agent.extractive.opening import answer_first
from vault_agent.agent.extractive.plan import SearchPlan, asking_sentences, plan
from vault_agent.agent.extractive.question_words import counted
from vault_agent.agent.extractive.scoring import Quote
from vault_agent.agent.extractive.selection import Selected, units_after
from vault_agent.agent.extractive.units import Unit, split_units
from vault_agent.agent.prompts import ActiveNote
from vault_agent.agent.request import AgentRequest, HistoryTurn
from vault_agent.cli.main import app
from vault_agent.config import LlmSettings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.choose import TextModels
from vault_agent.index.embed.minilm import MiniLmEmbedder, Vector
from vault_agent.index.embed.terms import Analyzer
from vault_agent.index.search.hints import QueryHints
from vault_agent.index.vault_index import VaultIndex
from vault_agent.llm.ollama import OllamaModel
from vault_agent.llm.registry import select_model

FEED_QUESTION = "When did I last feed the sourdough starter?"


def cited_files(answer: str, index: VaultIndex) -> list[str]:
    """The vault files an answer's citations resolve to (None for unresolvable ones)."""
    body = answer.split("\nSources:")[0]
    return [index.graph.resolve(c.target, "") or "?" for c in find_citations(body)]


async def test_extractive_answers_from_the_vault_with_valid_citations(
    agent_index: VaultIndex,
) -> None:
    events = await ask(agent_index, ExtractiveAnswerer(), FEED_QUESTION)
    assert names(events)[:3] == ["status", "tool_call", "tool_result"]
    [call] = of_type(events, ToolCallEvent)
    assert call.name == "search_notes" and call.arguments["query"] == FEED_QUESTION
    done = done_of(events)
    assert done.profile == "extractive" and done.usage.total_tokens == 0
    assert done.removed_citations == []
    files = cited_files(done.answer, agent_index)
    assert files and "?" not in files
    # "last": the answer opens with the newest day the starter was fed, and that day's note.
    first_line = done.answer.splitlines()[0]
    assert first_line.startswith("2026-11-11: Fed the sourdough starter")
    assert first_line.endswith("[[Daily/2026-11-11#Log]]")
    assert DISCLAIMER in done.answer
    sources = done.answer.split("Sources:\n")[1].splitlines()
    assert len(sources) == len(done.sources)
    assert all(source.startswith("- [[") for source in sources)


@pytest.mark.parametrize(
    "question", ["What did I do on 7 November?", "What did I do on 2026-11-07?"]
)
async def test_a_question_naming_a_day_is_answered_from_that_days_note(
    agent_index: VaultIndex, question: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    # What the day's note says, without doubt, and not its `type: daily`: "November" is no
    # name the note must write (its title is 2026-11-07), nor do other notes' "4 November"
    # and "5 November" say what I did on the 7th.
    first = done.answer.splitlines()[:2]
    assert all(line.endswith("[[Daily/2026-11-07#Log]]") for line in first), done.answer
    assert not done.answer.startswith(UNSURE) and "type: daily" not in done.answer
    # Read without the day it names, the question finds nothing close enough to be sure of.
    plans = sys.modules[SearchPlan.__module__]  # the module: the package names its function
    monkeypatch.setattr(plans, "query_hints", lambda *_: QueryHints())
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    assert done.answer.startswith(UNSURE), done.answer


@pytest.mark.parametrize(
    ("question", "today"),
    [
        ("What did I do yesterday?", date(2026, 11, 8)),
        ("What did I do last Saturday? Yesterday, I mean.", date(2026, 11, 8)),
        ("Qu'ai-je fait avant-hier ?", date(2026, 11, 9)),  # French: the day before yesterday
        ("What did I do last Saturday?", date(2026, 11, 10)),
        ("What did I do on Saturday?", date(2026, 11, 12)),
    ],
)
async def test_a_day_relative_to_today_is_answered_from_that_days_note(
    agent_index: VaultIndex, question: str, today: date
) -> None:
    context = context_for(agent_index, today)
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question, context=context))
    assert done.answer.splitlines()[0].endswith("[[Daily/2026-11-07#Log]]"), done.answer
    # Days later, the same words name a day without a note: not covered, no other day quoted.
    later = context_for(agent_index, date(2026, 11, 20))
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question, context=later))
    assert done.answer.startswith(NOT_COVERED), done.answer


async def test_asked_to_summarize_a_note_the_answer_is_that_note(
    agent_index: VaultIndex,
) -> None:
    # Not the Reading List's "Something about Kyoto gardens before the Kyoto Trip": the note
    # named is the subject, "summarize my notes on" only asks for an account of it.
    question = "Summarize my notes on the Kyoto trip"
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    first = done.answer.split("\n\n")[0].splitlines()
    assert all(line.endswith("[[Projects/Kyoto Trip]]") for line in first), done.answer
    assert any(line.startswith("Ten days in Kansai with Tomás") for line in first), done.answer


async def test_a_month_alone_is_answered_day_by_day_from_its_notes(
    agent_index: VaultIndex,
) -> None:
    # "In October", asked of the past on 12 November 2026: October 2026's daily notes, each
    # a dated line, in date order; no November day.
    context = context_for(agent_index, date(2026, 11, 12))
    question = "What did I do in October?"
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question, context=context))
    first = done.answer.split("\n\n")[0].splitlines()
    days = [line[:10] for line in first]
    assert len(first) > 1 and days == sorted(days), done.answer
    assert all(day.startswith("2026-10-") for day in days), done.answer


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        # Not her "Out on leave 2026-12-18...", nor `aliases: Priya` or `type: person`.
        ("Who is Priya?", "Engineering manager for the data platform group"),
        # Not the Ideas note's "Loose ideas for Tidepool.", close as it reads.
        ("What is Tidepool?", "Tidepool collects readings from forty coastal sensor buoys"),
    ],
)
async def test_a_question_asking_only_what_a_note_is_is_answered_by_its_opening(
    agent_index: VaultIndex, question: str, opening: str
) -> None:
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    assert done.answer.startswith(opening), done.answer


async def test_extractive_finds_the_note_named_in_the_question(agent_index: VaultIndex) -> None:
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), "Who is Maya?"))
    assert done.sources[0].file == "People/Maya Okafor.md"
    assert "senior data engineer" in done.answer.split("**More")[0]


async def test_extractive_answers_a_quantity_first(agent_index: VaultIndex) -> None:
    question = "How hot and for how long do I preheat the Dutch oven for the country loaf?"
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    first_line = done.answer.splitlines()[0]
    assert "250 °C for 45 minutes" in first_line
    assert first_line.endswith("[[Recipes/Country Loaf#Bake]]")


async def test_a_near_answer_is_given_as_the_closest_the_notes_come(
    agent_index: VaultIndex,
) -> None:
    # The starter's feeding is in the notes, but no sentence says what he "eats": the quotes
    # are offered as the nearest, not as the answer.
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), "What does Gus eat?"))
    lines = done.answer.splitlines()
    assert lines[0] == UNSURE and lines[1] == ""
    assert lines[2].endswith("]]")  # quotes follow, cited
    # A question the notes answer outright is answered without the doubt.
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), FEED_QUESTION))
    assert UNSURE not in done.answer


async def test_a_question_naming_a_note_is_answered_from_it(agent_index: VaultIndex) -> None:
    # Its words are far from the note's, but it names the note: the note's nearest sentences
    # are shown (as the nearest), not "not covered".
    question = "Any word from Dan Whitaker regarding this?"
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    assert not done.answer.startswith(NOT_COVERED), done.answer
    assert "[[People/Dan Whitaker" in done.answer.split("**More")[0]


async def test_extractive_says_so_when_the_notes_have_nothing(agent_index: VaultIndex) -> None:
    events = await ask(agent_index, ExtractiveAnswerer(), "What is the capital of Australia?")
    # The search still ran and found *something*; it is named as closest, not as an answer.
    assert of_type(events, ToolResultEvent)[0].notes
    done = done_of(events)
    assert done.answer.startswith(NOT_COVERED + " The closest notes: [[")
    assert 1 <= len(done.sources) <= 2


async def test_a_follow_up_searches_with_the_earlier_subject(agent_index: VaultIndex) -> None:
    request = AgentRequest(
        question="And how much flour?",
        history=[
            HistoryTurn(role="user", content="How do I feed the sourdough starter?"),
            HistoryTurn(role="assistant", content="Once a day, in the morning."),
        ],
    )
    events = await ask(agent_index, ExtractiveAnswerer(), request)
    [call] = of_type(events, ToolCallEvent)
    assert "sourdough starter" in call.arguments["query"]
    # The answer: its first two sentences (the amount and the flour it is, a near tie).
    answer = "\n".join(done_of(events).answer.splitlines()[:2])
    assert "50 g flour" in answer or "5 parts flour" in answer


@pytest.mark.parametrize(
    ("earlier", "cited", "question", "expected"),
    [
        (
            "Who owns Tidepool's ingestion service?",
            "Maya Okafor",
            "How does she like to get updates?",
            "async updates",
        ),
        ("Where did Gus come from?", "Ruth Adler", "What advice did she give?", "hungry"),
    ],
)
async def test_a_follow_up_is_answered_from_the_notes_the_last_answer_cited(
    agent_index: VaultIndex, earlier: str, cited: str, question: str, expected: str
) -> None:
    with_subject = await ask_follow_up(agent_index, earlier, f"See [[{cited}]].", question)
    without = await ask_follow_up(agent_index, earlier, "See my notes.", question)
    assert expected in with_subject.splitlines()[0]
    assert expected not in without.splitlines()[0]  # the earlier question alone misleads


async def ask_follow_up(index: VaultIndex, earlier: str, answer: str, question: str) -> str:
    """The extractive answer to `question` after `earlier` was answered with `answer`."""
    request = AgentRequest(
        question=question,
        history=[
            HistoryTurn(role="user", content=earlier),
            HistoryTurn(role="assistant", content=answer),
        ],
    )
    return done_of(await ask(index, ExtractiveAnswerer(), request)).answer


async def test_ask_about_a_selection_searches_with_the_selection(agent_index: VaultIndex) -> None:
    request = AgentRequest(
        question="What do my notes say about this?",
        selection="vegetarian kaiseki confirmed for Tomás",
        active_note=ActiveNote(path="Daily/2026-11-11.md"),
    )
    events = await ask(agent_index, ExtractiveAnswerer(), request)
    [call] = of_type(events, ToolCallEvent)
    assert "vegetarian kaiseki" in call.arguments["query"]
    cited = {source.file for source in done_of(events).sources}
    assert cited & {"People/Tomás Ferreira.md", "Projects/Kyoto Trip.md"}


async def test_a_quote_cites_the_heading_it_sits_under(agent_index: VaultIndex) -> None:
    # "Troubleshooting" is merged into the chunk of the section before it; the quote from it
    # must still cite #Troubleshooting, a heading the note has.
    request = AgentRequest(
        question="My starter smells like nail polish remover; what should I do?",
        active_note=ActiveNote(path="Recipes/Sourdough Starter.md"),
    )
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), request))
    first_line = done.answer.splitlines()[0]
    assert "underfed" in first_line
    assert first_line.endswith("[[Recipes/Sourdough Starter#Troubleshooting]]")


def test_units_are_sentences_items_and_rows_under_their_headings() -> None:
    body = (
        "Intro sentence one. Intro sentence two!\n\n## Details\n- Fed Gus twice, as in\n"
        "  [[Sourdough Starter#Reviving|reviving]]. ^block-1\n- Read [DDIA](Reading/DDIA.md).\n"
        "- #daily\n\n| day | feeds |\n|---|---|\n| Mon | 2 |\n\n### Deeper\n"
        "第一句。第二句！\n```\ncode is not quoted\n```"
    )
    units = split_units(body, "Log")
    assert [(u.text, u.heading) for u in units] == [
        ("Intro sentence one.", "Log"),
        ("Intro sentence two!", "Log"),
        ("Fed Gus twice, as in reviving.", "Log > Details"),
        ("Read DDIA.", "Log > Details"),
        ("day | feeds", "Log > Details"),
        ("Mon — feeds: 2", "Log > Details"),
        ("第一句。", "Log > Details > Deeper"),
        ("第二句！", "Log > Details > Deeper"),
    ]


def test_a_table_row_is_read_with_its_columns_names() -> None:
    body = (
        "|  | Sync Standard | Sync Plus |\n| --- | --- | --- |\n| Vaults | 1 | 10 |\n"
        "| [[Version history]] | 1 month | 12 months |\n| | | only on Plus |\n\n"
        "| Where | Works? |\n|:--|:-:|\n| Reading mode | ✅ |\n\n"
        "a | b\n\n| no | rule |\n| x | y |\n|---|---|\n| z | w |\n"
    )
    units = split_units(body, "")
    assert [(u.text, u.label, u.row) for u in units] == [
        # The header names the columns, a label that answers nothing itself.
        ("Sync Standard | Sync Plus", True, True),
        ("Vaults — Sync Standard: 1; Sync Plus: 10", False, True),
        ("Version history — Sync Standard: 1 month; Sync Plus: 12 months", False, True),
        ("Sync Plus: only on Plus", False, True),
        ("Where | Works?", True, True),
        ("Reading mode — Works?: ✅", False, True),
        ("a | b", True, False),  # no table: a line over one, naming it
        # No rule under its first row: no names for its columns, its rows read as they are.
        ("no | rule", False, True),
        ("x | y", False, True),
        ("z | w", False, True),
    ]


def test_a_chunk_cut_from_a_long_table_reads_its_rows_with_the_tables_header() -> None:
    header = "|  | Sync Standard | Sync Plus |\n| --- | --- | --- |"
    body = "| Version history | 1 month | 12 months |\n| Devices | Unlimited | Unlimited |"
    units = split_units(body, "Plans", table_header=header)
    assert [unit.text for unit in units] == [
        "Version history — Sync Standard: 1 month; Sync Plus: 12 months",
        "Devices — Sync Standard: Unlimited; Sync Plus: Unlimited",
    ]
    # A header is no use to a body that does not open inside the table.
    assert split_units("Prose first.\n" + body, "", header)[1].text == (
        "Version history | 1 month | 12 months"
    )


TABLES = {
    "Sync plans.md": "# Plans\n\nCompare the two plans:\n\n"
    "|  | Sync Standard | Sync Plus |\n| --- | --- | --- |\n| Synced vaults | 1 | 10 |\n"
    "| Maximum file size | 5 MB | 200 MB |\n| Version history | 1 month | 12 months |\n",
    "Postponing.md": "# Postponing\n\n## Availability\n\n| Viewing mode | Shown? |\n"
    "| --- | --- |\n| Reading mode | ✅ |\n| Source mode | ❌ |\n\n## Hiding it\n\n"
    "Use the `hide postpone button` instruction to hide the postpone button.\n",
    "CSS variables.md": "# CSS variables\n\n| Variable | Description |\n| --- | --- |\n"
    + "".join(f"| `--swatch-{n}` | Colour {n} of the palette |\n" for n in range(80))
    + "| `--heading-glow` | Glow drawn around headings when they are hovered |\n",
    "Daily/2026-01-05.md": "Tidied the garden shed.\n",  # the tests' "today"
}


async def test_a_table_row_answers_with_the_names_of_its_columns(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    with indexed_notes(tmp_path, TABLES, embedder, sparse) as index:
        question = "How large can a single file be on Sync Standard and on Sync Plus?"
        sizes = done_of(await ask(index, ExtractiveAnswerer(), question))
        question = "Is the postpone button shown in reading mode?"
        modes = done_of(await ask(index, ExtractiveAnswerer(), question))
        question = "Which CSS variable sets the glow around hovered headings?"
        glow = done_of(await ask(index, ExtractiveAnswerer(), question))
        [hit] = index.searcher.search("heading glow hovered", limit=1)
        assert hit.chunk_index > 0  # the row's chunk is not the header's
    # Which size is whose: the row alone ("Maximum file size | 5 MB | 200 MB") doesn't say.
    assert sizes.answer.splitlines()[0] == (
        "Maximum file size — Sync Standard: 5 MB; Sync Plus: 200 MB [[Sync plans#Plans]]"
    ), sizes.answer
    # "Shown?" names a column: the row asks nothing, so it is not read on into the next row
    # as a question of the notes would be.
    assert modes.answer.startswith("Reading mode — Shown?: ✅ [[Postponing#Availability]]")
    # The row is in a chunk cut from the table far below its header: the header still names
    # its columns.
    assert glow.answer.startswith(
        "`--heading-glow` — Description: Glow drawn around headings when they are hovered"
    ), glow.answer


@pytest.mark.parametrize(
    ("paragraph", "sentences"),
    [
        ("मैं हर सुबह योग करता हूँ। फिर नाश्ता।", ["मैं हर सुबह योग करता हूँ।", "फिर नाश्ता।"]),
        ("هل هذا صحيح؟ نعم هو كذلك.", ["هل هذا صحيح؟", "نعم هو كذلك."]),
        ("یہ پہلا جملہ ہے۔ یہ دوسرا ہے۔", ["یہ پہلا جملہ ہے۔", "یہ دوسرا ہے۔"]),
        # A full stop before a word in lower case ends an abbreviation.
        (
            "Nobody can decrypt your data, e.g. in a case of a warrant. Keep your key.",
            ["Nobody can decrypt your data, e.g. in a case of a warrant.", "Keep your key."],
        ),
        # ...but a name written in lower case first opens one.
        (
            "Works on Windows. macOS support is coming. iOS too.",
            ["Works on Windows.", "macOS support is coming.", "iOS too."],
        ),
        (
            "Не синхронизируйте (iCloud и т.п.) одновременно. Это важно.",
            ["Не синхронизируйте (iCloud и т.п.) одновременно.", "Это важно."],
        ),
    ],
)
def test_sentences_end_at_each_scripts_full_stop(paragraph: str, sentences: list[str]) -> None:
    assert [unit.text for unit in split_units(paragraph, "")] == sentences


def test_a_sentence_introducing_code_or_a_list_keeps_it() -> None:
    body = (
        "To add an icon, call addIcon() from onload:\n\n```ts\nthis.addIcon('dice', svg);\n```"
        "\n\nThe facilities that stamp dates:\n- the [[Create or edit Task|modal]]\n- the "
        "command\n\n| `icon` | <code>IconName</code> | |\n|---|---|---|\n<!-- generated -->\nDone."
    )
    units = split_units(body, "Icons")
    assert units[0].shows == "```ts\nthis.addIcon('dice', svg);\n```"
    assert units[1].shows == "- the modal\n- the command"
    tip = split_units("> [!tip]- Keep a backup\n> Sync is not a backup.", "")
    assert [unit.text for unit in tip] == ["Keep a backup", "Sync is not a backup."]
    # A callout's title names the box ("Hinweis", "Keep a backup"): a label, no answer; one
    # written as a sentence says something.
    assert [unit.label for unit in tip] == [True, False]
    warning = split_units("> [!warning] Sync deletes what you delete.\n> Keep a copy.", "")
    assert [unit.label for unit in warning] == [False, False]
    assert [unit.text for unit in units[2:]] == [
        "the modal",
        "the command",
        "`icon` | `IconName`",
        "Done.",
    ]


async def test_a_how_to_question_opens_with_the_code_that_does_it(changelog: VaultIndex) -> None:
    done = done_of(await ask(changelog, ExtractiveAnswerer(), "How do I add a custom icon?"))
    lines = done.answer.splitlines()
    # The sentence closest in words says that it can be done; the one before the code, how.
    assert lines[0].startswith("Call addIcon() with the SVG:"), done.answer
    assert lines[1:4] == ["```ts", "this.addIcon('dice', '<circle cx=\"50\" />');", "```"]


def test_more_quotes_of_a_note_are_in_its_order_each_cited_to_its_own_heading() -> None:
    def quote(note: str, text: str, heading: str, place: tuple[int, int], score: float) -> Quote:
        ref = NoteRef(file=f"{note}.md", title=note, heading=heading)
        return Quote(Unit(text, heading, place[1]), ref, None, score, chunk=place[0])

    lead = quote("Daily", "Fed him today.", "", (0, 0), 1.0)
    kept = [
        lead,
        quote("Starter", "Twice before baking.", "Reviving", (1, 0), 0.8),
        quote("Loaf", "Mix the flour.", "Method", (0, 1), 0.75),
        quote("Starter", "Once a week.", "Feeding", (0, 3), 0.7),
        quote("Loaf", "Rest it an hour.", "Method", (0, 2), 0.65),
    ]
    lines = compose([lead], kept, dated=False).splitlines()
    # The note's order, each section's quotes cited to it; sentences that follow each other
    # read on without a gap.
    assert (
        "- **Starter**: Once a week. [[Starter#Feeding]] … Twice before baking. "
        "[[Starter#Reviving]]"
    ) in lines
    assert "- **Loaf**: Mix the flour. Rest it an hour. [[Loaf#Method]]" in lines


def test_a_short_line_over_a_list_labels_its_items() -> None:
    body = (
        "Making and blind-baking the crust\n\n1. Roll it out.\n2. Prick the base.\n\n"
        "Then the filling goes in.\n- Whisk the eggs.\n\nA line of more than twelve words "
        "that runs on without any end at all\n- Stir.\n\nNo list after this one\n\nProse."
    )
    units = split_units(body, "Directions")
    assert [(u.text, u.label, u.under) for u in units] == [
        ("Making and blind-baking the crust", True, ""),
        ("Roll it out.", False, "Making and blind-baking the crust"),
        ("Prick the base.", False, "Making and blind-baking the crust"),
        # A sentence, a long line, a line no list follows: none labels anything.
        ("Then the filling goes in.", False, ""),
        ("Whisk the eggs.", False, ""),
        ("A line of more than twelve words that runs on without any end at all", False, ""),
        ("Stir.", False, ""),
        ("No list after this one", False, ""),
        ("Prose.", False, ""),
    ]
    # Written without spaces, a label is short in characters: a long line is prose.
    cjk = split_units("烤制挞皮\n\n1. 用叉子戳孔。\n\n" + "这" * 30 + "\n\n- 搅拌。", "")
    assert [(u.label, u.under) for u in cjk] == [
        (True, ""),
        (False, "烤制挞皮"),
        (False, ""),
        (False, ""),
    ]


async def test_a_label_over_steps_never_answers_the_step_does(changelog: VaultIndex) -> None:
    question = "How do I keep the pie crust base flat when I blind bake it?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    assert done.answer.startswith("Prick the base all over with a fork"), done.answer


@pytest.mark.parametrize(
    ("question", "things"),
    [
        ("How many pages long is The Machine Stops?", ("pages", "long")),
        ("how many community plugins passed 100k?", ("community", "plugins")),
        ("Combien de pages a le livre ?", ("pages", "a")),
        ("Wie viele Seiten hat das Buch?", ("Seiten", "hat")),
        ("Сколько страниц?", ("страниц",)),
        ("كم صفحة في الكتاب؟", ("صفحة", "في")),
        ("How much does it cost?", ()),
        ("How long does it keep?", ()),
    ],
)
def test_what_a_how_many_question_counts_is_read_in_many_languages(
    question: str, things: tuple[str, ...]
) -> None:
    assert counted(question) == things


@pytest.mark.parametrize(
    ("question", "still_to_do"),
    [
        ("What is still left to book for the Kyoto trip?", True),
        ("What are my open tasks for the garden?", True),
        ("What do I still need to buy for the bake?", True),
        ("Was ist beim Umzug noch zu erledigen?", True),
        ("Qu'est-ce qui reste à réserver pour Kyoto ?", True),
        ("京都旅行还有哪些待办？", True),
        ("What are the next steps for the garden irrigation?", True),
        ("Was sind die nächsten Schritte beim Umzug?", True),
        ("How do I list my unfinished tasks?", False),  # steps, not the tasks
        ("Will a `not done` search still list it?", False),
        ("Which items on the to-do list are already done?", False),
        ("¿Cómo borro un grupo entero, con todo lo que tiene dentro?", False),
    ],
)
def test_a_question_asking_what_is_still_to_do_is_read_in_many_languages(
    question: str, still_to_do: bool
) -> None:
    assert plan(AgentRequest(question=question), "", Analyzer("en")).open_tasks is still_to_do


@pytest.mark.parametrize(
    ("question", "order", "amount", "when"),
    [
        # What a sentence only tells is the setting: "latest" there asks for no newest note.
        (
            "Quitting the app used to lose my latest edits. How many seconds were at risk?",
            None,
            True,
            False,
        ),
        ("Embedded PDFs only show the first page on phones. Why?", None, False, False),
        (
            "Quand je clique sur Ajouter, la note reste vide. Que faut-il vérifier ?",
            None,
            False,
            False,
        ),
        ("How do I sync? I installed the latest version.", None, False, False),
        ("最新版を入れた。いつ同期される？", None, False, True),
        # Several questions are all asked; an abbreviation ends no sentence.
        ("What changed in 2.5.1? And when did it ship?", None, False, True),
        (
            "Wie groß darf eine Datei bei Sync Standard bzw. Sync Plus höchstens sein?",
            None,
            True,
            False,
        ),
        ("When did I last feed Gus?", "newest", False, True),
        # So is a clause that tells, before a dash or a semicolon: "how often" is the setting.
        (
            "I have no idea how often I'd use a new tent — what should I do before buying it?",
            None,
            False,
            False,
        ),
        ("My latest sync failed; how long should a sync take?", None, True, False),
        # A clause opening with the words that ask, asks too.
        ("How long does a sync take — and can I speed it up?", None, True, False),
        ("sort by random — since which version?", None, False, True),
    ],
)
def test_what_a_question_asks_is_read_from_its_asking_sentences(
    question: str, order: str | None, amount: bool, when: bool
) -> None:
    searched = plan(AgentRequest(question=question), "", Analyzer("en"))
    assert (searched.order, searched.quantity, searched.when) == (order, amount, when)


@pytest.mark.parametrize(
    ("question", "section", "opening"),
    [
        ("What went badly in the retro?", "Went badly", ["Buoy 31 sent", "The runbook was"]),
        ("What went well in the Tidepool retro?", "Went well", ["Zero lost", "Alert volume"]),
        # The year of "Goals for Q4 2026" qualifies the heading: it needn't be asked.
        (
            "What are the goals for Q4?",
            "Goals for Q4 2026",
            ["Replace the nightly", "Cut false-positive", "Dashboard loads"],
        ),
        # A generic word ("made") asks nothing more; the section's units all answer, also
        # those reading further from the question than "Decided at the ... meeting".
        (
            "What decisions were made about the garden irrigation?",
            "Decision",
            ["We decided on drip lines", "Rainwater tanks", "Decided at the", "Dan orders"],
        ),
        # The note's folder says what it is ("Meetings/"): "the planning meeting" names it.
        (
            "What are the action items from the planning meeting?",
            "Action items",
            ["Maya: cut-over plan", "Me: change alert rules", "Priya: ask the research team"],
        ),
        # "Decide" names "## Decisions" (stems "decid", "decis": one word's family), though the
        # project note's "2026-10-29: planning meeting, see 2026-10-29 Tidepool Planning."
        # reads closer to the question.
        (
            "What did we decide in the Tidepool planning meeting?",
            "Decisions",
            ["Cut over to streaming", "Alert rules need", "Dashboard stays on Grafana"],
        ),
    ],
)
async def test_a_question_naming_a_section_is_answered_by_what_it_says(
    agent_index: VaultIndex, question: str, section: str, opening: list[str]
) -> None:
    # Its sentences read far from the question ("went badly" was "not covered"); its heading
    # says they answer it. The section's units, in the note's order.
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    answered = done.answer.split("**More")[0].split("_Extractive")[0]
    lines = [line for line in answered.splitlines() if line.strip()]
    assert [line[: len(start)] for line, start in zip(lines, opening, strict=False)] == opening
    assert len(lines) == len(opening), done.answer
    assert all(line.endswith(f"#{section}]]") for line in lines), done.answer


async def test_a_last_time_question_naming_a_section_is_answered_by_a_day(
    agent_index: VaultIndex,
) -> None:
    # "bake" names the recipe's "## Bake" section, whose steps read closest; the question
    # asks for the day it was last done, which a daily note tells.
    question = "When did I most recently bake the country loaf?"
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    first = done.answer.splitlines()[0]
    assert re.match(r"2026-1\d-\d\d: .*\[\[Daily/2026-1\d-\d\d#Log\]\]$", first), done.answer


def test_a_numbered_list_item_knows_its_step() -> None:
    body = (
        "1. Soak\n2) Heat\n   slowly\n\nA paragraph.\n\n1. Again\n\n2. Loose\n"
        "## Next\n3. Starts over\n- Bullet"
    )
    units = split_units(body, "Steps")
    assert [(u.text, u.step) for u in units] == [
        ("Soak", 1),
        ("Heat slowly", 2),  # wrapped onto the next line
        ("A paragraph.", 0),
        ("Again", 1),  # a new list after the paragraph
        ("Loose", 2),  # a blank line between items keeps the list
        ("Starts over", 1),  # under another heading
        ("Bullet", 0),
    ]


async def test_a_how_to_answered_by_a_step_shows_the_steps_in_order(
    agent_index: VaultIndex,
) -> None:
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), "How do I make miso soup?"))
    answered, _, more = done.answer.partition("**More")
    lines = answered.split("_Extractive")[0].strip().splitlines()
    # Not the note's opening ("Practising before the Kyoto Trip."): a how-to asks for steps.
    assert lines[0].startswith("1. Soak 10 g kombu") and "[[Recipes/Miso Soup]]" in lines[0]
    assert [line[:3] for line in lines[1:4]] == ["2. ", "3. ", "4. "], done.answer
    assert "whisk in 3 tablespoons of white miso" in lines[3]
    assert "Heat slowly" not in more and "Soak 10 g" not in more, done.answer  # not twice


def test_a_checkbox_unit_knows_whether_it_is_done() -> None:
    body = "- [x] Flights booked\n- [ ] Guesthouse\n- [/] Packing\n1. [-] Rail pass\n- Notes"
    units = split_units(body, "Bookings")
    assert [(u.text, u.open_task, u.closed_task) for u in units] == [
        ("Flights booked", False, True),
        ("Guesthouse", True, False),
        ("Packing", True, False),  # in progress: still to do
        ("Rail pass", False, True),  # cancelled
        ("Notes", False, False),
    ]


async def test_what_is_still_to_do_is_answered_by_open_checkboxes(
    agent_index: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "What is still left to book for the Kyoto trip?"
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    first = done.answer.split("**More")[0]
    open_items = ("Kyoto guesthouse", "Kinosaki ryokan", "Decide on a rail pass")
    assert first.startswith(open_items) and "[[Projects/Kyoto Trip#Bookings]]" in first, first
    # The note's open tasks are the answer, as it lists them: not its best two, then "More".
    listed = first.split("_Extractive")[0].strip().splitlines()
    assert [line.split(":")[0].split(",")[0] for line in listed] == [
        "Kyoto guesthouse",
        "Kinosaki ryokan",
        "Decide on a rail pass",
    ], first
    steps = "What are the next steps for the garden irrigation?"
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), steps))
    first = done.answer.split("**More")[0].split("_Extractive")[0]
    assert [line.split(" the ")[0] for line in first.strip().splitlines()] == [
        "Measure",
        "Draw",
        "Check",
    ], done.answer  # not "Get quotes from two suppliers", ticked off
    # Ticked off is not still to do, however close it reads ("Flights booked ... Kansai").
    flights = "What is still left to book for the flights to Kansai?"
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), flights))
    assert "Flights booked" not in done.answer, done.answer
    # Read as any question, the open items share no word with it: other notes answer first.
    plans = sys.modules[SearchPlan.__module__]  # the module: the package names its function
    monkeypatch.setattr(plans, "_OPEN_TASKS", re.compile("(?!)"))
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    assert not done.answer.startswith(open_items), done.answer


OPEN_ITEMS = (
    "Kyoto guesthouse",
    "Kinosaki ryokan",
    "Decide on a rail pass",
    "Measure the water pressure",
    "Draw the drip layout",
    "Check the Soil Test Results",
    "Maya: cut-over plan",
    "Me: change alert rules",
    "Priya: ask the research team",
)


@pytest.mark.parametrize(
    "question",
    ["What are my open tasks?", "What do I still have to do?", "Quelles sont mes tâches à faire ?"],
)
async def test_asked_only_what_is_still_to_do_the_answer_lists_the_vaults_open_tasks(
    agent_index: VaultIndex, question: str
) -> None:
    # Nothing in the question says where: the open checkboxes of every note answer it, however
    # far their words are from the question's ("what do I still have to do?" shares none).
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    answered = done.answer.split("**More")[0].split("_Extractive")[0]
    lines = [line for line in answered.splitlines() if line.strip()]
    assert len(lines) == len(OPEN_ITEMS), done.answer
    assert all(any(item in line for line in lines) for item in OPEN_ITEMS), done.answer
    for done_item in ("Flights booked", "Get quotes from two suppliers"):
        assert done_item not in done.answer
    # A meeting's action items carry its date; each note's items are listed in its order.
    assert any(line.startswith("2026-10-29: Maya: cut-over plan") for line in lines), lines
    garden = [line for line in lines if "Garden Irrigation#Next steps" in line]
    assert [line.split(" (")[0].split(" the ")[0] for line in garden] == [
        "Measure",
        "Draw",
        "Check",
    ]


@pytest.mark.parametrize(
    ("question", "today", "due"),
    [
        # Monday 16 to Sunday 22 November: the water pressure, "by 2026-11-20" (Garden).
        ("What tasks are due this week?", date(2026, 11, 18), ["Measure the water pressure"]),
        ("What is due on 2026-10-31?", date(2026, 11, 18), ["Maya: cut-over plan"]),
        # Overdue: the days before today. The meeting's items (its day, and Maya's "by 31
        # October"); a week later the water pressure's "by 2026-11-20" too.
        (
            "Which tasks are overdue?",
            date(2026, 11, 13),
            ["Me: change alert rules", "Priya: ask the research team", "Maya: cut-over plan"],
        ),
        (
            "What is overdue?",
            date(2026, 11, 21),
            [
                "Me: change alert rules",
                "Priya: ask the research team",
                "Maya: cut-over plan",
                "Measure the water pressure",
            ],
        ),
        # The meeting's note is dated 29 October: its action items are that day's.
        (
            "Which tasks are still open from 29 October?",
            date(2026, 11, 18),
            ["Maya: cut-over plan", "Me: change alert rules", "Priya: ask the research team"],
        ),
    ],
)
async def test_asked_what_is_due_on_days_the_open_tasks_writing_them_answer(
    agent_index: VaultIndex, question: str, today: date, due: list[str]
) -> None:
    context = context_for(agent_index, today)
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question, context=context))
    answered = done.answer.split("**More")[0].split("_Extractive")[0]
    lines = [line for line in answered.splitlines() if line.strip()]
    assert len(lines) == len(due), done.answer
    assert all(
        line.split(": ", 1)[1].startswith(item) for line, item in zip(lines, due, strict=True)
    ), lines
    # Each opens with the day it falls on: the one it writes, or its note's.
    assert all(line[:10] in {"2026-11-20", "2026-10-31", "2026-10-29"} for line in lines), lines


@pytest.mark.parametrize(
    ("question", "only_tasks"),
    [
        ("What are my open tasks?", True),
        ("Which tasks are still open?", True),
        ("What's on my to-do list?", True),
        ("Quelles sont mes tâches à faire ?", True),
        ("What tasks are due this week?", True),  # the days are no subject
        ("What is due on 2026-11-20?", True),
        ("What tasks are still open for the garden project?", False),  # names what about
        ("What is still left to book for the Kyoto trip?", False),
        ("Which items on the to-do list are already done?", False),
    ],
)
def test_a_question_asking_only_for_the_open_tasks_is_told_from_one_naming_a_subject(
    question: str, only_tasks: bool
) -> None:
    asked = plan(AgentRequest(question=question), "", Analyzer("en"), languages={"en", "fr"})
    assert asked.tasks_only is only_tasks


def test_a_quote_nearly_as_close_as_the_best_answers_beside_it() -> None:
    def quote(text: str, score: float) -> Quote:
        ref = NoteRef(file="Starter.md", title="Starter", heading="Feeding")
        return Quote(Unit(text, "Feeding", 0), ref, None, score)

    best, tie = quote("Feed it twice a day.", 0.80), quote("Use rye flour today.", 0.72)
    far = quote("It lives in a jar.", 0.65)
    question = SearchPlan(question="How do I feed the starter?", query="feed the starter")
    # Cosine can't tell 0.80 from 0.72 apart: both open the answer; 0.65 only supports.
    assert answer_first([best, tie, far], [best, tie, far], question) == [best, tie]


def test_a_label_answers_a_when_question_only_when_it_writes_the_time() -> None:
    def quote(file: str, text: str, score: float, label: bool) -> Quote:
        ref = NoteRef(file=file, title=file[:-3])
        unit = Unit(text, "", 0, label=label)
        return Quote(unit, ref, None, score, version=(1, 6), fits=True)

    # A callout's title over the paragraph that answers ("> [!quote] Metadata cache") opened
    # the answer: every unit of a note named by a version ("...1.6.x versions") is placed
    # in time, and the label read closest.
    title = quote("Missing tasks in 1.6.x.md", "Metadata cache", 0.95, label=True)
    cause = quote("Missing tasks in 1.6.x.md", "Obsidian 1.6.3 reported wrong lines.", 0.9, False)
    question = SearchPlan(question="Which release repairs the cache?", query="cache", when=True)
    assert answer_first([title, cause], [title, cause], question)[0] is cause
    # A label writing the time itself answers: "Released May 23, 2023" over a release's list.
    released = quote("v1.4.5.md", "Released May 23, 2023", 0.95, label=True)
    assert answer_first([released, cause], [released, cause], question)[0] is released


def test_the_sentence_after_the_best_reads_on_when_it_bears_on_the_question() -> None:
    def quote(file: str, text: str, position: int, score: float) -> Quote:
        ref = NoteRef(file=file, title=file[:-3], heading="Alternative heuristics")
        return Quote(Unit(text, "Alternative heuristics", position), ref, None, score)

    best = quote("Buy wisely.md", "*Cost per use* is not the only way to make decisions.", 0, 0.70)
    then = quote("Buy wisely.md", "Sometimes I consider cost per smile or per lesson.", 1, 0.58)
    elsewhere = quote("Money.md", "Budget before you buy anything.", 0, 0.66)
    question = SearchPlan(question="What other heuristics does it mention?", query="heuristics")
    # What the best sentence leads into answers with it, rather than a line of another note.
    quotes = [best, elsewhere, then]
    assert answer_first(quotes, quotes, question) == [best, then]
    # A next sentence that bears on the question much less is not read on into.
    unrelated = quote("Buy wisely.md", "I wrote this in a café in Lisbon last spring.", 1, 0.40)
    quotes = [best, elsewhere, unrelated]
    assert answer_first(quotes, quotes, question) == [best, elsewhere]
    # A FAQ's question read on into its reply: the reply is not said twice.
    asked = quote("2FA.md", "**Will I be logged out?** No. Enabling 2FA keeps you in.", 0, 0.7)
    reply = quote("2FA.md", "Enabling 2FA keeps you in.", 1, 0.68)
    quotes = [asked, elsewhere, reply]
    assert answer_first(quotes, quotes, question) == [asked, elsewhere]


@pytest.mark.parametrize(
    ("before", "best"),
    [
        ("Two backslashes at the end of a line are one backslash.", "This enables searching it."),
        ("Dan coordinates the community garden.", "He taught me to save seeds."),
        ("Zwei Backslashes am Zeilenende sind einer.", "Damit lässt sich danach suchen."),
        ("Deux barres obliques valent une seule.", "Cela permet de la rechercher."),
        ("Два обратных слеша в конце строки считаются одним.", "Это позволяет искать его."),
    ],
)
def test_a_sentence_referring_back_is_read_after_the_one_it_refers_to(
    before: str, best: str
) -> None:
    def quote(text: str, position: int, score: float, file: str = "Notes.md") -> Quote:
        return Quote(
            Unit(text, "Section", position), NoteRef(file=file, title=file[:-3]), None, score
        )

    prior, answer = quote(before, 0, 0.45), quote(best, 1, 0.70)
    elsewhere = quote("Another note says something close.", 0, 0.66, "Other.md")
    question = SearchPlan(question="How do I search for it?", query="search")
    quotes = [answer, elsewhere, prior]
    assert answer_first(quotes, quotes, question) == [prior, answer]
    # A sentence that refers to nothing keeps its place ("It" often doesn't: "It may sound
    # silly, but..."), and the note's next line its own.
    plain = quote("It may sound silly, but searching works on every line.", 1, 0.70)
    quotes = [plain, elsewhere, prior]
    assert answer_first(quotes, quotes, question) == [plain, elsewhere]


def test_a_quote_stands_out_only_above_another_notes() -> None:
    def quote(file: str, score: float) -> Quote:
        return Quote(Unit("A sentence.", "", 0), NoteRef(file=file, title=file), None, score)

    best = quote("Trip.md", 0.70)
    assert _stands_out(best, [best, quote("Trip.md", 0.65), quote("Gym.md", 0.35)])
    assert not _stands_out(best, [best, quote("Gym.md", 0.45)])
    # One note found: nothing to stand out from, whatever its score.
    assert not _stands_out(best, [best, quote("Trip.md", 0.10)])


def test_a_list_of_links_is_navigation_not_an_answer() -> None:
    units = split_units("- [[Writing is telepathy]]\n- [[A]], [[B]]\n- See [[C]] first.\n", "")
    assert [(u.text, u.navigation) for u in units] == [
        ("Writing is telepathy", True),
        ("A, B", True),
        ("See C first.", False),
    ]


#: Markdown a quote must read as Obsidian's reading view shows it: body -> the units quoted.
READ_AS_SHOWN = {
    # A link to a heading of the same note shows the heading: Help's "one of Obsidian's
    # [[#Default properties]]" was quoted as "one of Obsidian's .".
    "a link shows its heading, its display text or its note": (
        "The `tags` property is one of Obsidian's [[#Default properties]]. "
        "See [[Editing/Tags#Format|the tag format]] and [[Tags]].\n",
        [
            "The `tags` property is one of Obsidian's Default properties.",
            "See the tag format and Tags.",
        ],
    ),
    # Help explains its own syntax in code: the tags and links there are the answer's words,
    # not markup to read ("not processed inside `<div>`" was quoted as "inside ``").
    "code shows what it holds as written": (
        "Markdown is not processed inside `<div>`, `<span>` or other <b>HTML</b> tags. "
        "Type `[[Note#Heading]]` to link to [[Note#Heading|a heading]].\n",
        [
            "Markdown is not processed inside `<div>`, `<span>` or other HTML tags.",
            "Type `[[Note#Heading]]` to link to a heading.",
        ],
    ),
    # A release note's `<video>` (a remote clip, which the answer may not show) was quoted as
    # a sentence of its own, and showed as an empty quote; any tag goes, as in reading view.
    "HTML shows only its words": (
        "This release adds the CLI.\n\n"
        '<video width="640" controls>\n  <source src="https://example.com/cli.mp4">\n</video>\n\n'
        "Press <kbd>Ctrl</kbd> and <abbr title='Command'>Cmd</abbr> <details>here</details>.\n",
        ["This release adds the CLI.", "Press `Ctrl` and Cmd here."],
    ),
    # A link to a heading that asks ("…一起使用吗？") ended the sentence inside the link, and
    # the quote showed half a link.
    "no sentence ends inside a link or code": (
        "我们[[同步常见问题#我可以将第三方同步与 Obsidian Sync 一起使用吗？|不建议]]同时使用。"
        "不过可以备份。See [[FAQ#Is it free? Yes|the FAQ]] first. Run `git add . ` next.\n",
        ["我们不建议同时使用。", "不过可以备份。", "See the FAQ first.", "Run `git add . ` next."],
    ),
    # The reference goes; the footnote's text is a sentence of its own.
    "a footnote's markup is no word of it": (
        "Add footnotes[^1] to a note.\n\n[^1]: This is a footnote.",
        ["Add footnotes to a note.", "This is a footnote."],
    ),
    "a block id at a line's end is no word of it": (
        "- **Oceania**: Sydney, Australia ^geo",
        ["**Oceania**: Sydney, Australia"],
    ),
    "a block id on a line of its own is no line": (
        "Links work in callouts.\n^callout-links\n\nNext.",
        ["Links work in callouts.", "Next."],
    ),
    "what an image took out leaves no space before a full stop": (
        "Open it with the palette ![icon](icon.svg).",
        ["Open it with the palette."],
    ),
    "the space French writes before : and ! stays": (
        "Ouvrez les **Paramètres** : puis **Sync** !",
        ["Ouvrez les **Paramètres** : puis **Sync** !"],
    ),
}


@pytest.mark.parametrize("case", READ_AS_SHOWN, ids=str)
def test_a_quote_reads_as_obsidian_shows_the_note(case: str) -> None:
    body, quoted = READ_AS_SHOWN[case]
    assert [u.text for u in split_units(body, "")] == quoted


@pytest.mark.parametrize(
    ("body", "read"),
    [
        (
            "[`Plugin`](Plugin) › [`addIcon`](Plugin/addIcon)\n\nAdds an icon. See [[Icons]].\n",
            [("`Plugin` › `addIcon`", True), ("Adds an icon.", False), ("See Icons.", False)],
        ),
        # A link behind an icon's inline HTML points elsewhere just as well.
        (
            '- <span class="icon-app icon-notion"></span> [[Notion]]\n- Notion exports HTML.',
            [("Notion", True), ("Notion exports HTML.", False)],
        ),
    ],
)
def test_a_trail_of_links_over_a_page_is_navigation_not_an_answer(
    body: str, read: list[tuple[str, bool]]
) -> None:
    assert [(u.text, u.navigation) for u in split_units(body, "")] == read


#: A changelog: one note per release, alike in words, told apart by their versions only.
CHANGELOG = {
    "v1.2.0.md": "## Export\n- Export to PDF now keeps the page margins you set.\n",
    "v1.3.0.md": "## Export\n- Export to PDF now embeds the fonts of the note.\n",
    "v1.10.0.md": "## Export\n- Export to PDF now adds a table of contents.\n",
    "v1.9.0.md": "## Sync\n- Sync now retries when the connection drops.\n",
    "v1.4.0.md": "## Canvas\n- Introducing Canvas: lay your notes out on an infinite board.\n",
    "v1.6.0.md": "## Canvas\n- Canvas boards now arrive with coloured cards.\n",
    "Guides/Export.md": "# Export\n\nExport to PDF from the File menu: pick the pages, the "
    "paper size and the margins.\n",
    "Daily/2026-01-05.md": "Tidied the garden shed and oiled the hinges.\n",
    "Plans.md": "# Plans\n\nThe Pro plan adds sync and publishing to the app. "
    "Pro is billed to the account owner since 2024-01-10, who can cancel it from the account "
    "page.\n",
    "Films/Blade Runner.md": "---\ncategories: [Movies]\ndirector: Ridley Scott\nyear: 1982\n"
    "last: 2023-09-14\n---\n",
    "People/Steph.md": "---\ncreated: 2023-09-12\norg: Obsidian\n---\nMet at the 2023 meetup.\n",
    "Clippings/Evergreen notes.md": "---\nauthor: Steph\npublished: 2022-09-16\n---\n"
    "Evergreen notes turn ideas into objects you can manipulate.\n",
    "Meetings/2023-10-02 Reading group.md": "# Reading group\n\nWe argued about Steph's "
    "ideas on writing.\n",
    "Guides/Icons.md": "# Icons\n\nPlugins can add their own custom icons to the app.\n\n"
    "Call addIcon() with the SVG:\n\n```ts\nthis.addIcon('dice', '<circle cx=\"50\" />');\n```\n",
    "Billing/FAQ.md": "# Billing FAQ\n\n**Can I get my money back for the Pro plan?**\n\nYes: "
    "every purchase is refunded in full within 7 days.\n\n**Does cancelling sign me out of my "
    "devices?**\nNo. Every device stays signed in until the paid month ends.\n",
    "Guides/Weekly review.md": "# Weekly review\n\n## Motivation\n\nI keep a review list in "
    "my weekly note.\n\nHow can I list the notes changed since Sunday without typing the "
    "date every week?\n\n## Short answer\n\nSearch with `modified after last "
    "sunday` instead.\n\n## The long way\n\nType the day by hand each week, as in "
    "`modified after 2024-05-05`.\n",
    "Recipes/Plum tart.md": "---\nlast: 2024-05-02\n---\n# Plum tart\n\n"
    + "".join(f"- Bake step {n}: bake the tart shell for {n} minutes more.\n" for n in range(30)),
    "Advice.md": "# Advice\n\n- Separate the processes of creation from improving. You can't "
    "write and edit, or sculpt and polish, at the same time.\n- Always demand a deadline.\n",
    "Guides/Urgency.md": "# Urgency\n\nSorting by urgency puts finished tasks among open "
    "ones, which gives misleading results. Filter out the done tasks first. Urgency also "
    "counts how late overdue tasks are.\n",
    "Guides/Sorting.md": "# Random sorting\n\nYour queries can sort the tasks they find "
    "randomly.\n\nThis shipped in 7.11.0.\n",
    "References/Ada Lovelace interview.md": "---\nrating: 7\nepisode: 12\n---\nAn "
    "interview about engines.\n",
    "Clippings/Bits of advice.md": "# Bits of advice\n\nAda Lovelace's advice, collected.\n\n"
    "- Being curious is worth 10 years of schooling.\n- Write the notes down tonight.\n",
    "Recipes/Apple pie.md": "# Apple pie\n\n## Directions\n\nBlind-baking the pie crust\n\n"
    "1. Roll the dough out and line the dish.\n2. Prick the base all over with a fork, so "
    "steam escapes and it does not rise.\n3. Bake for 10 minutes at 200 C.\n",
}


@pytest.fixture(scope="module")
def changelog(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[VaultIndex]:
    root = tmp_path_factory.mktemp("changelog")
    with indexed_notes(root, CHANGELOG, embedder, sparse) as index:
        yield index


async def test_a_question_naming_a_version_is_answered_from_that_version(
    changelog: VaultIndex,
) -> None:
    question = "What changed in export to PDF in 1.3.0?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    assert done.answer.splitlines()[0].endswith("[[v1.3.0#Export]]")


GUIDELINES = {
    "Guides/Plugin guidelines.md": "# Plugin guidelines\n\n"
    "## Prefer the Vault API over the Adapter API\n\n"
    "Obsidian exposes two APIs for file operations: the Vault API (`app.vault`) and the "
    "Adapter API (`app.vault.adapter`).\n\n"
    "The Vault API caches what it reads, so reading a known file again is fast, and it "
    "writes one file at a time, so two writes never race.\n\n"
    "## Avoid global styles\n\nScope your CSS to your plugin's own classes.\n",
    "Guides/Events.md": "# Events\n\nRegister events with `this.registerEvent` so they "
    "are removed when the plugin unloads.\n",
}


async def test_a_section_naming_an_identifier_answers_in_each_of_its_sentences(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    # Only the section's first sentence writes `app.vault.adapter`; the next one says why.
    question = "Why should plugins use the Vault API rather than app.vault.adapter?"
    with indexed_notes(tmp_path, GUIDELINES, embedder, sparse) as index:
        done = done_of(await ask(index, ExtractiveAnswerer(), question))
    opening = "\n".join(done.answer.splitlines()[:2])
    assert "caches what it reads" in opening, done.answer


def dependencies_page() -> str:
    """A page opening with the version that introduced its feature, then 32 sentences about
    the feature, each sharing one more word with the question below than that opening does
    ("plugin"): by shared words alone, the opening is not among the units scored."""
    facts = [
        "let one task wait for another",
        "hide blocked tasks from a query",
        "need an id on the task others wait for",
        "may tie a task to several others",
        "are set in the edit modal",
        "stop blocking once the other task is done",
        "stop blocking once the other task is cancelled",
        "use ids made of letters and digits",
    ]
    sections = [
        f"## {place}\n\n"
        + " ".join(f"In {place.lower()}, the plugin's task dependencies {fact}." for fact in facts)
        for place in ("Queries", "Editing", "Reading view", "Live preview")
    ]
    return (
        "# Blocking\n\n> [!released]\n> Task dependencies were introduced in 6.1.0.\n\n"
        + "\n\n".join(sections)
    )


async def test_a_when_question_weighs_the_sentence_writing_the_time_however_few_words_it_shares(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    notes = {
        "Guides/Blocking.md": dependencies_page(),
        "Guides/Updates.md": "# Updates\n\nEach version of the plugin brings new features.\n",
    }
    question = "Which version of the plugin brought task dependencies?"
    with indexed_notes(tmp_path, notes, embedder, sparse) as index:
        done = done_of(await ask(index, ExtractiveAnswerer(), question))
    assert done.answer.startswith("Task dependencies were introduced in 6.1.0."), done.answer


async def test_the_latest_release_comes_first_in_version_order(changelog: VaultIndex) -> None:
    question = "What did the most recent release change about export to PDF?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    # 1.10.0 is newer than 1.3.0 (numbers, not strings), and the Sync release is off-topic.
    assert done.answer.splitlines()[0].endswith("[[v1.10.0#Export]]")


async def test_a_when_question_is_answered_by_the_sentence_that_dates_it(
    changelog: VaultIndex,
) -> None:
    question = "When did queries start to support random sorting of tasks?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    # Not the sentence closest in words (what random sorting does): the one beside it that
    # says when; the closest one follows.
    first, second = done.answer.splitlines()[:2]
    assert first == "This shipped in 7.11.0. [[Guides/Sorting#Random sorting]]", done.answer
    assert second.startswith("Your queries can sort the tasks they find randomly.")


async def test_a_release_question_is_answered_by_the_first_release_that_tells_of_it(
    changelog: VaultIndex,
) -> None:
    question = "In which release did the Canvas board arrive?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    # v1.6.0 reads closer ("arrives"), but only improved what v1.4.0 introduced.
    assert done.answer.splitlines()[0].endswith("[[v1.4.0#Canvas]]"), done.answer


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        (
            "What did I write in my latest daily note?",
            "2026-11-12: [[Daily/2026-11-12]], the newest of 10 notes in Daily. It holds:",
        ),
        (
            "What was my last journal entry about?",
            "2026-11-12: [[Daily/2026-11-12]], the newest of 10 notes in Daily. It holds:",
        ),
        (
            "When was my first daily note?",
            "2026-10-27: [[Daily/2026-10-27]], the oldest of 10 notes in Daily. It holds:",
        ),
        (
            "What was my most recent meeting about?",
            "2026-11-10: [[Meetings/2026-11-10 Tidepool Retro]], the newest of 3 notes in "
            "Meetings. It holds:",
        ),
    ],
)
async def test_the_newest_or_oldest_note_of_a_series_answers_when_it_is_what_is_asked(
    agent_index: VaultIndex, question: str, opening: str
) -> None:
    # Search ranks notes by their words, and no daily note's words are "latest daily note":
    # before, the notes "didn't seem to cover" it, and the first daily note was 2 November.
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    lines = done.answer.splitlines()
    assert lines[0] == opening, done.answer
    note = opening.split("[[")[1].split("]]")[0]
    assert lines[2].startswith("- ") and f"[[{note}#" in lines[2]  # what it holds, cited


async def test_a_last_time_question_naming_what_was_done_is_not_asked_of_the_newest_note(
    agent_index: VaultIndex,
) -> None:
    # "Gus" is in nine of the ten daily notes, "feed" in four: the newest note that bears on
    # feeding answers, not the newest note.
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), "When did I last feed Gus?"))
    assert "the newest of" not in done.answer and "Daily/2026-11-12" not in done.answer


async def test_the_latest_release_is_the_highest_version_at_the_changelogs_top(
    changelog: VaultIndex,
) -> None:
    done = done_of(await ask(changelog, ExtractiveAnswerer(), "What's new in the latest release?"))
    # 1.10.0 is newer than 1.9.0 (numbers, not strings); the notes outside the series (the
    # guide, the plans, the daily note) are none of its six.
    first = done.answer.splitlines()[0]
    assert first == "1.10.0: [[v1.10.0]], the newest of 6 notes at the top of the vault. It holds:"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), "When was the very first release?"))
    assert done.answer.startswith("1.2.0: [[v1.2.0]], the oldest of 6 notes"), done.answer


async def test_a_journal_of_two_notes_is_a_series_and_an_empty_note_says_so(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    # kepano's vault keeps two daily notes, each a heading over an embedded base: "show me my
    # latest daily note" was "not covered" (a series needed three), then "It holds:" and
    # nothing.
    notes = {
        "Daily/2023-09-12.md": "## Notes\n\nWalked to the lake with Tomás.\n",
        "Daily/2023-09-30.md": "## Notes\n\n![[Daily.base]]\n",
        "Lake.md": "# Lake\n\nA walk of an hour, around the water.\n",
    }
    with indexed_notes(tmp_path, notes, embedder, sparse) as index:
        done = done_of(await ask(index, ExtractiveAnswerer(), "Show me my latest daily note."))
    assert done.answer.splitlines()[0] == (
        "2023-09-30: [[Daily/2023-09-30]], the newest of 2 notes in Daily. "
        "It holds no sentence to quote."
    ), done.answer


#: Many releases fixing a feature in the question's words, after the one that introduced it.
RANDOM_NOTE_RELEASES = {
    "v0.5.2.md": "## Shiny new things\n- Another new plugin: Open random note. It does what it "
    "says!\n- Panes can be resized.\n",
    **{
        f"v0.{minor}.0.md": f"## No longer broken\n- Random note: no longer opens the same "
        f"note twice (fix {minor}).\n"
        for minor in range(6, 26)
    },
    "Daily/2026-01-05.md": "Tidied the garden shed.\n",  # the tests' "today"
}


#: A feature renamed in one release, in the question's words, and changed in a later one.
FOCUS_MODE_RELEASES = {
    "v0.9.0.md": '## Improved\n- "Zen mode" has been renamed to "Focus mode".\n'
    "- Panes can be resized.\n",
    "v1.2.0.md": "## Improved\n- Word count now counts words in tables.\n",
    "v1.4.0.md": "## Editor\n- Added a command to leave Focus Mode without closing your panes.\n",
    "v1.5.0.md": "## Fixed\n- The sidebar no longer flickers on startup.\n",
    "Daily/2026-01-05.md": "Tidied the garden shed.\n",  # the tests' "today"
}


@pytest.mark.parametrize(
    ("releases", "question", "cited"),
    [
        # Twenty later releases rank before the one that introduced the feature; the answer
        # is the oldest that bears on it, which a search of the closest 12 passages leaves out.
        (
            RANDOM_NOTE_RELEASES,
            "When did the feature for opening a random note first show up?",
            "[[v0.5.2#Shiny new things]]",
        ),
        # The rename names "Focus mode" twice and reads closer than the later change; every
        # release line about the feature changed it, so the newest of them answers.
        (FOCUS_MODE_RELEASES, "What was the last change to Focus mode?", "[[v1.4.0#Editor]]"),
    ],
    ids=["first, past the closest releases", "last, past a closer rename"],
)
async def test_a_first_or_last_question_takes_the_oldest_or_newest_release_that_bears_on_it(
    tmp_path: Path,
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
    releases: dict[str, str],
    question: str,
    cited: str,
) -> None:
    with indexed_notes(tmp_path, releases, embedder, sparse) as index:
        done = done_of(await ask(index, ExtractiveAnswerer(), question))
    assert done.answer.splitlines()[0].endswith(cited), done.answer


PLANS = {
    "Sync plans.md": "# Sync plans\n\nSync Plus stores up to 100 GB of notes and keeps 12 "
    "months of version history.\n",
    "Catalyst.md": "# Catalyst\n\nThe Catalyst license costs $25, paid once.\n",
    "Daily/2026-01-05.md": "Tidied the garden shed.\n",  # the tests' "today"
}


def test_reading_what_a_long_question_asks_takes_linear_time() -> None:
    # Found by the complexity audit: a sentence's ending was read again from each of its
    # marks ("?" * 8,000: 1.5 s on the event loop, for the longest question accepted).
    started = time.thread_time()
    asking_sentences("?" * 7_999 + "x")
    assert time.thread_time() - started < 0.1


async def test_the_question_is_read_off_the_event_loop(
    agent_index: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reading a question of 8,000 characters takes a quarter of a second: on the event loop,
    # every other request of the server would wait for it.
    threads: list[threading.Thread] = []

    def recorded(*args: Any, **kwargs: Any) -> SearchPlan:
        threads.append(threading.current_thread())
        return plan(*args, **kwargs)

    monkeypatch.setattr(agent_loop, "plan", recorded)
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), "When did I last feed Gus?"))
    assert done.answer and threads and threading.main_thread() not in threads


@pytest.mark.parametrize(
    ("question", "price"),
    [
        ("And roughly how much does that option cost?", True),
        ("What's the price of the Catalyst license?", True),
        ("¿Cuánto cuesta Publish?", True),
        ("Сколько стоит Sync?", True),
        ("Syncはいくらですか？", True),
        # A ratio answers a comparison ("about four times as much").
        ("How much more do the wool socks cost than cheap ones?", False),
        ("How much storage does Sync Plus have?", False),
    ],
)
def test_a_question_asking_a_price_is_read_in_many_languages(question: str, price: bool) -> None:
    assert plan(AgentRequest(question=question), "", Analyzer("en")).price is price


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        ("How much does Sync Plus cost per month?", NOT_COVERED),
        ("Wie viel kostet Sync Plus im Monat?", NOT_COVERED),
        ("How much does the Catalyst license cost?", "The Catalyst license costs $25"),
    ],
)
async def test_a_price_is_answered_by_money_not_by_other_numbers(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder, question: str, opening: str
) -> None:
    # Sync's note counts gigabytes and months: no price, whatever its numbers.
    with indexed_notes(tmp_path, PLANS, embedder, sparse) as index:
        done = done_of(await ask(index, ExtractiveAnswerer(), question))
    assert done.answer.startswith(opening), done.answer


async def test_a_property_answers_when_the_question_asks_for_it(changelog: VaultIndex) -> None:
    # A note of properties alone (a film log): the property the question names answers it.
    question = "When did I last watch Blade Runner?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    assert done.answer.splitlines()[0] == "last: 2023-09-14 [[Films/Blade Runner]]", done.answer
    done = done_of(await ask(changelog, ExtractiveAnswerer(), "Who directed Blade Runner?"))
    assert done.answer.splitlines()[0] == "director: Ridley Scott [[Films/Blade Runner]]"
    # Named by its title, the note is asked about whole: its properties answer, though the
    # question names none of them.
    done = done_of(await ask(changelog, ExtractiveAnswerer(), "What about Blade Runner?"))
    first = done.answer.splitlines()[0]
    assert first.endswith("[[Films/Blade Runner]]") and not first.startswith(NOT_COVERED)


async def test_a_property_the_question_names_is_weighed_among_many_close_sentences(
    changelog: VaultIndex,
) -> None:
    # Thirty steps share the question's words ("bake", "tart"); the property answers it.
    done = done_of(await ask(changelog, ExtractiveAnswerer(), "When did I last bake the tart?"))
    assert done.answer.splitlines()[0] == "last: 2024-05-02 [[Recipes/Plum tart]]", done.answer


async def test_a_property_the_question_names_dates_its_note_over_other_dated_notes(
    changelog: VaultIndex,
) -> None:
    # The meeting's date is when Steph's ideas were discussed; the property says when the
    # post was published, and answers a first-time question whatever other notes are dated.
    question = "When did Steph first publish the post on evergreen notes?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    first = done.answer.splitlines()[0]
    assert first == "published: 2022-09-16 [[Clippings/Evergreen notes]]", done.answer


async def test_a_note_named_and_asked_something_more_is_not_answered_by_its_properties(
    changelog: VaultIndex,
) -> None:
    question = "What is the most famous line of dialogue in Blade Runner?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    # The note holds its director, year and categories: none says anything of dialogue.
    for line in ("categories: Movies", "director: Ridley Scott", "year: 1982"):
        assert line not in done.answer, done.answer


async def test_a_number_in_a_property_nobody_asked_for_does_not_answer_an_amount(
    changelog: VaultIndex,
) -> None:
    question = "According to Ada Lovelace's advice, how much is being curious worth?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    # The podcast's `rating: 7` reads close with its title; the advice says the amount.
    quotes = [line for line in done.answer.splitlines() if "[[" in line]
    assert quotes[0].startswith("Being curious is worth 10 years"), done.answer


async def test_a_count_is_answered_only_by_a_number_of_what_it_counts(
    changelog: VaultIndex,
) -> None:
    # The pie's numbers count minutes and degrees, not calories.
    calories = "How many calories are in a slice of the apple pie?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), calories))
    assert done.answer.startswith(NOT_COVERED), done.answer
    minutes = "How many minutes do I bake the apple pie crust?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), minutes))
    assert "Bake for 10 minutes" in done.answer.split("**More")[0], done.answer


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("Up to 500 characters.", True),
        ("Bake 1.5 hours at 180 C.", True),
        ("Introduced in Tasks 7.20.0.", False),
        ("Since v1.4, properties are typed.", False),
        ("published: 2021-04-15", False),
        ("imdbId: tt0083658", False),
        ("isbn13: 9780201483406", False),
        ("Call 0612345678 for the key.", False),
        ("The shard holds 1,250,000,000 vectors.", True),
        ("Hashes use sha256, videos H264.", False),
        ("Preheat to 425F.", True),
        ("約3時間かかります。", True),
    ],
)
def test_a_date_a_release_or_an_identifier_is_no_amount(text: str, amount: bool) -> None:
    # "What is the maximum number of presets?" is not answered by the release that added them,
    # "how long is the film?" not by its IMDb identifier.
    assert holds_amount(text) is amount


@pytest.mark.parametrize(
    ("text", "language", "amount"),
    [
        ("We picked nearly two kilos.", "en", True),
        ("Twenty-one people came.", "en", True),
        ("Nästan två kilo kantareller.", "sv", True),
        ("Vattnet var bara fjorton grader.", "sv", True),
        ("Ninh xương trong mười hai tiếng.", "vi", True),
        ("Wir brauchen drei Eier.", "de", True),
        ("Ett recept från mormor.", "sv", False),  # "ett" (one) is also "a"
        ("Gọi cho ba tôi.", "vi", False),  # "ba" (three) is also "dad"
        ("Someone often pitched a tent.", "en", False),  # "one", "ten" inside words
        ("We picked nearly two kilos.", "sv", False),  # words of the vault's languages only
    ],
)
def test_a_number_written_as_a_word_is_an_amount(text: str, language: str, amount: bool) -> None:
    assert holds_amount(text, [language]) is amount


@pytest.mark.parametrize(
    ("question", "text", "often"),
    [
        ("How often do I water the tomatoes?", "I water them every morning.", True),
        ("Wie oft gieße ich die Tomaten?", "Ich gieße sie täglich.", True),
        ("¿Con qué frecuencia riego?", "Riego una vez a la semana.", True),
        ("多久一次浇水？", "我每天浇水。", True),
        # Counting what happened is no rate: "every" is no answer to it.
        ("How many times did I water them?", "I water them every morning.", False),
        ("How often do I water the tomatoes?", "I water them when the soil is dry.", False),
    ],
)
def test_asked_how_often_a_routine_in_words_is_an_amount(
    question: str, text: str, often: bool
) -> None:
    asked = plan(AgentRequest(question=question), "", Analyzer("en"))
    assert asked.quantity
    assert holds_amount(text, ["en", "de", "es", "zh"], asked.often) is often


async def test_how_often_is_answered_by_the_routine(agent_index: VaultIndex) -> None:
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), "How often do I feed the starter?"))
    # "once a day", "once a week": not "He peaks 6 to 8 hours after a feed", the one number.
    assert "once a" in done.answer.splitlines()[0], done.answer


async def test_the_date_a_note_was_written_answers_no_other_when(changelog: VaultIndex) -> None:
    done = done_of(await ask(changelog, ExtractiveAnswerer(), "When is Steph's birthday?"))
    assert "created: 2023-09-12" not in done.answer, done.answer
    done = done_of(await ask(changelog, ExtractiveAnswerer(), "When was the Steph note created?"))
    assert done.answer.splitlines()[0].startswith("created: 2023-09-12"), done.answer


async def test_a_question_in_the_notes_is_answered_by_what_follows_it(
    changelog: VaultIndex,
) -> None:
    question = "Can I get my money back for the Pro plan?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    assert done.answer.startswith("Yes: every purchase is refunded in full"), done.answer
    # A bare "No." after the question says nothing on its own: the reason after it is read on.
    question = "Will I be signed out of my devices when I cancel?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    first = done.answer.splitlines()[0]
    assert "No. Every device stays signed in until the paid month ends." in first, done.answer


async def test_a_question_closing_its_section_is_answered_by_the_next_one(
    changelog: VaultIndex,
) -> None:
    # A how-to page asks its question at the end of one section and answers it at the start
    # of the next ("## Motivation ... How can I...? / ## Short answer").
    question = "How do I list the notes changed since Sunday without typing the date every week?"
    done = done_of(await ask(changelog, ExtractiveAnswerer(), question))
    first = done.answer.splitlines()[0]
    assert first.startswith("Search with `modified after last sunday` instead."), done.answer
    assert first.endswith("[[Guides/Weekly review#Short answer]]"), done.answer


async def test_an_amount_the_notes_never_state_is_not_covered(changelog: VaultIndex) -> None:
    # The note's one number is a date: it says when, not how much.
    done = done_of(await ask(changelog, ExtractiveAnswerer(), "How much does the Pro plan cost?"))
    assert done.answer.startswith(NOT_COVERED), done.answer
    # Asked what it is, the same note answers.
    done = done_of(await ask(changelog, ExtractiveAnswerer(), "What does the Pro plan add?"))
    assert done.answer.splitlines()[0].startswith("The Pro plan adds sync")


async def test_auto_profile_without_key_or_ollama_answers_extractively(
    agent_index: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    monkeypatch.setenv("OLLAMA_HOST", f"http://127.0.0.1:{_free_port()}")
    model, why = await select_model(LlmSettings(), ExtractiveAnswerer)
    assert isinstance(model, ExtractiveAnswerer) and "Using extractive answers" in why
    done = done_of(await ask(agent_index, model, FEED_QUESTION))
    assert done.profile == "extractive" and done.sources


async def test_auto_profile_prefers_a_running_ollama(
    agent_index: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    script = [FakeTurn.text("Your notes don't say.")]
    async with fake_provider("ollama", script) as (url, _):
        monkeypatch.setenv("OLLAMA_HOST", url)
        model, why = await select_model(LlmSettings(), ExtractiveAnswerer)
        assert isinstance(model, OllamaModel) and "Ollama answered" in why
        done = done_of(await ask(agent_index, model, "Anything?"))
        await model.aclose()
    assert done.profile == "ollama" and done.model == "qwen2.5:3b"


def test_cli_ask_answers_offline_with_the_extractive_profile(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    session_models: TextModels,
) -> None:
    """The README's demo: a fresh index of examples/vault, no key, no Ollama."""
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    monkeypatch.setenv("OLLAMA_HOST", f"http://127.0.0.1:{_free_port()}")
    monkeypatch.setenv("VAULT_AGENT_DATA_DIR", str(tmp_path / "data"))
    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    result = CliRunner().invoke(
        app,
        [
            "ask",
            FEED_QUESTION,
            "--vault",
            str(vault),
            "--verbose",
            "--note",
            "Recipes/Sourdough Starter.md",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Using extractive answers (no language model)" in result.stderr
    assert '→ search_notes {"query": "When did I last feed' in result.stderr
    assert "← " in result.stderr
    assert "extractive (sentences from your notes), 1 turns" in result.stderr
    answer = result.stdout
    # The note the user points at is context, not a filter: the day he was last fed comes first.
    assert answer.startswith("2026-11-11: Fed the sourdough starter")
    assert "\nSources:\n- [[Daily/2026-11-11#Log]]" in answer
    assert not list((vault).rglob("*.json")), "nothing may be written into the vault"

    again = CliRunner().invoke(app, ["ask", "Who is Maya?", "--vault", str(vault), "--no-sync"])
    assert again.exit_code == 0, again.output
    assert "[[People/Maya Okafor" in again.stdout


def test_cli_ask_rejects_an_unknown_profile(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["ask", "x", "--vault", str(tmp_path), "--profile", "gpt"])
    assert result.exit_code == 2 and "unknown profile 'gpt'" in result.stderr


@pytest.mark.parametrize(
    ("question", "reason"),
    [("", "at least 1 character"), ("x" * 8_001, "at most 8000 characters")],
)
def test_cli_ask_refuses_a_question_the_api_would_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, question: str, reason: str
) -> None:
    monkeypatch.setenv("VAULT_AGENT_DATA_DIR", str(tmp_path / "data"))
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Note.md").write_text("# Note\n\nA line.\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["ask", question, "--vault", str(vault)])
    assert result.exit_code == 2, result.output
    assert f"error: question: String should have {reason}" in result.stderr
    assert "Traceback" not in result.output


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.parametrize(
    ("question", "when"),
    [
        ("When did I last feed the starter?", True),
        ("When's the garden committee meeting?", True),
        ("The Canvas board was released when?", True),
        ("In which release did Bases show up?", True),
        # What was released may come between: "which *Tasks* release", "which *mobile app*
        # version"; a verb may not ("what did version 1.13.0 change?" names the version).
        ("Which Tasks release introduced presets?", True),
        ("In which mobile app version did Canvas arrive?", True),
        ("What did version 1.13.0 change about URIs?", False),
        ("Seit wann gibt es Lesezeichen?", True),
        ("什么时候添加了书签?", True),
        # A date asked for by name, without a question word.
        ("Publication date of the 'In good hands' article", True),
        ("Date de la réunion avec Steph", True),
        ("Can it fill in the done date for me too?", False),
        # "when" before its subject sets a condition: the question asks something else.
        ("When I use Dataview format, does Tasks read the frontmatter?", False),
        ("What happens when a reading fails validation?", False),
    ],
)
def test_a_question_asks_when_only_with_when_before_a_verb(question: str, when: bool) -> None:
    request = AgentRequest(question=question)
    assert plan(request, "", Analyzer("en")).when is when


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Quando ho annaffiato le piante l'ultima volta?", "newest"),
        ("Qual foi a primeira vez que usei o Canvas?", "oldest"),
        ("Wanneer heb ik de tuin voor het laatst bewaterd?", "newest"),
        ("Kiedy ostatnio karmiłem zakwas?", "newest"),
        ("Ekşi mayayı en son ne zaman besledim?", "newest"),
        ("스타터에 마지막으로 먹이를 준 게 언제야?", "newest"),
        ("Quanti grammi di farina servono?", "quantity"),
        ("Hoeveel kost het abonnement?", "quantity"),
        ("Ile kosztuje subskrypcja?", "quantity"),
        ("Is there a maximum number of cards a canvas can hold?", "quantity"),
        ("Gibt es eine Obergrenze für Anhänge?", "quantity"),
        ("Y a-t-il une limite de taille pour les fichiers ?", "quantity"),
        ("ファイルサイズの上限はありますか？", "quantity"),
        # An amount asked after the words asking a way or a place is a clause of the question:
        # it asks for the way or the place, which holds no number.
        ("How can I check how long the app takes to start?", "how_to"),
        ("Where in settings can I see how much space my vault uses?", None),
        ("Wo sehe ich, wie lange der Start gedauert hat?", None),
        ("When I buy something big, how much should I spend on upkeep?", "quantity"),
        ("Is there a way to export a canvas?", None),
        ("Come posso esportare una nota in PDF?", "how_to"),
        ("Hoe kan ik een notitie exporteren?", "how_to"),
        ("Notu nasıl dışa aktarırım?", "how_to"),
        ("Em que versão apareceu o Canvas?", "when"),
        ("Sinds wanneer bestaat Canvas?", "when"),
        ("Chi è Maya?", None),
        ("Maya ile Tomás kimdir?", None),  # Turkish "ile" is "and", not Polish "how much"
        ("Wat is Canvas?", None),
        ("متى أضيفت ميزة اللوحة؟", "when"),
        ("كم صفحة في الكتاب؟", "quantity"),
        ("كيف أصدّر ملاحظة؟", "how_to"),
        ("متى أطعمت الخميرة آخر مرة؟", "newest"),
        ("هل هناك طريقة أخرى؟", None),
        ("ต้องดองผักกาดกี่ชั่วโมง", "quantity"),
        ("โน้ตนี้เกี่ยวกับอะไร", None),  # "เกี่ยวกับ" (about) holds the letters of กี่
        ("ส่งออกโน้ตเป็น PDF ได้อย่างไร", "how_to"),
        ("ฟีเจอร์นี้มาในเวอร์ชันไหน", "when"),
        ("白菜要醃幾個小時？", "quantity"),
        ("मैंने आखिरी बार स्टार्टर को कब खिलाया?", "newest"),
        ("आटा कितना चाहिए?", "quantity"),
        ("नोट को PDF में कैसे निर्यात करूँ?", "how_to"),
        ("कैनवास किस संस्करण में आया?", "when"),
        ("माया कौन है?", None),
        ("कबूतर किसका है?", None),  # "कब" (when) begins "कबूतर" (pigeon)
        ("這個功能是哪個版本加入的？", "when"),
        ("Lần cuối tôi tưới cây lan là khi nào?", "newest"),
        ("Ninh xương bò bao lâu?", "quantity"),
        ("Làm thế nào để xuất ghi chú sang PDF?", "how_to"),
        ("Tôi đọc xong cuốn sách khi nào?", "when"),
        ("Ai viết cuốn sách này?", None),
        ("Kapan terakhir kali saya menyiram tanaman?", "newest"),
        ("Berapa lama adonan harus mengembang?", "quantity"),
        ("Siapa Maya?", None),
        ("När plockade jag lingon senast?", "newest"),
        ("Hur länge ska bullarna gräddas?", "quantity"),
        ("Hvornår vandede jeg sidst planterne?", "newest"),
        ("Hvordan kan jeg eksportere en note?", "how_to"),
        ("Når kom Canvas for første gang?", "oldest"),
        ("Hvem er Maya?", None),
        # How, a verb, and who does it; an amount asked after it is no amount asked.
        ("Wie lege ich den Ordner für neue Notizen fest?", "how_to"),
        ("Wie stelle ich ein, wie viele Ebenen der Graph zeigt?", "how_to"),
        ("Wie lange habe ich Zeit für eine Erstattung?", "quantity"),
        ("Wie oft gieße ich die Tomaten?", "quantity"),
    ],
)
def test_what_a_question_asks_for_is_read_in_many_languages(
    question: str, kind: str | None
) -> None:
    asked = plan(AgentRequest(question=question), "", Analyzer("en"))
    found = {
        "newest": asked.order == "newest",
        "oldest": asked.order == "oldest",
        "quantity": asked.quantity,
        "how_to": asked.how_to,
        "when": asked.when and asked.order is None,
    }
    assert [name for name, yes in found.items() if yes] == ([kind] if kind else [])


async def test_a_question_about_a_selection_is_answered_by_what_the_selected_line_goes_on_to_say(
    changelog: VaultIndex,
) -> None:
    request = AgentRequest(
        question="Why does that matter?",
        selection="Separate the processes of creation from improving.",
        active_note=ActiveNote(path="Advice.md"),
    )
    first = done_of(await ask(changelog, ExtractiveAnswerer(), request)).answer.splitlines()[0]
    assert first.startswith("You can't write and edit, or sculpt and polish"), first


async def test_a_question_about_a_selection_is_answered_by_what_follows_it(
    changelog: VaultIndex,
) -> None:
    request = AgentRequest(
        question="How do I get around that?",
        selection="Sorting by urgency puts finished tasks among open ones, which gives "
        "misleading results.",
        active_note=ActiveNote(path="Guides/Urgency.md"),
    )
    first = done_of(await ask(changelog, ExtractiveAnswerer(), request)).answer.splitlines()[0]
    assert first.startswith("Filter out the done tasks first."), first


def test_units_after_a_selection_count_from_the_rest_of_the_unit_holding_it() -> None:
    whole = [Selected("A.md", chunk=0, position=2, goes_on=False)]
    assert [units_after("A.md", 0, p, whole) for p in range(5)] == [0, 0, 0, 1, 2]
    assert units_after("A.md", 1, 0, whole) == 1  # the next chunk starts after it
    assert units_after("B.md", 0, 3, whole) == 0  # another note
    # The selection is the start of unit 2: the rest of that unit comes first, then unit 3.
    going_on = [Selected("A.md", chunk=0, position=2, goes_on=True)]
    assert [units_after("A.md", 0, p, going_on) for p in (1, 2, 3)] == [0, 1, 2]


def test_splitting_a_line_of_opening_code_tags_takes_linear_time() -> None:
    # Found by the complexity audit: an inline <code> was read to the line's end from each
    # opening tag (0.4 s for 16,000 characters, in every answer quoting such a chunk).
    started = time.thread_time()
    split_units("<code>" * 6_000 + "\n", "")
    assert time.thread_time() - started < 0.1


async def test_a_heading_of_a_pasted_megabyte_line_is_read_in_part(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Minified JSON over "---" is a setext heading: each sentence under it was embedded with
    # all of it (a 1.5 MB line: 69 s and 13.9 GB to answer).
    blob = '{"items": [' + ", ".join(f'{{"id": {i}, "state": "open"}}' for i in range(4000)) + "]}"
    notes = {"Export.md": f"Raw export:\n\n{blob}\n---\n\nWe water the garden with drip lines.\n"}
    read: list[int] = []
    with indexed_notes(tmp_path, notes, embedder, sparse) as index:
        embed = index.embedder.embed_documents

        def recording(texts: list[str]) -> list[Vector]:
            read.extend(len(text) for text in texts)
            return embed(texts)

        monkeypatch.setattr(index.embedder, "embed_documents", recording)
        done = done_of(await ask(index, ExtractiveAnswerer(), "How do we water the garden?"))
    assert done.answer
    assert read and max(read) < 1_000, max(read)
