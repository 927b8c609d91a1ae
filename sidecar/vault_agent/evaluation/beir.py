"""A BEIR dataset (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) and its vault of notes.

Each document becomes one markdown note, as a user would keep it: the title is the file name
(Obsidian's note title) and the text is the body. The eval then indexes that folder with the
product's own indexer, so the numbers describe what users get.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

#: Characters Obsidian refuses in file names (and '#^[]|' which break links to the note).
_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')
#: Leaves room for " (id).md" under the usual 255-byte file name limit.
MAX_NAME_BYTES = 200


@dataclass(frozen=True)
class Document:
    """One corpus entry."""

    id: str
    title: str
    text: str


@dataclass
class BeirDataset:
    """The parts of a BEIR dataset one evaluation needs: the corpus, one split's queries and
    their relevance judgments (`qrels[query_id][doc_id] = grade`)."""

    name: str
    corpus: list[Document]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]

    def sliced(self, max_docs: int) -> BeirDataset:
        """A smaller dataset: the documents judged for any query first, then others, up to
        `max_docs`; only the queries with at least one judged document left are kept."""
        judged = {doc for rels in self.qrels.values() for doc in rels}
        ordered = sorted(self.corpus, key=lambda d: (d.id not in judged, d.id))
        corpus = ordered[:max_docs]
        kept = {d.id for d in corpus}
        qrels = {
            q: {d: g for d, g in rels.items() if d in kept}
            for q, rels in self.qrels.items()
            if any(d in kept for d in rels)
        }
        return BeirDataset(self.name, corpus, {q: self.queries[q] for q in qrels}, qrels)


def is_beir(path: Path) -> bool:
    """True when `path` is a folder laid out as a BEIR dataset."""
    return (path / "corpus.jsonl").is_file() and (path / "queries.jsonl").is_file()


def load_beir(path: Path, split: str = "test") -> BeirDataset:
    """Read the dataset at `path` with the queries judged in `qrels/<split>.tsv`."""
    qrels_path = path / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        splits = sorted(p.stem for p in (path / "qrels").glob("*.tsv"))
        raise FileNotFoundError(f"no split {split!r} in {path} (found: {', '.join(splits)})")
    qrels: dict[str, dict[str, int]] = {}
    for line_number, line in enumerate(qrels_path.read_text(encoding="utf-8").splitlines()):
        fields = line.split("\t")
        if line_number == 0 and not fields[-1].strip().lstrip("-").isdigit():
            continue  # the header row
        if len(fields) >= 3 and int(fields[2]) > 0:
            qrels.setdefault(fields[0], {})[fields[1]] = int(fields[2])
    queries = {}
    for record in _jsonl(path / "queries.jsonl"):
        if str(record["_id"]) in qrels:
            queries[str(record["_id"])] = str(record["text"])
    corpus = [
        Document(str(r["_id"]), str(r.get("title") or ""), str(r.get("text") or ""))
        for r in _jsonl(path / "corpus.jsonl")
    ]
    return BeirDataset(path.name, corpus, queries, {q: qrels[q] for q in queries})


def write_vault(corpus: list[Document], folder: Path) -> dict[str, str]:
    """Write one note per document into `folder`; returns vault-relative file -> document id.

    Only files whose content changed are rewritten, so re-running over the same folder lets the
    indexer skip unchanged notes."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    for document in corpus:
        name = note_name(document)
        if f"{name}.md" in files:
            name = f"{name} ({document.id})"
        file = f"{name}.md"
        files[file] = document.id
        path = folder / file
        content = document.text.strip() + "\n"
        if not path.is_file() or path.read_text(encoding="utf-8") != content:
            path.write_text(content, encoding="utf-8")
    for stale in folder.glob("*.md"):
        if stale.name not in files:
            stale.unlink()
    return files


def note_name(document: Document) -> str:
    """The note title for a document: its title made safe as a file name (else its id)."""
    name = " ".join(_UNSAFE.sub(" ", document.title).split()).strip(". ")
    if len(name.encode()) > MAX_NAME_BYTES:
        cut = name.encode()[:MAX_NAME_BYTES].decode("utf-8", "ignore")
        name = cut.rsplit(" ", 1)[0] if " " in cut else cut
    return name or document.id


def _jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
