"""Hybrid search over the store: a query becomes ranked hits with a snippet each.

Dense (MiniLM) and sparse (BM25) candidates, 100 of each, come from the store in one call, as
ids and scores, and are fused here, by distribution-based score fusion (DBSF; measured better
than RRF, docs/retrieval.md); only the chunks fusion keeps have their payloads fetched.
Chunks holding a rare query term get a bonus (`rare_terms.py`), so an exact name, identifier
or version wins whatever the dense side says. By default the best chunk per note is kept,
since users and the agent think in notes, not chunks. Hits from notes linked to the active
note, and hits carrying a date or tag the query names, are boosted before that. A question in
another language than the notes has no BM25 list; its notes are scored as wholes beside their
chunks instead (`note_vectors.py`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any, Literal

from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import Embedder, Vector
from vault_agent.index.embed.names import names_in
from vault_agent.index.search.confidence import (
    Confidence,
    absent_words,
    calibration_for,
    covers_query,
    missing_names,
)
from vault_agent.index.search.dated import dated_filters, dated_in, few_days, missing_dates
from vault_agent.index.search.fusion import FusionMethod, fuse_scores
from vault_agent.index.search.hints import QueryHints, query_hints
from vault_agent.index.search.hits import SearchHit, hit_of
from vault_agent.index.search.note_vectors import NoteVectors
from vault_agent.index.search.rare_terms import probes, rare_limit, rare_term_bonus
from vault_agent.index.search.titles import PHRASE_BOOST, TitleMatcher
from vault_agent.index.store.protocol import (
    ChunkPayload,
    Scored,
    SearchFilter,
    SparseVector,
    Store,
    StoredHit,
    VectorQuery,
)

SearchMode = Literal["hybrid", "dense", "sparse"]

#: Hybrid fusion: DBSF beat RRF (k=60) by about 0.02 nDCG@10 on SciFact (docs/retrieval.md).
FUSION: FusionMethod = "dbsf"
#: Candidates per vector before fusion; 80 to 200 score alike, 50 and below lose recall.
CANDIDATES = 100
#: Score multiplier for hits from notes linked to or from the active note (`near`).
NEAR_BOOST = 1.25
#: Score multiplier for hits carrying a tag or a date the query names ("#ideas", "5 November").
HINT_BOOST = 2.0
#: Candidates taken from the search of each period a query names ("last week").
DATED_FETCH = 20
#: A note named by the query (its title or an alias, two words or more) among this many first
#: hits makes retrieval confident the vault is about the question.
NAMED_RANKS = 3
#: Query vectors remembered (`Searcher.query_vector`).
QUERY_VECTORS = 32
#: Chunks fetched when boosting, so a boosted note just below the top can still move up.
BOOST_POOL = 100
#: Chunks read from the head of the meaning list and of the word list for `Confidence.agreed`...
LEADING_CHUNKS = 12
#: ...and how many of their notes lead each.
AGREED_NOTES = 3


@dataclass(frozen=True)
class SearchOptions:
    """The levers of a hybrid search; each can be switched off to measure it (`vault-agent
    eval` modes)."""

    fusion: FusionMethod = FUSION
    candidates: int = CANDIDATES
    """Candidates per vector before fusion."""
    boosts: bool = True
    """Neighbourhood, date and tag boosts."""
    rare_terms: bool = True
    """The bonus of chunks holding a rare query term (`rare_terms.py`)."""
    titles: bool = True
    """The boost of notes whose title or alias the query holds (`titles.py`)."""
    note_vectors: bool = True
    """A question in another language than the notes also scores whole notes by their
    centroid (`note_vectors.py`)."""


class Searcher:
    """Runs hybrid queries against one store."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        sparse: Bm25Encoder,
        options: SearchOptions | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.sparse = sparse
        self.options = options or SearchOptions()
        self.titles = TitleMatcher(sparse.analyzer)
        # A question is often searched several times over (an answer searches it whole, then
        # within the open note or the notes it found): its vector is embedded once.
        self._vectors: OrderedDict[tuple[Embedder, str], Vector] = OrderedDict()
        self.notes = NoteVectors(store)

    def with_options(self, **changes: Any) -> Searcher:
        """The same searcher with some levers changed."""
        return Searcher(self.store, self.embedder, self.sparse, replace(self.options, **changes))

    def query_vector(self, query: str) -> Vector:
        """`query` embedded for search (remembered for the last few queries)."""
        key = (self.embedder, query)
        vector = self._vectors.get(key)
        if vector is None:
            vector = self._vectors[key] = self.embedder.embed_query(query)
            if len(self._vectors) > QUERY_VECTORS:
                self._vectors.popitem(last=False)
        else:
            self._vectors.move_to_end(key)
        return vector

    def search(
        self,
        query: str,
        search_filter: SearchFilter | None = None,
        limit: int = 10,
        mode: SearchMode = "hybrid",
        one_per_note: bool = True,
        near: Collection[str] = (),
        today: date | None = None,
    ) -> list[SearchHit]:
        """The `limit` best hits for `query` (best chunk per note unless `one_per_note` is off).

        `near` lists the files around the note the user is looking at (its links and
        backlinks); their hits, and hits carrying a date or tag written in the query, are
        boosted (unless the searcher's options switch boosts off). `today` (default the
        system's) is the day "yesterday" or "last week" count from."""
        found = self.retrieve(query, search_filter, limit, mode, one_per_note, near, today)
        return [passage.hit for passage in found.passages]

    def retrieve(
        self,
        query: str,
        search_filter: SearchFilter | None = None,
        limit: int = 10,
        mode: SearchMode = "hybrid",
        one_per_note: bool = True,
        near: Collection[str] = (),
        today: date | None = None,
    ) -> Retrieval:
        """What `search` finds, with each hit's chunk, and how confident retrieval is that
        the vault answers the query at all (`confidence.py`)."""
        boosts = self.options.boosts
        today = today or date.today()
        # Also read by the confidence check, boosts or not.
        languages = self.sparse.question_languages(query)
        written = query_hints(query, today, languages, dated_in(self.store))
        hints = written if boosts else QueryHints()
        near = near if boosts else ()
        # Over-fetch so that collapsing to one chunk per note still fills `limit`.
        fetch = limit * 4 if one_per_note else limit
        named = self.options.titles and mode == "hybrid"
        if hints or near or named:
            fetch = max(fetch, BOOST_POOL)
        ranked = self._ranked(query, search_filter, mode, fetch)
        stored = ranked.hits
        if hints.dates:
            stored = self._with_dated(stored, query, hints, search_filter, mode, today)
        query_terms = self.sparse.analyzer.terms(query, query=True) if named else []
        if hints or near or query_terms:
            stored = self._boosted(stored, hints, set(near), query_terms)
        passages: list[Passage] = []
        seen: set[str] = set()
        for hit in stored:
            if one_per_note and hit.payload.file in seen:
                continue
            seen.add(hit.payload.file)
            passages.append(Passage(hit_of(hit, query), hit.payload))
            if len(passages) == limit:
                break
        missing = missing_names(
            query, ranked.absent_terms, self.sparse.analyzer, ranked.foreign_language
        )
        missing += missing_dates(written, self.store, search_filter, today)
        # A question in another language than the notes': its words are no evidence.
        unwritten: tuple[str, ...] = ()
        if ranked.foreign_language is None:
            unwritten = absent_words(query, ranked.absent_terms, self.sparse.analyzer)
        foreign = ranked.foreign_language
        language = foreign or self.sparse.analyzer.language
        calibration = calibration_for(self.embedder.model_name, language, foreign is not None)
        # A question naming a note found first ("Kevin Kelly's advice on tools", "what does
        # Tomás do?") is about it, however far its wording is from the note's.
        top = [passage.chunk for passage in passages[:NAMED_RANKS]]
        names_note = bool(query_terms) and self._names_one_of(
            query, query_terms, top, ranked.foreign_language
        )
        # So does one naming the day of a note found first ("who did I meet on 12 September
        # 2023?"): a journal's day is in its name, not in the words of its text.
        days = QueryHints(dates=written.dates)
        names_day = bool(days) and any(
            days.matches(passage.chunk) for passage in passages[:NAMED_RANKS]
        )
        names_note = names_note or names_day
        confidence = Confidence(
            ranked.top_cosine,
            missing,
            calibration,
            names_note=names_note,
            absent_words=unwritten,
            agreed=bool(passages) and self._agreed(ranked, passages[0].hit.file),
        )
        if confidence.low:  # only then can the words of a passage found first outweigh it
            covered = covers_query(query, top, self.sparse.analyzer)
            confidence = replace(confidence, covered=covered)
        return Retrieval(passages, confidence)

    def _names_one_of(
        self, query: str, query_terms: list[str], chunks: list[ChunkPayload], language: str | None
    ) -> bool:
        """True when `query` (written in `language`, default the notes') names the note of one
        of `chunks`: holds its title or an alias of two terms or more, or writes a one-term one
        as a name ("Tomás", not "work")."""
        if any(self.titles.boost(query_terms, chunk) >= PHRASE_BOOST for chunk in chunks):
            return True
        written = names_in(query, language or self.sparse.analyzer.language)
        analysed = (self.sparse.analyzer.terms(name, query=True) for name in written)
        one_word = {terms[0] for terms in analysed if len(terms) == 1}
        return bool(one_word) and any(self.titles.named_as(one_word, chunk) for chunk in chunks)

    def _with_dated(
        self,
        stored: list[StoredHit],
        query: str,
        hints: QueryHints,
        search_filter: SearchFilter | None,
        mode: SearchMode,
        today: date,
    ) -> list[StoredHit]:
        """`stored` and the best chunks of the notes dated in each period `hints` names, each
        period searched on its own (`dated.py`), best first. A chunk found by both keeps its
        higher score: fusion scores a period's list on the same scale as the whole vault's."""
        best = {hit.id: hit for hit in stored}
        for narrowed in dated_filters(hints, self.store, search_filter, today):
            for hit in self._ranked(query, narrowed, mode, DATED_FETCH).hits:
                if hit.id not in best or best[hit.id].score < hit.score:
                    best[hit.id] = hit
        return sorted(best.values(), key=lambda hit: hit.score, reverse=True)

    def _ranked(
        self, query: str, search_filter: SearchFilter | None, mode: SearchMode, fetch: int
    ) -> _Ranked:
        """Chunks for `query`, best first: one list (dense or sparse mode), or both fused
        with the rare-term bonus (hybrid)."""
        if mode == "dense":
            dense = VectorQuery(self.query_vector(query).tolist(), fetch)
            (hits,) = self.store.search([dense], search_filter)
            return _Ranked(hits, hits[0].score if hits else 0.0)
        sparse = self.sparse.embed_query(query)
        if mode == "sparse":
            (hits,) = self.store.search([VectorQuery(sparse, fetch)], search_filter)
            return _Ranked(hits, 0.0)
        options = self.options
        candidates = max(options.candidates, fetch)
        query_vector = self.query_vector(query).tolist()
        dense = VectorQuery(query_vector, candidates)
        # A question in another language than the notes (English over a German vault) shares
        # no words with them, only names: BM25 would rank noise, which fusion weighs like the
        # dense list that carries the meaning across languages. Only its names are probed.
        foreign = self.sparse.foreign_language(query)
        if foreign is not None:
            sparse = self.sparse.embed_names(query, foreign)
        keyword = [] if foreign is not None else [VectorQuery(sparse, candidates)]
        # Ids and scores only: the payloads of the few hundred candidates were most of a
        # search (the engine handing them over, then validating them), and only the `fetch`
        # best that fusion keeps are read (`_with_payloads`).
        lists = self.store.ranked([dense, *keyword, *probes(sparse)], search_filter)
        ranked, probed = lists[: 1 + len(keyword)], lists[1 + len(keyword) :]
        fused = fuse_scores(ranked, options.fusion)
        if options.rare_terms:
            holding = [[point for point, _ in points] for points in probed]
            bonus = rare_term_bonus(holding, rare_limit(self.store.count()))
            if bonus:
                fused = _with_bonus(fused, bonus)
        top_cosine = lists[0][0][1] if lists[0] else 0.0
        absent = self._absent(sparse, probed)
        if foreign is not None and options.note_vectors:
            # Without BM25 the chunk list is the only evidence: whole notes are a second one,
            # read from every candidate's note (so every candidate's payload is fetched).
            hits = self.notes.rescored(self._with_payloads(fused), query_vector)
            return _Ranked(hits[:fetch], top_cosine, absent, foreign)
        # The head of each list is read in the same fetch, for the notes that lead it.
        kept = fused[:fetch]
        heads = [[point for point, _ in found[:LEADING_CHUNKS]] for found in ranked]
        wanted = [point for point, _ in kept] + [point for head in heads for point in head]
        payloads = self.store.payloads(list(dict.fromkeys(wanted)))
        leading = tuple(
            tuple(dict.fromkeys(payloads[p].file for p in head if p in payloads))[:AGREED_NOTES]
            for head in heads
        )
        return _Ranked(_hits(kept, payloads), top_cosine, absent, foreign, leading)

    @staticmethod
    def _agreed(ranked: _Ranked, first: str) -> bool:
        """True when the note found first (`first`) is among the notes leading both the
        meaning and the word list (a question in another language has no word list)."""
        return len(ranked.leaders) == 2 and all(first in notes for notes in ranked.leaders)

    def _with_payloads(self, scored: list[Scored]) -> list[StoredHit]:
        """The chunks of `scored` with their payloads, in order (one the store no longer
        holds, deleted by a sync since it was ranked, is left out)."""
        return _hits(scored, self.store.payloads([point for point, _ in scored]))

    def _absent(self, sparse: SparseVector, probed: Sequence[Sequence[object]]) -> frozenset[int]:
        """The ids of the query's terms that no chunk (under the filter) holds."""
        return frozenset(
            term for term, hits in zip(sparse.indices, probed, strict=False) if not hits
        )

    def _boosted(
        self, stored: list[StoredHit], hints: QueryHints, near: set[str], query_terms: list[str]
    ) -> list[StoredHit]:
        """`stored` re-scored with the neighbourhood, query-hint and named-title boosts, best
        first; the notes of a day or week the query names before all others."""
        lead = few_days(hints)
        rescored = []
        for hit in stored:
            factor = NEAR_BOOST if hit.payload.file in near else 1.0
            if hints.matches(hit.payload):
                factor *= HINT_BOOST
            if query_terms:
                factor *= self.titles.boost(query_terms, hit.payload)
            if factor == 1.0:
                rescored.append(hit)
                continue
            # Scaled by |score| so that a negative score (a cosine can be one) still goes up.
            score = hit.score + abs(hit.score) * (factor - 1.0)
            rescored.append(hit.model_copy(update={"score": score}))
        if lead:
            first = lead.matches
            return sorted(rescored, key=lambda hit: (first(hit.payload), hit.score), reverse=True)
        return sorted(rescored, key=lambda hit: hit.score, reverse=True)


@dataclass(frozen=True)
class Passage:
    """A hit and the chunk it was found in (its body is what answers quote)."""

    hit: SearchHit
    chunk: ChunkPayload


@dataclass(frozen=True)
class Retrieval:
    """The passages a search found, best first, and whether they likely answer at all."""

    passages: list[Passage]
    confidence: Confidence


@dataclass(frozen=True)
class _Ranked:
    hits: list[StoredHit]
    top_cosine: float
    absent_terms: frozenset[int] = frozenset()
    """The ids of query terms no chunk holds."""
    foreign_language: str | None = None
    """The query's language, when the notes are in others."""
    leaders: tuple[tuple[str, ...], ...] = ()
    """The first `AGREED_NOTES` notes of the meaning list and of the word list, read from
    their first `LEADING_CHUNKS` chunks (hybrid search in the notes' language only)."""


def _hits(scored: list[Scored], payloads: Mapping[str, ChunkPayload]) -> list[StoredHit]:
    """The chunks of `scored`, in order, with their `payloads` (one without is left out)."""
    return [
        StoredHit.model_construct(id=point, score=score, payload=payloads[point])
        for point, score in scored
        if point in payloads
    ]


def _with_bonus(fused: list[Scored], bonus: dict[str, float]) -> list[Scored]:
    """`fused` plus the chunks holding rare terms that it lacked, re-scored with their bonus."""
    known = {point for point, _ in fused}
    pool = fused + [(point, 0.0) for point in bonus if point not in known]
    rescored = [(point, score + bonus.get(point, 0.0)) for point, score in pool]
    return sorted(rescored, key=lambda item: item[1], reverse=True)
