"""The ``extractive`` profile: answers without a language model, from the notes' own words.

It is a :class:`~vault_agent.llm.model.ChatModel` like the others, so it runs through the same
agent loop and a client sees the same events: its first turn calls ``search_notes`` with the
question, its second turn reads that tool result and writes the answer: the most relevant
passages grouped by note, each cited ``[[Note#Heading]]``, then Sources.

Relevance is judged per passage, because hybrid search always returns *something*: a passage
counts when its meaning is close to the question (MiniLM cosine) or it shares the question's
content words and is not far off in meaning. When nothing counts, the answer says the notes
don't seem to cover the question instead of quoting noise.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence

import numpy as np
from stop_words import get_stop_words

from vault_agent.agent.passages import Passage, parse_passages
from vault_agent.agent.prompts import EMPTY_ANSWER_NUDGE, SYNTHESIS_NUDGE, question_of
from vault_agent.index.embed.minilm import Embedder
from vault_agent.llm.messages import (
    Message,
    ToolCall,
    ToolSpec,
    Usage,
    new_tool_call_id,
)
from vault_agent.llm.model import (
    ChatEvent,
    Finished,
    TextDelta,
    ToolCallsReady,
)

SEARCH_TOOL = "search_notes"
SEARCH_LIMIT = 8
MAX_NOTES = 4
PASSAGES_PER_NOTE = 2
QUOTE_CHARS = 360
CLOSE_MEANING = 0.45
"""Cosine at or above which a passage is relevant on meaning alone."""
RELATED_MEANING = 0.22
"""Cosine at or above which a passage sharing a content word with the question is relevant."""
NOT_FOUND = (
    "I couldn't find anything about this in your notes. The closest notes don't seem to "
    "answer it; try other words, or check that the notes you expect are indexed."
)
DISCLAIMER = "_Extractive answer: passages quoted from your notes, no language model involved._"
SEARCH_FAILED = "I could not search your notes, so I have no answer. The search said: "
TOOL_ERROR = "Error: "  # how a failed tool call's result starts (`ToolResult.error`)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_LINK = re.compile(r"!?\[\[(?P<target>[^\]|#\n]*)(?:#[^\]|\n]*)?(?:\|(?P<display>[^\]\n]*))?\]\]")
_MARKDOWN_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]*)\]\([^)\n]*\)")
_LIST_MARK = re.compile(r"^(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?")
_BLOCK_ID = re.compile(r"\s\^[\w-]+\s*$")
_TAGS_ONLY = re.compile(r"#[\w/-]+")
_RULE = re.compile(r"^(?:-{3,}|\*{3,}|_{3,})$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_RECENCY = re.compile(
    r"\b(?:last|latest|lately|recent|recently|newest|most recent|this week|yesterday)\b",
    re.IGNORECASE,
)
_NUDGES = (SYNTHESIS_NUDGE, EMPTY_ANSWER_NUDGE)
_DOCUMENT_TITLE = re.compile(r" \([a-z0-9_-]+\)$")  # "[Title (source)]": the source named


class ExtractiveModel:
    """A ``ChatModel`` that searches, then quotes the best passages it found, cited."""

    name = "extractive"
    model = "hybrid search"
    supports_tools = True

    def __init__(self, embedder: Embedder | None = None) -> None:
        self._embedder = embedder
        self._stop_words = frozenset(get_stop_words("english"))

    def stream(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> AsyncIterator[ChatEvent]:
        """Turn 1: call search_notes with the question. Turn 2: the answer from its result."""
        return self._stream(list(messages), [tool.name for tool in tools])

    async def aclose(self) -> None:
        """Nothing to release."""

    async def _stream(self, messages: list[Message], tools: list[str]) -> AsyncIterator[ChatEvent]:
        question = _question(messages)
        results = _search_results(messages)
        if not results and SEARCH_TOOL in tools and messages[-1].role == "user":
            call = ToolCall(
                id=new_tool_call_id(),
                name=SEARCH_TOOL,
                arguments={"query": question, "limit": SEARCH_LIMIT},
            )
            yield ToolCallsReady([call])
            yield Finished(Usage(), "tool_calls")
            return
        failed = [content for content in results if content.startswith(TOOL_ERROR)]
        if results and len(failed) == len(results):
            # Not "nothing found": the search itself failed (the index is down, say).
            answer = SEARCH_FAILED + failed[-1].removeprefix(TOOL_ERROR)
        else:
            passages = [p for content in results for p in parse_passages(content)]
            answer = await asyncio.to_thread(self.compose, question, passages)
        for line in answer.splitlines(keepends=True):
            yield TextDelta(line)
        yield Finished(Usage(), "stop")

    def compose(self, question: str, passages: Sequence[Passage]) -> str:
        """The answer to ``question`` from ``passages``: relevant ones grouped by note."""
        relevant = self._relevant(question, passages)
        if not relevant:
            return NOT_FOUND
        groups: dict[str, list[Passage]] = {}
        for passage in relevant:
            note = _note_of(passage.link)
            if note in groups or len(groups) < MAX_NOTES:
                group = groups.setdefault(note, [])
                if len(group) < PASSAGES_PER_NOTE:
                    group.append(passage)
        terms = self._content_words(question)
        lines = [f"Here is what your notes say about: {question.strip()}", ""]
        for note, group in groups.items():
            label = note.rsplit("/", 1)[-1] if group[0].link.startswith("[[") else note
            lines.append(f"**{label}**")
            for passage in group:
                lines.append(f"- {self._quote(passage.body, terms)} {passage.link}")
            lines.append("")
        lines += [DISCLAIMER, "", "Sources:"]
        lines += [f"- {p.link}" for group in groups.values() for p in group]
        return "\n".join(lines)

    def _relevant(self, question: str, passages: Sequence[Passage]) -> list[Passage]:
        """Passages that answer something of ``question``, most relevant first.

        A question about the latest of something puts the newest relevant daily notes first.
        """
        if not passages:
            return []
        terms = self._content_words(question)
        meaning = self._similarities(question, passages)
        scored = []
        for passage, cosine in zip(passages, meaning, strict=True):
            overlap = len(terms & self._content_words(passage.body))
            # A note named after what is asked about ("Who is Maya?") is the best source,
            # whichever of its sections the search picked.
            named = len(terms & self._content_words(_note_of(passage.link))) / max(len(terms), 1)
            close = cosine >= CLOSE_MEANING or (overlap and cosine >= RELATED_MEANING)
            if close or named >= 0.5:
                scored.append((cosine + 0.05 * overlap + 0.3 * named, passage))
        scored.sort(key=lambda item: -item[0])
        relevant = [passage for _, passage in scored]
        if _RECENCY.search(question):
            dated = sorted(
                (p for p in relevant if p.date), key=lambda p: p.date or "", reverse=True
            )
            relevant = dated + [p for p in relevant if not p.date]
        return relevant

    def _quote(self, body: str, terms: set[str]) -> str:
        """The lines or sentences of ``body`` that share most words with the question."""
        units = _units(body)
        if not units:
            return ""
        scores = [len(terms & self._content_words(unit)) for unit in units]
        best = max(scores)
        if best == 0:  # relevant by meaning only: the passage's opening
            chosen = list(range(len(units)))
        else:
            chosen = sorted(range(len(units)), key=lambda i: (-scores[i], i))
            chosen = [i for i in chosen if scores[i] > 0]
        picked: list[int] = []
        size = 0
        for index in chosen:
            if picked and size + len(units[index]) > QUOTE_CHARS:
                break
            picked.append(index)
            size += len(units[index])
        quote = " … ".join(units[i] for i in sorted(picked))
        return (
            quote if len(quote) <= QUOTE_CHARS else quote[: QUOTE_CHARS - 1].rsplit(" ", 1)[0] + "…"
        )

    def _similarities(self, question: str, passages: Sequence[Passage]) -> list[float]:
        if self._embedder is None:  # no model at all: words decide, meaning is neutral
            return [RELATED_MEANING] * len(passages)
        query = self._embedder.embed_query(question)
        bodies = self._embedder.embed_documents([p.body for p in passages])
        return [float(np.dot(query, body)) for body in bodies]

    def _content_words(self, text: str) -> set[str]:
        words = (w.lower() for w in _WORD.findall(text))
        return {_stem(w) for w in words if len(w) > 2 and w not in self._stop_words}


def _units(body: str) -> list[str]:
    """``body`` as quotable units: list items and table rows whole, prose by sentence.

    Wikilinks become their text: a quote's links are the note's, not citations of ours.
    Tags alone are not worth quoting.
    """
    text = _LINK.sub(lambda m: m.group("display") or m.group("target"), body)
    text = _MARKDOWN_LINK.sub(lambda m: m.group("text"), text)
    units: list[str] = []
    paragraph: list[str] = []
    in_item = False

    def flush() -> None:
        if paragraph:
            units.extend(s.strip() for s in _SENTENCE.split(" ".join(paragraph)) if s.strip())
            paragraph.clear()

    for raw in text.splitlines():
        line = _BLOCK_ID.sub("", raw).strip()
        item = _LIST_MARK.match(line)
        if in_item and line and raw[:1].isspace() and not item:
            units[-1] = f"{units[-1]} {line}"  # a list item wrapped onto the next line
            continue
        in_item = False
        if not line or line.startswith("#") or _RULE.match(line):
            flush()
        elif item or line.startswith("|"):
            flush()
            content = line[item.end() :] if item else line
            if content.strip(" |-:"):
                units.append(content.strip())
                in_item = bool(item)
        else:
            paragraph.append(line.lstrip("> ").strip())
    flush()
    return [unit for unit in units if _TAGS_ONLY.sub("", unit).strip()]


def _question(messages: list[Message]) -> str:
    """The user's question: the last user message that is not one of the loop's nudges."""
    for message in reversed(messages):
        if message.role == "user" and message.content not in _NUDGES:
            return question_of(message.content)
    return ""


def _search_results(messages: list[Message]) -> list[str]:
    """search_notes results since the question was asked."""
    results: list[str] = []
    for message in reversed(messages):
        if message.role == "user" and message.content not in _NUDGES:
            break
        if message.role == "tool" and message.name == SEARCH_TOOL:
            results.insert(0, message.content)
    return results


def _note_of(link: str) -> str:
    """ "[[Recipes/Miso Soup#Method]]" -> "Recipes/Miso Soup"; a document's citation,
    "[Title](https://...)" or "[Title (source)]", -> "Title"."""
    if link.startswith("[["):
        return link[2:-2].split("#", 1)[0].split("|", 1)[0]
    if "](" in link:
        return link[1:].split("](", 1)[0]
    return _DOCUMENT_TITLE.sub("", link[1:-1])


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _stem(word: str) -> str:
    """A crude English stem, enough for "feeding" to meet "feed" and "notes" to meet "note"."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
