"""Answers that are lists, as the notes write them: the open tasks asked for, a section the
question names, the steps of a numbered list.

The answer opens with one or two quotes (`opening.answer_first`); some questions are answered
by a list instead. "What are my open tasks?" by the open checkboxes found (those of the days it
names first: "what is due this week?"), "what's left to book for Kyoto?" by the open tasks of
the note that answers, "what went badly in the retro?" by the units of its "Went badly"
section, and "how do I make miso soup?" by the recipe's numbered steps, each with the code or
items it introduces.
"""

from __future__ import annotations

from dataclasses import replace

from vault_agent.agent.extractive.compose import clip
from vault_agent.agent.extractive.plan import SearchPlan
from vault_agent.agent.extractive.scoring import Quote, written_day
from vault_agent.agent.extractive.units import split_units
from vault_agent.agent.reader import ToolsContext
from vault_agent.index.search.hints import QueryHints
from vault_agent.index.search.hits import hit_of
from vault_agent.index.search.searcher import Passage
from vault_agent.index.store.protocol import SearchFilter, StoredHit

#: Open tasks listed at most, from this many passages holding one that the search finds nearest.
TASKS_LISTED = 10
TASK_PASSAGES = 12
#: Asked what is due in a period, at most this many passages holding an open task are read
#: for the days they write.
TASKS_SCANNED = 2_000
#: A section the question names is answered by this many of its units at most.
SECTION_UNITS = 6
#: A numbered list is shown whole up to this many steps, each cut at this many characters...
STEPS_SHOWN = 12
STEP_CHARS = 300
#: ...when the question's words are its note's, heading's and label's, but this many.
ASKED_BESIDE = 1


def open_tasks(quotes: list[Quote]) -> list[Quote]:
    """The open tasks among `quotes`, at most `TASKS_LISTED`: those of the days the question
    names, in date order, if it names any and some are; else note by note (the note of the
    best first), each note's in its order."""
    tasks = [quote for quote in quotes if quote.unit.open_task]
    on_days = [quote for quote in tasks if quote.on_day][:TASKS_LISTED]
    if on_days:
        return sorted(on_days, key=lambda quote: (quote.date or "", quote.ref.file, quote.place))
    tasks = tasks[:TASKS_LISTED]
    notes = list(dict.fromkeys(quote.ref.file for quote in tasks))
    return sorted(tasks, key=lambda quote: (notes.index(quote.ref.file), quote.place))


def note_open_tasks(best: Quote, kept: list[Quote]) -> list[Quote]:
    """The open tasks of `best`'s note among `kept`, as the note lists them ("what's left to
    book for Kyoto?": not its best two, then the rest under "More")."""
    tasks = (q for q in kept if q.unit.open_task and q.ref.file == best.ref.file)
    return sorted(tasks, key=lambda quote: quote.place)[:TASKS_LISTED]


def tasks_on(plan: SearchPlan, context: ToolsContext) -> list[Passage]:
    """The passages holding an open task that write a day `plan` names (or whose note is
    dated one), among the first `TASKS_SCANNED` holding one: a task's due date is in its text,
    which no search ranks by."""
    days = QueryHints(dates=plan.days)
    found = []
    for chunk in context.store.scroll(SearchFilter(open_tasks=True), limit=TASKS_SCANNED):
        if days.matches(chunk) or written_day(chunk.body, plan.days):
            stored = StoredHit(id=f"{chunk.file}#{chunk.chunk_index}", score=0.0, payload=chunk)
            found.append(Passage(hit_of(stored, plan.query), chunk))
    return found[:TASK_PASSAGES]


def section_units(best: Quote, kept: list[Quote]) -> list[Quote]:
    """The units of the section `best` sits in, which the question names, in the note's
    order (at most `SECTION_UNITS`)."""
    section = [q for q in kept if q.named_section and q.link == best.link]
    return sorted(section, key=lambda quote: quote.place)[:SECTION_UNITS]


def asks_whole(plan: SearchPlan, best: Quote, context: ToolsContext) -> bool:
    """True when `best` is a step of a numbered list and the question asks how to do what
    the list is about (its words are the note's title, heading and the list's label, but
    one): "how do I make miso soup?" asks for the recipe's steps, "how do I keep the crust
    flat when I blind bake it?" for the one step that says."""
    if not best.unit.step:
        return False
    analyzer = context.searcher.sparse.analyzer
    own = set(analyzer.subject_terms(plan.question, query=True))
    place = set(analyzer.terms(f"{best.ref.title} {best.unit.heading} {best.unit.under}"))
    return bool(own & place) and len(own - place) <= ASKED_BESIDE


def with_steps(first: list[Quote], passages: list[Passage]) -> list[Quote]:
    """`first`, its first quote (a step of a numbered list) shown as the whole list, and the
    list's other steps taken out of the rest; `first` as it is when the list is longer than
    `STEPS_SHOWN` or its passage is not among `passages`."""
    steps = _whole_list(first[0], passages)
    if steps is None:
        return first
    return [steps, *(quote for quote in first[1:] if not _same_list(quote, steps))]


def _whole_list(quote: Quote, passages: list[Passage]) -> Quote | None:
    chunk = next(
        (
            passage.chunk
            for passage in passages
            if passage.hit.file == quote.ref.file and passage.hit.chunk_index == quote.chunk
        ),
        None,
    )
    if chunk is None:
        return None
    units = split_units(chunk.body, chunk.heading, chunk.table_header)
    at = next((i for i, unit in enumerate(units) if unit.position == quote.unit.position), None)
    if at is None or units[at].step != quote.unit.step:
        return None
    start = end = at - (quote.unit.step - 1)
    while end + 1 < len(units) and units[end + 1].step == units[end].step + 1:
        end += 1
    steps = units[start : end + 1]
    if not 2 <= len(steps) <= STEPS_SHOWN:
        return None
    # Each step keeps the code or items it introduces, indented under it (in the list).
    shown = "\n".join(
        f"{unit.step}. {clip(unit.text, STEP_CHARS)}{_under_step(unit.shows)}" for unit in steps[1:]
    )
    opening = _under_step(steps[0].shows)
    text = f"1. {steps[0].text}"
    unit = replace(steps[0], text=text, shows="\n".join(part for part in (opening, shown) if part))
    return replace(quote, unit=unit)


def _same_list(quote: Quote, other: Quote) -> bool:
    """True when both are steps of a numbered list under one heading of one chunk."""
    where = (quote.ref.file, quote.chunk, quote.unit.heading)
    return bool(quote.unit.step and other.unit.step) and where == (
        other.ref.file,
        other.chunk,
        other.unit.heading,
    )


def _under_step(shows: str) -> str:
    """What a step shows (its code, its items), as lines indented under it; "" for none."""
    return "".join(f"\n   {line}" if line else "\n" for line in shows.splitlines())
