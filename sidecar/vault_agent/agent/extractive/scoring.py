"""Every unit of the passages found, scored against the question.

A unit (`units.py`) is read with its note's title and heading and compared with the question by
the embedder's cosine (and a second model's: `second_reader.py`); shared terms, the passage's
rank, the note's rank, the open note, the notes the last answer cited and what the question
asks for (a number, a date, a named property, code for a how-to) add to that. The best 24 units
by their words alone are the ones embedded: embedding every unit of every passage would cost
more than it changes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

import numpy as np

from vault_agent.agent.citations.links import NoteRef, cite, note_title
from vault_agent.agent.extractive.amounts import ISO_DATE, holds_amount
from vault_agent.agent.extractive.pervasive import vault_sample, written_widely
from vault_agent.agent.extractive.plan import SearchPlan
from vault_agent.agent.extractive.second_reader import blended, second_reader
from vault_agent.agent.extractive.selection import (
    Selected,
    after_bonus,
    units_after,
    without_selection,
)
from vault_agent.agent.extractive.units import Unit, property_units, split_units
from vault_agent.agent.reader import ToolsContext
from vault_agent.index.embed.minilm import Embedder, Vector
from vault_agent.index.embed.names import names_in
from vault_agent.index.embed.terms import Analyzer
from vault_agent.index.search.hints import QueryHints, within
from vault_agent.index.search.hits import SearchHit
from vault_agent.index.search.searcher import Passage
from vault_agent.index.search.titles import PHRASE_BOOST
from vault_agent.index.store.protocol import VAULT_SOURCE, ChunkPayload
from vault_agent.vault.chunker import HEADING_SEPARATOR
from vault_agent.vault.properties import is_bookkeeping, is_filing

#: Quotes from the open note weigh this much more: the user pointed at it.
ACTIVE_BONUS = 0.05
#: Quotes from the notes the previous answer cited weigh this much more: a follow-up is
#: about what was just shown ("how does she like updates?" after an answer citing Maya).
#: 0.05 (the open note's) left the earlier question's notes ahead in three of three cases.
SUBJECT_BONUS = 0.15
#: A unit sharing this much of its words with the selection is the selection itself.
SHOWN_SHARE = 0.8
#: Taken from a quote whose note, heading and text hold none of the question's names.
NAME_MISSING = 0.1
#: Added to a quote holding a number, when the question asks for an amount.
QUANTITY_BONUS = 0.05
#: Added to a quote placed in time (a date, a year, a version, or a dated or versioned note)
#: when the question asks when or in which release.
WHEN_BONUS = 0.05
#: Added to an open checkbox when the question asks what is still to do: "Kyoto guesthouse:
#: shortlisted two near Shijo" shares no word with "what's left to book?", yet answers it.
OPEN_TASK_BONUS = 0.1
#: Added to the first sentence of a note the question names and asks nothing more of ("who
#: is Priya?", "what is Tidepool?"): a note's opening says what it is about.
LEAD_BONUS = 0.15
#: Added to the units of a section the question names and asks nothing more of ("what went
#: badly in the retro?" and its "## Went badly"): the heading says they answer it.
SECTION_BONUS = 0.15
#: A property's name and a question's word this long that begin alike are one word's family.
KEY_STEM_CHARS = 5
#: Two stems this long differing in their last letter only are one word's family.
FAMILY_STEM = 5
#: Taken from a property the question doesn't name, of a note it doesn't name, admitted for
#: holding what the question asks for (a number, a date): read with its note's title, it is
#: close to any question naming that note's subject (`rating: 7` of a podcast with Kevin
#: Kelly, for "how much is enthusiasm worth, in Kevin Kelly's advice?").
UNASKED_PROPERTY = 0.1
#: Added to a property the question names: of a film's properties, "who directed it?" asks
#: for ``director``, however close ``imdbId`` reads.
KEYED_BONUS = 0.1
#: Added to quotes from a note dated a day the question names: "what did I do on 7 November?"
#: asks what that day's note says, however far its words are from the question's (and the
#: month's name it holds is no name the note must write).
DAY_BONUS = 0.15
#: Added to quotes from the note retrieval ranked first (over 1 + rank for the others):
#: search weighs every word of the question against whole notes, a sentence alone can't.
NOTE_RANK_WEIGHT = 0.04
#: Units scored with the embedder: the best by shared terms and passage rank.
SCORED_UNITS = 24
#: Units scored besides those, when the question asks when: the best by shared terms and
#: passage rank of those writing a date, a year or a version.
FITTING_UNITS = 8
#: A unit's heading and list label are read up to this many characters (a heading is a line).
PLACE_CHARS = 300
_EXACT = re.compile(r"\d|\w[._]\w")
_VERSION = re.compile(r"\bv?(\d+(?:\.\d+)+)\b", re.IGNORECASE)
_TIME = re.compile(r"\b(?:1[89]|20)\d\d\b|\bv?\d+\.\d+\b", re.IGNORECASE)


def writes_time(text: str) -> bool:
    """True when `text` writes a year, a date or a version ("Released May 23, 2023")."""
    return bool(_TIME.search(text))


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
    chunk: int = 0
    """The chunk of its note it was found in (with `unit.position`, its place in the note)."""
    closeness: float = 0.0
    """Its score without what shared words add: what the answer's floors are measured
    against."""
    on_day: bool = False
    """Its note is dated a day the question names ("what did I do on 7 November?"), or it
    writes one (then that day is its `date`)."""
    named_section: bool = False
    """It sits in a section the question names and asks nothing more of."""
    dates_itself: bool = False
    """A property the question names, dated by its own value (``published: 2022-09-16``)."""

    @property
    def link(self) -> str:
        """Its citation: the note and the heading it sits under."""
        return cite(self.ref)

    @property
    def place(self) -> tuple[int, int]:
        """Where in its note it sits, to quote a note's units in their order."""
        return (self.chunk, self.unit.position)


def scored(
    plan: SearchPlan,
    passages: list[Passage],
    context: ToolsContext,
    subject: set[str],
    lexical_weight: float,
) -> list[Quote]:
    """Every unit of `passages`, best first, the promising ones scored by meaning too
    (`subject`: the notes the last answer cited; `lexical_weight`: what each shared word adds,
    on the embedding model's scale)."""
    analyzer: Analyzer = context.searcher.sparse.analyzer
    languages = context.searcher.sparse.languages  # numbers written as words in them count
    wanted = set(analyzer.subject_terms(" ".join(plan.queries), query=True))
    asked_terms = analyzer.terms(plan.question, query=True)
    question_terms = set(asked_terms)
    # A note the question names by its title, and asks nothing more of ("what did I think of
    # Blade Runner?"), is asked about whole: any of its properties may answer. One asked
    # something more ("the right way to say sorry, in Kevin Kelly's list?") is not: its
    # `type: Authors` answers nothing.
    own_terms = set(analyzer.subject_terms(plan.question, query=True))
    named_terms = {
        name: set(analyzer.terms(name, query=True))
        for name in names_in(plan.question, analyzer.language)
    }
    # Named by a title or alias of two words or more, or of one written as a name ("Priya").
    one_word = {term for terms in named_terms.values() if len(terms) == 1 for term in terms}
    titles = context.searcher.titles
    named_files = {
        passage.hit.file
        for passage in passages
        if (
            titles.boost(asked_terms, passage.chunk) >= PHRASE_BOOST
            or (one_word and titles.named_as(one_word, passage.chunk))
        )
        and own_terms
        <= set(analyzer.terms(" ".join([passage.chunk.title, *passage.chunk.aliases])))
    }
    shown = set(analyzer.terms(plan.selection)) if plan.selection else set()
    # A name most of the vault writes ("Obsidian" in Obsidian's release notes) is its
    # subject: the line that answers needn't repeat it (`pervasive.py`).
    names = [terms for terms in named_terms.values() if terms]
    if names:  # the vault's sample is read only for a question naming something
        sample = vault_sample(context)
        names = [terms for terms in names if not written_widely(terms, sample)]
    # Versions and identifiers ("1.13.0", `app.vault`) name exactly one thing.
    exact = [terms for name, terms in named_terms.items() if terms and _EXACT.search(name)]
    days = QueryHints(dates=plan.days)
    # A question asking for steps, an amount, a time or what is left asks more of a note it
    # names than what it is: "how do I make miso soup?" is not answered by its opening line.
    asks_for = plan.how_to or plan.quantity or plan.when or plan.open_tasks or bool(plan.order)
    candidates: list[_Candidate] = []
    selected: list[Selected] = []
    # Units of one section share its note title and heading: their terms are read once.
    place_terms: dict[tuple[str, str], set[str]] = {}
    # Whether the question names each section, and asks nothing more of it.
    sections: dict[tuple[str, str], bool] = {}
    note_ranks: dict[str, int] = {}
    # The words of each section found (its units', its note title's and heading's).
    section_terms: dict[tuple[str, str], set[str]] = {}
    for rank, passage in enumerate(passages):
        note_rank = note_ranks.setdefault(passage.hit.file, len(note_ranks))
        chunk = passage.chunk
        on_day = bool(plan.days) and days.matches(chunk)
        of_named = passage.hit.file in named_files
        # The first sentence of a note the question names and asks nothing more of says what
        # it is about: "Who is Priya?" is answered by "Engineering manager for the data
        # platform group...", not by her "Out on leave 2026-12-18...".
        lead_pending = of_named and passage.hit.chunk_index == 0 and not asks_for
        for unit in [
            *property_units(chunk.properties),
            *split_units(chunk.body, chunk.heading, chunk.table_header),
        ]:
            lead = lead_pending and not (unit.fact or unit.label or unit.navigation)
            lead_pending = lead_pending and not lead
            if unit.navigation or (plan.open_tasks and unit.closed_task):
                continue  # a link list answers nothing; a task done is not still to do
            keyed = unit.fact and _names_key(unit, question_terms, analyzer)
            # A property the question doesn't ask about ("type: person"; a day's note answers
            # for the day by what it says, not by its `type: daily`).
            if (
                unit.fact
                and not keyed
                and (on_day or not _asked_for(unit, plan, of_named, languages))
            ):
                continue
            terms = set(analyzer.terms(unit.text))
            if shown and terms and len(terms & shown) >= SHOWN_SHARE * min(len(terms), len(shown)):
                # The selected text itself (or holding it): the user has it already; what the
                # unit says besides ("Separate creation from improving. You can't write and
                # edit at the same time.") may be what the question asks.
                rest = without_selection(unit.text, plan.selection)
                where = (passage.hit.file, passage.hit.chunk_index, unit.position)
                selected.append(Selected(*where, goes_on=rest is not None))
                if rest is None:
                    continue
                unit, terms = replace(unit, text=rest), set(analyzer.terms(rest))
            # A unit writing a day the question names is about that day, in any note: a
            # task due then ("- [ ] call the plumber 📅 2026-11-20"), a meeting's line.
            written = written_day(unit.text, plan.days) if plan.days else None
            place = (chunk.title, unit.heading)
            if place not in place_terms:
                place_terms[place] = set(analyzer.terms(f"{chunk.title} {unit.heading}"))
            context_terms = terms | place_terms[place]
            if exact:  # read only to answer a question naming a version or an identifier
                section = (passage.hit.file, unit.heading)
                section_terms.setdefault(section, set()).update(context_terms)
            if place not in sections:
                sections[place] = _names_section(
                    question_terms, own_terms, chunk, unit.heading, analyzer
                )
            shared = len(wanted & context_terms) / math.sqrt(len(wanted) or 1)
            # The names the question asks about (a version, an identifier) must be where the
            # quote is: a sentence about v1.7 does not answer a question about v1.13.0.
            named = sum(name <= context_terms for name in names) / len(names) if names else 1.0
            if on_day or written:
                named = 1.0  # "7 November" names the day's note, which needn't write "November"
            holds = all(name <= context_terms for name in exact)
            lexical = shared + 0.3 / (1 + rank)
            unasked = unit.fact and not keyed and not of_named
            candidate = _Candidate(
                unit,
                passage,
                lexical,
                named,
                holds,
                note_rank,
                keyed=keyed,
                unasked=unasked,
                lead=lead,
                on_day=on_day or written is not None,
                written_day=written,
                named_section=sections[place],
            )
            candidates.append(candidate)
    if exact and any(candidate.holds_exact for candidate in candidates):
        # A question naming a version or an identifier is answered from where it is named:
        # what v1.7 changed does not answer what v1.13.0 changed, however alike they read.
        # The section naming it is about it, in each of its sentences: "Obsidian exposes
        # two APIs: the Vault API (`app.vault`) and the Adapter API (`app.vault.adapter`)"
        # opens a section whose next lines say why to prefer the first.
        held = {
            section
            for section, words in section_terms.items()
            if all(name <= words for name in exact)
        }
        candidates = [
            candidate
            for candidate in candidates
            if (candidate.passage.hit.file, candidate.unit.heading) in held
        ]
    if plan.open_tasks and any(candidate.unit.open_task for candidate in candidates):
        # Asked what is still to do, the open checkboxes found answer it: "What are my open
        # tasks?" reads closer to "I am a software engineer..." than to "Decide on a rail pass".
        candidates = [candidate for candidate in candidates if candidate.unit.open_task]
    if selected:
        candidates = [replace(c, after=c.units_after(selected)) for c in candidates]
    # A property the question names ("when did I *last*...") is always weighed, and so are
    # the units right after the selection and the opening of a note asked about.
    candidates.sort(
        key=lambda candidate: (
            not (candidate.keyed or candidate.lead or after_bonus(candidate.after)),
            -candidate.lexical,
        )
    )
    # What a question asking when or how much needs may share few of its words: "Introduced
    # in Tasks 6.1.0." under a page's opening, among the page's many sentences about
    # dependencies. The closest of those units writing what it asks for are scored too.
    fitting = [c for c in candidates[SCORED_UNITS:] if plan.when and writes_time(c.unit.text)]
    candidates = candidates[:SCORED_UNITS] + fitting[:FITTING_UNITS]
    if not candidates:
        return []
    # Judged on the question alone and with its selection or earlier question, the closer
    # counting; in a note the last answer cited, on the question about that note (its title).
    # The question's vectors were made for the search already.
    questions = list(dict.fromkeys((plan.question, plan.query)))
    about = {file: f"{note_title(file)}: {plan.question}" for file in subject}
    embedder = context.searcher.embedder
    cosines = _cosines(embedder, context.searcher.query_vector, questions, about, candidates)
    second = second_reader(embedder)
    if second is not None:
        also = _cosines(second, second.embed_query, questions, about, candidates)
        cosines = [blended(first, other) for first, other in zip(cosines, also, strict=True)]
    quotes = []
    for candidate, cosine in zip(candidates, cosines, strict=True):
        unit, passage = candidate.unit, candidate.passage
        score = cosine + lexical_weight * candidate.lexical - NAME_MISSING * (1 - candidate.named)
        if plan.active_file and passage.hit.file == plan.active_file:
            score += ACTIVE_BONUS
        if passage.hit.file in subject:
            score += SUBJECT_BONUS
        if candidate.on_day:
            score += DAY_BONUS
        chunk = passage.chunk
        date, version = candidate.written_day or _date_of(chunk), _version_of(chunk)
        # A property the question names, of a note no day dates, is dated by its own value:
        # "when did Steph publish the post?" and ``published: 2022-09-16``.
        own_day = _own_day(unit.text) if date is None and candidate.keyed else None
        dates_itself = own_day is not None
        date = own_day or date
        # What the question asks for: an amount holds a number; a time a date or a version,
        # or sits in a note dated or named by one.
        fits = _fits(plan, unit.text, languages, placed=bool(date or version) and not unit.fact)
        fits = fits or (plan.how_to and bool(unit.shows))  # "how do I...?": steps or code
        if plan.open_tasks and unit.open_task:  # "what's left to book?": a task not done
            score += OPEN_TASK_BONUS
            fits = True
        elif fits:
            score += QUANTITY_BONUS if plan.quantity else WHEN_BONUS
        if candidate.keyed:
            score += KEYED_BONUS
        if candidate.lead:
            score += LEAD_BONUS
        if candidate.named_section:
            score += SECTION_BONUS
        if candidate.unasked:
            score -= UNASKED_PROPERTY
        # "Why does that matter?" about a selected line: what follows it tells.
        score += after_bonus(candidate.after)
        if plan.order is None:  # a last/first question is ordered by date, not by rank
            score += NOTE_RANK_WEIGHT / (1 + candidate.note_rank)
        ref = _ref(passage, unit)
        chunk_index = passage.hit.chunk_index
        # The answer's floors are set on the score without the shared words, whose weight
        # differs by model: a model that weighs them more should not pass more sentences.
        closeness = score - lexical_weight * candidate.lexical
        on_day = candidate.on_day
        quote = Quote(
            unit,
            ref,
            date,
            score,
            version,
            fits,
            chunk_index,
            closeness,
            on_day,
            candidate.named_section,
            dates_itself,
        )
        quotes.append(quote)
    return sorted(quotes, key=lambda quote: -quote.score)


def _cosines(
    reader: Embedder,
    embed_query: Callable[[str], Vector],
    questions: list[str],
    about: dict[str, str],
    candidates: list[_Candidate],
) -> list[float]:
    """How close `reader` reads each candidate to the questions (the closest counting), or in
    a note of `about` to the question about that note: the earlier question found the note,
    and would pick what it asked ("who owns it?")."""
    asked = [embed_query(text) for text in questions]
    about_vectors = {file: reader.embed_query(text) for file, text in about.items()}
    # A unit is read with its note's title and heading: "It takes a week" needs both.
    vectors = reader.embed_documents([candidate.read_as for candidate in candidates])
    cosines = []
    for candidate, vector in zip(candidates, vectors, strict=True):
        file = candidate.passage.hit.file
        judged = [about_vectors[file]] if file in about_vectors else asked
        cosines.append(max(float(np.dot(question, vector)) for question in judged))
    return cosines


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
    unasked: bool = False
    """A property the question doesn't name, of a note it doesn't name either."""
    after: int = 0
    """How many units after the selection it comes, in the selection's note (0: not after)."""
    lead: bool = False
    """The first sentence of a note the question names and asks nothing more of."""
    on_day: bool = False
    """Its note is dated a day the question names, or it writes one."""
    written_day: str | None = None
    """The day the question names that it writes ("2026-11-20"), if any."""
    named_section: bool = False
    """It sits in a section the question names and asks nothing more of (`_names_section`)."""

    def units_after(self, selected: list[Selected]) -> int:
        """How many units after the selection it comes (`selection.units_after`)."""
        hit = self.passage.hit
        return units_after(hit.file, hit.chunk_index, self.unit.position, selected)

    @property
    def read_as(self) -> str:
        # A heading can be a pasted line of megabytes (minified JSON over "---" is a setext
        # heading): the readers embed what they are given whole, at gigabytes of memory.
        heading = _last(self.unit.heading)[:PLACE_CHARS]
        title = self.passage.chunk.title
        place = f"{title}. {heading}" if heading else title
        if self.unit.under:
            place = f"{place}. {self.unit.under[:PLACE_CHARS]}"
        return f"{place}: {self.unit.text}"


def _fits(plan: SearchPlan, text: str, languages: Collection[str], placed: bool = False) -> bool:
    """True when `text` holds what the question asks for: a number (in digits, or a word of
    `languages`) for an amount; for a time, a date, a year or a version, or it is `placed` (its
    note is dated or named by a version)."""
    if plan.quantity and holds_amount(text, languages, plan.often):
        return True
    return plan.when and (placed or writes_time(text))


def _asked_for(
    unit: Unit, plan: SearchPlan, of_named_note: bool, languages: Collection[str]
) -> bool:
    """Whether a property the question doesn't name may answer it: any of a note the question
    names, or one holding what it asks for (a number, a date), unless it dates the note itself
    ("created: ...") or names or files it (asked "who is Priya?", ``aliases: Priya`` repeats
    the question, ``type: person`` says nothing of her), or the question asks for the last or
    first time (the note's date says that)."""
    if is_bookkeeping(unit.text) or is_filing(unit.text):
        return False
    return of_named_note or (plan.order is None and _fits(plan, unit.text, languages))


def _names_key(unit: Unit, question_terms: set[str], analyzer: Analyzer) -> bool:
    """True when the question names the property (``last: 2023-09-14``: "when did I last..."),
    as written or as a word of its family ("directed" for ``director``)."""
    keys = analyzer.terms(unit.text.split(":", 1)[0])
    return any(of_key(term, keys) for term in question_terms)


def of_key(term: str, keys: Collection[str]) -> bool:
    """True when `term` (a question's) is one of `keys` (a property name's terms) or of its
    word's family: "directed" of ``director``."""
    for key in keys:
        shorter, longer = sorted((key, term), key=len)
        if key == term or (len(shorter) >= KEY_STEM_CHARS and longer.startswith(shorter)):
            return True
    return False


def _ref(passage: Passage, unit: Unit) -> NoteRef:
    hit, chunk = passage.hit, passage.chunk
    if hit.source != VAULT_SOURCE:
        return note_ref(hit)
    heading = unit.heading
    if hit.page is None and heading and HEADING_SEPARATOR not in heading and heading == chunk.title:
        heading = ""  # the note's own title heading: [[Note]] says the same
    return NoteRef(file=hit.file, title=hit.title, heading=heading)


def note_ref(hit: SearchHit) -> NoteRef:
    """The note (or another source's document) `hit` is from, as a citation names it."""
    if hit.source != VAULT_SOURCE:
        return NoteRef(file=hit.file, title=hit.title, source=hit.source, url=hit.url)
    return NoteRef(file=hit.file, title=hit.title)


def _date_of(chunk: ChunkPayload) -> str | None:
    """The day a note records: a daily note's date, or a date in its title ("2026-11-05
    Garden Committee"). A note's `created` is when it was written, not what it is about."""
    if chunk.date:
        return chunk.date[:10]
    in_title = ISO_DATE.search(chunk.title)
    return in_title.group(1) if in_title else None


def _names_section(
    question_terms: set[str],
    own_terms: set[str],
    chunk: ChunkPayload,
    heading: str,
    analyzer: Analyzer,
) -> bool:
    """True when the question (its terms; `own_terms`: those of them not generic) names the
    section `heading` of `chunk`'s note and asks nothing more: every word of the section's
    heading is the question's, and every word of the question but a generic one is the
    heading's or the note's ("what went well in the retro?" of "Tidepool Retro > Went well":
    generic words count in the heading, they are all a heading has; "what are the goals for
    Q4?" of "Goals for Q4 2026"; "what decisions were *made* about the irrigation?" of
    "Garden Irrigation > Decision"; "the action items from the planning meeting?" of
    "Meetings/2026-10-29 Tidepool Planning > Action items"). The note's own title heading is
    no section."""
    section = _last(heading)
    if not section or section == chunk.title:
        return False
    # A number in the heading ("Goals for Q4 2026") qualifies it: it need not be asked.
    named = {term for term in analyzer.terms(section) if not term.isdigit()}
    if not named or not _within(named, question_terms):
        return False
    # The note's folder says what it is too: "the planning *meeting*" of "Meetings/...".
    folder = PurePosixPath(chunk.file).parent.name
    place = set(analyzer.terms(" ".join([chunk.title, *chunk.aliases, heading, folder])))
    return _within(own_terms, place)


def _within(terms: set[str], among: set[str]) -> bool:
    """True when each of `terms` is one of `among`, or of the same word's family."""
    return all(term in among or any(_family(term, other) for other in among) for term in terms)


def _family(stem: str, other: str) -> bool:
    """True for stems of one word's family that the stemmer leaves apart: five letters or
    more, differing only in their last ("decid" and "decis": "what did we *decide*" and
    "## *Decisions*")."""
    shorter = min(len(stem), len(other))
    return (
        shorter >= FAMILY_STEM
        and abs(len(stem) - len(other)) <= 1
        and stem[: shorter - 1] == other[: shorter - 1]
    )


def written_day(text: str, days: Collection[str]) -> str | None:
    """The first day written in `text` (as ISO 8601: "2026-11-20", how the Tasks plugin and
    Dataview write due dates) that falls in one of the date patterns `days`."""
    for stamp in ISO_DATE.findall(text):
        if any(within(wanted, stamp) for wanted in days):
            return str(stamp)
    return None


def _own_day(text: str) -> str | None:
    """The day a property's value writes ("published: 2022-09-16"), if any."""
    written = ISO_DATE.search(text.split(":", 1)[-1])
    return written.group(1) if written else None


def _version_of(chunk: ChunkPayload) -> tuple[int, ...] | None:
    return named_version(chunk.title)


def named_version(title: str) -> tuple[int, ...] | None:
    """The version a note is named by ("v1.13.5", "Release 2.0"), as numbers to compare."""
    named = _VERSION.search(title)
    return tuple(int(part) for part in named.group(1).split(".")) if named else None


def _last(heading: str) -> str:
    return heading.rsplit(HEADING_SEPARATOR, 1)[-1]
