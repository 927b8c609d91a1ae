"""`run_eval`: what `vault-agent eval` does, as a function tests call directly.

The input decides the kind of evaluation: a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)
or a question file (.jsonl) over a vault. The index is built in a scratch folder (a temporary
one unless `work_dir` is given) so a user's real index is never touched; dense vectors come
from the on-disk cache in `cache_dir`.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import platformdirs
from pydantic import BaseModel

from vault_agent.choices import EmbeddingChoice
from vault_agent.config import APP_NAME, Settings
from vault_agent.evaluation.beir import is_beir, load_beir
from vault_agent.evaluation.beir_eval import BeirResult, evaluate_beir
from vault_agent.evaluation.cache import CachedEmbedder
from vault_agent.evaluation.indexing import index_folder
from vault_agent.evaluation.modes import ALL_MODES, DEFAULT_MODES, EvalMode
from vault_agent.evaluation.progress import OnProgress, no_progress
from vault_agent.evaluation.questions import (
    QuestionsResult,
    is_question_file,
    load_questions,
    score_questions,
)
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.choose import ModelChoice, TextModels, detect, models_for
from vault_agent.index.embed.minilm import Embedder, MiniLmEmbedder

#: Where dense vectors are cached between runs (see `cache.py`).
DEFAULT_CACHE_DIR = Path(platformdirs.user_cache_dir(APP_NAME)) / "eval"


class EvalOptions(BaseModel):
    """The inputs of one evaluation run."""

    path: Path
    vault: Path | None = None
    split: str = "test"
    max_docs: int | None = None
    modes: tuple[EvalMode, ...] = DEFAULT_MODES
    cache_dir: Path = DEFAULT_CACHE_DIR
    work_dir: Path | None = None


class EvalInputError(ValueError):
    """The eval's input is missing or of an unknown kind (the message says which)."""


def eval_options(
    path: Path,
    vault: Path | None = None,
    split: str = "test",
    max_docs: int | None = None,
    modes: Sequence[str] | None = None,
    cache_dir: Path | None = None,
) -> EvalOptions:
    """Options from the command line's values, checked (`EvalInputError` says what is wrong)."""
    unknown = [mode for mode in modes or () if mode not in ALL_MODES]
    if unknown:
        raise EvalInputError(f"unknown mode {unknown[0]!r}: use {', '.join(ALL_MODES)}")
    options = EvalOptions.model_validate(
        {
            "path": path,
            "vault": vault,
            "split": split,
            "max_docs": max_docs,
            "modes": tuple(modes or DEFAULT_MODES),
            "cache_dir": cache_dir or DEFAULT_CACHE_DIR,
        }
    )
    check_input(options)
    return options


def eval_models(
    options: EvalOptions,
    embedding: EmbeddingChoice = "auto",
    language: str | None = None,
    settings: Settings | None = None,
) -> TextModels:
    """The encoders to evaluate with: as asked, or chosen from the question file's vault as
    indexing would choose them (a BEIR dataset, which has no vault, is read in English).
    `settings` give the MiniLM variant."""
    if embedding != "auto":
        choice = ModelChoice(
            family=embedding, language=language or "en", reason="Chosen on the command line."
        )
    elif options.vault is not None:
        choice = detect(options.vault, language)
    else:
        choice = ModelChoice(family="english", language=language or "en", reason="BEIR set.")
    return models_for(choice, settings or Settings())


def run_eval(
    options: EvalOptions,
    embedder: Embedder | None = None,
    sparse: Bm25Encoder | None = None,
    on_progress: OnProgress = no_progress,
) -> BeirResult | QuestionsResult:
    """Run the evaluation `options` describe. `embedder` defaults to the packaged MiniLM;
    either way it is wrapped in the on-disk vector cache."""
    check_input(options)
    cached = CachedEmbedder(embedder or MiniLmEmbedder(), options.cache_dir)
    encoder = sparse or Bm25Encoder()
    try:
        if options.work_dir is not None:
            return _run(options, options.work_dir, cached, encoder, on_progress)
        with tempfile.TemporaryDirectory(prefix="vault-agent-eval-") as scratch:
            return _run(options, Path(scratch), cached, encoder, on_progress)
    finally:
        cached.flush()


def check_input(options: EvalOptions) -> None:
    """Raise `EvalInputError` unless the input is a BEIR folder, or a question file + vault."""
    if not is_beir(options.path) and not is_question_file(options.path):
        raise EvalInputError(
            f"{options.path} is neither a BEIR dataset folder (corpus.jsonl, queries.jsonl, "
            "qrels/) nor a question file (.jsonl)"
        )
    if is_question_file(options.path) and options.vault is None:
        raise EvalInputError("a question file needs --vault: the vault its questions are about")
    if options.vault is not None and not options.vault.is_dir():
        raise EvalInputError(f"vault folder not found: {options.vault}")


def _run(
    options: EvalOptions,
    work_dir: Path,
    embedder: Embedder,
    sparse: Bm25Encoder,
    on_progress: OnProgress,
) -> BeirResult | QuestionsResult:
    if is_beir(options.path):
        dataset = load_beir(options.path, options.split)
        if options.max_docs is not None:
            dataset = dataset.sliced(options.max_docs)
        return evaluate_beir(
            dataset, options.split, work_dir, embedder, sparse, options.modes, on_progress
        )
    assert options.vault is not None  # checked by run_eval
    questions = load_questions(options.path)
    started = time.perf_counter()
    vault_index, report = index_folder(
        options.vault, work_dir / "data", embedder, sparse, on_progress
    )
    with vault_index:
        indexed = time.perf_counter()
        scores = score_questions(
            questions,
            vault_index.searcher,
            vault_index.graph,
            options.modes,
            on_progress,
        )
        return QuestionsResult(
            questions_file=str(options.path),
            vault=str(options.vault),
            notes=report.indexed + report.unchanged,
            chunks=vault_index.store.count(),
            index_seconds=round(indexed - started, 1),
            query_seconds=round(time.perf_counter() - indexed, 1),
            modes=scores,
        )
