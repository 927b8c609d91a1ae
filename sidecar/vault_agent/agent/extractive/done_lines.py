"""The journal lines that report something done, for "when did I last (first)...?".

Asked "when did I last feed Gus?", a journal's days speak of feeding him in lines that are
not about a feed done: a plan ("Gus is in the fridge; next feed on Tuesday"), a thing not done
("Skipped feeding Gus", "No feed today"), an open task, a section of plans ("## Tomorrow").
Those are no answer, however close they read: a last/first question orders only what the
dated lines report done (`done_lines`), read sentence by sentence ("Baking day. Fed Gus at
08:00... Next time 5 more minutes lid off." reports a bake and a feed).

And the line that answers may read far from the question: "Fed the sourdough starter at 07:45
(10 g Gus, 50 g flour, 50 g water)..." scores well under "Fed Gus at 09:00", which says the
same thing. The dated lines reporting the same doing as the closest (each word the question
shares with it, read through the words' lemmas so that "Fed" is "feed") are ordered with it,
and only they.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import Any

from vault_agent.agent.extractive.question_words import UNSPACED, compiled
from vault_agent.agent.extractive.scoring import Quote
from vault_agent.agent.extractive.units import Unit, sentences
from vault_agent.index.embed.terms import Analyzer
from vault_agent.vault.chunker import HEADING_SEPARATOR

#: Words saying a line's action was not done, or is still to come. Not a bare "morning"-or-
#: "tomorrow" word ("morgen", "mañana" can be either in a day's log), nor "going to" ("Going
#: to the market with Maya" is a day's outing; and "the Roundup is going to go on hiatus" is
#: why it stopped), nor a verb ending, which the line's tense would need a parser to read.
NOT_DONE = {
    "en": r"no|not|never|\w+n't|cannot|skip(?:s|ped|ping)?|next|tomorrow|will|won't|"
    r"plan(?:s|ned|ning)?(?: to)?|need to|have to|should|must|maybe|later|to-?do",
    "de": r"nicht|kein(?:e|en|er|em|es)?|nie|niemals|nächste[nmrs]?|später|werde|wirst|wird|"
    r"werden|geplant|übersprungen|ausgelassen|vergessen",
    "fr": r"ne|pas|jamais|aucune?|prochaine?s?|plus tard|prévue?s?|sauté|oublié",
    "es": r"no|nunca|ningún|ninguna|próxim[oa]s?|luego|planeado|saltado|olvidé|pendiente",
    "ru": r"не|нет|никогда|завтра|следующ\w*|позже|пропусти\w*|забы\w*|планир\w*",
    # Not a bare "不" or "没": "不错" (not bad), "没问题" (no problem) report nothing undone.
    UNSPACED: r"没有|沒有|还没|還沒|明日|明天|次回|予定|しなかった|忘れ",
}
#: A section's heading saying its lines are plans, not a log ("## Tomorrow", "## Ideas").
PLANNED = {
    "en": r"tomorrow|next|plans?|planned|to-?do|ideas?|later|someday|upcoming|goals?",
    "de": r"morgen|nächste[nmrs]?|pläne|geplant|ideen|später|aufgaben|to-?dos?",
    "fr": r"demain|à faire|idées|plus tard|prévu|projets?",
    "es": r"mañana|pendientes?|ideas|planes|por hacer|próxim[oa]s?",
    "ru": r"завтра|планы|идеи|сделать|потом",
    UNSPACED: r"明日|明天|予定|计划|計畫|やること|待办|アイデア",
}
_NOT_DONE = compiled(NOT_DONE)
_PLANNED = compiled(PLANNED)
_WORD = re.compile(r"\w+")
#: The closest line that reports the action must share at least this many words with the
#: question before the lines holding them all are ordered with it: one ("Gus") is any line
#: about him.
SHARED_WORDS = 2


def done_text(unit: Unit) -> str:
    """The sentences of `unit` that report something done: none for an open task or a line
    under a heading of plans, and none saying a thing was not done or is to come."""
    if unit.open_task or _PLANNED.search(unit.heading.rsplit(HEADING_SEPARATOR, 1)[-1]):
        return ""
    return " ".join(part for part in sentences(unit.text) if not _NOT_DONE.search(part))


def done_lines(quotes: list[Quote], question: str, analyzer: Analyzer | None) -> list[Quote]:
    """The quotes a last/first question orders: `quotes` without the dated lines that report
    nothing done; or, when the closest dated line reporting something done shares
    `SHARED_WORDS` words with the question (`analyzer` reads them; None: never), the dated
    lines reporting those (each lifted to the closest's score, however far it reads)."""
    done = {id(quote): done_text(quote.unit) for quote in quotes if quote.date is not None}
    kept = [quote for quote in quotes if quote.date is None or done[id(quote)]]
    dated = [quote for quote in kept if quote.date is not None and not quote.unit.fact]
    if analyzer is None or not dated:
        return kept
    closest = max(dated, key=lambda quote: quote.score)
    shared = _doing(question, analyzer) & _doing(done[id(closest)], analyzer)
    if len(shared) < SHARED_WORDS:
        return kept
    alike = [quote for quote in dated if shared <= _doing(done[id(quote)], analyzer)]
    return [replace(quote, score=max(quote.score, closest.score)) for quote in alike]


def _doing(text: str, analyzer: Analyzer) -> set[str]:
    """The terms of `text` that say what it is about, each word also read as its lemma."""
    lemmas = " ".join(_lemma(word, analyzer.language) for word in _WORD.findall(text))
    return set(analyzer.subject_terms(text)) | set(analyzer.subject_terms(lemmas))


@functools.lru_cache(maxsize=65536)
def _lemma(word: str, language: str) -> str:
    """`word`'s dictionary form in `language` ("fed" -> "feed"), or itself when the language
    has no dictionary here."""
    lemmatize = _lemmatizer()
    if lemmatize is None:
        return word
    try:
        return str(lemmatize(word.lower(), lang=language))
    except ValueError:  # a language simplemma has no tables for
        return word


@functools.cache
def _lemmatizer() -> Any:
    """simplemma's `lemmatize`, imported on the first last/first question (its tables load
    per language on first use: about 0.2 s for English)."""
    try:
        from simplemma import lemmatize
    except ImportError:  # pragma: no cover - a dependency of the package
        return None
    return lemmatize
