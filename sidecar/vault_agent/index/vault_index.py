"""One vault's index, opened as a unit: store, embedders, link graph, indexer, searcher, and
the documents of other sources kept in the same store.

The CLI, the HTTP server and the tests all start here, so the wiring lives in one place.
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import TYPE_CHECKING

from vault_agent.config import Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.choose import ModelChoice, TextModels, text_models
from vault_agent.index.embed.minilm import Embedder
from vault_agent.index.ingest import Ingest
from vault_agent.index.search.searcher import Searcher
from vault_agent.index.store.open import open_store
from vault_agent.index.sync.indexer import Indexer
from vault_agent.private_files import tighten_tree
from vault_agent.vault.graph import LinkGraph

if TYPE_CHECKING:
    from vault_agent.index.documents.store import Documents


class VaultIndex:
    """Owns the clients for one vault; `close()` releases the store (and its lock)."""

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder | None = None,
        sparse: Bm25Encoder | None = None,
        models: TextModels | None = None,
    ) -> None:
        """Open the index of `settings`' vault, read by the encoders given, else by `models`
        (chosen with `text_models` beforehand: the CLI does, so the model loads while the rest
        of the index imports), else by those `text_models` chooses now."""
        if not settings.vault_root.is_dir():
            raise FileNotFoundError(f"vault folder not found: {settings.vault_root}")
        self.settings = settings
        # Its files hold the notes' text: whatever an older version or a umask left readable
        # by others is tightened before anything opens them.
        tighten_tree(settings.vault_data_dir)
        #: Which models read this vault and why (None when the caller gave its own encoders).
        self.models: ModelChoice | None = None
        if embedder is None or sparse is None:
            chosen = models or text_models(settings)
            embedder = embedder or chosen.embedder
            sparse = sparse or chosen.sparse
            self.models = chosen.choice
        self.embedder = embedder
        self.sparse = sparse
        self.store = open_store(settings, embedder.dim)
        self.graph = LinkGraph()
        self.ingest = Ingest(self.store, self.embedder, self.sparse, settings.vault_id)
        self.indexer = Indexer(settings, self.ingest, self.graph)
        self.searcher = Searcher(self.store, self.embedder, self.sparse)
        self._documents: Documents | None = None
        self._documents_lock = threading.Lock()

    @property
    def documents(self) -> Documents:
        """The documents of other sources in this index (`index/documents/`), made on first
        use: a search or a sync never needs their stack and its models (startup time)."""
        with self._documents_lock:  # one instance, whose lock orders every source's writes
            if self._documents is None:
                from vault_agent.index.documents.store import Documents

                self._documents = Documents(self.ingest)
            return self._documents

    def close(self) -> None:
        """Flush and release the store (and the indexer's link cache)."""
        self.indexer.close()
        self.store.close()

    def __enter__(self) -> VaultIndex:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
