"""The terms BM25 counts (`index/embed/terms.py`): exact tokens, words of any script."""

from __future__ import annotations

import pytest

from vault_agent.index.embed.bm25 import WEAK_TERM, Bm25Encoder
from vault_agent.index.embed.terms import Analyzer, term_id


@pytest.fixture(scope="module")
def english() -> Analyzer:
    return Analyzer("en")


def test_a_version_is_one_term_and_a_document_also_holds_its_prefixes(english: Analyzer) -> None:
    assert "1.4.11" in english.terms("What changed in v1.4.11?", query=True)
    assert "1.4" not in english.terms("What changed in v1.4.11?", query=True)
    assert {"1.4.11", "1.4"} <= set(english.terms("Obsidian 1.4.11 fixed the sync bug."))
    assert "2.3" in english.terms("release 2.3", query=True)


@pytest.mark.parametrize(
    ("identifier", "whole", "parts"),
    [
        (
            "registerMarkdownPostProcessor",
            "registermarkdownpostprocessor",
            {"markdown", "processor"},
        ),
        ("app.vault.getFiles()", "app.vault.getfiles", {"vault", "file"}),
        ("fetch_daily_notes", "fetch_daily_notes", {"fetch", "daili", "note"}),
        ("live-preview", "live-preview", {"live", "preview"}),
        ("#project/garden", "project/garden", {"project", "garden"}),
    ],
)
def test_an_identifier_is_a_term_and_so_are_its_parts(
    english: Analyzer, identifier: str, whole: str, parts: set[str]
) -> None:
    terms = english.terms(f"Use {identifier} here")
    assert whole in terms
    assert parts <= set(terms)
    assert english.terms(identifier, query=True)[0] == whole


def test_each_part_of_a_joined_identifier_is_a_term_a_query_naming_it_alone_meets(
    english: Analyzer,
) -> None:
    # A note lists `gtp/gp/gp5/gpx`; a question asks about ".gp5" files, or about getFiles.
    assert "gp5" in english.terms("Renders `gtp/gp/gp5/gpx` files")
    assert english.terms(".gp5", query=True)[0] == "gp5"
    assert "getfiles" in english.terms("Call app.vault.getFiles() once")
    assert english.terms("getFiles", query=True)[0] == "getfiles"


def test_words_are_stemmed_and_stop_words_dropped(english: Analyzer) -> None:
    assert english.terms("the running foxes") == ["run", "fox"]
    assert Analyzer("de").terms("die Gärten blühen") == ["gart", "bluh"]
    assert Analyzer("ru").terms("заметки") == Analyzer("ru").terms("заметка")


def test_cjk_text_becomes_character_pairs() -> None:
    chinese = Analyzer("zh")
    assert chinese.terms("设置日记文件夹") == ["设置", "置日", "日记", "记文", "文件", "件夹"]
    assert chinese.terms("夹") == ["夹"]
    # A query's pairs meet the note's pairs whatever the words around them.
    note = set(chinese.terms("如何设置新日记所在的文件夹？"))
    assert {"日记", "文件"} <= note & set(chinese.terms("日记的文件夹", query=True))


def test_symbols_and_emoji_are_terms(english: Analyzer) -> None:
    terms = english.terms("- [ ] Call the bank 📅 2025-06-19 🔺 ⏩")
    assert {"📅", "🔺", "⏩"} <= set(terms)
    assert english.terms("what does 🔺 mean", query=True) == ["🔺", "mean"]


def test_thai_and_lao_runs_become_dictionary_words() -> None:
    thai = Analyzer("th")
    # Written without spaces: ICU's dictionary finds the words a query shares with the note.
    note = thai.terms("ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรค")
    assert {"ภาษา", "ไทย", "เว้น", "วรรค"} <= set(note)
    assert "ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรค" not in note
    assert set(thai.terms("เว้นวรรค", query=True)) <= set(note)
    assert Analyzer("lo").terms("ພາສາລາວ v1.2") == ["ພາສາ", "ລາວ", "1.2"]


@pytest.mark.parametrize(
    ("language", "text", "words"),
    [
        # Hindi: each vowel sign (ु, ी, ा) is a combining mark, which is no word character.
        ("hi", "मैं हर सुबह बीस मिनट योग करता हूँ", ["सुबह", "बीस", "मिनट", "योग"]),
        ("bn", "আমি প্রতিদিন সকালে হাঁটি", ["প্রতিদিন", "সকালে", "হাঁটি"]),
    ],
)
def test_a_word_keeps_its_vowel_signs(language: str, text: str, words: list[str]) -> None:
    terms = Analyzer(language).terms(text)
    assert set(words) <= set(terms), terms
    # No piece of a word is a term of its own: "करत" and "ा" were, with the sign cut off.
    assert all(any(term in word for word in text.split()) for term in terms)
    assert not any(len(term) == 1 and not term.isalpha() for term in terms), terms
    # A query written alike meets the note's terms.
    assert set(Analyzer(language).terms(words[0], query=True)) <= set(terms)


def test_marks_a_query_never_writes_are_dropped() -> None:
    # A dictionary's stress mark (left over after NFKC: no precomposed letter), Hebrew's vowel
    # points, Arabic's short vowels and an emoji's variation selector: a query never writes
    # them, and none cuts a word or is a term.
    russian = Analyzer("ru")
    assert russian.terms("бо́льше") == russian.terms("больше", query=True)
    hebrew = Analyzer("he")
    assert hebrew.terms("שָׁלוֹם עוֹלָם") == hebrew.terms("שלום עולם", query=True) == ["שלום", "עולם"]
    unstemmed = Analyzer("ur")  # Arabic script without Arabic's stemmer: the marks alone
    assert unstemmed.terms("مَدْرَسَة") == unstemmed.terms("مدرسة", query=True) == ["مدرسة"]
    assert Analyzer("en").terms("⚠️ warning") == ["⚠", "warn"]


def test_query_and_document_vectors_share_their_terms() -> None:
    encoder = Bm25Encoder()
    (document,) = encoder.embed_documents(["Call registerMarkdownPostProcessor in v2.3.1"])
    query = encoder.embed_query("registerMarkdownPostProcessor 2.3.1")
    assert set(query.indices) <= set(document.indices)
    assert term_id("2.3.1") in query.indices
    assert query.values == [1.0] * len(query.indices)


@pytest.mark.parametrize(
    "question",
    [
        "Summarize my notes on the Kyoto trip",
        "Give me an overview of the Kyoto trip",
        "What did I write about the Kyoto trip?",
    ],
)
def test_words_asking_for_an_account_name_no_subject(english: Analyzer, question: str) -> None:
    # "Summarize", "overview", "write": what is asked is an account of the trip.
    assert english.subject_terms(question, query=True) == ["kyoto", "trip"]


def test_function_words_are_dropped_and_generic_words_kept_but_weak(english: Analyzer) -> None:
    terms = english.terms("When was the very first release, and what date did I buy it?")
    assert {"first", "date", "buy", "releas"} <= set(terms)  # people search by these
    assert not {"when", "was", "the", "and", "what", "did"} & set(terms)
    assert english.is_weak("first") and english.is_weak("get")
    assert not english.is_weak("releas")
    query = Bm25Encoder().embed_query("How do I get the first release?")
    weights = dict(zip(query.indices, query.values, strict=True))
    assert weights[term_id("releas")] == 1.0
    assert weights[term_id("get")] == weights[term_id("first")] == WEAK_TERM < 1.0
