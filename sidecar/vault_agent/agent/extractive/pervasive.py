"""Names the whole vault writes: the vault's subject, not what sets one passage apart.

A quote must hold the names its question asks about (`scoring.py`): a sentence about v1.7
does not answer a question about Canvas. But a question often names what the whole vault is
about ("when did the audio recorder first show up in *Obsidian*?" over Obsidian's release
notes, "does *Tasks* read fields from frontmatter?" over the Tasks plugin's docs), and the
line that answers needn't repeat it ("Audio recorder plugin: record audio and save as
attachment."): required of it, the name put lines that merely mention Obsidian ("Linux: fixed
bug causing Obsidian to not boot.") ahead.

A name is the vault's subject when a sample of its notes, spread over the whole vault, holds
it in at least `PERVASIVE_SHARE` of them. The sample's words are read once per store and
read again when the store's chunk count changes.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from weakref import WeakKeyDictionary

from vault_agent.agent.reader import ToolsContext
from vault_agent.index.store.protocol import SearchFilter, Store

#: Notes sampled, evenly over the vault's paths in order (their first chunk: title, opening).
SAMPLED_NOTES = 200
#: A name held by at least this share of the sampled notes is the vault's subject. In the
#: samples of Obsidian's release notes "Obsidian" is held by 0.35 of them, "Sync" by 0.135 and
#: "Canvas" by 0.01; in the Tasks plugin's docs "Tasks" by 0.96. On the English answer sets
#: 0.1, 0.2 and 0.35 gave the same answers.
PERVASIVE_SHARE = 0.2

_samples: WeakKeyDictionary[Store, tuple[int, list[frozenset[str]]]] = WeakKeyDictionary()
_lock = threading.Lock()


def written_widely(terms: Collection[str], sample: Sequence[frozenset[str]]) -> bool:
    """True when the sampled notes of the vault (`vault_sample`) hold every one of `terms` (a
    name's analysed terms) in at least `PERVASIVE_SHARE` of them."""
    if not sample or not terms:
        return False
    holding = sum(all(term in words for term in terms) for words in sample)
    return holding >= PERVASIVE_SHARE * len(sample)


def vault_sample(context: ToolsContext) -> list[frozenset[str]]:
    """The words of each sampled note (cached per store, until its chunk count changes)."""
    store = context.store
    count = store.count()
    with _lock:
        cached = _samples.get(store)
    if cached is not None and cached[0] == count:
        return cached[1]
    files = sorted(file for file in context.graph.files() if file.endswith(".md"))
    stride = max(1, len(files) // SAMPLED_NOTES)
    chosen = files[::stride][:SAMPLED_NOTES]
    analyzer = context.searcher.sparse.analyzer
    firsts = store.scroll(SearchFilter(files=chosen, chunk_index=0)) if chosen else []
    sample = [frozenset(analyzer.terms(f"{chunk.title}\n{chunk.body}")) for chunk in firsts]
    with _lock:
        _samples[store] = (count, sample)
    return sample
