"""Link resolution and the link graph (`vault_agent.vault.graph`), over examples/vault (its
features are listed in test_notes.py) and the real shared vaults."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

import pytest

from conftest import EXAMPLE_VAULT, shared_data
from vault_agent.vault import graph as graph_module
from vault_agent.vault.graph import LinkGraph
from vault_agent.vault.notes import Note, parse_note


def load(root: Path) -> list[Note]:
    return [
        parse_note(path.relative_to(root).as_posix(), path.read_bytes())
        for path in sorted(root.rglob("*.md"))
    ]


def build(notes: Iterable[Note]) -> LinkGraph:
    graph = LinkGraph()
    for note in notes:
        graph.set_file(note.file, note.aliases, note.link_targets())
    return graph


def graph_of(*files: str) -> LinkGraph:
    graph = LinkGraph()
    for file in files:
        graph.set_file(file)
    return graph


def snapshot(graph: LinkGraph) -> dict[str, tuple[list[str], list[str], list[str]]]:
    return {
        file: (graph.outgoing(file), graph.backlinks(file), graph.unresolved(file))
        for file in sorted(graph.files())
    }


@pytest.fixture(scope="module")
def example_notes() -> list[Note]:
    return load(EXAMPLE_VAULT)


@pytest.fixture
def vault(example_notes: list[Note]) -> LinkGraph:
    return build(example_notes)


# -- resolution in the example vault ----------------------------------------------------------


def test_link_to_heading_resolves_to_the_note(vault: LinkGraph) -> None:
    maya = "People/Maya Okafor.md"
    assert "Projects/Tidepool/Architecture.md" in vault.outgoing(maya)
    assert maya in vault.backlinks("Projects/Tidepool/Architecture.md")


def test_link_to_block_resolves_to_the_note_holding_the_block(vault: LinkGraph) -> None:
    assert vault.outgoing("Daily/2026-11-03.md") == ["Recipes/Sourdough Starter.md"]
    assert "Meetings/2026-11-05 Garden Committee.md" in vault.backlinks(
        "Projects/Garden/Garden Irrigation.md"
    )


def test_same_name_prefers_the_note_in_the_source_folder(vault: LinkGraph) -> None:
    assert (
        vault.resolve("Ideas", "Projects/Garden/Garden Irrigation.md") == "Projects/Garden/Ideas.md"
    )
    assert vault.resolve("Ideas", "Projects/Tidepool/Tidepool.md") == "Projects/Tidepool/Ideas.md"
    assert "Projects/Garden/Ideas.md" in vault.outgoing("Projects/Garden/Garden Irrigation.md")
    assert "Projects/Tidepool/Ideas.md" in vault.outgoing("Projects/Tidepool/Architecture.md")


def test_path_suffix_link_picks_the_named_folder(vault: LinkGraph) -> None:
    assert vault.resolve("Garden/Ideas", "Daily/2026-11-07.md") == "Projects/Garden/Ideas.md"
    retro = "Meetings/2026-11-10 Tidepool Retro.md"
    assert "Projects/Tidepool/Ideas.md" in vault.outgoing(retro)
    assert vault.resolve("Tidepool/Ideas", "Daily/x.md") == "Projects/Tidepool/Ideas.md"
    assert vault.resolve("pool/Ideas", "Daily/x.md") is None  # whole segments only


def test_percent_encoded_markdown_links_resolve(vault: LinkGraph) -> None:
    assert vault.outgoing("Recipes/Country Loaf.md") == ["Recipes/Sourdough Starter.md"]
    assert "Projects/Garden/Garden Irrigation.md" in vault.outgoing("Areas/Community Garden.md")
    assert vault.resolve("Sourdough%20Starter.md", "Recipes/Country Loaf.md") == (
        "Recipes/Sourdough Starter.md"
    )


def test_alias_links_resolve_to_the_note(vault: LinkGraph) -> None:
    assert vault.outgoing("Inbox/Quick Capture.md") == ["People/Maya Okafor.md"]
    assert "People/Dan Whitaker.md" in vault.outgoing("Daily/2026-11-05.md")
    assert vault.resolve("gus", "Daily/2026-11-11.md") == "Recipes/Sourdough Starter.md"


def test_missing_notes_are_unresolved(vault: LinkGraph) -> None:
    assert vault.unresolved("Projects/Garden/Garden Irrigation.md") == ["Soil Test Results"]
    assert vault.unresolved("Projects/Kyoto Trip.md") == ["JR Pass Notes"]
    assert vault.resolve("Soil Test Results", "Projects/Garden/Garden Irrigation.md") is None


def test_backlinks_are_the_sorted_linking_files(vault: LinkGraph) -> None:
    assert vault.backlinks("People/Dan Whitaker.md") == [
        "Areas/Community Garden.md",
        "Daily/2026-11-05.md",
        "Meetings/2026-11-05 Garden Committee.md",  # via the `attendees` property
        "Projects/Garden/Garden Irrigation.md",
        "Projects/Garden/Ideas.md",
        "Reading/The Overstory.md",
    ]


def test_outgoing_is_unique_in_document_order_without_self(vault: LinkGraph) -> None:
    assert vault.outgoing("Projects/Tidepool/Tidepool.md") == [
        "People/Priya Raman.md",  # `owner` property comes first
        "People/Maya Okafor.md",
        "Meetings/2026-10-29 Tidepool Planning.md",
        "Meetings/2026-11-10 Tidepool Retro.md",
        "Projects/Tidepool/Architecture.md",
        "Projects/Tidepool/Ideas.md",
    ]


def test_code_block_links_are_not_in_the_graph(vault: LinkGraph) -> None:
    assert "not a link" not in vault.unresolved("Projects/Tidepool/Architecture.md")
    assert vault.unresolved("Inbox/Quick Capture.md") == []


# -- resolution rules -------------------------------------------------------------------------


def test_ambiguous_name_outside_both_folders_takes_the_shortest_path() -> None:
    graph = graph_of("Deep/er/Note.md", "Top/Note.md", "Src/a.md")
    assert graph.resolve("Note", "Src/a.md") == "Top/Note.md"
    tie = graph_of("B/Note.md", "A/Note.md")
    assert tie.resolve("Note", "x.md") == "A/Note.md"  # equal length: alphabetical


def test_exact_vault_path_wins_over_a_closer_name_match() -> None:
    graph = graph_of("Sub/Note.md", "Here/Sub/Note.md", "Here/src.md")
    assert graph.resolve("Sub/Note", "Here/src.md") == "Sub/Note.md"
    assert graph.resolve("Sub/Note.md", "Elsewhere/x.md") == "Sub/Note.md"
    assert graph.resolve("/Sub/Note", "Here/src.md") == "Sub/Note.md"


def test_paths_relative_to_the_source_folder_resolve() -> None:
    graph = graph_of("A/B/src.md", "A/B/Sub/x.md", "A/up.md", "root.md")
    assert graph.resolve("Sub/x.md", "A/B/src.md") == "A/B/Sub/x.md"
    assert graph.resolve("../up.md", "A/B/src.md") == "A/up.md"
    assert graph.resolve("./Sub/x", "A/B/src.md") == "A/B/Sub/x.md"
    assert graph.resolve("../../root.md", "A/B/src.md") == "root.md"
    assert graph.resolve("../../../root.md", "A/B/src.md") is None  # outside the vault
    assert graph.resolve("../missing.md", "A/B/src.md") is None


def test_resolution_ignores_case() -> None:
    graph = graph_of("Projects/Garden Plan.md", "img/Photo.PNG")
    assert graph.resolve("garden plan", "x.md") == "Projects/Garden Plan.md"
    assert graph.resolve("PROJECTS/garden PLAN.MD", "x.md") == "Projects/Garden Plan.md"
    assert graph.resolve("photo.png", "x.md") == "img/Photo.PNG"


NFC, NFD = "Caf\u00e9", "Cafe\u0301"  # "Café" composed, and decomposed as macOS writes it


@pytest.mark.parametrize(("name", "link"), [(NFD, NFC), (NFC, NFD)], ids=["nfd file", "nfc file"])
def test_resolution_ignores_unicode_normalisation(name: str, link: str) -> None:
    """Found by the file-system audit: a note named decomposed (macOS, or synced from it)
    and a link typed composed look the same, and Obsidian (normalising paths to NFC) opens
    one with the other; here the link was unresolved, its backlink missing, and a model
    citing the note by its name had the citation removed."""
    graph = graph_of(f"Menus/{name}.md", "Other.md")
    graph.set_file("Source.md", targets=[link, f"Menus/{link}#Soup", f"{link}.md"])
    graph.set_file("Aliased.md", aliases=[f"{name} Bar"])
    assert graph.resolve(link, "") == f"Menus/{name}.md"
    assert graph.resolve(f"Menus/{link}", "") == f"Menus/{name}.md"
    assert graph.resolve(f"./{link}", "Menus/x.md") == f"Menus/{name}.md"
    assert graph.resolve(f"{link} bar", "") == "Aliased.md"
    assert graph.outgoing("Source.md") == [f"Menus/{name}.md"]
    assert graph.backlinks(f"Menus/{name}.md") == ["Source.md"]


def test_link_without_extension_never_resolves_to_an_attachment() -> None:
    graph = graph_of("paper.pdf", "files/chart.png")
    assert graph.resolve("paper", "x.md") is None
    assert graph.resolve("paper.pdf", "x.md") == "paper.pdf"
    assert graph.resolve("chart.png", "x.md") == "files/chart.png"


def test_name_match_beats_an_alias() -> None:
    graph = LinkGraph()
    graph.set_file("People/Dan.md")
    graph.set_file("People/Daniel Whitaker.md", aliases=["Dan"])
    assert graph.resolve("Dan", "x.md") == "People/Dan.md"


def test_subpath_and_display_left_on_a_target_are_ignored() -> None:
    graph = graph_of("Note.md", "Other.md")
    assert graph.resolve("Note#Heading", "Other.md") == "Note.md"
    assert graph.resolve("Note|shown", "Other.md") == "Note.md"
    assert graph.resolve("", "Other.md") == "Other.md"


def test_same_note_links_are_neither_outgoing_nor_backlinks() -> None:
    graph = LinkGraph()
    graph.set_file("A.md", targets=["", "A", "B"])
    graph.set_file("B.md")
    assert graph.outgoing("A.md") == ["B.md"]
    assert graph.backlinks("A.md") == []
    assert graph.unresolved("A.md") == []


# -- incremental updates ----------------------------------------------------------------------


def test_adding_a_note_resolves_earlier_dangling_links(vault: LinkGraph) -> None:
    irrigation = "Projects/Garden/Garden Irrigation.md"
    vault.set_file("Projects/Garden/Soil Test Results.md")
    assert vault.unresolved(irrigation) == []
    assert "Projects/Garden/Soil Test Results.md" in vault.outgoing(irrigation)
    assert vault.backlinks("Projects/Garden/Soil Test Results.md") == [irrigation]


def test_removing_a_note_leaves_its_incoming_links_dangling(vault: LinkGraph) -> None:
    starter = "Recipes/Sourdough Starter.md"
    vault.remove_file(starter)
    assert starter not in vault.files()
    assert "Sourdough Starter.md" in vault.unresolved("Recipes/Country Loaf.md")
    assert vault.outgoing("Recipes/Country Loaf.md") == []
    assert vault.backlinks(starter) == []
    assert starter not in vault.backlinks("Recipes/Country Loaf.md")  # its own links are gone


def test_a_new_note_in_the_source_folder_takes_over_an_ambiguous_link() -> None:
    graph = LinkGraph()
    graph.set_file("Daily/today.md", targets=["Ideas"])
    graph.set_file("Archive/Old/Ideas.md")
    assert graph.outgoing("Daily/today.md") == ["Archive/Old/Ideas.md"]
    graph.set_file("Daily/Ideas.md")
    assert graph.outgoing("Daily/today.md") == ["Daily/Ideas.md"]
    assert graph.backlinks("Archive/Old/Ideas.md") == []
    graph.remove_file("Daily/Ideas.md")
    assert graph.outgoing("Daily/today.md") == ["Archive/Old/Ideas.md"]


def test_changing_aliases_re_resolves_links_that_use_them() -> None:
    graph = LinkGraph()
    graph.set_file("Daily/d.md", targets=["Gus"])
    graph.set_file("Recipes/Starter.md")
    assert graph.unresolved("Daily/d.md") == ["Gus"]
    graph.set_file("Recipes/Starter.md", aliases=["Gus"])
    assert graph.outgoing("Daily/d.md") == ["Recipes/Starter.md"]
    graph.set_file("Recipes/Starter.md", aliases=["Levain"])
    assert graph.unresolved("Daily/d.md") == ["Gus"]
    assert graph.backlinks("Recipes/Starter.md") == []


def test_removing_a_note_drops_links_that_reached_it_by_alias(vault: LinkGraph) -> None:
    vault.remove_file("People/Dan Whitaker.md")
    assert vault.unresolved("Daily/2026-11-05.md") == ["Dan"]
    vault.set_file("People/Dan Whitaker.md", aliases=["Dan"])
    assert vault.unresolved("Daily/2026-11-05.md") == []


def test_updating_a_note_replaces_its_links_and_backlinks() -> None:
    graph = graph_of("A.md", "B.md", "C.md")
    graph.set_file("src.md", targets=["A", "B", "A"])
    assert graph.outgoing("src.md") == ["A.md", "B.md"]
    graph.set_file("src.md", targets=["C"])
    assert graph.outgoing("src.md") == ["C.md"]
    assert (graph.backlinks("A.md"), graph.backlinks("C.md")) == ([], ["src.md"])


def test_attachments_are_files_and_embed_targets() -> None:
    graph = LinkGraph()
    graph.set_file("Note.md", targets=["diagram.png"])
    assert graph.unresolved("Note.md") == ["diagram.png"]
    graph.set_file("attachments/diagram.png")
    assert graph.files() == {"Note.md", "attachments/diagram.png"}
    assert graph.backlinks("attachments/diagram.png") == ["Note.md"]


def test_incremental_updates_match_a_fresh_build() -> None:
    notes = load(shared_data("vaults", "obsidian-help-en"))
    forward = build(notes)
    rng = random.Random(7)
    shuffled = notes[:]
    rng.shuffle(shuffled)
    churned = build(shuffled)
    removed = rng.sample(notes, 40)
    for note in removed:
        churned.remove_file(note.file)
    for note in removed:
        churned.set_file(note.file, note.aliases, note.link_targets())
    assert snapshot(churned) == snapshot(forward)
    assert sum(len(forward.backlinks(note.file)) for note in notes) > 500


def test_an_update_re_resolves_only_links_its_name_can_affect(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    notes = load(shared_data("vaults", "obsidian-hub"))
    graph = build(notes)
    calls: list[str] = []
    original = LinkGraph.resolve

    def counting(self: LinkGraph, target: str, source_file: str) -> str | None:
        calls.append(target)
        return original(self, target, source_file)

    monkeypatch.setattr(LinkGraph, "resolve", counting)
    graph.set_file("06 - Inbox/Brand new note.md", targets=["Obsidian", "Nowhere"])
    graph.remove_file("06 - Inbox/Brand new note.md")
    total_links = sum(len(note.links) for note in notes)
    assert total_links > 20_000
    assert len(calls) < 10  # 2 own links, plus any links to "Brand new note" (none)


def test_building_a_vault_note_by_note_resolves_each_link_about_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As a full index adds notes one by one, a note's link is resolved again only when a file
    # of its name appears: the hub's notes with hundreds of links used to resolve all of them
    # again for each target indexed after them (6 million resolutions for 22,573 links).
    notes = load(shared_data("vaults", "obsidian-hub"))
    calls = 0
    original = LinkGraph.resolve

    def counting(self: LinkGraph, target: str, source_file: str) -> str | None:
        nonlocal calls
        calls += 1
        return original(self, target, source_file)

    monkeypatch.setattr(LinkGraph, "resolve", counting)
    one_by_one = build(notes)
    total_links = sum(len(note.link_targets()) for note in notes)
    assert total_links > 20_000
    assert calls < 2 * total_links
    monkeypatch.setattr(LinkGraph, "resolve", original)
    at_once = LinkGraph()
    at_once.set_files((note.file, note.aliases, note.link_targets()) for note in notes)
    assert snapshot(one_by_one) == snapshot(at_once)


def test_loading_at_once_resolves_folder_dependent_links_per_folder() -> None:
    # Loading a vault resolves each target once where no folder can change the answer; every
    # kind of link whose answer depends on the linking note must still get its own.
    folders = ["", "A", "A/Sub", "B", "C/Deep/Er"]
    names = ["Note", "Plan", "Idea", "Solo"]
    rng = random.Random(11)
    files = [f"{folder}/{name}.md".lstrip("/") for folder in folders for name in names[:3]]
    files += ["Only/Solo.md", "B/diagram.png", "C/diagram.png"]
    targets = [
        "Note", "Plan#Risks", "Idea|shown", "Solo", "#Heading", "./Note", "../Plan",
        "Sub/Note", "/A/Note", "diagram.png", "Sub%20Note", "nick", "Missing", "A/Sub/Idea",
    ]  # fmt: skip
    entries = []
    for file in files:
        links = [] if file.endswith(".png") else rng.sample(targets, 6)
        aliases = ["nick"] if file.endswith("Idea.md") and rng.random() < 0.5 else []
        entries.append((file, aliases, links))
    at_once = LinkGraph()
    at_once.set_files(entries)
    rng.shuffle(entries)
    one_by_one = LinkGraph()
    for file, aliases, links in entries:
        one_by_one.set_file(file, aliases, links)
    assert snapshot(at_once) == snapshot(one_by_one)
    # Same name in several folders: each linking note gets the one in its own folder.
    graph = LinkGraph()
    graph.set_files([(f"{f}/Note.md", [], []) for f in folders[1:]])
    graph.set_files([(f"{f}/Other.md", [], ["Note"]) for f in folders[1:]])
    for folder in folders[1:]:
        assert graph.outgoing(f"{folder}/Other.md") == [f"{folder}/Note.md"]


# -- export and restore (the graph saved at shutdown) ------------------------------------------


def test_a_restored_graph_answers_as_the_graph_it_was_exported_from() -> None:
    notes = load(shared_data("vaults", "obsidian-help-en"))
    original = build(notes)
    original.set_file("Attachments/scan.pdf")
    restored = LinkGraph()
    restored.restore(original.export())
    assert snapshot(restored) == snapshot(original)
    assert restored.files() == original.files()
    assert restored.take_changed() == set()  # nothing to reconcile until something changes


def test_changes_after_a_restore_match_the_same_changes_on_a_fresh_build() -> None:
    # The restored graph rebuilds its dependents map only when first needed: every kind of
    # change must still re-resolve exactly the links a fully built graph would.
    notes = load(shared_data("vaults", "obsidian-help-en"))
    rng = random.Random(11)
    removed, edited = rng.sample(notes, 30), rng.sample(notes, 30)

    def churn(graph: LinkGraph) -> None:
        for note in removed:
            graph.remove_file(note.file)
        for note in edited:  # an edit that drops its links and takes a new alias
            graph.set_file(note.file, [*note.aliases, f"alias of {note.file}"], [])
        graph.set_file("New/Welcome.md", [], [f"alias of {edited[0].file}", "Start here"])
        graph.set_file("Start here.md", [], [])

    fresh = build(notes)
    churn(fresh)
    restored = LinkGraph()
    restored.restore(build(notes).export())
    churn(restored)
    assert snapshot(restored) == snapshot(fresh)
    assert "New/Welcome.md" in restored.backlinks(edited[0].file)


def test_restore_refuses_a_state_whose_parts_dont_line_up() -> None:
    graph = graph_of("a.md")
    state = build([parse_note("x.md", b"[[a]] [[b]]")]).export()
    with pytest.raises(ValueError, match="empty graph"):
        graph.restore(state)
    empty = LinkGraph()
    with pytest.raises(ValueError, match="line up"):
        empty.restore(state._replace(resolved=[[None]]))
    assert empty.files() == set()  # left untouched


def test_links_among_many_namesakes_resolve_as_among_a_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Past a few files of one name a bare link's is looked up by path and remembered
    # (`LinkGraph._among_namesakes`): it must pick what reading them all picks, as files of
    # that name come and go, in any case and with or without ".md".
    rng = random.Random(11)
    folders = ["", "a", "A", "a/b", "c", "c/d/e", "Z", "docs", "docs/x", "q", "r", "s"]
    names = ["README", "readme", "Readme.md", "index"]
    links = ["README", "readme.md", "index", "INDEX.md", "x/README", "Readme"]
    graph = LinkGraph()
    present: list[str] = []
    for step in range(600):
        file = f"{rng.choice(folders)}/{rng.choice(names)}".lstrip("/")
        file = file if file.endswith(".md") else f"{file}.md"
        if file in present and rng.random() < 0.4:
            graph.remove_file(file)
            present.remove(file)
        else:
            graph.set_file(file, [], [rng.choice(links)])
            if file not in present:
                present.append(file)
        if step % 25:
            continue
        for source in [*present, "elsewhere/note.md"]:
            for link in links:
                found = graph.resolve(link, source)
                with monkeypatch.context() as reading_all:
                    reading_all.setattr(graph_module, "FEW_NAMESAKES", 10**9)
                    assert graph.resolve(link, source) == found, (link, source)
    assert len(present) > graph_module.FEW_NAMESAKES  # the fast path was taken
    fresh = LinkGraph()
    with monkeypatch.context() as reading_all:
        reading_all.setattr(graph_module, "FEW_NAMESAKES", 10**9)
        state = graph.export()
        for file, targets in zip(state.files, state.targets, strict=True):
            fresh.set_file(file, [], targets)
    assert snapshot(graph) == snapshot(fresh)
