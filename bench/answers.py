"""Score offline (extractive) answers on question files with expected evidence.

Each question (tests/data/qa/answers.*.jsonl) names its vault, the note and the sentences that
answer it, and its context: earlier turns (`history`), a `selection`, the open note (`active`).
It is asked the way the plugin asks it, through the agent loop with the extractive answerer,
and scored:

- answered: one of the evidence sentences is among the answer's first two quotes;
- honest: an unanswerable question (`note: null`) gets "your notes don't seem to cover this";
- true citations: every `[[Note#Heading]]` of the answer names a heading that note has;
- latency: the answer's total time.

    uv run python -m bench.answers tests/data/qa/answers.dev.jsonl
    uv run python -m bench.answers --latency tests/data/qa/obsidian-developer-docs.dev.jsonl \
        --vault ../shared/data/vaults/obsidian-developer-docs

`--latency` asks a retrieval question file's questions three times over one warm index and
prints the answer time's percentiles (target: p95 under 300 ms on the developer docs vault).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import percentile
from vault_agent.agent.citations.links import find_citations, heading_anchor
from vault_agent.agent.events import DoneEvent
from vault_agent.agent.extractive import (
    DISCLAIMER,
    NOT_COVERED,
    NOTHING,
    UNSURE,
    ExtractiveAnswerer,
)
from vault_agent.agent.extractive.units import split_units, table_cells
from vault_agent.agent.loop import run_agent
from vault_agent.agent.prompts import ActiveNote, neighbourhood_of
from vault_agent.agent.reader import ToolsContext, heading_paths
from vault_agent.agent.request import AgentRequest, HistoryTurn
from vault_agent.config import Settings
from vault_agent.evaluation.cache import CachedEmbedder
from vault_agent.evaluation.indexing import index_folder
from vault_agent.evaluation.run import DEFAULT_CACHE_DIR
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.choose import detect, models_for
from vault_agent.index.vault_index import VaultIndex
from vault_agent.vault.markdown import atx_heading

REPO = Path(__file__).resolve().parents[1]
VAULTS = {"examples/vault": REPO / "examples" / "vault"}
SHARED_VAULTS = REPO.parent / "shared" / "data" / "vaults"
#: The answer's quotes: lines that end in a citation, before "More from your notes".
_MORE = "**More from your notes**"
_MARKUP = re.compile(r"\[\[[^\]]*\]\]|\*\*|[`_\"*\[\]]")
_DATE_PREFIX = re.compile(r"^\d{4}-\d{2}-\d{2}: ")


@dataclass
class Scored:
    """How one question was answered."""

    kind: str
    answered: bool
    bad_headings: list[str]
    seconds: float
    answer: str = ""
    question: str = ""
    unsure: bool = False
    """The answer opened by saying the notes may not answer it directly."""


@dataclass
class Totals:
    """Scores of one question file, by kind and in all."""

    rows: list[Scored] = field(default_factory=list)

    def table(self) -> str:
        kinds: dict[str, list[Scored]] = defaultdict(list)
        for row in self.rows:
            kinds[row.kind].append(row)
        lines = ["| kind | questions | answered as expected |", "| --- | --- | --- |"]
        for kind, rows in sorted(kinds.items()):
            lines.append(f"| {kind} | {len(rows)} | {_share(rows):.2f} |")
        answerable = [r for r in self.rows if r.kind != "unanswerable"]
        lines.append(f"| **answerable** | {len(answerable)} | **{_share(answerable):.2f}** |")
        unanswerable = [r for r in self.rows if r.kind == "unanswerable"]
        doubted = sum(r.unsure for r in unanswerable if not r.answered)
        wrongly = sum(r.unsure for r in answerable)
        lines.append(
            f"\nanswered 'may not answer this directly': {doubted} of the unanswerable ones not "
            f"said so, {wrongly} of {len(answerable)} answerable ones"
        )
        bad = sum(len(row.bad_headings) for row in self.rows)
        ms = [row.seconds * 1000 for row in self.rows]
        lines.append(
            f"\ncited headings that are not in their note: {bad}; latency p50 "
            f"{percentile(ms, 0.5):.0f} ms, p95 {percentile(ms, 0.95):.0f} ms"
        )
        return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--show", action="store_true", help="print the answers that missed")
    parser.add_argument("--latency", action="store_true", help="time answers, don't score")
    parser.add_argument(
        "--vault", type=Path, help="the vault of a retrieval question file (no `vault` keys)"
    )
    args = parser.parse_args()
    if args.latency:
        for path in args.files:
            ms = asyncio.run(latency(path, args.vault))
            print(
                f"{path.name}: {len(ms)} answers, p50 {percentile(ms, 0.5):.0f} ms, "
                f"p95 {percentile(ms, 0.95):.0f} ms, max {max(ms):.0f} ms"
            )
        return
    for path in args.files:
        totals = asyncio.run(score_file(path, args.vault))
        print(f"\n{path.name}: {len(totals.rows)} questions\n{totals.table()}")
        if args.show:
            for row in totals.rows:
                if not row.answered:
                    print(f"\n--- missed ({row.kind}): {row.question}\n{row.answer}")


async def score_file(path: Path, vault: Path | None = None) -> Totals:
    """Every question of `path`, asked and scored (vaults indexed once each); a retrieval
    question file (no `vault` keys) is asked over `vault`."""
    questions = load_questions(path, vault)
    by_vault: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for question in questions:
        by_vault[question["vault"]].append(question)
    totals = Totals()
    for name, asked in by_vault.items():
        root = VAULTS.get(name, SHARED_VAULTS / name)
        embedder, sparse = encoders_for(root)
        with tempfile.TemporaryDirectory(prefix="vault-agent-answers-") as scratch:
            index, _ = index_folder(root, Path(scratch), embedder, sparse)
            embedder.flush()
            with index:
                for question in asked:
                    totals.rows.append(await score(index, question))
    return totals


async def score(index: VaultIndex, question: dict[str, Any]) -> Scored:
    """Ask one question as the plugin would, and score the answer."""
    request = request_for(index, question)
    started = time.perf_counter()
    done = None
    async for event in run_agent(
        request, ExtractiveAnswerer(), ToolsContext.from_index(index), index.settings
    ):
        if isinstance(event, DoneEvent):
            done = event
    seconds = time.perf_counter() - started
    text = done.answer if done is not None else ""
    if question["note"] is None:
        answered = text.startswith((NOT_COVERED, NOTHING))
    else:  # saying the notes don't cover it quotes nothing
        answered = not text.startswith((NOT_COVERED, NOTHING)) and _evidence_first(
            text, question["evidence"]
        )
    bad = _bad_headings(index, text)
    unsure = text.startswith(UNSURE)
    return Scored(question["kind"], answered, bad, seconds, text, question["q"], unsure)


async def latency(path: Path, vault: Path, rounds: int = 3) -> list[float]:
    """Milliseconds per extractive answer to each question of `path` (a retrieval question
    file), asked `rounds` times over a warm index of `vault` (the first round warms it)."""
    questions = [question["q"] for question in load_questions(path)]
    embedder, sparse = encoders_for(vault)
    with tempfile.TemporaryDirectory(prefix="vault-agent-answers-") as scratch:
        index, _ = index_folder(vault, Path(scratch), embedder, sparse)
        embedder.flush()
        # Answers embed their question and sentences: the real model, not the index's cache.
        index.searcher.embedder = embedder.inner
        with index:
            context = ToolsContext.from_index(index)
            times: list[float] = []
            for round_ in range(rounds + 1):
                for question in questions:
                    started = time.perf_counter()
                    async for _ in run_agent(
                        AgentRequest(question=question),
                        ExtractiveAnswerer(),
                        context,
                        index.settings,
                    ):
                        pass
                    if round_:
                        times.append((time.perf_counter() - started) * 1000)
    return times


def encoders_for(root: Path) -> tuple[CachedEmbedder, Bm25Encoder]:
    """The encoders indexing `root` would choose (English or multilingual, BM25 in the notes'
    language), the dense one caching its vectors."""
    models = models_for(detect(root), Settings())
    return CachedEmbedder(models.embedder, DEFAULT_CACHE_DIR), models.sparse


def load_questions(path: Path, vault: Path | None = None) -> list[dict[str, Any]]:
    """The questions of an answer file, or of a retrieval question file over `vault` (its
    evidence line is what the answer should quote; a question with no note is unanswerable)."""
    questions = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for question in questions:
        if "vault" not in question and vault is not None:
            question["vault"] = str(vault.resolve())
        evidence = question.get("evidence") or []
        # "start: 2023-09-12 ... end: 2023-09-30": each part is a line of the note.
        lines = [evidence] if isinstance(evidence, str) else evidence
        question["evidence"] = [part for line in lines for part in line.split(" ... ") if part]
        if question.get("note") is None and not question.get("notes"):
            question["note"], question["kind"] = None, "unanswerable"
        question.setdefault("kind", "fact")
    return questions


def request_for(index: VaultIndex, question: dict[str, Any]) -> AgentRequest:
    """The request the plugin sends: question, history, selection, open note and neighbours."""
    active = question.get("active")
    active_note = None
    neighbourhood = []
    if active:
        content = (index.settings.vault_root / active).read_text(encoding="utf-8")
        active_note = ActiveNote(path=active, content=content)
        neighbourhood = neighbourhood_of(index.graph, active)
    return AgentRequest(
        question=question["q"],
        history=[HistoryTurn.model_validate(turn) for turn in question.get("history", [])],
        selection=question.get("selection"),
        active_note=active_note,
        neighbourhood=neighbourhood,
    )


def _evidence_first(answer: str, evidence: list[str]) -> bool:
    """True when one of the first two quotes of `answer` is (part of) an evidence sentence; a
    quote's lines include the code or the list items it shows after it."""
    blocks: list[list[str]] = []
    # The quotes end where the other notes, the disclaimer and the Sources list begin: a
    # Sources line ("- [[Graph view]]", read as "-") is in any hyphenated evidence sentence.
    quoted = answer.split(_MORE)[0].split(DISCLAIMER)[0]
    for line in quoted.splitlines():
        if "[[" in line:
            blocks.append([line])
        elif blocks and line.strip() and len(blocks) <= 2:
            blocks[-1].append(line.removeprefix("- "))
    quotes = [line for block in blocks[:2] for line in block]
    # Evidence is markdown as the note has it: read it as the answerer reads passages.
    wanted = [_plain(" ".join(u.text for u in split_units(e, ""))) for e in evidence]
    wanted = [sentence for sentence in wanted if sentence]  # an embed alone reads as nothing
    # A table row is quoted with its columns' names between its cells: its cells, in order.
    rows = [_row_cells(e) for e in evidence if e.lstrip().startswith("|")]
    # A heading is no quote, but a quote's citation shows it (and its note's name): "When did
    # Tasks 8.0.0 come out?" is answered under "[[Breaking Changes#Tasks 8.0.0 (8 May 2026)]]".
    headings = [_plain(heading[1]) for e in evidence if (heading := atx_heading(e.strip()))]
    for quote in quotes:
        said = _plain(_DATE_PREFIX.sub("", quote))
        if any(said and (said in sentence or sentence in said) for sentence in wanted):
            return True
        if any(cells and _in_order(cells, said) for cells in rows):
            return True
        shown = _plain(_with_places(quote))
        if any(heading and heading in shown for heading in headings):
            return True
    return False


def _with_places(quote: str) -> str:
    """`quote` with each citation as its reader sees it: the note's name, the heading."""
    parts, position = [], 0
    for citation in find_citations(quote):
        place = f"{citation.target.rsplit('/', 1)[-1]} {citation.subpath.replace('#', ' ')}"
        parts += [quote[position : citation.start], f" {place} "]
        position = citation.end
    return "".join([*parts, quote[position:]])


def _row_cells(row: str) -> list[str]:
    """The non-empty cells of a table row, read as `_plain` reads a quote."""
    cells = table_cells(row)
    return [_plain(" ".join(u.text for u in split_units(cell, ""))) for cell in cells if cell]


def _in_order(parts: list[str], text: str) -> bool:
    """True when each of `parts` occurs in `text`, one after another."""
    at = 0
    for part in parts:
        found = text.find(part, at)
        if not part or found < 0:
            return False
        at = found + len(part)
    return True


def _bad_headings(index: VaultIndex, answer: str) -> list[str]:
    """Citations of the answer whose heading is not a heading of their note."""
    bad = []
    for citation in find_citations(answer):
        if not citation.subpath or citation.subpath.startswith(("^", "page=")):
            continue
        file = index.graph.resolve(citation.target, "")
        if file is None or not file.endswith(".md"):
            continue
        text = (index.settings.vault_root / file).read_text(encoding="utf-8", errors="replace")
        anchors = {heading_anchor(path).lower() for _, path in heading_paths(text)}
        if heading_anchor(citation.subpath).lower() not in anchors:
            bad.append(citation.raw)
    return bad


def _plain(text: str) -> str:
    """Text without markup, links or punctuation at its ends, in lower case, spaces collapsed."""
    text = _MARKUP.sub(" ", text).replace("…", " ").replace("\u200b", "")
    return " ".join(text.lower().split()).strip(" .,;:")


def _share(rows: list[Scored]) -> float:
    return sum(row.answered for row in rows) / len(rows) if rows else 0.0


if __name__ == "__main__":
    main()
