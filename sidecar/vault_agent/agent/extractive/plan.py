"""What to search for, and how to order what is found, for one question in its context.

A question rarely stands alone. "How do I filter it?" means the subject of the question
before it; "What do my notes say about this?" means the selected text; "What does this note
say about timing?" means the open note first. And "when did I last..." asks for the newest
dated note that bears on it, not the most similar one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from vault_agent.agent.request import AgentRequest
from vault_agent.index.embed.terms import Analyzer

#: A question with this few terms of its own leans on what came before it.
FOLLOW_UP_TERMS = 3
#: The selection is searched with at most this many characters (its start).
SELECTION_CHARS = 1_000

DateOrder = Literal["newest", "oldest"] | None

# Words that ask for the newest or the oldest dated note, in the languages the vaults use.
_NEWEST = re.compile(
    r"\b(?:last|latest|lately|most recent(?:ly)?|recent(?:ly)?|newest|previous|"
    r"zuletzt|letzte[nmrs]?|neueste[nmrs]?|dernière?s?|récemment|último|última|recientemente|"
    r"ultim[oa]|последн\w*|недавно)\b|最近|上次|最后|最後|前回|この前",
    re.IGNORECASE,
)
_OLDEST = re.compile(
    r"\b(?:first|earliest|initially|originally|erste[nmrs]?|zuerst|premier|première|"
    r"primer[oa]?|primera vez|перв\w*)\b|第一次|最初|初めて",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SearchPlan:
    """What one extractive answer searches, and how it orders the passages it keeps."""

    question: str
    query: str
    """What is searched: the question, completed by its selection or earlier question."""
    order: DateOrder = None
    active_file: str = ""
    near: frozenset[str] = frozenset()
    """Files to favour: the open note and its neighbourhood."""
    selection: str = ""

    @property
    def pointed(self) -> bool:
        """True when the user pointed at something (an open note, a selection): the answer
        comes from there, even when the vault at large looks unrelated."""
        return bool(self.active_file or self.selection)


def plan(request: AgentRequest, active_file: str, analyzer: Analyzer) -> SearchPlan:
    """The search for `request`: its question, completed by its context."""
    question = request.question.strip()
    parts = [question]
    selection = (request.selection or "").strip()[:SELECTION_CHARS]
    if selection:
        parts.insert(0, selection)
    elif len(set(analyzer.terms(question, query=True))) <= FOLLOW_UP_TERMS:
        earlier = _last_user_turn(request)
        if earlier:
            parts.insert(0, earlier)
    near = {active_file} if active_file else set()
    near |= {neighbour.path for neighbour in request.neighbourhood}
    return SearchPlan(
        question=question,
        query=" ".join(parts),
        order=date_order(question),
        active_file=active_file,
        near=frozenset(near),
        selection=selection,
    )


def date_order(question: str) -> DateOrder:
    """ "newest" for last/latest/most recent questions, "oldest" for first/earliest ones."""
    if _NEWEST.search(question):
        return "newest"
    if _OLDEST.search(question):
        return "oldest"
    return None


def _last_user_turn(request: AgentRequest) -> str:
    for turn in reversed(request.history):
        if turn.role == "user" and turn.content.strip():
            return turn.content.strip()[:SELECTION_CHARS]
    return ""
