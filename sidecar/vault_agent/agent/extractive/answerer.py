"""The extractive answerer: an answer without a language model, quoted from the notes.

It searches once (`plan.py` says with what), splits the passages found into sentences, list
items and table rows (`units.py`), scores each against the question (the embedder's cosine,
shared terms, the passage's rank), and answers with the best one or two first, then the other
notes that bear on the question, each quote cited to the heading it sits under. A question
about the last or first time something happened puts the newest (or oldest) dated note first.
When retrieval finds nothing close (`index/search/confidence.py`), it says the notes don't
seem to cover the question and names the closest notes, as closest, not as an answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import zip_longest
from typing import Any

import numpy as np

from vault_agent.agent.citations.links import NoteRef, cite, note_title
from vault_agent.agent.extractive.plan import SearchPlan
from vault_agent.agent.extractive.units import Unit, property_units, split_units
from vault_agent.agent.reader import ToolsContext
from vault_agent.agent.tools import EARLIEST_DAY
from vault_agent.index.embed.names import names_in
from vault_agent.index.embed.terms import Analyzer
from vault_agent.index.search.hits import (
    SearchHit,
)
from vault_agent.index.search.searcher import Passage
from vault_agent.index.search.titles import PHRASE_BOOST
from vault_agent.index.store.protocol import VAULT_SOURCE, ChunkPayload, SearchFilter
from vault_agent.vault.chunker import HEADING_SEPARATOR
from vault_agent.vault.properties import is_bookkeeping

#: Passages searched (chunks, several per note allowed).
PASSAGES = 12
#: More passages from the open note, and for a last/first question from dated notes.
FOCUSED = 6
#: Quotes from the open note weigh this much more: the user pointed at it.
ACTIVE_BONUS = 0.05
#: Quotes from the notes the previous answer cited weigh this much more: a follow-up is
#: about what was just shown ("how does she like updates?" after an answer citing Maya).
#: 0.05 (the open note's) left the earlier question's notes ahead in three of three cases.
SUBJECT_BONUS = 0.15
#: A unit sharing this much of its words with the selection is the selection itself.
SHOWN_SHARE = 0.8
#: The weight of shared terms (per term, over the square root of the question's terms).
LEXICAL_WEIGHT = 0.05
#: Taken from a quote whose note, heading and text hold none of the question's names.
NAME_MISSING = 0.1
#: Added to a quote holding a number, when the question asks for an amount.
QUANTITY_BONUS = 0.05
#: Added to a quote placed in time (a date, a year, a version, or a dated or versioned note)
#: when the question asks when or in which release.
WHEN_BONUS = 0.05
#: A quote holding what the question asks for (a number, a date) opens the answer when it
#: scores within this of the best quote.
FITS_BELOW_BEST = 0.15
#: ...or, in the best quote's own section, within this.
BESIDE_BELOW_BEST = 0.3
#: A property's name and a question's word this long that begin alike are one word's family.
KEY_STEM_CHARS = 5
#: Added to a property the question names: of a film's properties, "who directed it?" asks
#: for ``director``, however close ``imdbId`` reads.
KEYED_BONUS = 0.1
#: Added to quotes from the note retrieval ranked first (over 1 + rank for the others):
#: search weighs every word of the question against whole notes, a sentence alone can't.
NOTE_RANK_WEIGHT = 0.04
#: An answer says something: a quote of fewer words (or CJK characters) only supports.
ANSWER_WORDS = 4
ANSWER_WIDE_CHARS = 8
#: Units scored with the embedder: the best by shared terms and passage rank.
SCORED_UNITS = 24
#: Units quoted first, as the answer.
ANSWER_UNITS = 2
#: A second answer unit must score within this of the best.
SECOND_WITHIN = 0.06
#: A dated unit this far below the best one may still answer a last/first question...
DATED_BELOW_BEST = 0.25
#: ...and the dated units within this of the best dated one are ordered by date.
DATED_WITHIN = 0.08
#: Notes quoted after the answer, at most.
MORE_NOTES = 3
#: A unit below the best by more than this does not bear on the question.
FLOOR_BELOW_BEST = 0.18
#: Nor does one under this cosine, whatever the best.
FLOOR = 0.2
QUOTE_CHARS = 400

DISCLAIMER = "_Extractive answer: sentences quoted from your notes, no language model involved._"
NOT_COVERED = "Your notes don't seem to cover this."
UNSURE = "Your notes may not answer this directly; the closest they come:"
SEARCH_FAILED = "I could not search your notes, so I have no answer. The search said: "
NOTHING = (
    "I couldn't find anything about this in your notes. Try other words, or check that the "
    "notes you expect are indexed."
)
_ISO_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_NUMBER = re.compile(r"\d")
_EXACT = re.compile(r"\d|\w[._]\w")
_VERSION = re.compile(r"\bv?(\d+(?:\.\d+)+)\b", re.IGNORECASE)
_TIME = re.compile(r"\b(?:1[89]|20)\d\d\b|\bv?\d+\.\d+\b", re.IGNORECASE)


@dataclass(frozen=True)
class Quote:
    """A unit found for the question, where it comes from and how well it answers."""

    unit: Unit
    ref: NoteRef
    date: str | None
    score: float
    version: tuple[int, ...] | None = None
    """The version its note is named by (release notes: "v1.13.5"), to order them."""
    fits: bool = False
    """It holds what the question asks for: a number for an amount, a date for a time."""

    @property
    def link(self) -> str:
        return cite(self.ref)


@dataclass(frozen=True)
class Answer:
    """The markdown answer and the notes (and sections) it showed."""

    text: str
    seen: list[NoteRef]
    query: str
    passages: int


def answer(plan: SearchPlan, context: ToolsContext) -> Answer:
    """The extractive answer to `plan`'s question (blocking: call it in a worker thread)."""
    searcher = context.searcher
    searches = [
        searcher.retrieve(query, limit=PASSAGES, one_per_note=False, near=plan.near)
        for query in plan.queries
    ]
    found = searches[0]
    # Each search's best passages first, in turns, so no search's tail crowds out another.
    passages = [p for rank in zip_longest(*(s.passages for s in searches)) for p in rank if p]
    if plan.active_file:  # the open note's own passages, whatever the vault at large has
        only = SearchFilter(files=[plan.active_file])
        passages += searcher.retrieve(plan.query, only, FOCUSED, one_per_note=False).passages
    subject = _subject_files(plan, context)
    if subject:  # a follow-up: the passages of the notes the previous answer cited
        only = SearchFilter(files=sorted(subject))
        passages += searcher.retrieve(plan.question, only, FOCUSED, one_per_note=False).passages
    if plan.order is not None:  # "when did I last...": the daily notes that bear on it
        dated = SearchFilter(date_from=EARLIEST_DAY)
        passages += searcher.retrieve(plan.query, dated, FOCUSED, one_per_note=False).passages
    passages = _unique(passages)
    if not passages:
        return Answer(NOTHING, [], plan.query, 0)
    closest = _closest_notes([passage.hit for passage in found.passages or passages])
    # Retrieval's confidence is for questions that stand alone: a follow-up about the notes
    # just cited ("what advice did she give?") is vague by nature; its quotes must still
    # reach the answer floor.
    if all(search.confidence.low for search in searches) and not (plan.pointed or subject):
        return Answer(_absent(closest), closest, plan.query, len(passages))
    quotes = _scored(plan, passages, context, subject)
    kept = _relevant(quotes)
    # How close a sentence must come to answer, on the embedding model's own scale.
    calibration = found.confidence.calibration
    # A question naming a note points at it, as an open note does: its nearest sentences are
    # shown (said to be the nearest), not withheld.
    pointed = plan.pointed or found.confidence.names_note
    if not kept or (kept[0].score < calibration.sentence_floor and not pointed):
        return Answer(_absent(closest), closest, plan.query, len(passages))
    if plan.quantity and not plan.pointed and not any(_NUMBER.search(q.unit.text) for q in kept):
        # Asked for an amount, and no passage that bears on it holds a number.
        return Answer(_absent(closest), closest, plan.query, len(passages))
    first = _answer_first(quotes, kept, plan)
    kept += [quote for quote in first if quote not in kept]
    # A last/first question's wording ("the most recent release...") keeps its cosines low;
    # what answers it is the newest (oldest) note that bears on it, found by date.
    unsure = kept[0].score < calibration.sentence_sure and not (plan.pointed or plan.order)
    unsure = unsure or (pointed and not plan.pointed and kept[0].score < calibration.sentence_floor)
    text = _compose(first, kept, plan.order is not None, unsure)
    return Answer(text, [quote.ref for quote in kept], plan.query, len(passages))


def _subject_files(plan: SearchPlan, context: ToolsContext) -> set[str]:
    """The indexed notes the previous answer cited."""
    resolved = (context.graph.resolve(link, plan.active_file) for link in plan.subject_links)
    return {file for file in resolved if file}


def _scored(
    plan: SearchPlan, passages: list[Passage], context: ToolsContext, subject: set[str]
) -> list[Quote]:
    """Every unit of the passages, the promising ones scored by meaning too."""
    analyzer: Analyzer = context.searcher.sparse.analyzer
    wanted = set(analyzer.subject_terms(" ".join(plan.queries), query=True))
    question_terms = set(analyzer.terms(plan.question, query=True))
    # A note the question names by its title ("what did I think of Blade Runner?") is asked
    # about whole: any of its properties may answer.
    asked_terms = analyzer.terms(plan.question, query=True)
    named_files = {
        passage.hit.file
        for passage in passages
        if context.searcher.titles.boost(asked_terms, passage.chunk) >= PHRASE_BOOST
    }
    shown = set(analyzer.terms(plan.selection)) if plan.selection else set()
    named_terms = {
        name: set(analyzer.terms(name, query=True))
        for name in names_in(plan.question, analyzer.language)
    }
    names = [terms for terms in named_terms.values() if terms]
    # Versions and identifiers ("1.13.0", `app.vault`) name exactly one thing.
    exact = [terms for name, terms in named_terms.items() if terms and _EXACT.search(name)]
    candidates: list[_Candidate] = []
    # Units of one section share its note title and heading: their terms are read once.
    place_terms: dict[tuple[str, str], set[str]] = {}
    note_ranks: dict[str, int] = {}
    for rank, passage in enumerate(passages):
        note_rank = note_ranks.setdefault(passage.hit.file, len(note_ranks))
        chunk = passage.chunk
        for unit in [*property_units(chunk.properties), *split_units(chunk.body, chunk.heading)]:
            if unit.navigation:
                continue
            # A property the question doesn't ask about ("type: person") is left out; a date
            # it holds answers "when" unless it dates the note itself ("created: ...") or the
            # question asks for the last or first time (the note's date says that).
            fits = _fits(plan, unit.text) and plan.order is None and not is_bookkeeping(unit.text)
            keyed = unit.fact and _names_key(unit, question_terms, analyzer)
            of_named = passage.hit.file in named_files and not is_bookkeeping(unit.text)
            if unit.fact and not (keyed or fits or of_named):
                continue
            terms = set(analyzer.terms(unit.text))
            if shown and terms and len(terms & shown) >= SHOWN_SHARE * min(len(terms), len(shown)):
                continue  # the selected text itself (or holding it): the user has it already
            place = (chunk.title, unit.heading)
            if place not in place_terms:
                place_terms[place] = set(analyzer.terms(f"{chunk.title} {unit.heading}"))
            context_terms = terms | place_terms[place]
            shared = len(wanted & context_terms) / math.sqrt(len(wanted) or 1)
            # The names the question asks about (a version, an identifier) must be where the
            # quote is: a sentence about v1.7 does not answer a question about v1.13.0.
            named = sum(name <= context_terms for name in names) / len(names) if names else 1.0
            holds = all(name <= context_terms for name in exact)
            lexical = shared + 0.3 / (1 + rank)
            candidate = _Candidate(unit, passage, lexical, named, holds, note_rank, keyed)
            candidates.append(candidate)
    if exact and any(candidate.holds_exact for candidate in candidates):
        # A question naming a version or an identifier is answered from where it is named:
        # what v1.7 changed does not answer what v1.13.0 changed, however alike they read.
        candidates = [candidate for candidate in candidates if candidate.holds_exact]
    candidates.sort(key=lambda candidate: -candidate.lexical)
    candidates = candidates[:SCORED_UNITS]
    if not candidates:
        return []
    embedder = context.searcher.embedder
    # Judged on the question alone and with its selection or earlier question, the closer
    # counting; in a note the last answer cited, on the question about that note (its title).
    questions = dict.fromkeys((plan.question, plan.query))
    asked = [context.searcher.query_vector(text) for text in questions]
    about = {file: embedder.embed_query(f"{note_title(file)}: {plan.question}") for file in subject}
    # A unit is read with its note's title and heading: "It takes a week" needs both.
    vectors = embedder.embed_documents([candidate.read_as for candidate in candidates])
    quotes = []
    for candidate, vector in zip(candidates, vectors, strict=True):
        unit, passage = candidate.unit, candidate.passage
        # In a note the last answer cited, the question about that note picks the sentence:
        # the earlier question found the note, and would pick what it asked ("who owns it?").
        judged = [about[passage.hit.file]] if passage.hit.file in about else asked
        score = max(float(np.dot(question, vector)) for question in judged)
        score += LEXICAL_WEIGHT * candidate.lexical - NAME_MISSING * (1 - candidate.named)
        if plan.active_file and passage.hit.file == plan.active_file:
            score += ACTIVE_BONUS
        if passage.hit.file in subject:
            score += SUBJECT_BONUS
        chunk = passage.chunk
        date, version = _date_of(chunk), _version_of(chunk)
        # What the question asks for: an amount holds a number; a time a date or a version,
        # or sits in a note dated or named by one.
        fits = _fits(plan, unit.text, placed=bool(date or version) and not unit.fact)
        fits = fits or (plan.how_to and bool(unit.shows))  # "how do I...?": steps or code
        if fits:
            score += QUANTITY_BONUS if plan.quantity else WHEN_BONUS
        if candidate.keyed:
            score += KEYED_BONUS
        if plan.order is None:  # a last/first question is ordered by date, not by rank
            score += NOTE_RANK_WEIGHT / (1 + candidate.note_rank)
        quotes.append(Quote(unit, _ref(passage, unit), date, score, version, fits))
    return sorted(quotes, key=lambda quote: -quote.score)


@dataclass(frozen=True)
class _Candidate:
    """A unit worth scoring, with what its words already say about it."""

    unit: Unit
    passage: Passage
    lexical: float
    """Shared terms with the question, and the passage's rank."""
    named: float
    """The share of the question's names its note, heading or text holds."""
    holds_exact: bool
    """It holds every version and identifier the question names."""
    note_rank: int
    """Where retrieval ranked its note among the notes found (0: first)."""
    keyed: bool = False
    """A property the question names ("who *directed*..." and ``director: ...``)."""

    @property
    def read_as(self) -> str:
        heading = _last(self.unit.heading)
        place = f"{self.passage.chunk.title}. {heading}" if heading else self.passage.chunk.title
        return f"{place}: {self.unit.text}"


def _fits(plan: SearchPlan, text: str, placed: bool = False) -> bool:
    """True when `text` holds what the question asks for: a number for an amount; for a time,
    a date, a year or a version, or it is `placed` (its note is dated or named by a version)."""
    if plan.quantity and _NUMBER.search(text):
        return True
    return plan.when and (placed or bool(_TIME.search(text)))


def _names_key(unit: Unit, question_terms: set[str], analyzer: Analyzer) -> bool:
    """True when the question names the property (``last: 2023-09-14``: "when did I last..."),
    as written or as a word of its family ("directed" for ``director``)."""
    for key in analyzer.terms(unit.text.split(":", 1)[0]):
        for term in question_terms:
            shorter, longer = sorted((key, term), key=len)
            if key == term or (len(shorter) >= KEY_STEM_CHARS and longer.startswith(shorter)):
                return True
    return False


def _relevant(quotes: list[Quote]) -> list[Quote]:
    if not quotes:
        return []
    floor = max(FLOOR, quotes[0].score - FLOOR_BELOW_BEST)
    return [quote for quote in quotes if quote.score >= floor]


def _answer_first(quotes: list[Quote], kept: list[Quote], plan: SearchPlan) -> list[Quote]:
    """The one or two quotes that answer: the best, or for a last/first question the newest
    (oldest) dated one among those that bear on it."""
    if plan.order is not None:
        # A dated note answers a "when" question even when an undated one (the recipe) is
        # closer; notes named by versions (a changelog) are ordered by version, if none is.
        for when in (_when_dated, _when_versioned):
            ordered = _in_order(quotes, kept[0].score, when, plan.order)
            if ordered is not None:
                return [ordered]
    worthy = [quote for quote in kept if _says_something(quote.unit)] or kept
    # A question in the notes (a FAQ's) is answered by what follows it, not by itself.
    answered = [_answered(quote, quotes) for quote in worthy]
    worthy = [q for i, q in enumerate(answered) if all(q is not o for o in answered[:i])]
    first = [worthy[0]]
    lead = _fitting_lead(quotes, worthy[0], plan)
    if lead is not None:
        first = [lead]
    for quote in worthy:
        if quote.score < worthy[0].score - SECOND_WITHIN or len(first) == ANSWER_UNITS:
            break
        if quote.unit.text != first[0].unit.text:
            first.append(quote)
    return first


def _answered(quote: Quote, quotes: list[Quote]) -> Quote:
    """A quote that asks a question (a FAQ's "Can I get a refund?") answers nothing itself:
    the unit after it in its section does."""
    if not quote.unit.text.rstrip("*_ ").endswith(("?", "？")):
        return quote
    after = [
        q
        for q in quotes
        if q.ref == quote.ref
        and q.unit.heading == quote.unit.heading
        and q.unit.position == quote.unit.position + 1
    ]
    return replace(after[0], score=quote.score) if after else quote


def _fitting_lead(quotes: list[Quote], best: Quote, plan: SearchPlan) -> Quote | None:
    """For a question asking when, how much or how to, when the best quote holds no date,
    number, code or steps: the best quote holding them that bears on the question nearly as
    well, else one beside the best in its section ("Random sorting shuffles the tasks. It
    shipped in 7.11.0.")."""
    if not (plan.when or plan.quantity or plan.how_to) or best.fits:
        return None
    fitting = [q for q in quotes if q.fits and _says_something(q.unit)]
    close = [q for q in fitting if q.score >= best.score - FITS_BELOW_BEST]
    section = (best.ref.file, best.unit.heading)
    beside = [
        q
        for q in fitting
        if (q.ref.file, q.unit.heading) == section and q.score >= best.score - BESIDE_BELOW_BEST
    ]
    found = close or beside
    return found[0] if found else None


def _in_order(
    quotes: list[Quote], best: float, when: Callable[[Quote], Any], order: str
) -> Quote | None:
    """The newest (oldest) of the quotes `when` places in time that bear on the question
    about as well as the best of them does; None when `when` places none."""
    # A note's own properties ("date: 2023-09-12") say when, which the answer's date does.
    placed = [
        q
        for q in quotes
        if when(q) is not None and not q.unit.fact and q.score >= best - DATED_BELOW_BEST
    ]
    if not placed:
        return None
    close = max(quote.score for quote in placed) - DATED_WITHIN
    placed = [quote for quote in placed if quote.score >= close]
    if order == "newest":
        return max(placed, key=lambda q: (when(q), q.score))
    return min(placed, key=lambda q: (when(q), -q.score))


def _when_dated(quote: Quote) -> str | None:
    return quote.date


def _when_versioned(quote: Quote) -> tuple[int, ...] | None:
    return quote.version


def _says_something(unit: Unit) -> bool:
    """A sentence or a property, not a label: enough words, or enough CJK characters."""
    if unit.fact:
        return True
    text = unit.text
    wide = sum(1 for char in text if char >= "\u2e80")
    return len(text.split()) >= ANSWER_WORDS or wide >= ANSWER_WIDE_CHARS


def _compose(first: list[Quote], kept: list[Quote], dated: bool, unsure: bool = False) -> str:
    # Nothing found comes close enough to be sure: the quotes are the nearest, said as such.
    lines = [UNSURE, ""] if unsure else []
    # A last/first question is answered by a date: it opens the line.
    for quote in first:
        said = f"{_clip(quote.unit.text)} {quote.link}"
        lines.append(f"{quote.date}: {said}" if dated and quote.date else said)
        if quote.unit.shows:  # the code or the list the sentence introduces
            lines.append(quote.unit.shows)
    shown = {(q.ref.file, q.unit.text) for q in first}
    more: dict[str, list[Quote]] = {}
    for quote in kept:
        if (quote.ref.file, quote.unit.text) in shown:
            continue
        if quote.ref.file in more or len(more) < MORE_NOTES:
            group = more.setdefault(quote.ref.file, [])
            if len(group) < 2:
                group.append(quote)
    if more:
        lines += ["", "**More from your notes**"]
        for quotes in more.values():
            title = quotes[0].ref.title or note_title(quotes[0].ref.file)
            quoted = " … ".join(_clip(q.unit.text) for q in quotes)
            lines.append(f"- **{title}**: {quoted} {quotes[0].link}")
    lines += ["", DISCLAIMER]
    return "\n".join(lines)


def _absent(closest: list[NoteRef]) -> str:
    names = ", ".join(cite(ref) for ref in closest)
    return f"{NOT_COVERED} The closest notes: {names}.\n\n{DISCLAIMER}" if names else NOTHING


def _closest_notes(hits: Sequence[SearchHit]) -> list[NoteRef]:
    refs: dict[str, NoteRef] = {}
    for hit in hits:
        if hit.file not in refs and len(refs) < 2:
            refs[hit.file] = _note_ref(hit)
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


def _ref(passage: Passage, unit: Unit) -> NoteRef:
    hit, chunk = passage.hit, passage.chunk
    if hit.source != VAULT_SOURCE:
        return _note_ref(hit)
    heading = unit.heading
    if hit.page is None and heading and HEADING_SEPARATOR not in heading and heading == chunk.title:
        heading = ""  # the note's own title heading: [[Note]] says the same
    return NoteRef(file=hit.file, title=hit.title, heading=heading)


def _note_ref(hit: SearchHit) -> NoteRef:
    if hit.source != VAULT_SOURCE:
        return NoteRef(file=hit.file, title=hit.title, source=hit.source, url=hit.url)
    return NoteRef(file=hit.file, title=hit.title)


def _date_of(chunk: ChunkPayload) -> str | None:
    """The day a note records: a daily note's date, or a date in its title ("2026-11-05
    Garden Committee"). A note's `created` is when it was written, not what it is about."""
    if chunk.date:
        return chunk.date[:10]
    in_title = _ISO_DATE.search(chunk.title)
    return in_title.group(1) if in_title else None


def _version_of(chunk: ChunkPayload) -> tuple[int, ...] | None:
    """The version a note is named by ("v1.13.5", "Release 2.0"), as numbers to compare."""
    named = _VERSION.search(chunk.title)
    return tuple(int(part) for part in named.group(1).split(".")) if named else None


def _last(heading: str) -> str:
    return heading.rsplit(HEADING_SEPARATOR, 1)[-1]


def _clip(text: str) -> str:
    if len(text) <= QUOTE_CHARS:
        return text
    return text[: QUOTE_CHARS - 1].rsplit(" ", 1)[0] + "…"
