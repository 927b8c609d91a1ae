"""Sweep ranking levers offline: dump each query's candidate lists once, re-rank them many ways.

A hybrid search asks the store for a dense list, a BM25 list and one probe per query term
(`index/search/searcher.py`); everything after that (fusion, the rare-term bonus) is plain
Python over those lists. So this bench runs the real store once per query, keeps the lists
(cached in the user cache dir), and replays `fuse` and `rare_term_matches` with other
settings in milliseconds. What it reports is what `vault-agent eval` would measure with those
settings (boosts aside), which is how each lever in docs/retrieval.md was chosen:

    uv run python -m bench.levers ../shared/data/bench/scifact --split train
    uv run python -m bench.levers tests/data/qa/obsidian-tasks.dev.jsonl \
        --vault ../shared/data/vaults/obsidian-tasks
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from vault_agent.config import APP_NAME
from vault_agent.evaluation.beir import is_beir, load_beir, write_vault
from vault_agent.evaluation.cache import CachedEmbedder
from vault_agent.evaluation.indexing import index_folder
from vault_agent.evaluation.metrics import mean, mrr_at_k, ndcg_at_k, recall_at_k
from vault_agent.evaluation.questions import load_questions
from vault_agent.evaluation.run import DEFAULT_CACHE_DIR
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.search.fusion import FusionMethod, fuse
from vault_agent.index.search.rare_terms import (
    RARE_BONUS,
    RARE_SHARE,
    probes,
    rare_term_matches,
)
from vault_agent.index.search.searcher import CANDIDATES
from vault_agent.index.store.protocol import ChunkPayload, StoredHit, VectorQuery
from vault_agent.index.vault_index import VaultIndex

#: Probes fetch this many chunks per term, so rare-term thresholds up to PROBE_DEPTH - 1
#: can be replayed.
PROBE_DEPTH = 33
DUMPS = Path(platformdirs.user_cache_dir(APP_NAME)) / "levers"


@dataclass(frozen=True)
class Judged:
    """One query and what counts as right: graded documents (BEIR) or acceptable notes."""

    text: str
    grades: dict[str, int]
    """Note file -> relevance grade; every acceptable note has grade 1 for question files."""
    answerable: bool = True


@dataclass(frozen=True)
class Setting:
    """One way to rank the dumped lists."""

    name: str
    fusion: FusionMethod = "dbsf"
    rare_share: float = RARE_SHARE
    rare_bonus: float = RARE_BONUS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a BEIR folder or a question file")
    parser.add_argument("--vault", type=Path, help="the vault of a question file")
    parser.add_argument("--split", default="train")
    parser.add_argument("--refresh", action="store_true", help="dump the lists again")
    args = parser.parse_args()
    queries, dump = load_or_dump(args.path, args.vault, args.split, args.refresh)
    replayable = [_Lists.of(lists) for lists in dump]
    settings = [Setting("no rare-term bonus", rare_bonus=0.0)] + [
        Setting(
            f"rare share 1/{round(1 / share)}, bonus {bonus}", rare_share=share, rare_bonus=bonus
        )
        for share in (1 / 10_000, 1 / 2_500, 1 / 1_000, 1 / 250)
        for bonus in (0.25, 0.5, 1.0)
    ]
    print(f"{args.path.name}: {len(queries)} queries")
    print("| setting | nDCG@10 | recall@5 | MRR@10 |\n| --- | --- | --- | --- |")
    for setting in settings:
        ndcg, recall, mrr = score(queries, replayable, setting)
        print(f"| {setting.name} | {ndcg:.4f} | {recall:.4f} | {mrr:.4f} |")


@dataclass(frozen=True)
class _Lists:
    """One query's dumped lists, as the store returned them."""

    dense: list[StoredHit]
    sparse: list[StoredHit]
    probes: list[list[StoredHit]]
    total: int
    """Chunks in the index."""

    @classmethod
    def of(cls, lists: dict[str, object]) -> _Lists:
        return cls(
            _hits(lists["dense"]),
            _hits(lists["sparse"]),
            [_hits(found) for found in lists["probes"]],  # type: ignore[attr-defined]
            int(lists["total"]),  # type: ignore[call-overload]
        )


def score(
    queries: list[Judged], dump: list[_Lists], setting: Setting
) -> tuple[float, float, float]:
    """Mean nDCG@10, recall@5 and MRR@10 of `setting` over the answerable queries."""
    rows = []
    for judged, lists in zip(queries, dump, strict=True):
        if not judged.answerable:
            continue
        top = rank(lists, setting)
        rows.append(
            (
                ndcg_at_k(top, judged.grades, 10),
                recall_at_k(top, judged.grades, 5),
                mrr_at_k(top, judged.grades, 10),
            )
        )
    return tuple(mean([row[i] for row in rows]) for i in range(3))  # type: ignore[return-value]


def rank(lists: _Lists, setting: Setting) -> list[str]:
    """The notes `setting` ranks first (one per note, best chunk), as the searcher would."""
    fused = fuse([lists.dense, lists.sparse], setting.fusion)
    if setting.rare_bonus:
        limit = max(1, min(PROBE_DEPTH - 1, int(lists.total * setting.rare_share)))
        rare = rare_term_matches(lists.probes, limit, setting.rare_bonus)
        known = {hit.id for hit in fused}
        pool = fused + [h for i, h in rare.hits.items() if i not in known]
        scored = {h.id: h.score * (h.id in known) + rare.bonus.get(h.id, 0.0) for h in pool}
        fused = sorted(pool, key=lambda h: scored[h.id], reverse=True)
    files: list[str] = []
    for hit in fused:
        if hit.payload.file not in files:
            files.append(hit.payload.file)
        if len(files) == 10:
            break
    return files


def load_or_dump(
    path: Path, vault: Path | None, split: str, refresh: bool
) -> tuple[list[Judged], list[dict[str, object]]]:
    """The queries and their candidate lists, dumped now or read from an earlier dump."""
    # The lists depend on what was indexed: the chunking, the dense model and the BM25 terms.
    versions = f"{MiniLmEmbedder.max_tokens}|{Bm25Encoder().name}|{_chunker_digest()}"
    key = f"{path.resolve()}|{vault}|{split}|{PROBE_DEPTH}|{versions}"
    key = hashlib.sha256(key.encode()).hexdigest()
    cached = DUMPS / f"{path.stem}-{key[:12]}.json"
    with tempfile.TemporaryDirectory(prefix="vault-agent-levers-") as scratch:
        queries, folder = _judged(path, vault, split, Path(scratch))
        if cached.is_file() and not refresh:
            return queries, json.loads(cached.read_text())
        embedder = CachedEmbedder(MiniLmEmbedder(), DEFAULT_CACHE_DIR)
        index, _ = index_folder(folder, Path(scratch) / "data", embedder, Bm25Encoder())
        embedder.flush()
        with index:
            total = index.store.count()
            dump = [{**_lists(index, judged.text), "total": total} for judged in queries]
    DUMPS.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(dump))
    return queries, dump


def _chunker_digest() -> str:
    """A digest of the chunker's and reading text's code: a change re-dumps."""
    import vault_agent.vault.chunker as chunker
    import vault_agent.vault.reading_text as reading

    sources = [Path(module.__file__ or "").read_bytes() for module in (chunker, reading)]
    return hashlib.sha256(b"".join(sources)).hexdigest()[:12]


def _judged(path: Path, vault: Path | None, split: str, scratch: Path) -> tuple[list[Judged], Path]:
    """The judged queries and the folder of notes they are asked over (a BEIR corpus is
    written there as notes first, so its grades can name the notes' files)."""
    if is_beir(path):
        dataset = load_beir(path, split)
        file_of = {
            doc: file for file, doc in write_vault(dataset.corpus, scratch / "vault").items()
        }
        judged = [
            Judged(text, {file_of[doc]: grade for doc, grade in dataset.qrels[query].items()})
            for query, text in dataset.queries.items()
        ]
        return judged, scratch / "vault"
    if vault is None:
        raise SystemExit("a question file needs --vault")
    judged = [
        Judged(q.q, dict.fromkeys(q.acceptable, 1), answerable=bool(q.required))
        for q in load_questions(path)
    ]
    return judged, vault


def _lists(index: VaultIndex, text: str) -> dict[str, object]:
    """What one hybrid search asks the store, with probes deep enough to replay thresholds."""
    searcher = index.searcher
    dense = searcher.embedder.embed_query(text).tolist()
    words = searcher.sparse.embed_query(text)
    terms = [VectorQuery(probe.vector, PROBE_DEPTH) for probe in probes(words)]
    found = index.store.search(
        [VectorQuery(dense, CANDIDATES), VectorQuery(words, CANDIDATES), *terms]
    )
    return {
        "dense": _rows(found[0]),
        "sparse": _rows(found[1]),
        "probes": [_rows(hits) for hits in found[2:]],
    }


def _rows(hits: list[StoredHit]) -> list[tuple[str, str, float]]:
    return [(hit.id, hit.payload.file, hit.score) for hit in hits]


def _hits(rows: object) -> list[StoredHit]:
    return [
        StoredHit.model_construct(id=point, score=score, payload=_payload(file))
        for point, file, score in rows  # type: ignore[attr-defined]
    ]


@functools.cache
def _payload(file: str) -> ChunkPayload:
    """A stand-in payload: ranking reads only the file (and building payloads is slow)."""
    return ChunkPayload.model_construct(file=file)


if __name__ == "__main__":
    main()
