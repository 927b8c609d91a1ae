"""A last/first question over a journal is answered by the newest (oldest) day that reports
the asked thing done: not by a plan, a thing not done, or another thing done to the same
subject (`agent/extractive/done_lines.py`)."""

from __future__ import annotations

import pytest

from agent_helpers import ask, done_of
from vault_agent.agent.extractive import ExtractiveAnswerer
from vault_agent.agent.extractive.done_lines import done_text
from vault_agent.agent.extractive.units import Unit
from vault_agent.index.vault_index import VaultIndex


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        # The days that speak of feeding Gus and read closer are a plan ("next feed on
        # Tuesday"), feeds not done ("Skipped feeding Gus", "No feed today") and another thing
        # done to him ("Put Gus back in the fridge"); the newest feed is written "Fed the
        # sourdough starter... (10 g Gus...)": "Fed" is "feed" read through its lemma.
        ("When did I last feed Gus?", "2026-11-11: Fed the sourdough starter at 07:45"),
        # "Baking day... followed the Country Loaf" (31 October) reads 0.1 closer than the
        # newer "Baked the Country Loaf", which reports the same.
        ("When did I most recently bake the country loaf?", "2026-11-09: Baked the Country Loaf"),
        ("When did I last feed the sourdough starter?", "2026-11-11: Fed the sourdough starter"),
    ],
)
async def test_a_last_time_question_is_answered_by_the_newest_day_reporting_it_done(
    agent_index: VaultIndex, question: str, opening: str
) -> None:
    done = done_of(await ask(agent_index, ExtractiveAnswerer(), question))
    assert done.answer.startswith(opening), done.answer


@pytest.mark.parametrize(
    ("text", "heading", "checkbox", "done"),
    [
        (
            "Fed Gus at 09:00, 1:5:5 with a little extra rye.",
            "Log",
            "",
            "Fed Gus at 09:00, 1:5:5 with a little extra rye.",
        ),
        ("Gus is in the fridge; next feed on Tuesday.", "Log", "", ""),
        ("Skipped feeding Gus, he is in the fridge until the weekend.", "Log", "", ""),
        ("I didn't feed Gus.", "Log", "", ""),
        # Of a line's sentences, those that report something done.
        (
            "Gus doubled overnight; jar for Maya is ready. No feed today.",
            "Log",
            "",
            "Gus doubled overnight; jar for Maya is ready.",
        ),
        ("Give Maya her jar of starter.", "Saturday > Tomorrow", "", ""),
        ("Call the plumber", "Log", " ", ""),
        ("Called the plumber", "Log", "x", "Called the plumber"),
        ("Gus heute nicht gefüttert.", "Log", "", ""),
        ("Gus um 8 Uhr gefüttert.", "Log", "", "Gus um 8 Uhr gefüttert."),
        ("Je n'ai pas nourri Gus.", "Journal", "", ""),
        ("No le di de comer a Gus.", "Diario", "", ""),
        ("Гуса не кормил.", "Журнал", "", ""),
        ("今天没有喂 Gus。", "日志", "", ""),
        ("今天喂了 Gus，状态不错。", "日志", "", "今天喂了 Gus，状态不错。"),
    ],
)
def test_a_line_reports_what_it_says_was_done(
    text: str, heading: str, checkbox: str, done: str
) -> None:
    assert done_text(Unit(text, heading, 0, checkbox=checkbox)) == done
