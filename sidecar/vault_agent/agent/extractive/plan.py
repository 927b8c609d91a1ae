"""What to search for, and how to order what is found, for one question in its context.

A question rarely stands alone. "How do I filter it?" means the subject of the question
before it; "What do my notes say about this?" means the selected text; "What does this note
say about timing?" means the open note first. And "when did I last..." asks for the newest
dated note that bears on it, not the most similar one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from vault_agent.agent.citations.links import find_citations
from vault_agent.agent.extractive.collections import asked_kind
from vault_agent.agent.extractive.question_words import (
    HOW_OFTEN,
    HOW_TO,
    NEWEST,
    OLDEST,
    OPEN_TASKS,
    PRICE,
    QUANTITY,
    WHEN,
    WHERE,
    compiled,
    counted,
)
from vault_agent.agent.extractive.units import SENTENCE_END
from vault_agent.agent.request import AgentRequest
from vault_agent.agent.tools import EARLIEST_DAY
from vault_agent.index.embed.terms import Analyzer, function_words
from vault_agent.index.search.hints import date_words, is_day, query_hints
from vault_agent.index.search.relative_dates import Period, without_relative_dates

#: A question with this few terms of its own leans on what came before it.
FOLLOW_UP_TERMS = 3
#: The selection is searched with at most this many characters (its start).
SELECTION_CHARS = 1_000

DateOrder = Literal["newest", "oldest"] | None

_NEWEST = compiled(NEWEST)
_OLDEST = compiled(OLDEST)
_QUANTITY = compiled(QUANTITY)
_WHEN = compiled(WHEN)
_HOW_TO = compiled(HOW_TO)
_HOW_OFTEN = compiled(HOW_OFTEN)
_OPEN_TASKS = compiled(OPEN_TASKS)
_WHERE = compiled(WHERE)
_PRICE = compiled(PRICE)
_WORD = re.compile(r"\w+")
#: What a question's first words may ask for.
_ASKING = (_QUANTITY, _WHEN, _HOW_TO, _WHERE, _PRICE, _HOW_OFTEN, _NEWEST, _OLDEST)
#: A sentence's last marks: the run of non-word characters it ends with, sought only from a
#: run's start (a pattern ending in "\W*$" reads each run again from each of its characters:
#: a question of 8,000 "?" took 1.5 s).
_LAST_MARKS = re.compile(r"(?<!\W)\W*$")
_ASKING_MARKS = "?？؟"
#: A sentence that tells: it ends in a full stop or an exclamation mark after a word of four
#: letters or more (a shorter one may be an abbreviation), or in a wide full stop.
_FOUR_LETTERS = re.compile(r"\w{4}")
_TOLD_MARKS = re.compile(r"[\"'”’»)\]]*[.!।॥۔]")
_WIDE_TOLD_MARKS = "。！"
#: "What is *overdue*?", "*past due*": open tasks of the days before today.
_OVERDUE = re.compile(r"\b(?:overdue|past due|late)\b", re.IGNORECASE)
#: Where a sentence's clauses meet: a dash between spaces, a semicolon.
_CLAUSES = re.compile(r"\s[—–-]\s|;\s")


@dataclass(frozen=True)
class SearchPlan:
    """What one extractive answer searches, and how it orders the passages it keeps."""

    question: str
    query: str
    """What is searched: the question, completed by its selection or earlier question."""
    earlier: str = ""
    """The question before this one in the conversation (a follow-up's subject)."""
    order: DateOrder = None
    quantity: bool = False
    """The question asks for an amount, a size, a duration: the answer holds a number."""
    often: bool = False
    """The question asks how often: "once a day" answers it as "2 times a day" does."""
    counted: tuple[str, ...] = ()
    """What a "how many...?" question counts ("pages"): the answer holds it beside a number."""
    price: bool = False
    """It asks what something costs: money (or "free") answers, no other number."""
    when: bool = False
    """The question asks when, or in which release: the answer holds a date or a version."""
    how_to: bool = False
    """The question asks how to do something: steps or code answer it."""
    open_tasks: bool = False
    """The question asks what is still to do ("what's left to book?"): open checkboxes
    answer it, ticked-off ones don't."""
    kind: str = ""
    """The kind of note the question asks for a list of ("what *books* have I read?")."""
    tasks_only: bool = False
    """...and asks nothing more ("what are my open tasks?"): the vault's open tasks answer
    it, whatever their words."""
    active_file: str = ""
    near: frozenset[str] = frozenset()
    """Files to favour: the open note and its neighbourhood."""
    selection: str = ""
    subject_links: tuple[str, ...] = ()
    """The notes the previous answer cited (link targets): what a follow-up is about."""
    days: frozenset[str] = frozenset()
    """The days the question names ("on 7 November", "in March 2024", "last week": date
    patterns, `index/search/hints.py`): a note dated in one of them is what it asks about."""
    today: date | None = None
    """The day "yesterday" and "last week" count from (None: the system's)."""
    day_by_day: bool = False
    """The question asks what a period of several days held, and nothing more ("what did I
    do last week?", "in March 2024?"): each day's note answers a part of it."""

    @property
    def queries(self) -> list[str]:
        """Every search to run: the query, and in a conversation the question with the earlier
        one too (it may change the subject, or not: both are searched, the question judges)."""
        with_subject = f"{self.earlier} {self.question}" if self.earlier else ""
        if self.selection or not with_subject:
            return [self.query]
        return list(dict.fromkeys((self.query, with_subject)))

    @property
    def over_days(self) -> bool:
        """True when the question names a period of several days ("last week", "in March
        2024"): what happened in it may have happened on several of them."""
        return any(not is_day(day) for day in self.days)

    @property
    def pointed(self) -> bool:
        """True when the user pointed at something (an open note, a selection): the answer
        comes from there, even when the vault at large looks unrelated."""
        return bool(self.active_file or self.selection)


def plan(
    request: AgentRequest,
    active_file: str,
    analyzer: Analyzer,
    today: date | None = None,
    languages: Collection[str] = (),
    has_notes: Callable[[Period], bool] | None = None,
) -> SearchPlan:
    """The search for `request`: its question, completed by its context. `today` (default
    the system's) is the day "yesterday" counts from, in `languages` (default the notes');
    `has_notes` says which months hold notes (a month alone is the latest that does)."""
    question = request.question.strip()
    asking = asking_sentences(question)
    parts = [question]
    selection = (request.selection or "").strip()[:SELECTION_CHARS]
    earlier = _last_user_turn(request)
    if selection:
        parts.insert(0, selection)
    elif earlier and len(set(analyzer.subject_terms(question, query=True))) <= FOLLOW_UP_TERMS:
        parts.insert(0, earlier)
    near = {active_file} if active_file else set()
    near |= {neighbour.path for neighbour in request.neighbourhood}
    often = bool(_HOW_OFTEN.search(asking))
    amount = asks_amount(asking) or often
    # "How do I list my unfinished tasks?" asks for steps, not for the tasks.
    how_to = bool(_HOW_TO.search(asking))
    open_tasks = bool(_OPEN_TASKS.search(asking)) and not how_to
    read_in = languages or (analyzer.language,)
    days = query_hints(question, today, read_in, has_notes).dates
    if open_tasks and _OVERDUE.search(question):  # "what is overdue?": due before today
        yesterday = (today or date.today()) - timedelta(days=1)
        days |= {f"{EARLIEST_DAY.isoformat()}/{yesterday.isoformat()}"}
    return SearchPlan(
        question=question,
        query=" ".join(parts),
        earlier=earlier,
        order=date_order(without_relative_dates(asking, read_in)),
        quantity=amount,
        often=often,
        counted=counted(asking) if amount and not often else (),
        price=bool(_PRICE.search(asking)),
        when=bool(_WHEN.search(asking)),
        how_to=how_to,
        open_tasks=open_tasks,
        kind="" if selection or active_file else asked_kind(question),
        tasks_only=open_tasks
        and not (selection or active_file)
        and _asks_only_tasks(question, analyzer, read_in),
        active_file=active_file,
        near=frozenset(near),
        today=today,
        selection=selection,
        subject_links=() if selection or not earlier else _cited_before(request),
        days=days,
        day_by_day=_asks_only_of(days, question, analyzer, read_in),
    )


def _asks_only_of(
    days: frozenset[str], question: str, analyzer: Analyzer, languages: Collection[str]
) -> bool:
    """True when `question` names a period of several days and asks nothing more of it than
    what it held: its words are the period's ("what did I do last week?"), not "did I go
    swimming last month?"."""
    if all(is_day(day) for day in days):
        return False
    dated = {term for word in date_words(question, languages) for term in analyzer.terms(word)}
    return not set(analyzer.subject_terms(question, query=True)) - dated


def _asks_only_tasks(question: str, analyzer: Analyzer, languages: Collection[str]) -> bool:
    """True when `question` asks for what is still to do and names nothing it is about: its
    words are those asking ("what are my open tasks?", "quelles sont mes tâches à faire ?",
    "what's due this week?"), not "what's left to book for Kyoto?". Words asking are read in
    `languages` too."""
    asking = frozenset().union(*(function_words(language) for language in languages))
    asking |= {word.lower() for word in date_words(question, languages)}  # "due this week"
    rest = [
        word
        for word in _WORD.findall(_OPEN_TASKS.sub(" ", question))
        if word.lower() not in asking and not word.isdigit()  # "due on 2026-11-20"
    ]
    return not analyzer.subject_terms(" ".join(rest), query=True)


def asking_sentences(question: str) -> str:
    """The sentences of `question` that ask (end in a question mark) when the others only
    tell: what they tell is the setting, not what is asked ("Quitting used to lose my
    *latest* edits. How many seconds were at risk?" asks for an amount, not for the newest
    note; "Quand je clique..., la note reste vide. Que faut-il vérifier ?" asks no time).
    The whole question otherwise. A full stop after a word of three letters or fewer may end
    an abbreviation ("bzw.", "etc."), not a sentence."""
    sentences = SENTENCE_END.split(question)
    asking = [sentence for sentence in sentences if _asks(sentence)]
    told = [sentence for sentence in sentences if not _asks(sentence)]
    if asking and told and all(_tells(sentence) for sentence in told):
        question = " ".join(asking)
    return _asking_clause(question)


def _ending(sentence: str) -> tuple[str, str]:
    """`sentence` split before the non-word characters it ends with."""
    found = _LAST_MARKS.search(sentence)
    start = found.start() if found is not None else len(sentence)
    return sentence[:start], sentence[start:]


def _asks(sentence: str) -> bool:
    """True when `sentence` ends in a question mark (and what may close after it)."""
    return any(mark in _ending(sentence)[1] for mark in _ASKING_MARKS)


def _tells(sentence: str) -> bool:
    """True when `sentence` ends in a full stop or an exclamation mark after a word of four
    letters or more, or in a wide full stop."""
    words, marks = _ending(sentence)
    if any(mark in marks for mark in _WIDE_TOLD_MARKS):
        return True
    return bool(_FOUR_LETTERS.fullmatch(words[-4:])) and bool(_TOLD_MARKS.match(marks))


def _asking_clause(sentence: str) -> str:
    """The clause of `sentence` that asks, after a dash or a semicolon, when the clause
    before it tells: "I have no idea how often I'd use it — what should I do before buying
    it?" asks what to do, not how often. A clause opening with words that ask ("Wie lange
    habe ich Zeit – und geht das auch...?") asks too: the whole sentence is kept."""
    clauses = _CLAUSES.split(sentence)
    if len(clauses) != 2 or _asks(clauses[0]) or not _asks(clauses[1]):
        return sentence
    setting = clauses[0].strip()
    if any(
        found is not None and found.start() == 0
        for found in (pattern.search(setting) for pattern in _ASKING)
    ):
        return sentence
    return clauses[1]


def asks_amount(question: str) -> bool:
    """True when the question asks for an amount ("how long does a sync take?"), not for a
    way or a place to find one out ("how can I check how long...", "where can I see how
    long..."): the amount it names then comes after the words asking for steps or a place."""
    amount = _QUANTITY.search(question)
    if amount is None:
        return False
    before = question[: amount.start()]
    return not (_HOW_TO.search(before) or _WHERE.search(before))


def date_order(question: str) -> DateOrder:
    """ "newest" for last/latest/most recent questions, "oldest" for first/earliest ones."""
    if _NEWEST.search(question):
        return "newest"
    if _OLDEST.search(question):
        return "oldest"
    return None


def _cited_before(request: AgentRequest) -> tuple[str, ...]:
    """The notes the last answer cited: "what has he said about it?" is about them."""
    for turn in reversed(request.history):
        if turn.role == "assistant" and turn.content.strip():
            targets = (citation.target for citation in find_citations(turn.content))
            return tuple(dict.fromkeys(target for target in targets if target))
    return ()


def _last_user_turn(request: AgentRequest) -> str:
    for turn in reversed(request.history):
        if turn.role == "user" and turn.content.strip():
            return turn.content.strip()[:SELECTION_CHARS]
    return ""
