"""The extractive answerer: an answer without a language model, quoted from the notes.

It searches once (`plan.py` says with what), splits the passages found into sentences, list
items and table rows (`units.py`), scores each against the question (`scoring.py`), picks the
one or two that answer (`opening.py`) and writes them first, then the other notes that bear
on the question, each quote cited to the heading it sits under (`compose.py`). A question
about the last or first time something happened puts the newest (or oldest) dated note first.
When retrieval finds nothing close (`index/search/confidence.py`), it says the notes don't
seem to cover the question and names the closest notes, as closest, not as an answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest

from vault_agent.agent.citations.links import NoteRef
from vault_agent.agent.extractive.amounts import holds_amount, holds_money
from vault_agent.agent.extractive.collections import (
    LISTED,
    asks_contents,
    collection,
    held_by_note,
    row,
)
from vault_agent.agent.extractive.compose import (
    NOTHING,
    absent,
    compose,
    holding,
    in_series,
    listing,
)
from vault_agent.agent.extractive.fields import unrecorded_field
from vault_agent.agent.extractive.lists import (
    TASK_PASSAGES,
    asks_whole,
    section_units,
    tasks_on,
    with_steps,
)
from vault_agent.agent.extractive.opening import answer_first
from vault_agent.agent.extractive.plan import SearchPlan
from vault_agent.agent.extractive.scoring import Quote, note_ref, scored
from vault_agent.agent.extractive.series import SeriesNote, series_note
from vault_agent.agent.extractive.units import Unit
from vault_agent.agent.reader import ToolsContext
from vault_agent.agent.tools import EARLIEST_DAY
from vault_agent.index.search.hints import QueryHints
from vault_agent.index.search.hits import SearchHit
from vault_agent.index.search.searcher import Passage, Retrieval
from vault_agent.index.store.protocol import SearchFilter

#: Passages searched (chunks, several per note allowed).
PASSAGES = 12
#: Passages searched for a last/first question: its answer is the newest (oldest) of those
#: that bear on it, not the closest, and the release that introduced a feature ("Another new
#: plugin: Open random note.") reads further from the question than later ones that mention
#: it. 12 -> 18 -> 24: 206, 206, 207 of the 304 answerable (none lost).
ORDERED_PASSAGES = 24
#: More passages from the open note, and for a last/first question from dated notes.
FOCUSED = 6
#: Units of a series' newest (oldest) note shown, at most.
SERIES_UNITS = 6
#: A unit below the best by more than this does not bear on the question.
FLOOR_BELOW_BEST = 0.18
#: Nor does one under this cosine, whatever the best.
FLOOR = 0.2
#: A quote scoring this far above every quote of the other notes stands out: under the
#: sentence floor it is still shown, as the nearest the notes come. A model's cosines run lower
#: in some languages than in those its floors were set on: in a small Korean journal USE put
#: the sentence that answers at 0.3 to 0.45, under its floor, and 0.3 to 0.6 above any other
#: note's. On the measured answer sets no quote under the floor stands out by 0.2 (English) or
#: 0.3 (other languages, one at 0.41), so none of their answers changes.
STANDOUT = 0.3
#: How far under the sentence floor a quote of the note both retrieval lists agree on, ahead
#: of every other note's, may still answer (`_agreed_on`).
AGREED_BELOW_FLOOR = 0.1


@dataclass(frozen=True)
class Answer:
    """The markdown answer and the notes (and sections) it showed."""

    text: str
    seen: list[NoteRef]
    query: str
    passages: int
    opened_by: str = ""
    """The note of the answer's first quote ("" when none answers)."""


def answer(plan: SearchPlan, context: ToolsContext) -> Answer:
    """The extractive answer to `plan`'s question (blocking: call it in a worker thread)."""
    if plan.kind:  # "what books have I read?": the notes of that kind, not passages
        of_kind = _of_kind(plan, context)
        if of_kind is not None:
            return of_kind
    searcher = context.searcher
    searches = [
        searcher.retrieve(
            query,
            limit=PASSAGES if plan.order is None else ORDERED_PASSAGES,
            one_per_note=False,
            near=plan.near,
            today=plan.today,
        )
        for query in plan.queries
    ]
    # Each search's best passages first, in turns, so no search's tail crowds out another.
    passages = [p for rank in zip_longest(*(s.passages for s in searches)) for p in rank if p]

    def focused(query: str, only: SearchFilter, limit: int = FOCUSED) -> list[Passage]:
        found = searcher.retrieve(query, only, limit, one_per_note=False, today=plan.today)
        return found.passages

    if plan.active_file:  # the open note's own passages, whatever the vault at large has
        passages += focused(plan.query, SearchFilter(files=[plan.active_file]))
    subject = _subject_files(plan, context)
    if subject:  # a follow-up: the passages of the notes the previous answer cited
        passages += focused(plan.question, SearchFilter(files=sorted(subject)))
    if plan.order is not None:  # "when did I last...": the daily notes that bear on it
        passages += focused(plan.query, SearchFilter(date_from=EARLIEST_DAY))
    # "What are my open tasks?": the passages holding a task still open are the answer,
    # whatever their words. One naming what it is about ("what's left to book for Kyoto?")
    # is answered from the open tasks of the notes about it, which the search finds: the
    # vault's other open tasks are not its answer.
    tasks: list[Passage] = []
    if plan.tasks_only:
        tasks = focused(plan.query, SearchFilter(open_tasks=True), TASK_PASSAGES)
        if plan.days:  # "what's due this week?", in any note
            tasks += tasks_on(plan, context)
        passages += tasks
    listed = plan.tasks_only and bool(tasks)
    passages = _unique(passages)
    if not passages:
        return Answer(NOTHING, [], plan.query, 0)
    quoted = _quoted(plan, context, searches, passages, subject, listed)
    # "What did I write in my latest daily note?": that note, whatever search ranks first,
    # unless the answer quotes it already ("...and why did it stop?": what it says of that).
    latest = series_note(plan, passages, context)
    if latest is not None and quoted.opened_by != latest.note.file:
        return _of_series(latest, plan)
    return quoted


def _quoted(
    plan: SearchPlan,
    context: ToolsContext,
    searches: list[Retrieval],
    passages: list[Passage],
    subject: set[str],
    listed: bool,
) -> Answer:
    """The answer quoting the units of `passages` that answer `plan`'s question (`subject`:
    the notes a follow-up is about; `listed`: the open tasks asked for are among them), or
    saying the notes don't seem to cover it."""
    found = searches[0]
    closest = _closest_notes([passage.hit for passage in found.passages or passages])
    # Retrieval's confidence is for questions that stand alone: a follow-up about the notes
    # just cited ("what advice did she give?") is vague by nature; its quotes must still
    # reach the answer floor.
    if all(search.confidence.low for search in searches) and not (
        plan.pointed or subject or listed
    ):
        return Answer(absent(closest), closest, plan.query, len(passages))
    lacking = unrecorded_field(plan, passages, context)
    if lacking is not None and not (subject or listed):
        # "What's the ISBN of The Machine Stops?", and the book's note records none.
        asked_of = [note_ref(lacking)]
        return Answer(absent(asked_of), asked_of, plan.query, len(passages))
    # How close a sentence must come to answer, and how much shared words weigh, on the
    # embedding model's own scale.
    calibration = found.confidence.calibration
    quotes = scored(plan, passages, context, subject, calibration.lexical_weight)
    # The open tasks asked for are the answer however far their words are from the question's.
    kept = quotes if listed else _relevant(quotes)
    # A question naming a note points at it, as an open note does: its nearest sentences are
    # shown (said to be the nearest), not withheld.
    pointed = (
        plan.pointed
        or found.confidence.names_note
        or listed
        or (bool(kept) and kept[0].named_section)
    )
    if not kept:
        return Answer(absent(closest), closest, plan.query, len(passages))
    below = kept[0].closeness < calibration.sentence_floor
    if below and not (
        pointed or _stands_out(kept[0], quotes) or _agreed_on(found, kept[0], quotes)
    ):
        return Answer(absent(closest), closest, plan.query, len(passages))
    languages = context.searcher.sparse.languages
    if (
        plan.quantity
        and not plan.pointed
        and not any(holds_amount(q.unit.text, languages, plan.often) for q in kept)
    ):
        # Asked for an amount, and no passage that bears on it holds a number.
        return Answer(absent(closest), closest, plan.query, len(passages))
    if plan.counted and not plan.pointed and not _counts(plan, kept, context):
        # "How many pages...?" and the numbers found count minutes, grams, stars.
        return Answer(absent(closest), closest, plan.query, len(passages))
    if plan.price and not plan.pointed and not any(holds_money(q.unit.text) for q in kept):
        # "How much does Sync Plus cost?" and the numbers found are gigabytes.
        return Answer(absent(closest), closest, plan.query, len(passages))
    analyzer = context.searcher.sparse.analyzer
    first = answer_first(quotes, kept, plan, calibration.sentence_sure, analyzer)
    # "What went badly in the retro?": what the section it names says, though a line
    # elsewhere reads closer ("2026-10-29: planning meeting, see ..." for "what did we decide
    # in the planning meeting?").
    named = next((quote for quote in kept if quote.named_section), None)
    # "When did I last bake the loaf?" names the recipe's "Bake" section, but asks for the
    # day: the newest dated note found answers it.
    dated_answer = plan.order is not None and (first[0].date or first[0].version) is not None
    if named is not None and not dated_answer:
        first = section_units(named, quotes) or first
    elif plan.how_to and asks_whole(plan, first[0], context):  # the steps, in order
        first = with_steps(first, passages)
    kept += [quote for quote in first if quote not in kept]
    # Not close enough to be sure, the quotes are given as the nearest the notes come: below
    # the floor (shown only because the question names the note), or below a surer score.
    # A last/first question's wording ("the most recent release...") keeps its cosines low;
    # what answers it is the newest (oldest) note that bears on it, found by date. Nor is the
    # note of a day the question names doubted: it is what the question asks about.
    best = kept[0].closeness
    unsure = not (plan.pointed or first[0].on_day or first[0].named_section or listed) and (
        best < calibration.sentence_floor
        or (best < calibration.sentence_sure and plan.order is None)
    )
    dated = plan.order is not None or plan.over_days or listed
    text = compose(first, kept, dated, unsure)
    seen = [quote.ref for quote in kept]
    return Answer(text, seen, plan.query, len(passages), opened_by=first[0].ref.file)


def _of_kind(plan: SearchPlan, context: ToolsContext) -> Answer | None:
    """The notes of the kind `plan` asks for (those of the days it names, if any), listed, or
    what the note it names holds ("what's in my inbox?"); None when the vault keeps none of
    that kind."""
    found = collection(plan.question, plan.kind, context)
    if found is None:
        return _held(plan, context) if asks_contents(plan.question) else None
    notes = found.notes
    if plan.days:  # "what movies did I watch in 2023?"
        days = QueryHints(dates=plan.days)
        notes = [note for note in notes if days.matches(note)]
    if not notes:
        return None
    rows = [row(note, found.ordered_by) for note in notes[:LISTED]]
    text = listing(found.described, rows, len(notes))
    return Answer(text, [ref for ref, _ in rows], plan.query, len(notes))


def _of_series(found: SeriesNote, plan: SearchPlan) -> Answer:
    """The newest (oldest) note of a series, and what it holds, each unit cited to its
    heading."""
    rows = [_under_heading(found.note, unit) for unit in found.units[:SERIES_UNITS]]
    newest = plan.order == "newest"
    text = in_series(
        found.note, found.named, newest, found.count, found.folder, rows, len(found.units)
    )
    return Answer(text, _seen(found.note, rows), plan.query, 1)


def _held(plan: SearchPlan, context: ToolsContext) -> Answer | None:
    """What the note `plan` asks the contents of holds, its units in order, each cited to
    its heading; None when no note is so named, or it holds nothing to quote."""
    held = held_by_note(plan.kind, context)
    if held is None or not held[1]:
        return None
    note, units = held
    rows = [_under_heading(note, unit) for unit in units[:LISTED]]
    return Answer(holding(note, rows, len(units)), _seen(note, rows), plan.query, 1)


def _under_heading(note: NoteRef, unit: Unit) -> tuple[NoteRef, str]:
    """A unit of `note`, with the citation of the heading it sits under."""
    heading = "" if unit.heading == note.title else unit.heading
    return note.model_copy(update={"heading": heading}), unit.text


def _seen(note: NoteRef, rows: list[tuple[NoteRef, str]]) -> list[NoteRef]:
    """The note and sections `rows` cite, each once, in order."""
    seen = [note]
    for ref, _ in rows:
        if ref not in seen:
            seen.append(ref)
    return seen


def _stands_out(best: Quote, quotes: list[Quote]) -> bool:
    """True when `best` scores `STANDOUT` above every quote of another note (and there is
    one: in a vault of one note, or a search that found one, nothing stands out)."""
    others = [quote.score for quote in quotes if quote.ref.file != best.ref.file]
    return bool(others) and best.score - max(others) >= STANDOUT


def _agreed_on(found: Retrieval, best: Quote, quotes: list[Quote]) -> bool:
    """True when `best`, a little under the sentence floor (`AGREED_BELOW_FLOOR`), is of the
    note both retrieval lists lead with (`Confidence.agreed`) and reads closer than every
    quote of the other notes. A model's cosines run lower in some languages than in those
    its floor was set on; two readings agreeing on the note, and its sentence ahead of the
    others', say the note answers though its words come out far ("¿Cómo me deshago de un
    grupo de marcadores entero?" and "Para eliminar un grupo de marcadores y todos los
    marcadores que contiene...", 0.43 under USE's 0.45)."""
    confidence = found.confidence
    if not (confidence.agreed and found.passages):
        return False
    if best.ref.file != found.passages[0].hit.file:
        return False
    if best.closeness < confidence.calibration.sentence_floor - AGREED_BELOW_FLOOR:
        return False
    # On the floor's own scale: shared words lift every quote of the note search found first.
    others = [quote.closeness for quote in quotes if quote.ref.file != best.ref.file]
    return not others or best.closeness > max(others)


def _counts(plan: SearchPlan, kept: list[Quote], context: ToolsContext) -> bool:
    """True when a quote that bears on the question holds a number and names what the
    question counts (in its text, its label, its heading or its note's title: "## Pages",
    "pages: 120"). "How many calories in a slice?" over a recipe that counts grams and
    minutes is not answered by them."""
    analyzer = context.searcher.sparse.analyzer
    wanted = {term for word in plan.counted for term in analyzer.terms(word, query=True)}
    if not wanted:
        return True
    for quote in kept:
        if not holds_amount(quote.unit.text, context.searcher.sparse.languages, plan.often):
            continue
        where = f"{quote.ref.title} {quote.unit.heading} {quote.unit.under} {quote.unit.text}"
        if wanted & set(analyzer.terms(where)):
            return True
    return False


def _subject_files(plan: SearchPlan, context: ToolsContext) -> set[str]:
    """The indexed notes the previous answer cited."""
    resolved = (context.graph.resolve(link, plan.active_file) for link in plan.subject_links)
    return {file for file in resolved if file}


def _relevant(quotes: list[Quote]) -> list[Quote]:
    if not quotes:
        return []
    floor = max(FLOOR, quotes[0].score - FLOOR_BELOW_BEST)
    return [quote for quote in quotes if quote.score >= floor]


def _closest_notes(hits: Sequence[SearchHit]) -> list[NoteRef]:
    refs: dict[str, NoteRef] = {}
    for hit in hits:
        if hit.file not in refs and len(refs) < 2:
            refs[hit.file] = note_ref(hit)
    return list(refs.values())


def _unique(passages: list[Passage]) -> list[Passage]:
    seen: set[tuple[str, int]] = set()
    kept = []
    for passage in passages:
        key = (passage.hit.file, passage.hit.chunk_index)
        if key not in seen:
            seen.add(key)
            kept.append(passage)
    return kept
