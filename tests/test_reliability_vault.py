"""A vault full of bad input, generated here, indexed for real: indexing finishes, every good
note is searchable, every bad file has a per-file reason, nothing crashes.

The vault holds malformed YAML (and a YAML alias bomb), a binary file named .md, a 20 MB note,
non-UTF-8 text, empty files, symlink loops, a broken symlink and symlinks out of the vault, a
FIFO named like a note, names in other scripts and with emoji, 5,000 notes in one folder, and
during the sync a file is deleted and another renamed twice. The 5,000 notes are one line each,
so embedding them costs seconds (they are written 512 chunks at a time).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shutil
import string
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import pytest
import typer

from conftest import WrappedEmbedder
from pdf_factory import write_pdf
from server_support import AUTH, api_settings, serve_api
from vault_agent.cli.ask import ask_request
from vault_agent.config import IndexSettings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder, Vector
from vault_agent.index.store.protocol import SearchFilter
from vault_agent.index.sync.status import (
    FileStatus,
    SyncReport,
)
from vault_agent.index.vault_index import VaultIndex
from vault_agent.vault import files
from vault_agent.vault.chunker import Chunk, chunk_note
from vault_agent.vault.files import (
    PathOutsideVaultError,
    RefusedFileError,
    VaultFile,
    read_vault_file,
    resolve_in_vault,
)
from vault_agent.vault.notes import MAX_ALIASES, MAX_TAGS, Note, parse_note

BULK = 5_000
CANARY = "CANARY-0b5e1f: outside the vault, never indexed"

#: Good notes: file -> a made-up word only that note contains.
GOOD = {
    "Plain.md": "quillwort",
    "Broken YAML.md": "quokkacensus",
    "YAML bomb.md": "lolbombword",
    "latin1 Café.md": "brûléecrème",
    "UTF-16 note.md": "utfsixteenword",
    "Mixed bytes.md": "mixedbyteword",
    "🌱 Seedlings.md": "seedlingword",
    "日本語/東京メモ.md": "tokyomemoword",
    "Ελληνικά σημειώσεις.md": "greeknoteword",
    "العربية.md": "arabicnoteword",
    "Zoe\u0308 decomposed.md": "decomposedword",
    "Rates 100%.md": "percentword",
    "Q&A? #1 [draft].md": "questionmarkword",
    "Folder.md/Inner.md": "innerword",
    "Deep/er/and/deeper/still/Bottom.md": "bottomword",
    "Rename me.md": "renamedtwiceword",
    "Read then deleted.md": "readthendeleted",
}
EMPTY = ["Zephyrine Empty.md", "Whitespace only.md", "Only frontmatter.md", "Only a heading.md"]
RENAMED = ("Rename me.md", "Renamed once.md", "Renamed twice.md")


def bulk_word(i: int) -> str:
    """A word of letters only, unique per bulk note (BM25 keeps it as one token)."""
    letters = ""
    for _ in range(4):
        i, digit = divmod(i, 26)
        letters += string.ascii_lowercase[digit]
    return f"bulkx{letters}"


def bulk_file(i: int) -> str:
    return f"Bulk/Note {i:04d}.md"


def yaml_bomb(levels: int) -> str:
    """Billion laughs: each level repeats the previous one ten times (10**levels values)."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "---\n" + "\n".join(lines) + "\n---\n"


@dataclass
class BadVault:
    """The generated vault and what each file should come to."""

    root: Path
    vault: Path
    skipped: dict[str, str] = field(default_factory=dict)
    """file -> a phrase its reason must contain."""


def build_bad_vault(root: Path) -> BadVault:
    vault = root / "vault"
    outside = root / "outside"
    outside.mkdir(parents=True)
    (outside / "canary.md").write_text(f"# Canary\n\n{CANARY}\n", encoding="utf-8")
    made = BadVault(root, vault)

    def write(file: str, data: str | bytes) -> None:
        path = vault / file
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")

    for file, word in GOOD.items():
        write(file, f"# {Path(file).stem}\n\nThis note mentions {word} once.\n")
    write(
        "Broken YAML.md",
        "---\ntags: [unclosed\ntitle: oops: : :\n---\n# Broken\n\nThe quokkacensus is due.\n",
    )
    write("YAML bomb.md", yaml_bomb(6) + "# Bomb\n\nThe lolbombword survives.\n")
    write("Only frontmatter.md", "---\ntags: [frontonly]\naliases: [Front Only]\n---\n")
    write("Only a heading.md", "# Lonely heading\n")
    write("latin1 Café.md", "Crème brûlée notes: brûléecrème.".encode("cp1252"))
    write("UTF-16 note.md", "# UTF-16\n\nThe utfsixteenword.\n".encode("utf-16"))
    write("Mixed bytes.md", b"Mostly ASCII mixedbyteword then \xff\xfe\xfa bytes.\n")
    for file in EMPTY:
        if file.startswith(("Zephyrine", "Whitespace")):
            write(file, "" if "Empty" in file else "\n   \n\t\n")
    write("binary.md", bytes(range(256)) * 64)
    made.skipped["binary.md"] = "not a text file"
    write("Huge.md", ("All work and no play. " * 50 + "\n") * 18_200)  # 20 MB
    made.skipped["Huge.md"] = "over the 5.0 MB limit"
    for i in range(BULK):
        write(bulk_file(i), f"Entry {i} mentions {bulk_word(i)}.")

    (vault / "loop.md").symlink_to("loop.md")
    (vault / "ping.md").symlink_to("pong.md")
    (vault / "pong.md").symlink_to("ping.md")
    (vault / "dangling.md").symlink_to("nowhere.md")
    (vault / "escape.md").symlink_to(outside / "canary.md")
    (vault / "Outside folder").symlink_to(outside, target_is_directory=True)
    (vault / "Deep" / "again").symlink_to("..", target_is_directory=True)  # a folder loop
    made.skipped.update(
        {
            "loop.md": "symlink loop",
            "ping.md": "symlink loop",
            "pong.md": "symlink loop",
            "dangling.md": "broken symlink",
            "escape.md": "outside the vault",
        }
    )
    os.mkfifo(vault / "pipe.md")  # reading it would block forever
    # A name that is not UTF-8 (bytes from another system): Python reads it with lone
    # surrogates, which neither the store nor the multilingual model's tokenizer takes.
    (vault / os.fsdecode(b"raw \xff\xfe name.md")).write_text("# Raw\n\nrawnameword\n")
    made.skipped["raw \ufffd\ufffd name.md"] = "not valid UTF-8"
    return made


class MidSyncChanges(WrappedEmbedder):
    """The real embedder; its first call (the sync is under way, notes are being read)
    deletes a note already read and one not read yet, and renames a note twice."""

    def __init__(self, inner: MiniLmEmbedder, vault: Path) -> None:
        super().__init__(inner)
        self.vault = vault
        self.calls = 0
        self.texts = 0
        self.deleted_unread = ""

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        self.calls += 1
        self.texts += len(texts)
        if self.calls == 1:
            seen = " ".join(texts)
            assert GOOD["Read then deleted.md"] in seen, "the victim should be in the first batch"
            (self.vault / "Read then deleted.md").unlink()
            self.deleted_unread = next(
                bulk_file(i) for i in reversed(range(BULK)) if bulk_word(i) not in seen
            )
            (self.vault / self.deleted_unread).unlink()
            first, once, twice = (self.vault / name for name in RENAMED)
            first.rename(once)
            once.rename(twice)
        return self.inner.embed_documents(texts)


@dataclass
class Indexed:
    vault: BadVault
    index: VaultIndex
    embedder: MidSyncChanges
    first: SyncReport
    first_status: dict[str, FileStatus]
    second: SyncReport


@pytest.fixture(scope="module")
def indexed(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[Indexed]:
    root = tmp_path_factory.mktemp("bad-vault")
    made = build_bad_vault(root)
    settings = api_settings(made.vault, root)
    settings.index.write_batch_chunks = 512
    changing = MidSyncChanges(embedder, made.vault)
    with VaultIndex(settings, embedder=changing, sparse=sparse) as index:
        # Two good notes are read before the first batch is embedded: keep the victim early.
        first = index.indexer.sync()
        first_status = {s.file: s for s in index.indexer.file_status()}
        second = index.indexer.sync()
        yield Indexed(made, index, changing, first, first_status, second)
    shutil.rmtree(root, ignore_errors=True)  # 20 MB and 5,000 files: don't keep them around


def statuses(index: VaultIndex) -> dict[str, FileStatus]:
    return {s.file: s for s in index.indexer.file_status()}


def test_the_sync_finishes_and_counts_add_up(indexed: Indexed) -> None:
    report = indexed.first
    assert report.failed == 1  # the note deleted before it could be read
    assert report.skipped == len(indexed.vault.skipped)
    # Everything indexed is in the store exactly once.
    index = indexed.index
    status = statuses(index)
    indexed_files = {f for f, s in status.items() if s.state == "indexed"}
    assert set(index.store.file_states()) == indexed_files
    assert index.store.count() == sum(status[f].chunks for f in indexed_files)


def test_every_bad_file_has_a_reason(indexed: Indexed) -> None:
    status = statuses(indexed.index)
    for file, phrase in indexed.vault.skipped.items():
        assert status[file].state == "skipped", status[file]
        assert phrase in (status[file].reason or ""), status[file]
    assert not [s for s in status.values() if s.state != "indexed" and not s.reason]


def test_yaml_problems_are_warnings_and_the_text_is_still_indexed(indexed: Indexed) -> None:
    status = statuses(indexed.index)
    broken = status["Broken YAML.md"]
    assert broken.state == "indexed"
    assert any("frontmatter YAML invalid at line" in w for w in broken.warnings), broken
    bomb = status["YAML bomb.md"]
    assert bomb.state == "indexed"
    assert any("frontmatter" in w for w in bomb.warnings), bomb
    for file in ("latin1 Café.md", "UTF-16 note.md", "Mixed bytes.md"):
        assert status[file].state == "indexed"
        assert status[file].warnings, file


def test_every_good_note_is_found_by_its_word(indexed: Indexed) -> None:
    searcher = indexed.index.searcher
    for file, word in GOOD.items():
        if file in ("Rename me.md", "Read then deleted.md"):
            continue
        hits = searcher.search(word, limit=1)
        assert hits and hits[0].file == file, (file, hits)
    renamed = searcher.search(GOOD["Rename me.md"], limit=1)
    assert renamed[0].file == RENAMED[-1]


def test_empty_notes_are_indexed_and_found_by_title(indexed: Indexed) -> None:
    status = statuses(indexed.index)
    for file in EMPTY:
        assert status[file].state == "indexed"
        assert status[file].chunks == 1
    searcher = indexed.index.searcher
    assert searcher.search("Zephyrine", limit=1)[0].file == "Zephyrine Empty.md"
    assert searcher.search("Lonely heading", limit=1)[0].file == "Only a heading.md"
    assert indexed.index.store.count(SearchFilter(tags=["frontonly"])) == 1


def test_every_one_of_5000_notes_in_one_folder_is_searchable(indexed: Indexed) -> None:
    index = indexed.index
    expected = {bulk_file(i) for i in range(BULK)} - {indexed.embedder.deleted_unread}
    assert index.store.count(SearchFilter(folders=["Bulk"])) == len(expected)
    missing = []
    for i in range(BULK):
        file = bulk_file(i)
        if file not in expected:
            continue
        hits = index.searcher.search(bulk_word(i), limit=1, mode="sparse")
        if not hits or hits[0].file != file:
            missing.append(file)
    assert missing == []
    # And the real (hybrid) search path, on a sample.
    for i in range(0, BULK, 499):
        if bulk_file(i) in expected:
            assert index.searcher.search(bulk_word(i), limit=1)[0].file == bulk_file(i)


def test_nothing_outside_the_vault_was_read(indexed: Indexed) -> None:
    index = indexed.index
    assert not any(CANARY in payload.body for payload in index.store.scroll())
    assert not any(file.startswith("Outside folder") for file in index.store.file_states())


def test_files_changed_during_the_sync_converge_on_the_next_one(indexed: Indexed) -> None:
    first = indexed.first_status
    unread = indexed.embedder.deleted_unread
    assert first[unread].state == "failed"
    assert "could not read" in (first[unread].reason or "")
    assert first["Read then deleted.md"].state == "indexed"  # read before it went

    assert indexed.second.deleted >= 1
    status = statuses(indexed.index)
    stored = indexed.index.store.file_states()
    for gone in (unread, "Read then deleted.md", *RENAMED[:2]):
        assert gone not in status
        assert gone not in stored
    assert status[RENAMED[-1]].state == "indexed"
    assert indexed.index.store.count(SearchFilter(files=[RENAMED[-1]])) == 1


def test_a_third_sync_finds_nothing_to_do(indexed: Indexed) -> None:
    before = indexed.embedder.texts
    report = indexed.index.indexer.sync()
    assert indexed.embedder.texts == before
    assert report.indexed == report.deleted == 0


async def test_odd_names_round_trip_through_the_api(indexed: Indexed, tmp_path: Path) -> None:
    settings = api_settings(indexed.vault.vault, tmp_path)
    names = [f for f in GOOD if f not in ("Rename me.md", "Read then deleted.md")]
    async with serve_api(settings, vault_index=indexed.index) as api:
        for file in names:
            url = api.url("/v1/notes/" + quote(file, safe="/"))
            async with api.session.get(url, headers=AUTH) as response:
                body = await response.json()
                assert response.status == 200, (file, body)
                assert body["file"] == file
                assert GOOD[file] in body["markdown"]
        for file in ("loop.md", "ping.md", "escape.md", "pipe.md", "binary.md"):
            async with api.session.get(api.url(f"/v1/notes/{file}"), headers=AUTH) as response:
                assert response.status in (400, 404), file
                assert CANARY not in await response.text()
        async with api.session.get(api.url("/v1/index?files=problems"), headers=AUTH) as response:
            problems = {f["file"]: f for f in (await response.json())["files"]}
        assert set(indexed.vault.skipped) <= set(problems)


FINAL = {"Final.md", "Other.md"}


async def until_synced(
    synced: asyncio.Event, done: Callable[[], bool], timeout_s: float = 30
) -> None:
    """Wait, sync after sync, until `done()` holds (checked at least every second)."""
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, "the watcher never got there"
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(synced.wait(), timeout=1)
        synced.clear()


def write_fresh(vault: Path) -> None:
    (vault / "Fresh.md").write_text("# Fresh\n\nThe quince jelly set.\n", encoding="utf-8")


def change_while_watched(
    index: VaultIndex,
    change: Callable[[], None],
    done: Callable[[], bool],
    debounce_ms: int = 300,
    settle_s: float = 0.5,
) -> None:
    """Watch the vault, make `change` once the watcher is up (and still running), and wait
    sync after sync until `done()` holds; then stop watching."""

    async def scenario() -> None:
        stop = asyncio.Event()
        synced = asyncio.Event()
        watcher = asyncio.create_task(
            index.indexer.watch(stop=stop, on_sync=lambda _: synced.set(), debounce_ms=debounce_ms)
        )
        await asyncio.sleep(settle_s)  # inotify is watching
        assert not watcher.done(), watcher.exception()
        change()
        await until_synced(synced, done)
        stop.set()
        await watcher

    asyncio.run(scenario())


def test_a_note_renamed_twice_quickly_while_watched_leaves_one_copy(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Draft.md").write_text("# Draft\n\nThe marzipan ledger.\n", encoding="utf-8")
    (vault / "Other.md").write_text("# Other\n\nNothing to see.\n", encoding="utf-8")
    settings = api_settings(vault, tmp_path)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()

        def rename_twice() -> None:
            (vault / "Draft.md").rename(vault / "Draft 2.md")
            (vault / "Draft 2.md").rename(vault / "Final.md")

        change_while_watched(
            index, rename_twice, lambda: set(index.store.file_states()) == FINAL, debounce_ms=150
        )
        assert set(index.store.file_states()) == FINAL
        assert index.store.count() == 2
        assert index.searcher.search("marzipan ledger", limit=1)[0].file == "Final.md"
        assert {s.file for s in index.indexer.file_status()} == FINAL


FOLDER_MOVES: dict[str, tuple[Callable[[Path, Path], object], set[str]]] = {
    "renamed": (lambda vault, _: (vault / "Proj").rename(vault / "Done"), {"Done/A.md"}),
    "moved out": (lambda vault, out: (vault / "Proj").rename(out / "Proj"), set()),
    "made hidden": (lambda vault, _: (vault / "Proj").rename(vault / ".Proj"), set()),
    "moved in": (lambda vault, out: (out / "New").rename(vault / "New"), {"Proj/A.md", "New/B.md"}),
}


@pytest.mark.parametrize("move", FOLDER_MOVES, ids=str)
def test_a_folder_moved_while_watched_moves_its_notes(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder, move: str
) -> None:
    """Found by the file-system audit: a folder renamed, moved in or out of the vault is one
    change to the watcher, the folder's path; the sync looked for a file there, found none,
    and kept the notes under the old path (searchable, cited as notes that no longer open,
    after they had left the vault) while those under the new path were never indexed."""
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    for folder, note, word in (
        (vault / "Proj", "A.md", "abacusword"),
        (outside / "New", "B.md", "basaltword"),
    ):
        folder.mkdir(parents=True)
        (folder / note).write_text(f"# {note[0]}\n\nThe {word} note.\n", encoding="utf-8")
    (vault / "Other.md").write_text("# Other\n\nNothing to see.\n", encoding="utf-8")
    change, moved = FOLDER_MOVES[move]
    expected = moved | {"Other.md"}
    settings = api_settings(vault, tmp_path)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        change_while_watched(
            index,
            lambda: change(vault, outside),
            lambda: set(index.store.file_states()) == expected,
        )
        assert {s.file for s in index.indexer.file_status()} == expected
        assert index.store.count() == len(expected)
        assert set(index.graph.files()) == expected
        for word, note in (("abacusword", "A.md"), ("basaltword", "B.md")):
            hits = index.searcher.search(word, limit=1, mode="sparse")
            assert [h.file for h in hits if h.file.endswith(note)] == sorted(
                f for f in moved if f.endswith(note)
            )


# --- pathological notes: parsing stays linear -----------------------------------------------

SIZE = 100_000  # characters: quadratic work on this many takes 10 s and more, linear about 1 s
PATHOLOGICAL = {
    "open wikilinks": "[[" * (SIZE // 2),
    "open embeds": "![[" * (SIZE // 3),
    "open wikilinks with display": "[[a|" * (SIZE // 4),
    "open brackets": "[" * SIZE,
    "open image brackets": "![" * (SIZE // 2),
    "brackets then one close": "[" * SIZE + "]",
    "unclosed links": "[a](" * (SIZE // 4),
    # Kept small: unbounded, its parents alone would take 25 MB (and 2.5 GB at SIZE).
    "deeply nested tag": "#" + "a/" * 5_000,
    "nested tag in frontmatter": "---\ntags: " + "a/" * 5_000 + "\n---\nbody",
    "many tags": " ".join(f"#t{i}" for i in range(SIZE // 8)),
    "many aliases": "---\naliases: [" + ",".join(f"a{i}" for i in range(SIZE // 8)) + "]\n---\n",
    "yaml bomb": yaml_bomb(9),
    "yaml self reference": "---\na: &a [*a, *a]\nb: &b {k: *b}\n---\nbody",
    "nested lists": "".join("  " * (i % 400) + "- x\n" for i in range(SIZE // 400)),
    "nested quotes": "> " * (SIZE // 2) + "x",
    "emphasis": "*a_" * (SIZE // 3),
    "backticks": "`a``" * (SIZE // 4),
    "comments": "%%a" * (SIZE // 3),
    "html": "<a " * (SIZE // 3),
    "headings": "# h\n" * (SIZE // 4),
    # Empty headings read as nothing: every section merges into one chunk.
    "empty headings": "#\n" * (SIZE // 2),
    "empty headings over comments": "#\n%%c%%\n" * (SIZE // 8),
    # Found by the complexity audit (2026-11-27, seventeenth session):
    # libyaml recursed in C past the stack, and the process died (not a RecursionError);
    "deeply nested yaml list": "---\n" + "- " * 30_000 + "x\n---\nbody",
    "deeply nested yaml flow": "---\nk: " + "[" * 30_000 + "]" * 30_000 + "\n---\nbody",
    # a table's rule was tried at every split of a long run of dashes that is no rule;
    "a row over a long run of dashes": "|a\n" + "-" * SIZE + "x\n",
    # a URL was sought to the end of a hyphenated run from each of its words.
    "a hyphenated run in a property": "---\nk: '[x] " + "a-" * (SIZE // 2) + "'\n---\nbody",
}


@pytest.mark.parametrize("case", PATHOLOGICAL, ids=str)
def test_a_pathological_note_parses_in_linear_time(case: str) -> None:
    text = PATHOLOGICAL[case]

    def parse() -> tuple[float, Note, list[Chunk]]:
        # CPU time of this thread: other processes on a busy machine stretch the wall clock
        # (4.1 s once under a load of 13 on two cores) but not the work done here, which is
        # what quadratic parsing would multiply.
        started = time.thread_time()
        note = parse_note(f"{case}.md", text.encode())
        chunks = chunk_note(note)
        return time.thread_time() - started, note, chunks

    elapsed, note, chunks = parse()
    if elapsed >= 4.0:  # a busy machine slows one run; quadratic work is slow every time
        elapsed = min(elapsed, parse()[0])
    assert elapsed < 4.0, f"{case}: {elapsed:.1f} s of CPU"
    # What every chunk's payload repeats stays small, whatever the note holds.
    assert sum(map(len, note.tags)) + sum(map(len, note.aliases)) <= 2 * len(text) + 1_000
    assert len(note.tags) <= MAX_TAGS and len(note.aliases) <= MAX_ALIASES
    assert chunks


def test_a_symlink_loop_appearing_while_watched_spoils_no_other_change(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    """The loop and a real edit arrive in the same batch of changes: the edit is indexed,
    the loop gets its reason."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Other.md").write_text("# Other\n\nNothing to see.\n", encoding="utf-8")
    settings = api_settings(vault, tmp_path)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()

        def loop_and_edit() -> None:
            (vault / "loop.md").symlink_to("loop.md")
            write_fresh(vault)

        change_while_watched(index, loop_and_edit, lambda: "Fresh.md" in index.store.file_states())
        assert index.searcher.search("quince jelly", limit=1)[0].file == "Fresh.md"
        status = statuses(index)
        assert status["loop.md"].state == "skipped"
        assert "symlink loop" in (status["loop.md"].reason or "")


def hidden_targets(vault: Path) -> dict[str, str]:
    """Links named like notes into what the vault never indexes: Obsidian's and git's folders,
    an ignored folder, a file of another kind. Each with the secret its target holds."""
    secrets = {
        ".obsidian/plugins/x/data.json": '{"token": "obsidiansecretword"}',
        ".git/config": "url = https://user:gitsecretword@example.com/notes.git",
        "Private/secret.md": "# Secret\n\nMy privatesecretword.",
        "Attachments/keys.txt": "txtsecretword",
    }
    for file, text in secrets.items():
        (vault / file).parent.mkdir(parents=True, exist_ok=True)
        (vault / file).write_text(text, encoding="utf-8")
    (vault / "Inbox").mkdir(exist_ok=True)
    links = {}
    for number, (file, text) in enumerate(secrets.items()):
        link = f"Inbox/link {number}.md"
        (vault / link).symlink_to(Path("..", file))
        links[link] = text.split()[-1].strip('"}.')
    return links


def test_a_symlinked_note_never_carries_a_hidden_ignored_or_other_file_in(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Real.md").write_text("# Real\n\nThe quince jelly set.\n", encoding="utf-8")
    (vault / "Alias.md").symlink_to("Real.md")  # a link to a note the vault indexes: kept
    links = hidden_targets(vault)
    settings = api_settings(vault, tmp_path, index={"ignore": ["Private/**"]})
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        status = statuses(index)
        for link, secret in links.items():
            assert status[link].state == "skipped", link
            assert "not followed" in (status[link].reason or ""), link
            assert not index.searcher.search(secret, limit=3, mode="sparse"), secret
        assert status["Alias.md"].state == "indexed"


def swap_for_symlink(link: Path, target: str) -> None:
    """Make `link` a symlink to `target` in one step (what a sync tool's rename does)."""
    temporary = link.with_name(f".{link.name}.swap")
    temporary.symlink_to(target)
    temporary.replace(link)


async def test_a_note_that_becomes_a_symlink_after_the_scan_is_never_read(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by an audit, as a race (a writer flipping a note between a file and a symlink):
    the scan checked a regular note, the indexer then read the path again, following the
    symlink put there since into an ignored or hidden note. Here the swap comes between the
    scan and the read, every time; for a PDF, also between its hash and its extraction."""
    vault = tmp_path / "vault"
    secrets = {
        "Private/secret.md": "# Secret\n\nThe ignoredraceword.\n",
        ".obsidian/notes.md": "# Hidden\n\nThe hiddenraceword.\n",
    }
    for file, text in secrets.items():
        (vault / file).parent.mkdir(parents=True, exist_ok=True)
        (vault / file).write_text(text, encoding="utf-8")
    write_pdf(vault / "Private" / "secret.pdf", [["The ignoredpdfword."]])
    (vault / "Hostile").mkdir()
    swaps = {
        "Hostile/race.md": "../Private/secret.md",
        "Hostile/dot.md": "../.obsidian/notes.md",
        "Hostile/race.pdf": "../Private/secret.pdf",
    }
    for file in swaps:
        if file.endswith(".pdf"):
            write_pdf(vault / file, [["A plain racepdfword."]])
        else:
            (vault / file).write_text("# Race\n\nA plain raceword.\n", encoding="utf-8")
    write_pdf(vault / "Hostile" / "late.pdf", [["A plain latepdfword."]])
    settings = api_settings(vault, tmp_path, index={"ignore": ["Private/**"], "pdf_workers": 0})
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        indexer = index.indexer
        scan, content_hash = indexer._scan, indexer._pdfs.content_hash

        def scan_then_swap(paths: list[str] | None, problems: dict[str, str]) -> list[VaultFile]:
            found = scan(paths, problems)
            for link, target in swaps.items():
                swap_for_symlink(vault / link, target)
            return found

        def hash_then_swap(vault_file: VaultFile) -> str:
            digest = content_hash(vault_file)
            if vault_file.file == "Hostile/late.pdf":  # checked and hashed, then swapped
                swap_for_symlink(vault / vault_file.file, "../Private/secret.pdf")
            return digest

        monkeypatch.setattr(indexer, "_scan", scan_then_swap)
        monkeypatch.setattr(indexer._pdfs, "content_hash", hash_then_swap)
        indexer.sync()
        status = statuses(index)
        for file in swaps:
            assert status[file].state == "skipped", (file, status[file])
            assert "not followed" in (status[file].reason or ""), file
        assert status["Hostile/late.pdf"].state == "failed"
        assert "changed while it was read" in (status["Hostile/late.pdf"].reason or "")
        for word in ("ignoredraceword", "hiddenraceword", "ignoredpdfword"):
            assert not index.searcher.search(word, limit=3, mode="sparse"), word
        async with serve_api(settings, vault_index=index) as api:
            for file in (*swaps, "Hostile/late.pdf"):
                async with api.session.get(api.url(f"/v1/notes/{file}"), headers=AUTH) as answer:
                    assert answer.status == 404, file
                    assert "ignored" not in await answer.text()


def test_a_symlink_swapped_in_after_the_check_is_not_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`open_vault_file` opens what it checked: a symlink put in place of the file, or of a
    folder on its way, between its checks and its open is refused, not followed."""
    vault = tmp_path / "vault"
    (vault / "Private").mkdir(parents=True)
    (vault / "Private" / "secret.md").write_text("secret", encoding="utf-8")
    (vault / "Inbox").mkdir()
    (vault / "Inbox" / "note.md").write_text("plain", encoding="utf-8")
    assert read_vault_file(vault, "Inbox/note.md", ["Private/**"]) == b"plain"
    opening = files._open_beneath

    def after(change: Callable[[], None]) -> Callable[[Path, Sequence[str]], int]:
        def open_after_change(root: Path, parts: Sequence[str]) -> int:
            change()
            return opening(root, parts)

        return open_after_change

    note = vault / "Inbox" / "note.md"
    monkeypatch.setattr(files, "_open_beneath", after(lambda: swap_for_symlink(note, "../x")))
    (vault / "x").write_text("not what was checked", encoding="utf-8")
    with pytest.raises(RefusedFileError, match="symlink"):
        read_vault_file(vault, "Inbox/note.md", ["Private/**"])

    def swap_folder() -> None:  # Inbox/ becomes a symlink to Private/, which has a note.md
        (vault / "Inbox").rename(vault / "Old")
        (vault / "Inbox").symlink_to("Private", target_is_directory=True)

    (vault / "Private" / "note.md").write_text("secret", encoding="utf-8")
    monkeypatch.setattr(files, "_open_beneath", after(swap_folder))
    with pytest.raises(RefusedFileError, match="symlink"):
        read_vault_file(vault, "Inbox/note.md", ["Private/**"])


def test_a_path_changing_while_it_is_resolved_is_refused_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen while racing the above: a symlink that is a file again by the time it is read
    (readlink: EINVAL) made `GET /v1/notes/...` answer 500."""
    (tmp_path / "race.md").write_text("plain", encoding="utf-8")
    realpath = os.path.realpath

    def swapped(path: str, *args: bool, **kwargs: bool) -> str:
        if str(path).endswith("race.md"):
            raise OSError(errno.EINVAL, "Invalid argument", str(path))
        return realpath(path, *args, **kwargs)

    monkeypatch.setattr(os.path, "realpath", swapped)
    with pytest.raises(PathOutsideVaultError, match="could not be resolved"):
        resolve_in_vault(tmp_path, "race.md")


def test_a_watched_change_behind_a_symlinked_folder_is_not_indexed(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    """The full scan never enters a symlinked folder; a watcher reports changes behind one
    under the link's path, and those are refused the same way."""
    vault = tmp_path / "vault"
    (vault / ".trash").mkdir(parents=True)
    (vault / "Inbox").mkdir()
    (vault / "Inbox" / "bin").symlink_to(Path("..", ".trash"), target_is_directory=True)
    settings = api_settings(vault, tmp_path)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()

        def trash_and_edit() -> None:
            (vault / ".trash" / "Deleted.md").write_text("The trashsecretword.\n")
            write_fresh(vault)

        change_while_watched(index, trash_and_edit, lambda: "Fresh.md" in index.store.file_states())
        assert "Fresh.md" in index.store.file_states()
        assert not any(file.startswith("Inbox/") for file in index.store.file_states())
        assert not index.searcher.search("trashsecretword", limit=3, mode="sparse")


@pytest.mark.skipif(os.sep == "\\", reason="a backslash separates folders on Windows")
def test_a_backslash_in_a_note_name_is_a_letter_of_it(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    vault = tmp_path / "vault"
    (vault / "back").mkdir(parents=True)
    (vault / "back\\slash.md").write_text("The backslashword note.\n", encoding="utf-8")
    (vault / "back" / "slash.md").write_text("The folderword note.\n", encoding="utf-8")
    settings = api_settings(vault, tmp_path)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        assert statuses(index)["back\\slash.md"].state == "indexed"
        search = index.searcher.search
        assert [h.file for h in search("backslashword", limit=2, mode="sparse")] == [
            "back\\slash.md"
        ]
        assert [h.file for h in search("folderword", limit=2, mode="sparse")] == ["back/slash.md"]


@pytest.mark.skipif(not Path("/proc/1/task").is_dir(), reason="needs Linux's /proc")
def test_a_symlinked_folder_into_an_unreadable_tree_does_not_stop_the_watcher(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    """The watcher follows symlinked folders (the scan does not); one reaching entries it may
    not read (`/proc/1`: even root may not watch some) is watched around."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "link").symlink_to("/proc/1", target_is_directory=True)
    settings = api_settings(vault, tmp_path)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()

        change_while_watched(
            index,
            lambda: write_fresh(vault),
            lambda: "Fresh.md" in index.store.file_states(),
            settle_s=1.0,  # the watcher is set up (or has failed)
        )
        assert index.searcher.search("quince jelly", limit=1)[0].file == "Fresh.md"


class _Unsearchable:
    """A folder entry whose stat is refused, as in a folder listed (read permission) but not
    looked into (no search permission)."""

    def __init__(self, entry: os.DirEntry[str]) -> None:
        self._entry = entry
        self.name, self.path = entry.name, entry.path

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        return self._entry.is_dir(follow_symlinks=follow_symlinks)

    def is_symlink(self) -> bool:
        return self._entry.is_symlink()

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        raise PermissionError(13, "Permission denied", self.path)


class _Listing(list[object]):
    """A folder's entries as `os.scandir` gives them: iterable, and a context manager."""

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def _scandir_refusing_stat(refused: Callable[[str], bool]) -> Callable[[str], object]:
    """`os.scandir`, with the entries of the folders `refused` names unsearchable."""
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if not refused(path):
            return real_scandir(path)
        with real_scandir(path) as entries:
            return _Listing(_Unsearchable(entry) for entry in entries)

    return scandir


def test_a_vault_folder_gone_or_unreadable_stops_the_sync_and_deletes_nothing(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moved, unmounted, or its permissions changed while the sidecar runs: every note was
    deleted from the index by the next full sync."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Plan.md").write_text("The zanzibarword plan.\n", encoding="utf-8")
    settings = api_settings(vault, tmp_path)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        vault.rename(tmp_path / "elsewhere")
        with pytest.raises(files.VaultFolderError, match="the vault folder is gone"):
            index.indexer.sync()
        (tmp_path / "elsewhere").rename(vault)
        unsearchable_root = _scandir_refusing_stat(lambda path: Path(path) == vault.resolve())
        monkeypatch.setattr("vault_agent.vault.files.os.scandir", unsearchable_root)
        with pytest.raises(files.VaultFolderError, match="can't be read"):
            index.indexer.sync()
        assert "Plan.md" in index.store.file_states()


def _scandir_refusing_list(refused: Callable[[str], bool]) -> Callable[[str], object]:
    """`os.scandir`, refusing to list the folders `refused` names."""
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if refused(path):
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    return scandir


@pytest.mark.parametrize(
    "refusing",
    [
        _scandir_refusing_list,
        # `chmod a-x Shared`: its names can be read, not their sizes; its notes were reported
        # removed, with no word of why.
        _scandir_refusing_stat,
    ],
    ids=["not listed", "listed but not looked into"],
)
def test_a_folder_that_cannot_be_read_is_reported_and_its_notes_kept(
    tmp_path: Path,
    embedder: MiniLmEmbedder,
    sparse: Bm25Encoder,
    monkeypatch: pytest.MonkeyPatch,
    refusing: Callable[[Callable[[str], bool]], Callable[[str], object]],
) -> None:
    """Unreadable for a while (permissions, a network share away): what it holds is unknown,
    not deleted. The refusal is the operating system's: simulated, since root reads all."""
    vault = tmp_path / "vault"
    (vault / "Shared").mkdir(parents=True)
    (vault / "Shared" / "Plan.md").write_text("The zanzibarword plan.\n", encoding="utf-8")
    (vault / "Other.md").write_text("Nothing to see.\n", encoding="utf-8")
    settings = api_settings(vault, tmp_path)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        real_scandir = os.scandir
        scandir = refusing(lambda path: Path(path).name == "Shared")
        monkeypatch.setattr("vault_agent.vault.files.os.scandir", scandir)
        report = index.indexer.sync()
        status = statuses(index)
        assert status["Shared/"].state == "skipped"
        assert status["Shared/"].reason == "folder can't be read: Permission denied"
        assert report.deleted == 0
        assert status["Shared/Plan.md"].state == "indexed"
        assert index.searcher.search("zanzibarword", limit=1, mode="sparse")[0].file == (
            "Shared/Plan.md"
        )
        monkeypatch.setattr("vault_agent.vault.files.os.scandir", real_scandir)
        index.indexer.sync()
        assert "Shared/" not in statuses(index)
        assert statuses(index)["Shared/Plan.md"].state == "indexed"


class PoisonedEmbedder(WrappedEmbedder):
    """The real embedder, failing (as a bug would) on any batch holding one note's word."""

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        if any("poisonword" in text for text in texts):
            raise RuntimeError("Unable to cast Python instance of type str to C++ type")
        return self.inner.embed_documents(texts)


def test_a_note_the_model_cannot_take_fails_alone(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder, caplog: pytest.LogCaptureFixture
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name in ("Alpha", "Beta", "Gamma"):
        (vault / f"{name}.md").write_text(f"# {name}\n\n{name.lower()}word\n", encoding="utf-8")
    (vault / "Poison.md").write_text("# Poison\n\npoisonword\n", encoding="utf-8")
    with VaultIndex(
        api_settings(vault, tmp_path), embedder=PoisonedEmbedder(embedder), sparse=sparse
    ) as index:
        report = index.indexer.sync()
        status = statuses(index)
        assert report.indexed == 3 and report.failed == 1, report
        assert status["Poison.md"].state == "failed"
        assert "could not be indexed" in (status["Poison.md"].reason or "")
        for name in ("Alpha", "Beta", "Gamma"):
            assert index.searcher.search(f"{name.lower()}word")[0].file == f"{name}.md"
    assert "Poison.md could not be indexed" in caplog.text


def test_ask_note_is_read_as_the_index_reads_a_note(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    """Found by the file-system audit: `vault-agent ask --note` read the file it was given
    with a plain open, past the rules every other reader of a vault file goes through: a
    note-named symlink into `.obsidian/`, `.git/` or an ignored folder sent that file (a
    plugin's token) to the model as the open note, and a FIFO named like a note hung the
    command. It is read as the index reads a note (`read_vault_file`)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Real.md").write_text("# Real\n\nThe realnoteword.\n", encoding="utf-8")
    (vault / "Alias.md").symlink_to("Real.md")
    settings = api_settings(vault, tmp_path, index=IndexSettings(ignore=["Private"]))
    links = hidden_targets(vault)
    os.mkfifo(vault / "pipe.md")
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        for note in ("Real.md", "Alias.md", str(vault / "Alias.md")):
            request = ask_request("What is it?", index, Path(note))
            assert request.active_note is not None
            assert "realnoteword" in request.active_note.content
        for link, secret in links.items():
            for note in (link, str(vault / link)):
                with pytest.raises(typer.Exit):
                    ask_request(f"What is {secret}?", index, Path(note))

        outcome: list[object] = []
        reader = threading.Thread(
            target=lambda: outcome.append(_exit_or(ask_request, "q", index, Path("pipe.md"))),
            daemon=True,
        )
        reader.start()
        reader.join(timeout=10)
        if reader.is_alive():  # let the blocked read go before failing
            os.close(os.open(vault / "pipe.md", os.O_WRONLY | os.O_NONBLOCK))
        assert outcome == ["exit"], "reading a FIFO named like a note never ends"


def _exit_or(function: Callable[..., object], *args: object) -> object:
    try:
        return function(*args)
    except typer.Exit:
        return "exit"


class GrowsTheOther(WrappedEmbedder):
    """The real embedder; its first call (one note read, the other not yet) makes the note
    not read yet 100 times the size of the limit, as a script appending to a log would."""

    def __init__(self, inner: MiniLmEmbedder, vault: Path, limit: int) -> None:
        super().__init__(inner)
        self.vault, self.limit, self.grown = vault, limit, ""

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        if not self.grown:
            self.grown = "Log.md" if "plainword" in " ".join(texts) else "Plain.md"
            with (self.vault / self.grown).open("a", encoding="utf-8") as log:
                log.write("growingword line\n" * (self.limit * 100 // 17))
        return self.inner.embed_documents(texts)


def test_a_note_that_grows_past_the_limit_after_the_scan_is_not_read_whole(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    """Found by the file-system audit: the size limit was checked against the scan's size
    only; a note that grew between the scan and its read (a log a script appends to, a file
    swapped in) was read and parsed whole, however big (at about 10 µs a character, a
    minute for 5 MB over the limit, the sync held meanwhile)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Plain.md").write_text("# Plain\n\nThe plainword.\n", encoding="utf-8")
    (vault / "Log.md").write_text("# Log\n\nThe logword.\n", encoding="utf-8")
    limit = 2_000
    settings = api_settings(
        vault, tmp_path, index=IndexSettings(max_file_bytes=limit, write_batch_chunks=1)
    )
    growing = GrowsTheOther(embedder, vault, limit)
    with VaultIndex(settings, embedder=growing, sparse=sparse) as index:
        report = index.indexer.sync()
        status = statuses(index)[growing.grown]
        assert status.state == "skipped", status
        assert "past the 0.0 MB limit (index.max_file_bytes)" in (status.reason or "")
        assert report.indexed == 1 and report.skipped == 1
        assert set(index.store.file_states()) == {"Plain.md", "Log.md"} - {growing.grown}
        again = index.indexer.sync()  # seen by its size now
        assert again.skipped == 1
        assert "over the 0.0 MB limit" in (statuses(index)[growing.grown].reason or "")
