"""The quotes that open an extractive answer, before the other notes that bear on it.

The best unit that says something, and a second within `SECOND_WITHIN` of it (read on as the
note writes it: `read_on.py`); for a question asking when or how much, a unit holding a date
or a number near the best; for a last/first question the newest (oldest) dated or versioned
note among those that bear on it; for a question naming several days, each day's best; a
FAQ's question is answered by the unit after it. The lists some questions are answered by
(open tasks, a section, the steps of a how-to) are `lists.py`'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from vault_agent.agent.extractive.done_lines import done_lines
from vault_agent.agent.extractive.lists import note_open_tasks, open_tasks
from vault_agent.agent.extractive.plan import SearchPlan
from vault_agent.agent.extractive.read_on import ANSWER_UNITS, read_on
from vault_agent.agent.extractive.scoring import Quote, writes_time
from vault_agent.agent.extractive.units import ANSWER_WIDE_CHARS, ANSWER_WORDS, says_something
from vault_agent.index.embed.terms import Analyzer
from vault_agent.vault.chunker import wide_chars

#: A quote holding what the question asks for (a number, a date) opens the answer when it
#: scores within this of the best quote.
FITS_BELOW_BEST = 0.15
#: ...or, in the best quote's own section, within this.
BESIDE_BELOW_BEST = 0.3
#: A question naming several days is answered by this many days' notes at most.
DIGEST_DAYS = 7
#: A second answer unit must score within this of the best. Sentences this close are a tie
#: cosine can't break: 0.06 -> 0.1 put the answer among the first two 3 more times on the
#: answer sets (304 answerable), 0.57 -> 0.62 on held-out 4; 0.2 three more on the sets, none
#: on held-out 4, and nearly every answer two sentences long.
SECOND_WITHIN = 0.1
#: A dated unit this far below the best one may still answer a last/first question...
DATED_BELOW_BEST = 0.25
#: ...and the dated units within this of the best dated one are ordered by date.
DATED_WITHIN = 0.08
#: ...but releases (notes named by versions) within this of the closest one. Each release
#: line about a feature changed it, in its own words: the release introducing it
#: ("Introducing Canvas") reads further from "in which release did X arrive?" than later ones
#: that changed it in the question's words, and a rename ("Safe mode" is "Restricted mode"
#: now) closer to "the most recent release that changed Restricted mode" than the newest.
RELEASES_WITHIN = 0.15

#: What a unit says after the last question it asks.
_REPLY = re.compile(r"[?？](?P<reply>[^?？]*)$")


def answer_first(
    quotes: list[Quote],
    kept: list[Quote],
    plan: SearchPlan,
    sure: float = -1.0,
    analyzer: Analyzer | None = None,
) -> list[Quote]:
    """The one or two quotes that answer: the best, or for a last/first question the newest
    (oldest) dated one among those that bear on it, or for a question naming several days
    the best of each day's note that answers (`sure`: how close one must be), day by day.
    `analyzer` reads what a journal's lines report done (`done_lines.py`; None: not read)."""
    if plan.tasks_only:
        tasks = open_tasks(quotes)
        if tasks:
            return tasks
    if plan.open_tasks and kept[0].unit.open_task:  # "what's left to book for Kyoto?"
        return note_open_tasks(kept[0], kept)
    if plan.over_days:
        days = _day_by_day(quotes, every=plan.day_by_day, sure=sure)
        if len(days) > 1:
            return days
    if (plan.order is not None or plan.when) and kept[0].dates_itself:
        # "When did Steph first publish the post?": the property it names says; the dates
        # of other notes (a meeting that discussed the post) don't order it.
        return [kept[0]]
    if plan.order is not None:
        # A dated note answers a "when" question even when an undated one (the recipe) is
        # closer; notes named by versions (a changelog) are ordered by version, if none is.
        # Of a journal's days, those that report the asked thing done (`done_lines.py`).
        done = done_lines(quotes, plan.question, analyzer)
        for when, within in ((_when_dated, DATED_WITHIN), (_when_versioned, RELEASES_WITHIN)):
            pool = done if when is _when_dated else quotes
            ordered = _in_order(pool, kept[0].score, when, plan.order, within)
            if ordered is not None:
                return [ordered]
    if plan.when:
        # "In which release did X arrive?" over a changelog: the first release that speaks
        # of it introduced it; later ones that mention it again only changed it.
        introduced = _in_order(quotes, kept[0].score, _when_versioned, "oldest", RELEASES_WITHIN)
        if introduced is not None:
            return [introduced]
    worthy = [quote for quote in kept if says_something(quote.unit)] or kept
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
    # "When did...?" opens with the sentence holding the date ("This shipped in 7.11.0.").
    return read_on(first, quotes, leads=(plan.when or plan.quantity) and first[0].fits)


def _day_by_day(quotes: list[Quote], every: bool, sure: float) -> list[Quote]:
    """The best quote of each note dated in the days the question names, in date order, for
    at most `DIGEST_DAYS` notes: of `every` note found ("what did I do last week?"), or of
    those whose best surely answers and is as close as the closest ("did I go swimming last
    month?": the days it happened)."""
    best: dict[str, Quote] = {}
    for quote in quotes:  # best first
        # A day's log is short lines ("went swimming"): any but a label says what it held.
        if quote.on_day and quote.date and not (quote.unit.label or quote.unit.fact):
            best.setdefault(quote.ref.file, quote)
    chosen = list(best.values())
    if not every and chosen:
        top = chosen[0].score - SECOND_WITHIN
        chosen = [quote for quote in chosen if quote.score >= top and quote.closeness >= sure]
    return sorted(chosen[:DIGEST_DAYS], key=lambda quote: quote.date or "")


def _answered(quote: Quote, quotes: list[Quote]) -> Quote:
    """A quote that asks a question (a FAQ's "Can I get a refund?") answers nothing itself:
    the unit after it in its section does. One that goes on past its question by too few
    words to say why (a FAQ's "**Will I be logged out?** No.") is read on into the next."""
    asked = None if quote.unit.row else _REPLY.search(quote.unit.text)
    reply = asked.group("reply").strip("*_ ") if asked else ""
    if (
        asked is None
        or len(reply.split()) >= ANSWER_WORDS
        or wide_chars(reply) >= ANSWER_WIDE_CHARS
    ):
        return quote
    after = _next(quote, quotes, across=not reply)
    if after is None:
        return quote
    if not reply:  # the question alone: what follows answers it
        return replace(after, score=quote.score)
    return replace(quote, unit=replace(quote.unit, text=f"{quote.unit.text} {after.unit.text}"))


def _next(quote: Quote, quotes: list[Quote], across: bool = False) -> Quote | None:
    """The unit right after `quote` in its section, if it was scored; `across` a heading too
    (a question closing its section, "How can I write this without a fixed date?", is
    answered by the next one's opening: "## tl;dr / Use `due before in 7 days`.")."""
    after = (
        q
        for q in quotes
        if q.ref.file == quote.ref.file
        and (q.ref == quote.ref or across)
        and q.chunk == quote.chunk
        and q.unit.position == quote.unit.position + 1
    )
    return next(after, None)


def _fitting_lead(quotes: list[Quote], best: Quote, plan: SearchPlan) -> Quote | None:
    """For a question asking when, how much or how to, when the best quote holds no date,
    number, code or steps: the best quote holding them that bears on the question nearly as
    well, else one beside the best in its section ("Random sorting shuffles the tasks. It
    shipped in 7.11.0.")."""
    if not (plan.when or plan.quantity or plan.how_to) or best.fits:
        return None
    fitting = [q for q in quotes if q.fits and says_something(q.unit)]
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
    quotes: list[Quote],
    best: float,
    when: Callable[[Quote], Any],
    order: str,
    within: float = DATED_WITHIN,
) -> Quote | None:
    """The newest (oldest) of the quotes `when` places in time that bear on the question
    about as well as the best of them does; None when `when` places none."""
    # A note's own properties ("date: 2023-09-12") say when, which the answer's date does; a
    # label says nothing (a callout's title, "Metadata cache") unless it writes the time
    # itself ("Released May 23, 2023" over a release's list).
    placed = [
        q
        for q in quotes
        if when(q) is not None
        and not q.unit.fact
        and (not q.unit.label or writes_time(q.unit.text))
        and q.score >= best - DATED_BELOW_BEST
    ]
    if not placed:
        return None
    close = max(quote.score for quote in placed) - within
    placed = [quote for quote in placed if quote.score >= close]
    if order == "newest":
        return max(placed, key=lambda q: (when(q), q.score))
    return min(placed, key=lambda q: (when(q), -q.score))


def _when_dated(quote: Quote) -> str | None:
    return quote.date


def _when_versioned(quote: Quote) -> tuple[int, ...] | None:
    return quote.version
