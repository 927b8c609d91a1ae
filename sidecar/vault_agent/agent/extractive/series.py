"""A question asking for the newest or oldest note of a series itself: "what did I write in
my latest daily note?", "what was my most recent meeting about?", "when was the very first
release?".

Such a question names no topic, only the kind of note and an order (`SearchPlan.order`).
Search ranks passages by how near their words come to the question's, so the newest note of
a journal is found only if its words happen to be near; the answer is the series' newest
(oldest) note by the date or version in its name, read from its opening.

The series is the notes under the folder of the best dated or versioned note search found
(a journal's `Daily/`, a changelog's top folder; folders named by numbers, `2026/11/`, are
inside the series, not series of their own), those named by a date or version as it is. The
question names no topic when each of its words (past generic and order words, which
`Analyzer.subject_terms` drops) names the series' folder or the vault, names what a series
of dates or versions is ("journal", "release": `DATED_KINDS`, `VERSIONED_KINDS`) or one of
its notes ("entry", `ENTRY_WORDS`), or is written in most of the series' notes
(`COMMON_SHARE`: "Gus" in a sourdough journal). "When did I last feed Gus?" names what was
done: its answer is the newest note that tells of feeding (answerer.py), not the newest note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from vault_agent.agent.citations.links import NoteRef
from vault_agent.agent.extractive.amounts import ISO_DATE
from vault_agent.agent.extractive.collections import is_template, note_units
from vault_agent.agent.extractive.plan import SearchPlan
from vault_agent.agent.extractive.question_words import UNSPACED
from vault_agent.agent.extractive.scoring import named_version
from vault_agent.agent.extractive.units import Unit
from vault_agent.agent.reader import ToolsContext
from vault_agent.index.search.searcher import Passage
from vault_agent.index.store.protocol import SearchFilter

#: The series of the notes found tried, at most (the best found first).
SERIES_TRIED = 3
#: A series has at least this many notes named by a date or a version.
MIN_SERIES = 2
#: A word written in at least this share of the series' notes names the series, not a topic.
COMMON_SHARE = 0.6
#: The series' notes read for `COMMON_SHARE` at most (the newest, by name).
SAMPLED = 40
#: What a series of notes named by versions is called, in the languages asked in.
VERSIONED_KINDS = {
    "en": "release releases version versions update updates build builds changelog",
    "de": "release releases version versionen update updates",
    "fr": "version versions mise jour publication",
    "es": "versión versiones lanzamiento actualización",
    "ru": "версия версии релиз обновление",
    UNSPACED: "版本 发布 更新 バージョン リリース アップデート 버전 릴리스 업데이트",
}
#: What a series of notes named by dates is called.
DATED_KINDS = {
    "en": "journal journals diary daily day log logbook",
    "de": "tagebuch journal täglich tagesnotiz",
    "fr": "journal quotidien quotidienne",
    "es": "diario bitácora",
    "ru": "дневник журнал",
    UNSPACED: "日记 日記 日志 日誌 日報 일기",
}
#: What one note of a series is, and what asks for its contents ("my last journal *entry*",
#: "what did we *discuss* at the most recent meeting?"), where the generic words
#: (`Analyzer.subject_terms`) don't have them.
ENTRY_WORDS = {
    "en": "entry entries post posts page pages issue issues episode episodes discuss "
    "discussed talk talked",
    "de": "eintrag einträge beitrag seite besprochen",
    "fr": "entrée entrées article page discuté",
    "es": "entrada entradas página hablamos",
}
_DIGITS = re.compile(r"\d")


@dataclass(frozen=True)
class SeriesNote:
    """The newest (oldest) note of a series, and what the answer says of it."""

    note: NoteRef
    named: str
    """The date or version it is named by ("2026-11-12", "1.13.5")."""
    count: int
    """How many notes the series has."""
    folder: str
    """The series' folder ("" at the vault's top)."""
    units: list[Unit]
    """What it holds, in order: its sentences, items and rows (labels and links left out)."""


def series_note(
    plan: SearchPlan, passages: list[Passage], context: ToolsContext
) -> SeriesNote | None:
    """The newest (oldest) note of the series `plan`'s question asks for, when it asks for
    that note itself and names no topic; None otherwise."""
    if plan.order is None or plan.days or plan.pointed or plan.subject_links:
        return None
    # The series of the dated or versioned notes found, best first: the first the question
    # asks for.
    candidates: dict[tuple[str, bool], None] = {}
    for passage in passages:
        place = _named_place(passage.hit.file)
        if place is not None:
            candidates[(_series_folder(passage.hit.file), isinstance(place, str))] = None
    for folder, dated in list(candidates)[:SERIES_TRIED]:
        members = _members(folder, dated, context)
        if len(members) >= MIN_SERIES and _names_no_topic(
            plan.question, folder, dated, members, context
        ):
            chosen = members[-1] if plan.order == "newest" else members[0]
            return _read(chosen, folder, len(members), context)
    return None


def _members(folder: str, dated: bool, context: ToolsContext) -> list[str]:
    """The notes of the series kept in `folder` named by a date (else a version), in order."""
    placed = (
        (_named_place(file), file)
        for file in context.graph.files()
        if file.endswith(".md") and _in_folder(file, folder) and not is_template(file)
    )
    in_order = sorted(
        (_sort_key(place), file)
        for place, file in placed
        if place is not None and isinstance(place, str) == dated
    )
    return [file for _, file in in_order]


def _read(chosen: str, folder: str, count: int, context: ToolsContext) -> SeriesNote | None:
    """The note `chosen` of a series of `count` kept in `folder`, with what it holds."""
    held = note_units(chosen, context)
    if held is None:
        return None
    note, units = held
    place = _named_place(chosen)
    named = place if isinstance(place, str) else ".".join(map(str, place or ()))
    return SeriesNote(note, named, count, folder, units)


def _names_no_topic(
    question: str, folder: str, dated: bool, members: list[str], context: ToolsContext
) -> bool:
    """True when every subject word of `question` names the series (see the module)."""
    analyzer = context.searcher.sparse.analyzer
    asked = set(analyzer.subject_terms(question, query=True))
    place = " ".join([*PurePosixPath(folder).parts, context.vault_root.name])
    asked -= set(analyzer.terms(place.replace("-", " ").replace("_", " ")))
    asked -= {term for words in ENTRY_WORDS.values() for term in analyzer.terms(words)}
    kinds = DATED_KINDS if dated else VERSIONED_KINDS
    asked -= {term for words in kinds.values() for term in analyzer.terms(words)}
    if not asked:
        return True
    sample = members[-SAMPLED:]
    firsts = context.store.scroll(SearchFilter(files=sample, chunk_index=0))
    written = [set(analyzer.terms(f"{note.title}\n{note.body}")) for note in firsts]
    if not written:
        return False
    return all(
        sum(term in terms for terms in written) >= COMMON_SHARE * len(written) for term in asked
    )


def _named_place(file: str) -> str | tuple[int, ...] | None:
    """Where a note's name puts it in a series: the ISO date it writes ("2026-11-12
    Standup"), else the version ("v1.13.5"); None for neither."""
    stem = PurePosixPath(file).stem
    day = ISO_DATE.search(stem)
    if day is not None:
        return str(day.group(1))
    return named_version(stem)


def _sort_key(place: str | tuple[int, ...]) -> tuple[str, tuple[int, ...]]:
    return (place, ()) if isinstance(place, str) else ("", place)


def _series_folder(file: str) -> str:
    """The folder a series is kept in: `file`'s, or the nearest above it not named by a
    number (a journal's `Journal/2026/11/` is in the series `Journal`)."""
    parts = file.split("/")[:-1]
    while parts and _DIGITS.search(parts[-1]):
        parts.pop()
    return "/".join(parts)


def _in_folder(file: str, folder: str) -> bool:
    """True for a note of the series kept in `folder` ("": the notes at the vault's top)."""
    if not folder:
        return _series_folder(file) == ""
    return file.startswith(f"{folder}/")
