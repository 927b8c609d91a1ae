"""PDFs on their way into the index: hash, cache look-up, extraction in workers, limits.

The indexer hands each changed PDF to `PdfPipeline.start`. A PDF whose content was extracted
before (by hash, see `extract_cache.py`) is decided at once; any other goes to a worker
process, and the indexer picks it up later through `ready`, so markdown notes and other PDFs
keep flowing meanwhile. Either way the outcome is a `PdfReady`: a `Note` to chunk and embed,
or the per-file state and reason why not (over a limit, encrypted, damaged, no text layer,
timed out). Limits from settings are applied here, never cached, so changing one takes
effect at the next sync.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from vault_agent.config import IndexSettings, Settings
from vault_agent.index.sync.extract_cache import ExtractCache
from vault_agent.index.sync.pdf_workers import PdfJob, PdfResult, PdfWorkerPool
from vault_agent.vault.files import VaultFile, open_vault_file
from vault_agent.vault.notes import Note
from vault_agent.vault.pdf_extract import PdfExtract
from vault_agent.vault.pdf_note import pdf_note

#: A PDF whose worker died this many times in a row is not read again until it changes.
GIVE_UP_AFTER_CRASHES = 2


@dataclass
class PdfReady:
    """A PDF decided: `note` to index, or `state` and `reason` for the file status."""

    vault_file: VaultFile
    content_hash: str
    note: Note | None = None
    state: Literal["skipped", "failed"] = "failed"
    reason: str = ""
    extracted: bool = False  # text was extracted in this sync (not from the cache)
    lasting: bool = True  # the content decided it; False: the file couldn't be read, a crash


class PdfPipeline:
    """One vault's PDF extraction: the cache under `cache_dir`, workers started on demand.
    Limits are read from `settings.index` at each use, so a changed setting applies at once."""

    def __init__(self, settings: Settings, cache_dir: Path) -> None:
        self._settings = settings
        self.cache = ExtractCache(cache_dir)
        self.extractions = 0
        """Extraction jobs started over this pipeline's life (cache misses)."""
        self.seen_hashes: set[str] = set()
        """Content hashes of the PDFs looked at since `begin_sync`: they stay cached."""
        self._pool: PdfWorkerPool | None = None
        self._waiting: dict[str, tuple[VaultFile, str]] = {}
        # Hashes of files not in the store (skipped ones), by (mtime, size): a skipped PDF
        # that hasn't changed is not read again within this process.
        self._known: dict[str, tuple[float, int, str]] = {}

    @property
    def settings(self) -> IndexSettings:
        """The index settings in force now."""
        return self._settings.index

    def begin_sync(self) -> None:
        """Start counting the hashes in use afresh (for `ExtractCache.prune`)."""
        self.seen_hashes = set()

    def content_hash(self, vault_file: VaultFile) -> str:
        """The sha256 of the PDF, read in blocks (PDFs can be large) as the scan would index
        it (`open_vault_file`: its errors too). Its cached text, if any, is in use from now
        on."""
        known = self._known.get(vault_file.file)
        if known is not None and known[:2] == (vault_file.mtime, vault_file.size):
            digest = known[2]
        else:
            root, ignore = self._settings.vault_root, self.settings.ignore
            with open_vault_file(root, vault_file.file, ignore) as stream:
                digest = hashlib.file_digest(stream, "sha256").hexdigest()
            self._known[vault_file.file] = (vault_file.mtime, vault_file.size, digest)
        self.seen_hashes.add(digest)
        return digest

    def start(self, vault_file: VaultFile, path: Path, content_hash: str) -> PdfReady | None:
        """Decide the PDF from the cache, or queue its extraction (then None: see `ready`)."""
        cached = self.cache.get(content_hash)
        if cached is not None and not self._worth_retrying(cached):
            return self._decide(vault_file, content_hash, cached, extracted=False)
        if self._pool is None:
            self._pool = PdfWorkerPool(
                self.settings.pdf_workers,
                self.settings.pdf_timeout_s,
                self.settings.pdf_max_memory_mb,
            )
        self._waiting[vault_file.file] = (vault_file, content_hash)
        self.extractions += 1
        limits = self.settings.pdf_max_pages, self.settings.pdf_max_text_chars
        self._pool.submit(PdfJob(vault_file.file, path, *limits))
        return None

    def is_waiting(self, file: str) -> bool:
        """True while `file`'s extraction is queued or running."""
        return file in self._waiting

    def pending(self) -> int:
        """PDFs queued or being extracted."""
        return len(self._waiting)

    def ready(self, wait: bool = False) -> list[PdfReady]:
        """PDFs whose extraction finished; with `wait`, block until one does (if any is
        pending)."""
        if self._pool is None or not self._waiting:
            return []
        return [self._finish(result) for result in self._pool.collect(wait=wait)]

    def close(self) -> None:
        """Stop the workers (they are started again when needed)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        self._waiting.clear()

    def forget(self, file: str) -> None:
        """Drop what is remembered about a file that left the vault."""
        self._known.pop(file, None)

    # ----------------------------------------------------------------- internals

    def _finish(self, result: PdfResult) -> PdfReady:
        vault_file, submitted_hash = self._waiting.pop(result.key)
        if result.content_hash not in (None, submitted_hash):
            # The worker read the file by its path, and read other bytes than the ones checked
            # and hashed: the file changed in between, maybe into a symlink to a file the vault
            # does not index. Its text is neither kept nor cached; the next sync reads it again.
            ready = PdfReady(vault_file, submitted_hash, extracted=True, lasting=False)
            ready.reason = "changed while it was read; it is read again at the next sync"
            return ready
        content_hash = result.content_hash or submitted_hash
        if result.crashed:
            return self._crashed(vault_file, content_hash, result.extract)
        if result.cacheable:
            self.cache.put(content_hash, result.extract)
            self.seen_hashes.add(content_hash)
        ready = self._decide(vault_file, content_hash, result.extract, extracted=True)
        ready.lasting = result.cacheable
        return ready

    def _crashed(self, vault_file: VaultFile, content_hash: str, extract: PdfExtract) -> PdfReady:
        """A PDF its worker died reading. Once may be the machine (short of memory just
        then): it is read again at the next sync. `GIVE_UP_AFTER_CRASHES` times in a row, it
        is the bytes: the outcome is cached, and the PDF is read again only once it changes
        or the memory cap is raised (each read costs up to the cap, or the timeout)."""
        earlier = self.cache.get(content_hash)
        crashes = (earlier.crashes if earlier is not None else 0) + 1
        memory_mb = self.settings.pdf_max_memory_mb
        extract = extract.model_copy(update={"crashes": crashes, "memory_mb": memory_mb})
        self.cache.put(content_hash, extract)
        self.seen_hashes.add(content_hash)
        ready = self._decide(vault_file, content_hash, extract, extracted=True)
        ready.lasting = crashes >= GIVE_UP_AFTER_CRASHES
        return ready

    def _worth_retrying(self, cached: PdfExtract) -> bool:
        """A cached outcome that a limit decided, when that limit has since been raised, or
        a crash not yet seen often enough to be the PDF's own."""
        if cached.crashes:
            raised = cached.memory_mb is not None and (
                self.settings.pdf_max_memory_mb > cached.memory_mb
            )
            return cached.crashes < GIVE_UP_AFTER_CRASHES or raised
        if cached.timeout_s is not None:
            return cached.timeout_s < self.settings.pdf_timeout_s
        if cached.text_limit is not None:
            return cached.text_limit < self.settings.pdf_max_text_chars
        never_read = cached.pages is None and cached.problem is None
        return never_read and cached.page_count <= self.settings.pdf_max_pages

    def _decide(
        self, vault_file: VaultFile, content_hash: str, extract: PdfExtract, extracted: bool
    ) -> PdfReady:
        ready = PdfReady(vault_file, content_hash, extracted=extracted)
        limit = self.settings.pdf_max_pages
        if extract.page_count > limit:
            ready.state = "skipped"
            ready.reason = (
                f"has {extract.page_count} pages, over the {limit} page limit (index.pdf_max_pages)"
            )
        elif extract.text_limit is not None or _chars(extract) > self.settings.pdf_max_text_chars:
            ready.state = "skipped"
            ready.reason = (
                f"has more than {self.settings.pdf_max_text_chars:,} characters of text "
                "(index.pdf_max_text_chars)"
            )
        elif extract.problem is not None:
            ready.state, ready.reason = extract.problem_state, extract.problem
        elif extract.pages is None:
            ready.reason = "text was not extracted"  # cannot happen: a cached count is retried
        else:
            ready.note = pdf_note(vault_file.file, extract.pages, content_hash, extract.created)
        return ready


def _chars(extract: PdfExtract) -> int:
    """The characters of text an extract holds (one cached under a higher limit may hold more
    than the limit in force)."""
    return sum(len(page) for page in extract.pages or [])
