"""A journal of two years of daily notes alike in words, asked about its days.

Every note has the same template (a log of three activities from one list, a mood) and only its
file name tells the days apart: "what did I do on 3 June 2023?" shares no word with its note
that 700 others don't share too. The days a question names (written out, without a year, as a
month, or relative to today) are searched on their own (`index/search/dated.py`), and a
question asking what a week held is answered day by day.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_helpers import ask, context_for, done_of
from vault_agent.agent.extractive import ExtractiveAnswerer
from vault_agent.agent.extractive.plan import plan
from vault_agent.agent.request import AgentRequest
from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.embed.terms import Analyzer
from vault_agent.index.search import searcher as searcher_module
from vault_agent.index.search.dated import dated_in
from vault_agent.index.search.hints import query_hints, span, within
from vault_agent.index.search.relative_dates import Period
from vault_agent.index.vault_index import VaultIndex

FIRST_DAY, LAST_DAY = date(2023, 1, 1), date(2024, 12, 31)
#: The day after the journal's last week: "last week" is its last Monday to Sunday.
TODAY = date(2025, 1, 8)
ACTIVITIES = (
    "went for a run along the river", "worked on the quarterly report", "called mum",
    "cooked lentil soup", "read a chapter of Middlemarch", "fixed the bike's brakes",
    "met Sara for coffee", "cleaned the kitchen", "planted tomatoes", "wrote emails all morning",
    "watched a film", "visited the library", "practised guitar", "paid the electricity bill",
    "went swimming", "baked bread", "repaired the fence", "had a dentist appointment",
)  # fmt: skip
MOODS = ("tired", "happy", "calm", "restless", "focused", "anxious")


@pytest.fixture(scope="module")
def journal(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[VaultIndex]:
    root = tmp_path_factory.mktemp("journal")
    folder = root / "vault" / "Journal"
    folder.mkdir(parents=True)
    pick = random.Random(7)
    day = FIRST_DAY
    while day <= LAST_DAY:
        log = "\n".join(f"- {activity}" for activity in pick.sample(ACTIVITIES, 3))
        text = f"# {day}\n\n## Log\n{log}\n\n## Mood\nFelt {pick.choice(MOODS)} today.\n"
        (folder / f"{day}.md").write_text(text, encoding="utf-8")
        day += timedelta(days=1)
    settings = Settings(vault=root / "vault", data_dir=root / "data")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        yield index


def days_found(index: VaultIndex, question: str, limit: int = 5) -> list[str]:
    hits = index.searcher.search(question, limit=limit, today=TODAY)
    return [Path(hit.file).stem for hit in hits]


@pytest.mark.parametrize(
    "question", ["What did I do on 3 June 2023?", "Who did I meet on 9 September 2023?"]
)
def test_a_day_written_out_finds_its_note_among_hundreds_alike(
    journal: VaultIndex, question: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    wanted = str(span(next(iter(query_hints(question).dates))).first)  # type: ignore[union-attr]
    assert days_found(journal, question)[0] == wanted
    # Without searching that day's notes on their own, the vault's best matches are other
    # days: the date boost has no candidate of that day to lift.
    monkeypatch.setattr(searcher_module, "dated_filters", lambda *_: [])
    assert wanted not in days_found(journal, question)


def test_a_day_without_its_year_finds_that_day_of_each_year(journal: VaultIndex) -> None:
    found = days_found(journal, "What did I do on March 14th?")
    assert set(found[:2]) == {"2024-03-14", "2023-03-14"}


def test_a_month_finds_its_days_and_is_no_missing_name(journal: VaultIndex) -> None:
    question = "What did I do in March 2024?"
    assert all(day.startswith("2024-03-") for day in days_found(journal, question))
    confidence = journal.searcher.retrieve(question, today=TODAY).confidence
    assert not confidence.low and confidence.missing_names == ()


def test_a_month_alone_asked_of_the_past_is_the_latest_one(journal: VaultIndex) -> None:
    # The journal holds two Marches (2023 and 2024); today is 8 January 2025.
    march = days_found(journal, "What did I do in March?")
    assert march and all(day.startswith("2024-03-") for day in march), march
    december = days_found(journal, "Where did I go in December?")
    assert december and all(day.startswith("2024-12-") for day in december), december


def test_a_month_alone_is_the_latest_one_the_journal_holds(journal: VaultIndex) -> None:
    # Asked in 2026 of a journal kept until 2024: its own last March, not "not covered".
    later = date(2026, 6, 1)
    question = "What did I do in March?"
    march = [Path(hit.file).stem for hit in journal.searcher.search(question, limit=5, today=later)]
    assert march and all(day.startswith("2024-03-") for day in march), march
    assert journal.searcher.retrieve(question, today=later).confidence.missing_names == ()
    analyzer = journal.searcher.sparse.analyzer
    asked = plan(
        AgentRequest(question=question), "", analyzer, later, ("en",), dated_in(journal.store)
    )
    assert asked.days == {"2024-03"}
    # Without a journal to ask, the latest March is this year's, as before.
    assert plan(AgentRequest(question=question), "", analyzer, later, ("en",)).days == {"2026-03"}


def test_days_relative_to_today(journal: VaultIndex) -> None:
    # The journal's last week: Monday 30 December 2024 to Sunday 5 January 2025.
    last_week = days_found(journal, "What did I do last week?")
    assert set(last_week[:2]) == {"2024-12-31", "2024-12-30"}
    assert all(day.startswith("2024-12-") for day in days_found(journal, "Last month?"))
    # No note yesterday: honestly not covered, rather than any day's log.
    yesterday = journal.searcher.retrieve("What did I do yesterday?", today=TODAY).confidence
    assert yesterday.low and yesterday.missing_names == ("2025-01-07",)
    # Today is not over: its note may be unwritten yet, and "today's note" is a how-to.
    now = journal.searcher.retrieve("What's in today's note?", today=TODAY).confidence
    assert now.missing_names == ()


async def test_asked_what_a_week_held_each_day_answers_in_date_order(
    journal: VaultIndex,
) -> None:
    context = context_for(journal, TODAY)
    done = done_of(
        await ask(journal, ExtractiveAnswerer(), "What did I do last week?", context=context)
    )
    first = done.answer.split("\n\n")[0].splitlines()
    # The journal's last week holds two notes: each answers a line, dated, in date order.
    assert [line[:11] for line in first] == ["2024-12-30:", "2024-12-31:"], done.answer
    assert "[[Journal/2024-12-30#" in first[0] and "[[Journal/2024-12-31#" in first[1]


async def test_a_month_alone_asked_after_the_journal_ended_is_answered_from_its_last_one(
    journal: VaultIndex,
) -> None:
    # The journal was kept until 2024; in June 2026 "in March" is its last March, not 2026's.
    context = context_for(journal, date(2026, 6, 1))
    question = "Did I go swimming in March?"
    done = done_of(await ask(journal, ExtractiveAnswerer(), question, context=context))
    first = done.answer.split("\n\n")[0].splitlines()
    assert first and all(line.startswith("2024-03-") for line in first), done.answer
    assert all("went swimming [[Journal/2024-03-" in line for line in first), done.answer


async def test_asked_one_thing_of_a_month_the_days_it_happened_answer(
    journal: VaultIndex,
) -> None:
    context = context_for(journal, TODAY)
    question = "Did I go swimming last month?"
    done = done_of(await ask(journal, ExtractiveAnswerer(), question, context=context))
    first = done.answer.split("\n\n")[0].splitlines()
    # Each December day with a swim, dated, in date order; no other day's log.
    days = [line[:10] for line in first]
    assert len(first) > 1 and days == sorted(days), done.answer
    assert all(line.startswith("2024-12-") and "went swimming [[Journal/" in line for line in first)
    # Asked who I met, where no line surely says so, the closest one answers alone.
    met = "Who did I meet last week?"
    done = done_of(await ask(journal, ExtractiveAnswerer(), met, context=context))
    assert done.answer.split("\n\n")[0].count("[[") == 1, done.answer


def test_the_last_of_last_week_asks_for_no_newest_note() -> None:
    english = Analyzer("en")
    week = plan(AgentRequest(question="What did I do last week?"), "", english, TODAY)
    assert week.order is None and week.day_by_day
    swim = plan(AgentRequest(question="When did I last go swimming?"), "", english, TODAY)
    assert swim.order == "newest" and not swim.day_by_day
    month = plan(AgentRequest(question="Did I go swimming last month?"), "", english, TODAY)
    assert month.order is None and not month.day_by_day


def test_a_question_naming_hundreds_of_days_looks_up_a_dozen(
    journal: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, counted = journal.searcher.store, 0
    count = store.count

    def counting(*args: Any, **kwargs: Any) -> int:
        nonlocal counted
        counted += 1
        return count(*args, **kwargs)

    monkeypatch.setattr(store, "count", counting)
    # Days no note has: each looked up is counted, both to search it and to call it missing.
    days = [f"2021-{month:02d}-{day:02d}" for month in (3, 5) for day in range(1, 32)]
    found = journal.searcher.retrieve(f"What did I do on {', '.join(days)}?", today=TODAY)
    assert found.confidence.low and len(found.confidence.missing_names) == 12
    assert counted <= 2 * 12 + 4, counted  # not twice each of the 62


@pytest.mark.parametrize(
    ("question", "languages", "dates"),
    [
        ("What did I do yesterday?", ("en",), {"2026-11-25"}),
        ("Who did I meet last week?", ("en",), {"2026-11-16/2026-11-22"}),
        ("Did I swim last month?", ("en",), {"2026-10"}),
        ("My goals for this year", ("en",), {"2026"}),
        ("Was habe ich gestern gemacht?", ("de",), {"2026-11-25"}),
        ("Qu’ai-je fait la semaine dernière ?", ("fr",), {"2026-11-16/2026-11-22"}),
        ("我上个月做了什么？", ("zh",), {"2026-10"}),
        ("先週は何をした？", ("ja",), {"2026-11-16/2026-11-22"}),
        ("Vad gjorde jag i går?", ("sv",), {"2026-11-25"}),
        # German "hier" is "here"; only French reads it as yesterday.
        ("Was steht hier?", ("de",), set()),
        ("Qu'ai-je fait hier ?", ("fr",), {"2026-11-25"}),
        # 26 November 2026 is a Thursday. "Last Monday" is last week's, or the latest one
        # (this week's) where the phrase doesn't say which week; 上周一 says it.
        ("What did I do last Monday?", ("en",), {"2026-11-16", "2026-11-23"}),
        ("上周一我做了什么？", ("zh",), {"2026-11-16"}),
        ("Was steht für diesen Freitag an?", ("de",), {"2026-11-27"}),
        # A weekday alone, asked of the past, is the latest one before today (English only);
        # a routine ("on Mondays", "every Monday", "what do I do on Monday?") names no day.
        ("What did I do on Monday?", ("en",), {"2026-11-23"}),
        ("Who did I meet on Thursday?", ("en",), {"2026-11-19"}),  # today's is not over
        ("What do I do on Mondays?", ("en",), set()),
        ("What did I do every Monday?", ("en",), set()),
        ("What do I do on Monday?", ("en",), set()),
        ("Was habe ich am Montag gemacht?", ("de",), {"2026-11-23"}),
        ("Was mache ich am Montag?", ("de",), set()),
        ("Qu'ai-je fait lundi ?", ("fr",), {"2026-11-23"}),
        ("Que fais-je le lundi ?", ("fr",), set()),  # "le lundi": every Monday
        # So is a month alone: the latest one, this one while it lasts, last year's after it.
        ("What did I do in March?", ("en",), {"2026-03"}),
        ("Where did I go in November?", ("en",), {"2026-11"}),
        ("What did I plant in December?", ("en",), {"2025-12"}),
        ("What do I plant in March?", ("en",), set()),
        ("Was habe ich im März gemacht?", ("de",), {"2026-03"}),
        ("Qu'ai-je fait en mars ?", ("fr",), {"2026-03"}),
        # Spanish, Italian and Dutch, where an auxiliary or a common past form says so.
        ("¿Qué hice el lunes?", ("es",), {"2026-11-23"}),
        ("¿Qué hago los lunes?", ("es",), set()),
        ("¿Qué hice en marzo?", ("es",), {"2026-03"}),
        ("Cosa ho fatto lunedì?", ("it",), {"2026-11-23"}),
        ("Cosa faccio il lunedì?", ("it",), set()),
        ("Cosa ho fatto a marzo?", ("it",), {"2026-03"}),
        ("Wat heb ik maandag gedaan?", ("nl",), {"2026-11-23"}),
        ("Wat doe ik elke maandag?", ("nl",), set()),
        ("Wat heb ik in maart gedaan?", ("nl",), {"2026-03"}),
        ("What did I do in March 2024?", ("en",), {"2024-03"}),
        ("¿Qué hice en noviembre de 2024?", ("es",), {"2024-11"}),
        # A month alone not asked of the past, or part of a name, names no date.
        ("What was the theme of the 2022 Obsidian October event?", ("en",), set()),
        ("¿Qué hago en noviembre?", ("es",), set()),  # a routine, no one November
        ("what happened in 2024-03", ("en",), {"2024-03"}),
        ("2024年3月做了什么", ("zh",), {"2024-03"}),
        # "may" is a word before it is a month; with a year it is one.
        ("How may I export a note?", ("en",), set()),
        ("What shipped in May 2024?", ("en",), {"2024-05"}),
        ("What did I do on 14 March 2024?", ("en",), {"2024-03-14"}),  # a day, not its month
        ("the 2023-24 season", ("en",), set()),
    ],
)
def test_query_hints_read_months_and_days_relative_to_today(
    question: str, languages: tuple[str, ...], dates: set[str]
) -> None:
    assert query_hints(question, date(2026, 11, 26), languages).dates == dates


@pytest.mark.parametrize("question", ["What happened in 9999-12?", "December 9999", "0001-01"])
def test_a_month_at_the_end_of_the_calendar_is_searched_without_error(
    journal: VaultIndex, question: str
) -> None:
    # December 9999's last day was found as the day before the first of a month after it.
    found = journal.searcher.retrieve(question, today=TODAY)
    assert found.passages


def test_a_period_off_the_calendar_names_no_day() -> None:
    assert query_hints("what did I do last year, last week and yesterday?", date(1, 1, 1)) == (
        query_hints("what did I do?")
    )


def test_a_date_pattern_spans_its_days() -> None:
    assert span("2024-02") == Period(date(2024, 2, 1), date(2024, 2, 29))
    assert span("2025") == Period(date(2025, 1, 1), date(2025, 12, 31))
    assert span("*-02-29", 2023) is None and span("*-02-29") is None
    assert span("*-02-29", 2024) == Period(date(2024, 2, 29), date(2024, 2, 29))
    interval = "2026-11-16/2026-11-22"
    assert within(interval, "2026-11-22") and not within(interval, "2026-11-23")
    assert within("*-11", "2020-11-05") and not within("2026-11", "2025-11-05")
