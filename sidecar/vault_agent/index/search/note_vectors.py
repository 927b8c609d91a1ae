"""Whole notes as one vector each: a second dense opinion for questions in another language.

When a question shares no words with the notes (an English question over a Chinese vault),
BM25 is left out and the dense list of chunks decides alone (`searcher.py`). A multilingual
encoder matches one chunk across languages noisily: a chunk that happens to sit near the
question can beat the note that is about it from its first line to its last. A note's
centroid, the mean of its chunks' stored vectors, says what the whole note is about; its
cosine to the question, fused beside the chunks' (DBSF, as the chunk and BM25 lists are), plays
the part BM25 plays for a question in the notes' language: evidence from another angle.

Measured on the translated help vaults' dev questions asked in the other six languages
(docs/multilingual.md): recall@5 0.78 -> 0.81 and MRR 0.63 -> 0.69, better or equal in every
vault, with nothing embedded or stored beyond what indexing writes anyway. Scoring the titles,
the heading paths, the headings as an outline, or single sentences instead gained less or lost
in-language; in the notes' own language the centroid changed nothing, so it is used only when
the question is in another language.

Centroids are computed for the candidate notes only, from their stored chunk vectors (one scroll
per search), and kept by (file, content hash, model): a note is read again only once it changed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from vault_agent.index.search.fusion import dbsf_scores
from vault_agent.index.store.protocol import Store, StoredHit

Vector = NDArray[np.float32]

#: The note list's weight beside the chunk list's (1.0: as DBSF weighs every list). Swept on
#: the cross-lingual dev sets: 0.75 to 2.0 score alike, 0.5 gains half as much.
NOTE_WEIGHT = 1.0
#: Note centroids remembered (2 KB each at 512 dimensions).
CACHE_NOTES = 4096

_Key = tuple[str, str, str]


class NoteVectors:
    """Note centroids read from one store, remembered until their note changes."""

    def __init__(self, store: Store, size: int = CACHE_NOTES) -> None:
        self.store = store
        self.size = size
        self._cache: OrderedDict[_Key, Vector] = OrderedDict()
        self._lock = threading.Lock()  # searches may run on several threads

    def rescored(
        self, hits: Sequence[StoredHit], query: Sequence[float], weight: float = NOTE_WEIGHT
    ) -> list[StoredHit]:
        """`hits` with each note's centroid score added to all of its chunks, best first.

        The score is the note centroid's cosine to `query`, DBSF-normalised over the notes
        among `hits` and times `weight`; adding it to every chunk of a note keeps the note's
        best chunk its best, so the hit shown is still the passage that matched."""
        centroids = self.centroids(hits)
        if not centroids:
            return list(hits)
        direction = np.asarray(query, dtype=np.float32)
        direction /= float(np.linalg.norm(direction)) or 1.0
        files = list(centroids)
        cosines = [float(centroids[file] @ direction) for file in files]
        bonus = dict(zip(files, dbsf_scores(cosines), strict=True))
        rescored = [
            hit.model_copy(update={"score": hit.score + weight * bonus[hit.payload.file]})
            if hit.payload.file in bonus
            else hit
            for hit in hits
        ]
        return sorted(rescored, key=lambda hit: hit.score, reverse=True)

    def centroids(self, hits: Sequence[StoredHit]) -> dict[str, Vector]:
        """The unit-length centroid of each note among `hits` (a note whose chunks are gone
        from the store is left out)."""
        keys = {
            hit.payload.file: (
                hit.payload.file,
                hit.payload.content_hash,
                hit.payload.embedding_model,
            )
            for hit in hits
        }
        found: dict[str, Vector] = {}
        with self._lock:
            for file, key in keys.items():
                if key in self._cache:
                    self._cache.move_to_end(key)
                    found[file] = self._cache[key]
        missing = [file for file in keys if file not in found]
        if missing:
            for file, vectors in self.store.dense_vectors_of(missing).items():
                if file in keys:
                    found[file] = _centroid(vectors)
                    self._remember(keys[file], found[file])
        return found

    def _remember(self, key: _Key, centroid: Vector) -> None:
        with self._lock:
            self._cache[key] = centroid
            self._cache.move_to_end(key)
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)


def _centroid(vectors: list[list[float]]) -> Vector:
    """The mean of a note's chunk vectors (each at unit length, as cosine sees them), scaled
    to unit length."""
    rows = np.asarray(vectors, dtype=np.float32)
    rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    mean: Vector = rows.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean
