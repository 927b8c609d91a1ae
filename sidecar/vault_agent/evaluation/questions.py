"""Evaluate retrieval on a question file over a vault: does search find the answering note?

A question file is JSONL, one question per line:
`{"q": "...", "note": "Folder/Note.md"}`; or `"notes": [...]` when the answer needs several
notes; optional `"also_ok": [...]` (notes that answer it as well); `"note": null` for a
question the vault does not answer; optional `"active": "Folder/Note.md"`, the note open in
the editor when the question is asked.

Metrics are note-level. recall@k is the share of the required notes in the top k, where any
`also_ok` note stands in for a missing one; MRR uses the first acceptable note. For the
unanswerable questions the score is whether retrieval signals low confidence (see
`confidence.py`); the same signal on answerable questions is reported as false alarms.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vault_agent.evaluation.metrics import mean
from vault_agent.evaluation.modes import DEFAULT_MODES, EvalMode, searcher_for
from vault_agent.evaluation.progress import OnProgress, no_progress
from vault_agent.index.search.confidence import Confidence
from vault_agent.index.search.searcher import Searcher
from vault_agent.validation import problem_lines
from vault_agent.vault.graph import LinkGraph

#: How deep each question's ranking goes (MRR is computed over this many notes).
DEPTH = 10


class Question(BaseModel):
    """One line of a question file."""

    model_config = ConfigDict(extra="ignore")

    q: str
    note: str | None = None
    notes: list[str] = Field(default_factory=list)
    also_ok: list[str] = Field(default_factory=list)
    active: str | None = None

    @property
    def required(self) -> list[str]:
        """The notes that together answer the question (none: unanswerable)."""
        return [self.note] if self.note else list(self.notes)

    @property
    def acceptable(self) -> set[str]:
        """Every note that counts as a right answer."""
        return {*self.required, *self.also_ok}


class QuestionOutcome(BaseModel):
    """What retrieval did with one question in one mode."""

    q: str
    expected: list[str]
    top: list[str]
    rank: int | None = Field(description="Rank of the first acceptable note (1-based).")
    confidence: float = Field(description="The nearest chunk's cosine.")
    missing_names: list[str] = Field(description="Names of the question the vault never has.")
    low_confidence: bool


class QuestionScores(BaseModel):
    """Mean metrics of one search mode over a question file."""

    recall_at_1: float
    recall_at_5: float
    mrr: float
    answerable: int
    unanswerable: int
    unanswerable_flagged: float = Field(description="Share of null questions flagged.")
    answerable_flagged: float = Field(description="Share of answerable ones flagged (bad).")
    outcomes: list[QuestionOutcome]


class QuestionsResult(BaseModel):
    """One evaluation run of a question file."""

    questions_file: str
    vault: str
    notes: int
    chunks: int
    index_seconds: float
    query_seconds: float
    modes: dict[str, QuestionScores]


def load_questions(path: Path) -> list[Question]:
    """Parse a question file; a bad line is reported with its line number, a file that is
    no UTF-8 text or holds no question with its name."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    questions = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            questions.append(Question.model_validate(json.loads(line)))
        except ValidationError as error:
            reasons = "; ".join(problem_lines(error, "question"))
            raise ValueError(f"{path}:{number}: not a question: {reasons}") from None
        except ValueError as error:  # not JSON
            raise ValueError(f"{path}:{number}: not a question: {error}") from None
    if not questions:
        raise ValueError(f"{path}: no questions (one JSON object per line)")
    return questions


def is_question_file(path: Path) -> bool:
    """True for a `.jsonl` file (the question-file format)."""
    return path.is_file() and path.suffix == ".jsonl"


def score_questions(
    questions: list[Question],
    searcher: Searcher,
    graph: LinkGraph,
    modes: tuple[EvalMode, ...] = DEFAULT_MODES,
    on_progress: OnProgress = no_progress,
) -> dict[str, QuestionScores]:
    """Ask every question in each mode and score the note-level rankings. A question with an
    `active` note is asked as the plugin asks it: with that note's links and backlinks."""
    # Per position, not per text: one question may be asked with different active notes.
    confidence = [searcher.retrieve(q.q, limit=1).confidence for q in questions]
    near = [neighbourhood(graph, q.active) if q.active else set() for q in questions]
    total = len(questions) * len(modes)
    result: dict[str, QuestionScores] = {}
    for index, mode in enumerate(modes):
        runner, search_mode = searcher_for(searcher, mode)
        outcomes = []
        for position, question in enumerate(questions):
            hits = runner.search(question.q, limit=DEPTH, mode=search_mode, near=near[position])
            top = [hit.file for hit in hits]
            outcomes.append(_outcome(question, top, confidence[position]))
            on_progress("querying", index * len(questions) + position + 1, total)
        result[mode] = _scores(questions, outcomes)
    return result


def neighbourhood(graph: LinkGraph, file: str) -> set[str]:
    """The notes `file` links to and the notes linking to it (depth 1, as the plugin sends by
    default)."""
    return {*graph.outgoing(file), *graph.backlinks(file)} - {file}


def _outcome(question: Question, top: list[str], confidence: Confidence) -> QuestionOutcome:
    acceptable = question.acceptable
    rank = next((i for i, file in enumerate(top, start=1) if file in acceptable), None)
    return QuestionOutcome(
        q=question.q,
        expected=sorted(acceptable),
        top=top,
        rank=rank,
        confidence=round(confidence.top_cosine, 4),
        missing_names=list(confidence.missing_names),
        low_confidence=confidence.low,
    )


def _recall(question: Question, top: list[str], k: int) -> float:
    required = question.required
    found = len(question.acceptable & set(top[:k]))
    return min(1.0, found / len(required))


def _scores(questions: list[Question], outcomes: list[QuestionOutcome]) -> QuestionScores:
    pairs = list(zip(questions, outcomes, strict=True))
    answerable = [(q, o) for q, o in pairs if q.required]
    null = [o for q, o in pairs if not q.required]
    return QuestionScores(
        recall_at_1=mean([_recall(q, o.top, 1) for q, o in answerable]),
        recall_at_5=mean([_recall(q, o.top, 5) for q, o in answerable]),
        mrr=mean([1.0 / o.rank if o.rank else 0.0 for _, o in answerable]),
        answerable=len(answerable),
        unanswerable=len(null),
        unanswerable_flagged=mean([1.0 if o.low_confidence else 0.0 for o in null]),
        answerable_flagged=mean([1.0 if o.low_confidence else 0.0 for _, o in answerable]),
        outcomes=outcomes,
    )
