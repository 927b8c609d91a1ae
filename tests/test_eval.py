"""`vault-agent eval` and the retrieval levers it measures: metrics, BEIR loading, the vector
cache, date/tag hints and boosts, and real runs on a SciFact slice and the dev question set.

The real runs use the packaged model through a `CachedEmbedder` kept in pytest's cache folder:
the first run embeds (SciFact slice ~300 chunks, obsidian-help-en ~1,000), later runs only
re-embed text that changed. The floors sit well below today's numbers (docs/retrieval.md) and
well above what a broken BM25 or a broken fusion scores.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import EXAMPLE_VAULT, shared_data, shared_notes
from vault_agent.cli.main import app
from vault_agent.config import Settings
from vault_agent.evaluation.beir import BeirDataset, Document, load_beir, note_name, write_vault
from vault_agent.evaluation.beir_eval import BeirResult
from vault_agent.evaluation.cache import CachedEmbedder
from vault_agent.evaluation.indexing import index_folder
from vault_agent.evaluation.metrics import hit_at_k, mrr_at_k, ndcg_at_k, recall_at_k
from vault_agent.evaluation.questions import (
    QuestionScores,
    QuestionsResult,
    load_questions,
    score_questions,
)
from vault_agent.evaluation.run import EvalInputError, EvalOptions, eval_options, run_eval
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder, Vector
from vault_agent.index.embed.names import names_in
from vault_agent.index.embed.terms import Analyzer, term_id
from vault_agent.index.search import hints
from vault_agent.index.search.confidence import missing_names
from vault_agent.index.search.hints import date_words, query_hints
from vault_agent.index.search.month_names import abbreviations, month_names, name_table
from vault_agent.index.search.titles import PHRASE_BOOST, WORD_BOOST, TitleMatcher
from vault_agent.index.store.protocol import ChunkPayload
from vault_agent.index.vault_index import VaultIndex
from vault_agent.vault.chunker import approximate_tokens

TEST_DATA = Path(__file__).parent / "data"


# -- metrics ----------------------------------------------------------------------------------


def test_ndcg_of_a_perfect_ranking_is_one() -> None:
    assert ndcg_at_k(["a", "b", "x"], {"a": 1, "b": 1}, 10) == pytest.approx(1.0)


def test_ndcg_matches_a_hand_computed_value() -> None:
    # One relevant doc at rank 2: DCG = 1/log2(3); ideal DCG = 1.
    assert ndcg_at_k(["x", "a", "y"], {"a": 1}, 10) == pytest.approx(1 / np.log2(3))
    assert ndcg_at_k(["x", "y", "a"], {"a": 1}, 2) == 0.0


def test_recall_mrr_and_hit_count_each_document_once() -> None:
    ranked = ["x", "a", "a", "y", "b"]
    relevant = {"a": 1, "b": 1, "c": 1}
    assert recall_at_k(ranked, relevant, 3) == pytest.approx(1 / 3)
    assert recall_at_k(ranked, relevant, 10) == pytest.approx(2 / 3)
    assert mrr_at_k(ranked, relevant, 10) == pytest.approx(0.5)
    assert hit_at_k(ranked, relevant, 1) == 0.0
    assert recall_at_k(ranked, {}, 10) == 0.0


# -- BEIR data --------------------------------------------------------------------------------


def write_beir(folder: Path) -> Path:
    folder.mkdir()
    (folder / "qrels").mkdir()
    corpus = [
        {"_id": "d1", "title": "Cats: a study", "text": "Cats purr."},
        {"_id": "d2", "title": "Cats: a study", "text": "Cats sleep."},
        {"_id": "d3", "title": "", "text": "Dogs bark."},
    ]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in corpus))
    queries = [{"_id": "q1", "text": "do cats purr"}, {"_id": "q2", "text": "unjudged"}]
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    return folder


def test_beir_loader_keeps_only_judged_queries_of_the_split(tmp_path: Path) -> None:
    dataset = load_beir(write_beir(tmp_path / "mini"), "test")
    assert dataset.queries == {"q1": "do cats purr"}
    assert dataset.qrels == {"q1": {"d1": 1}}
    assert [d.id for d in dataset.corpus] == ["d1", "d2", "d3"]
    with pytest.raises(FileNotFoundError, match=r"no split 'dev'.*test"):
        load_beir(tmp_path / "mini", "dev")


def test_slice_keeps_judged_documents_first() -> None:
    corpus = [Document(f"d{i}", f"T{i}", "text") for i in range(5)]
    dataset = BeirDataset("x", corpus, {"q": "?", "r": "?"}, {"q": {"d4": 1}, "r": {"d9": 1}})
    sliced = dataset.sliced(2)
    assert [d.id for d in sliced.corpus] == ["d4", "d0"]
    assert sliced.qrels == {"q": {"d4": 1}}


def test_each_document_becomes_a_note_named_by_its_title(tmp_path: Path) -> None:
    dataset = load_beir(write_beir(tmp_path / "mini"), "test")
    files = write_vault(dataset.corpus, tmp_path / "vault")
    assert files == {"Cats a study.md": "d1", "Cats a study (d2).md": "d2", "d3.md": "d3"}
    assert (tmp_path / "vault" / "Cats a study.md").read_text() == "Cats purr.\n"
    # Re-writing a smaller corpus removes the notes of documents that are gone.
    write_vault(dataset.corpus[:1], tmp_path / "vault")
    assert sorted(p.name for p in (tmp_path / "vault").iterdir()) == ["Cats a study.md"]


def test_long_titles_are_cut_at_a_word_under_the_file_name_limit() -> None:
    name = note_name(Document("7", "word " * 100 + "end", ""))
    assert len(name.encode()) <= 200
    assert name.endswith("word")


# -- the vector cache -------------------------------------------------------------------------


class CountingEmbedder:
    """A fake embedder: a deterministic vector per text, counting the texts it embeds."""

    model_name = "fake-model"
    dim = 4
    max_tokens = 256
    count_tokens = staticmethod(approximate_tokens)

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        self.embedded.extend(texts)
        return [np.full(4, len(t), dtype=np.float32) for t in texts]

    def embed_query(self, text: str) -> Vector:
        self.embedded.append(text)
        return np.full(4, -len(text), dtype=np.float32)


def test_cache_embeds_each_text_once_across_processes(tmp_path: Path) -> None:
    first = CountingEmbedder()
    cached = CachedEmbedder(first, tmp_path)
    vectors = cached.embed_documents(["a", "bb", "a"])
    cached.flush()
    assert first.embedded == ["a", "bb"]
    assert [v[0] for v in vectors] == [1, 2, 1]

    second = CountingEmbedder()  # a new process: only the changed text is embedded
    again = CachedEmbedder(second, tmp_path).embed_documents(["bb", "ccc"])
    assert second.embedded == ["ccc"]
    assert [v[0] for v in again] == [2, 3]


def test_cache_keeps_queries_apart_from_documents(tmp_path: Path) -> None:
    cached = CachedEmbedder(CountingEmbedder(), tmp_path)
    assert cached.embed_documents(["same"])[0][0] == 4
    assert cached.embed_query("same")[0] == -4


# -- query hints ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "tags", "dates"),
    [
        ("What did I do on 2 November 2026?", set(), {"2026-11-02"}),
        ("what happened on 2026-11-09", set(), {"2026-11-09"}),
        ("notes from Nov 5th", set(), {"*-11-05"}),
        ("May I see #Food/bread recipes?", {"food/bread"}, set()),
        ("Why doesn't #1984 show up, see [[Tags#Valid]] or page#top", set(), set()),
        ("on 31 February", set(), set()),  # no year has it
        ("on 45 March", set(), set()),
        # The day named in the question's own language (month names from ICU's CLDR data).
        ("Was habe ich am 5. November 2026 gemacht?", set(), {"2026-11-05"}),
        ("Qu'ai-je noté le 12 févr. ?", set(), {"*-02-12"}),
        ("¿Qué hice el 5 de noviembre de 2026?", set(), {"2026-11-05"}),
        ("Cosa ho fatto il 3 settembre?", set(), {"*-09-03"}),
        ("Что я делал 5 марта 2026 г.?", set(), {"2026-03-05"}),
        ("Co robiłem 5 marca?", set(), {"*-03-05"}),
        ("我2026年11月5日做了什么？", set(), {"2026-11-05"}),
        ("11月5日に何をした？", set(), {"*-11-05"}),
        ("2026년 11월 5일에 뭐 했어?", set(), {"2026-11-05"}),
        ("Version 1.5 came out in May", set(), set()),
        ("Que s'est-il passé le 3 mai ?", set(), {"*-05-03"}),
        # Portuguese and Italian abbreviate October and September as "out" and "set": as
        # English words they are no months, unless written as abbreviations or with a year.
        ("I rated it 4 out of 5", set(), set()),
        ("Ele chegou em 5 out. 2024", set(), {"2024-10-05"}),
    ],
)
def test_query_hints_read_tags_and_dates(query: str, tags: set[str], dates: set[str]) -> None:
    hints = query_hints(query)
    assert hints.tags == tags
    assert hints.dates == dates


def test_hint_matches_daily_date_title_date_and_nested_tag() -> None:
    def payload(**fields: object) -> ChunkPayload:
        base = {"file": "x.md", "title": "x", "chunk_index": 0, "chunk_count": 1, "body": ""}
        return ChunkPayload.model_validate(base | {"content_hash": "h"} | fields)

    assert query_hints("5 November").matches(payload(date="2026-11-05"))
    assert query_hints("5 November").matches(payload(title="2026-11-05 Garden Committee"))
    assert not query_hints("5 November 2025").matches(payload(date="2026-11-05"))
    assert query_hints("#food").matches(payload(tags=["food", "food/bread"]))
    assert not query_hints("#bread").matches(payload(tags=["food", "food/bread"]))


def test_a_query_names_a_title_by_its_terms_in_order() -> None:
    def payload(title: str, aliases: tuple[str, ...] = ()) -> ChunkPayload:
        base = {"file": f"{title}.md", "title": title, "chunk_index": 0, "chunk_count": 1}
        return ChunkPayload.model_validate(
            base | {"body": "", "content_hash": "h", "aliases": list(aliases)}
        )

    english = TitleMatcher(Analyzer("en"))
    query = Analyzer("en").terms("With the Things theme, which character is 'fire'?", query=True)
    assert english.boost(query, payload("Things Theme")) == PHRASE_BOOST
    assert english.boost(query, payload("Theme - ITS Theme")) == 1.0  # "theme theme"
    assert english.boost(query, payload("Theme Things")) == 1.0  # order matters
    assert english.boost(query, payload("Minimal Theme")) == 1.0
    assert english.boost(query, payload("Themes")) == WORD_BOOST  # one term, stemmed
    assert english.boost(query, payload("Checkbox styles")) == 1.0
    assert english.boost(query, payload("x", aliases=("things themes",))) == PHRASE_BOOST
    german = TitleMatcher(Analyzer("de"))
    frage = Analyzer("de").terms("Wie nutze ich die täglichen Notizen?", query=True)
    assert german.boost(frage, payload("Tägliche Notizen")) == PHRASE_BOOST  # inflected
    chinese = TitleMatcher(Analyzer("zh"))
    wen = Analyzer("zh").terms("如何使用每日笔记插件?", query=True)
    assert chinese.boost(wen, payload("每日笔记")) == PHRASE_BOOST


def test_a_date_in_the_question_is_not_a_missing_name() -> None:
    english = Analyzer("en")
    query = "Who did I meet on 12 September 2023 at Tidepool?"
    absent = frozenset(term_id(term) for term in english.terms(query, query=True))
    # Every term absent from the vault: only the name counts as missing, not the month.
    assert missing_names(query, absent, english) == ("Tidepool",)
    assert date_words(query) == {"12", "September", "2023"}


def test_a_file_extension_is_a_name() -> None:
    english = Analyzer("en")
    query = "How do I export a note as a Word .docx document?"
    absent = frozenset(term_id(term) for term in english.terms(".docx", query=True))
    # A vault that never writes "docx" does not answer it, whatever it says of Word.
    assert missing_names(query, absent, english) == (".docx",)
    assert names_in("What is in my .obsidian folder?", "en") == [".obsidian"]
    assert names_in("Fixed it.Then it broke", "en") == ["it.Then"]  # no extension


def test_a_generic_word_in_capitals_is_not_a_missing_name() -> None:
    english = Analyzer("en")
    query = "Are the old theme variables still OK to use?"
    absent = frozenset(term_id(term) for term in english.terms(query, query=True))
    assert missing_names(query, absent, english) == ()


def test_a_question_naming_a_note_is_not_low_confidence(agent_index: VaultIndex) -> None:
    # Vague words far from the note's, but the note is named (title, two words): it is about it.
    named = agent_index.searcher.retrieve("Any word from Dan Whitaker regarding this?")
    assert named.passages[0].hit.file == "People/Dan Whitaker.md"
    confidence = named.confidence
    assert confidence.names_note and confidence.top_cosine < confidence.calibration.low
    assert not confidence.low
    # A name the vault never mentions still counts against it.
    assert replace(confidence, missing_names=("Todoist",)).low
    unnamed = agent_index.searcher.retrieve("Any word from the plumber regarding this?")
    assert not unnamed.confidence.names_note


def test_a_one_word_alias_written_as_a_name_names_its_note(agent_index: VaultIndex) -> None:
    # "Tomás" is an alias of People/Tomás Ferreira.md; vague words otherwise.
    named = agent_index.searcher.retrieve("what does Tomás do for work")
    assert named.passages[0].hit.file == "People/Tomás Ferreira.md"
    assert named.confidence.names_note and not named.confidence.low
    # One word that is no name ("work", a note's one-term title elsewhere) names nothing.
    assert not agent_index.searcher.retrieve("what do I do for work").confidence.names_note


def test_a_date_no_note_has_is_missing_and_one_a_note_has_is_not(agent_index: VaultIndex) -> None:
    retrieve = agent_index.searcher.retrieve
    missing = retrieve("What did I write in my daily note on 3 March 2021?").confidence
    assert missing.missing_names == ("2021-03-03",)
    assert missing.low
    # A daily note of that day, and a meeting note titled with its date.
    assert retrieve("What did I do on 5 November 2026?").confidence.missing_names == ()
    assert retrieve("Notes from 10 November 2026?").confidence.missing_names == ()


@pytest.mark.parametrize(
    "question",
    [
        "what happened on 2024-02-30?",
        "30 February 2024",
        "February 29, 2025",
        "2024年2月30日",
        "my note of 0000-01-01",
    ],
)
def test_a_day_the_calendar_lacks_names_no_day(agent_index: VaultIndex, question: str) -> None:
    # It was taken for a date, then failed the search ("day is out of range": a 500).
    assert query_hints(question).dates == frozenset()
    assert agent_index.searcher.retrieve(question).confidence.missing_names == ()
    assert query_hints("29 February").dates == {"*-02-29"}  # some year has it


def test_in_a_vault_that_dates_no_note_a_date_names_no_note(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    # Documentation: a date in a question is an example ("a note created on 1 January
    # 2024"), not the day of a note the vault lacks.
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Unique note creator.md").write_text(
        "# Unique note creator\n\nNew notes are named with a timestamp, like 202401010945.\n",
        encoding="utf-8",
    )
    settings = Settings(vault=vault, data_dir=tmp_path / "data")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        query = "What name does a note created at 09:45 on 1 January 2024 get?"
        assert index.searcher.retrieve(query).confidence.missing_names == ()
        # Once the vault keeps a daily note, a day without one is missing again.
        (vault / "2026-11-05.md").write_text("Walked to the harbour.\n", encoding="utf-8")
        index.indexer.sync()
        assert index.searcher.retrieve(query).confidence.missing_names == ("2024-01-01",)


def test_a_question_naming_the_day_of_a_note_found_is_about_that_note(
    agent_index: VaultIndex,
) -> None:
    # Vague words, but the day is a daily note's (its name, not its text): it asks about it.
    day = agent_index.searcher.retrieve("Anything worth remembering from 3 November 2026?")
    assert day.passages[0].hit.file == "Daily/2026-11-03.md"
    assert day.confidence.names_note and not day.confidence.low
    # The same words without a day name no note.
    assert not agent_index.searcher.retrieve("Anything worth remembering?").confidence.names_note


# -- boosts on the example vault ----------------------------------------------------------------


def test_date_in_the_query_puts_that_daily_note_first(agent_index: VaultIndex) -> None:
    searcher = agent_index.searcher
    query = "What did I do on 2 November 2026?"
    assert searcher.search(query, limit=3)[0].file == "Daily/2026-11-02.md"
    # Asked in German or in Chinese, the day is the same.
    assert searcher.search("Was habe ich am 2. November 2026 gemacht?")[0].file == (
        "Daily/2026-11-02.md"
    )
    assert searcher.search("我2026年11月2日做了什么？")[0].file == "Daily/2026-11-02.md"
    plain = searcher.with_options(boosts=False)
    assert plain.search(query, limit=3)[0].file != "Daily/2026-11-02.md"


def test_linked_notes_of_the_active_note_move_up(agent_index: VaultIndex) -> None:
    searcher = agent_index.searcher
    query = "what did we decide?"
    plain = [h.file for h in searcher.search(query, limit=10)]
    near = set(agent_index.graph.outgoing("Daily/2026-11-05.md"))
    boosted = [h.file for h in searcher.search(query, limit=10, near=near)]
    best_near = min(plain.index(f) for f in near if f in plain)
    assert boosted[0] in near
    assert boosted.index(plain[best_near]) <= best_near


# -- real runs ---------------------------------------------------------------------------------


def test_scifact_slice_hybrid_beats_dense_and_bm25(
    embedder: MiniLmEmbedder, sparse: Bm25Encoder, vector_cache: Path
) -> None:
    options = EvalOptions(
        path=shared_data("bench", "scifact"), max_docs=200, cache_dir=vector_cache
    )
    result = run_eval(options, embedder=embedder, sparse=sparse)
    assert isinstance(result, BeirResult)
    assert result.documents == 200
    assert result.queries > 150
    scores = {mode: s.ndcg_at_10 for mode, s in result.modes.items()}
    # Measured: dense 0.92, BM25 0.88, hybrid 0.93. A BM25 that matches nothing scores ~0;
    # fusion that drops one list scores as that list alone.
    assert scores["sparse"] > 0.80
    assert scores["dense"] > 0.85
    assert scores["hybrid"] > 0.90
    assert scores["hybrid"] >= max(scores["dense"], scores["sparse"])
    assert result.modes["hybrid"].recall_at_100 > 0.98


@pytest.fixture(scope="module")
def help_index(
    tmp_path_factory: pytest.TempPathFactory,
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
    vector_cache: Path,
) -> Iterator[VaultIndex]:
    """obsidian-help-en indexed once for this module, with cached vectors."""
    vault = shared_data("vaults", "obsidian-help-en")
    data = tmp_path_factory.mktemp("help-eval")
    cached = CachedEmbedder(embedder, vector_cache)
    vault_index, _ = index_folder(vault, data, cached, sparse)
    with vault_index:
        yield vault_index
    cached.flush()


def score_file(vault_index: VaultIndex, path: Path) -> QuestionScores:
    questions = load_questions(path)
    return score_questions(questions, vault_index.searcher, vault_index.graph, ("hybrid",))[
        "hybrid"
    ]


def test_dev_questions_all_find_their_note_in_the_top_5(help_index: VaultIndex) -> None:
    scores = score_file(help_index, shared_data("qa", "obsidian-help-en.dev.jsonl"))
    missed = [o for o in scores.outcomes if o.rank is None or o.rank > 5]
    assert scores.recall_at_5 == 1.0, missed
    assert scores.answerable_flagged == 0.0  # no answerable question looks unanswerable


def test_most_unanswerable_questions_signal_low_confidence(help_index: VaultIndex) -> None:
    scores = score_file(help_index, TEST_DATA / "obsidian-help-en.unanswerable.jsonl")
    assert scores.unanswerable == 12
    assert scores.unanswerable_flagged >= 0.7


def test_active_note_questions_find_their_note(help_index: VaultIndex) -> None:
    scores = score_file(help_index, TEST_DATA / "obsidian-help-en.active.jsonl")
    assert scores.recall_at_5 >= 0.9
    # 0.847 with 1,500-character chunks, 0.80 with chunks the encoder reads whole (smaller):
    # the vague questions ("How do I set it up?") lean on the neighbourhood boost.
    assert scores.mrr >= 0.78


# -- the command --------------------------------------------------------------------------------


def test_eval_command_prints_a_table_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            str(TEST_DATA / "example-vault.dates-tags.jsonl"),
            "--vault",
            str(EXAMPLE_VAULT),
            "--mode",
            "hybrid",
            "--mode",
            "hybrid-plain",
            "--json",
            str(out),
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "recall@5" in result.output
    parsed = QuestionsResult.model_validate(json.loads(out.read_text())["results"][0])
    assert set(parsed.modes) == {"hybrid", "hybrid-plain"}
    # The date and tag boosts are what this question set measures.
    assert parsed.modes["hybrid"].mrr > parsed.modes["hybrid-plain"].mrr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "no questions (one JSON object per line)"),
        (b"\n  \n", "no questions (one JSON object per line)"),
        (b'{"q": "x"}\n\xff\n', "not UTF-8 text (invalid start byte at byte 11)"),
        (b'{"q": "x"}\n{"note": 3}\n', ":2: not a question: q: Field required"),
        (b"{oops\n", ":1: not a question: Expecting property name"),
    ],
)
def test_a_question_file_it_cannot_read_is_named_with_the_reason(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "questions.jsonl"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=r"questions\.jsonl") as raised:
        load_questions(path)
    assert message in str(raised.value)
    assert "pydantic.dev" not in str(raised.value)


def test_eval_refuses_input_it_cannot_evaluate(tmp_path: Path) -> None:
    with pytest.raises(EvalInputError, match="--vault"):
        run_eval(EvalOptions(path=TEST_DATA / "obsidian-help-en.active.jsonl"))
    with pytest.raises(EvalInputError, match="unknown mode 'bm25'"):
        eval_options(TEST_DATA / "example-vault.dates-tags.jsonl", EXAMPLE_VAULT, modes=["bm25"])
    result = CliRunner().invoke(app, ["eval", str(tmp_path)])
    assert result.exit_code == 2
    assert "neither a BEIR dataset" in " ".join(result.output.split())


def test_english_dates_are_read_should_icu_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(pattern: str, locale: str) -> None:
        raise RuntimeError("no ICU data")

    caches = (month_names, abbreviations, name_table, hints._named_month_patterns)
    for cached in caches:
        cached.cache_clear()
    monkeypatch.setattr("vault_agent.index.search.month_names.MessageFormat", broken)
    try:
        assert query_hints("What did I do on 5 Sept 2026?").dates == {"2026-09-05"}
        assert query_hints("Version 5. 2026 notes").dates == frozenset()
    finally:
        for cached in caches:
            cached.cache_clear()


def test_a_passage_holding_the_questions_words_outweighs_a_low_cosine(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    # Real release notes: MiniLM reads "Safe mode has been renamed to Restricted mode" far
    # from the question (cosine under its 0.40), though the passage holds every word of it.
    notes = ["v0.15.0.md", "v1.5.md", "v1.5.11.md", "v0.14.0.md", "v1.4.0.md", "v0.12.0.md"]
    vault = shared_notes("obsidian-release-notes", notes, tmp_path / "vault")
    settings = Settings(vault=vault, data_dir=tmp_path / "data")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        found = index.searcher.retrieve("What is the old 'Safe mode' called now?")
        asked = index.searcher.retrieve("Which release added automatic transcription of safe mode?")
    assert found.passages[0].hit.file == "v0.15.0.md"
    confidence = found.confidence
    assert confidence.covered and confidence.top_cosine < confidence.calibration.low
    assert not confidence.low
    assert replace(confidence, covered=False).low
    # A word the vault never writes ("transcription") is what such a question asks about.
    assert asked.confidence.covered and asked.confidence.absent_words == ("transcript",)
    assert asked.confidence.low
    # A name the vault never mentions still counts against it.
    assert replace(confidence, missing_names=("Todoist",)).low


def test_two_words_the_vault_never_writes_make_a_question_low_confidence(
    agent_index: VaultIndex,
) -> None:
    retrieve = agent_index.searcher.retrieve
    off = retrieve("What is my recipe for sourdough bagels with sesame?").confidence
    assert off.absent_words == ("bagel", "sesam")
    assert off.top_cosine >= off.calibration.low  # the cosine alone would not say so
    assert off.low
    # One unwritten word is a paraphrase, not evidence; the vault's own words are none.
    assert not replace(off, absent_words=("bagel",)).low
    assert retrieve("What goes into my miso soup recipe?").confidence.absent_words == ()
