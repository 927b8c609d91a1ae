"""Retrieval on the translated help vaults, in-language and across languages, in one table.

    uv run python -m bench.cross_lingual [--mode dense --mode hybrid ...] [--lang zh ...]
        [--json out.json]

Each translated vault is indexed once, as `vault-agent eval` indexes it (`auto` picks the
multilingual models), and asked its dev question files: the vault's own-language dev set
(`*.dev2.jsonl`), the hand-written English sets (`*.cross-en.dev*.jsonl`) and the mapped
cross-lingual set (`*.cross.dev.jsonl`, `bench/cross_sets.py`), which is also reported split
into its English questions and its questions in the other five languages. Dev sets only: the
held-out halves are run once, with `vault-agent eval`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from vault_agent.config import Settings
from vault_agent.evaluation.cache import CachedEmbedder
from vault_agent.evaluation.indexing import index_folder
from vault_agent.evaluation.modes import ALL_MODES, EvalMode
from vault_agent.evaluation.questions import Question, QuestionScores, score_questions
from vault_agent.evaluation.run import DEFAULT_CACHE_DIR
from vault_agent.index.embed.choose import detect, models_for

REPO = Path(__file__).resolve().parents[1]
VAULTS = REPO.parent / "shared" / "data" / "vaults"
QA = REPO / "tests" / "data" / "qa"
LANGUAGES = ("de", "es", "fr", "ja", "ru", "zh")


def question_sets(lang: str) -> dict[str, list[tuple[Question, str]]]:
    """Set name -> (question, its language) for the `lang` vault's dev files."""
    sets: dict[str, list[tuple[Question, str]]] = {}
    files = [
        ("own", QA / f"obsidian-help-{lang}.dev2.jsonl"),
        ("en (hand)", QA / f"obsidian-help-{lang}.cross-en.dev2.jsonl"),
        ("en (hand)", QA / f"obsidian-help-{lang}.cross-en.dev.jsonl"),
        ("cross", QA / f"obsidian-help-{lang}.cross.dev.jsonl"),
    ]
    for name, path in files:
        if not path.exists():
            continue
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        pairs = [(Question.model_validate(row), row.get("lang", lang)) for row in rows]
        sets[name] = pairs
        if name == "cross":
            sets["cross: en"] = [p for p in pairs if p[1] == "en"]
            sets["cross: other"] = [p for p in pairs if p[1] != "en"]
    return sets


def run(langs: list[str], modes: tuple[EvalMode, ...]) -> dict[str, dict[str, dict[str, object]]]:
    """Per vault, per set, per mode: recall@5, MRR, flags (and each question's rank)."""
    results: dict[str, dict[str, dict[str, object]]] = {}
    for lang in langs:
        vault = VAULTS / f"obsidian-help-{lang}"
        models = models_for(detect(vault), Settings())
        embedder = CachedEmbedder(models.embedder, DEFAULT_CACHE_DIR)
        with tempfile.TemporaryDirectory(prefix="vault-agent-bench-") as scratch:
            index, _ = index_folder(vault, Path(scratch) / "data", embedder, models.sparse)
            with index:
                results[lang] = {}
                for name, pairs in question_sets(lang).items():
                    questions = [q for q, _ in pairs]
                    scores = score_questions(questions, index.searcher, index.graph, modes)
                    results[lang][name] = {
                        mode: _summary(score, [language for _, language in pairs])
                        for mode, score in scores.items()
                    }
        embedder.flush()
    return results


def _summary(scores: QuestionScores, langs: list[str]) -> dict[str, object]:
    ranks = [o.rank for o in scores.outcomes if o.expected]
    return {
        "n": scores.answerable,
        "null": scores.unanswerable,
        "recall_at_5": scores.recall_at_5,
        "mrr": scores.mrr,
        "null_flagged": scores.unanswerable_flagged,
        "answerable_flagged": scores.answerable_flagged,
        "ranks": ranks,
        "outcomes": [
            {
                "q": o.q,
                "lang": lang,
                "rank": o.rank,
                "cosine": o.confidence,
                "low": o.low_confidence,
            }
            for o, lang in zip(scores.outcomes, langs, strict=True)
        ],
    }


def print_table(results: dict[str, dict[str, dict[str, object]]], modes: tuple[str, ...]) -> None:
    """Recall@5 / MRR per vault and set, one column per mode."""
    table = Table(title="translated help vaults, dev sets: recall@5 / MRR")
    table.add_column("vault")
    table.add_column("questions")
    for mode in modes:
        table.add_column(mode, justify="right")
    totals: dict[tuple[str, str], list[tuple[float, float, int]]] = {}
    for lang, sets in results.items():
        for name, by_mode in sets.items():
            cells = []
            for mode in modes:
                summary = by_mode[mode]
                n = int(summary["n"])  # type: ignore[call-overload]
                recall, mrr = float(summary["recall_at_5"]), float(summary["mrr"])  # type: ignore[arg-type]
                totals.setdefault((name, mode), []).append((recall, mrr, n))
                cells.append(f"{recall:.2f} / {mrr:.2f}")
            table.add_row(lang, f"{name} ({by_mode[modes[0]]['n']})", *cells)
    for name in dict.fromkeys(name for name, _ in totals):
        cells = []
        for mode in modes:
            rows = totals[(name, mode)]
            weight = sum(n for _, _, n in rows)
            recall = sum(r * n for r, _, n in rows) / weight
            mrr = sum(m * n for _, m, n in rows) / weight
            cells.append(f"{recall:.3f} / {mrr:.3f}")
        table.add_row("all", f"{name} ({weight})", *cells)
    Console().print(table)


def main() -> None:
    """Run the sets and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", action="append", choices=ALL_MODES)
    parser.add_argument("--lang", action="append", choices=LANGUAGES)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    modes: tuple[EvalMode, ...] = tuple(args.mode or ("dense", "hybrid"))
    results = run(args.lang or list(LANGUAGES), modes)
    print_table(results, modes)
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
