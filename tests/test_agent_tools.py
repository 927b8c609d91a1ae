"""The agent's tools and context block, run against a real index of examples/vault."""

from __future__ import annotations

import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_helpers import context_for, latest_daily
from vault_agent.agent import tools as tools_module
from vault_agent.agent.passages import parse_passages
from vault_agent.agent.prompts import (
    NeighbourNote,
    build_context,
    neighbourhood_of,
    question_of,
    user_message,
)
from vault_agent.agent.reader import NoteReader, ToolsContext
from vault_agent.agent.toolbox import (
    Toolbox,
)
from vault_agent.agent.tools import (
    TOOLS,
    ToolResult,
    tool_specs,
)
from vault_agent.config import IndexSettings, Settings
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex
from vault_agent.llm.messages import (
    ToolCall,
)

STARTER = "Recipes/Sourdough Starter.md"


def daily_files(
    index: VaultIndex, start: date = date(1900, 1, 1), end: date = date(9999, 12, 30)
) -> list[str]:
    """The vault's daily notes dated start..end, newest first, as the tool names them."""
    days = [date.fromisoformat(p.stem) for p in (index.settings.vault_root / "Daily").glob("*.md")]
    return [f"Daily/{day}.md" for day in sorted(days, reverse=True) if start <= day <= end]


async def run(
    index: VaultIndex, name: str, overrides: dict[str, str] | None = None, **arguments: Any
) -> ToolResult:
    toolbox = Toolbox(context_for(index), overrides)
    return await toolbox.run(ToolCall(id="call00001", name=name, arguments=arguments))


def test_every_tool_has_a_description_and_a_clean_schema() -> None:
    specs = {spec.name: spec for spec in tool_specs()}
    assert set(specs) == {
        "search_notes",
        "get_note",
        "list_notes",
        "recent_daily_notes",
        "note_links",
    }
    assert "NOT ranked" in specs["list_notes"].description
    for spec in specs.values():
        assert spec.description and spec.parameters["type"] == "object"
        assert "title" not in str(spec.parameters)  # pydantic's titles are noise to a model
        assert spec.parameters["additionalProperties"] is False
    search = specs["search_notes"].parameters
    assert search["required"] == ["query"]
    assert set(search["properties"]) == {
        "query",
        "tags",
        "type",
        "folders",
        "date_from",
        "date_to",
        "sources",
        "open_tasks",
        "limit",
    }


async def test_search_notes_cites_each_passage_and_records_what_it_showed(
    agent_index: VaultIndex,
) -> None:
    result = await run(agent_index, "search_notes", query="how often to feed the starter")
    assert result.ok
    passages = parse_passages(result.content)
    assert [p.rank for p in passages] == list(range(1, len(passages) + 1))
    assert any(p.link.startswith("[[Recipes/Sourdough Starter") for p in passages)
    assert STARTER in {note.file for note in result.notes}
    assert len(passages) == len(result.notes)
    # The full section text, not just a snippet: the model answers from it.
    assert "5 parts flour, 5 parts water" in result.content
    assert result.summary.startswith(f"{len(passages)} passages for")


async def test_search_filters_narrow_results(agent_index: VaultIndex) -> None:
    recipes = await run(agent_index, "search_notes", query="bread", type="recipe", limit=20)
    assert recipes.notes and all(n.file.startswith("Recipes/") for n in recipes.notes)
    daily = latest_daily(agent_index)
    dated = await run(
        agent_index,
        "search_notes",
        query="starter",
        date_from=str(daily - timedelta(days=6)),
        date_to=str(daily),
    )
    assert dated.notes and all(n.file.startswith("Daily/") for n in dated.notes)
    assert "dated" in dated.content.splitlines()[0]
    none = await run(agent_index, "search_notes", query="starter", tags=["no-such-tag"])
    assert none.ok and none.notes == [] and "No notes match" in none.content
    # What is still to do: only passages holding an unchecked box, whatever the query's words.
    todo = await run(agent_index, "search_notes", query="plans", open_tasks=True, limit=20)
    assert {n.file for n in todo.notes} == {
        "Projects/Kyoto Trip.md",
        "Projects/Garden/Garden Irrigation.md",
        "Meetings/2026-10-29 Tidepool Planning.md",
    }
    assert "holding an open task" in todo.content.splitlines()[0]


async def test_get_note_rebuilds_the_note_with_its_sections(agent_index: VaultIndex) -> None:
    result = await run(agent_index, "get_note", path="Sourdough Starter")  # a name, not a path
    assert result.ok
    on_disk = (agent_index.settings.vault_root / STARTER).read_text(encoding="utf-8")
    assert "## Feeding schedule" in result.content and "## Troubleshooting" in result.content
    # Its properties first, as Obsidian shows them above the note (tags are kept apart).
    assert "---\ntype: recipe\naliases: Gus, Starter\ncreated: 2026-08-31\n---" in result.content
    for line in ("My starter is called Gus.", "Smells of acetone: underfed."):
        assert line in on_disk and line in result.content
    assert "[[Recipes/Sourdough Starter#Reviving from the fridge]]" in result.content
    assert {n.heading for n in result.notes} >= {"", "Sourdough Starter > Feeding schedule"}
    assert all(n.file == STARTER for n in result.notes)


@pytest.mark.parametrize(
    "path", ["Recipes/Sourdough Starter", "Recipes/Sourdough Starter.md", "[[Starter|Gus]]"]
)
async def test_get_note_accepts_paths_names_aliases_and_wikilinks(
    agent_index: VaultIndex, path: str
) -> None:
    result = await run(agent_index, "get_note", path=path)
    assert result.ok and result.notes[0].file == STARTER


async def test_get_note_refuses_unindexed_files_and_escapes(agent_index: VaultIndex) -> None:
    missing = await run(agent_index, "get_note", path="Recipes/Chocolate Cake")
    assert not missing.ok and "no indexed note" in missing.content
    template = await run(agent_index, "get_note", path="../canary")
    assert not template.ok and "outside the vault" in template.content
    assert template.notes == []


async def test_what_a_model_sends_is_bounded_before_any_tool_runs(
    agent_index: VaultIndex,
) -> None:
    # Found by an audit: a 2 MB path ("a/" repeated) took minutes of CPU to resolve, segment
    # by segment, and was echoed back whole; a 2 MB query was embedded and echoed too.
    started = time.perf_counter()
    for name, arguments in [
        ("get_note", {"path": "a/" * 1_000_000}),
        ("note_links", {"path": "a/" * 1_000_000}),
        ("search_notes", {"query": "starter " * 250_000}),
        ("search_notes", {"query": "starter", "tags": [f"t{i}" for i in range(100_000)]}),
        ("list_notes", {"folder": "a/" * 1_000_000}),
    ]:
        result = await run(agent_index, name, **arguments)
        assert not result.ok and "should have at most" in result.content, name
        assert len(result.content) < 5_000, name  # what it sent is not echoed back
    unknown = await run(agent_index, "x" * 2_000_000)
    assert not unknown.ok and len(unknown.content) < 1_000
    assert time.perf_counter() - started < 10


async def test_unsaved_content_of_the_active_note_wins(agent_index: VaultIndex) -> None:
    result = await run(agent_index, "get_note", {STARTER: "# Draft\n\nNew text."}, path=STARTER)
    assert "New text." in result.content and "Gus" not in result.content


async def test_list_notes_is_a_bounded_unranked_listing(agent_index: VaultIndex) -> None:
    result = await run(agent_index, "list_notes", type="recipe")
    files = [n.file for n in result.notes]
    assert files == sorted(files) and files and all(f.startswith("Recipes/") for f in files)
    assert "not by relevance" in result.content
    on_disk = sorted((agent_index.settings.vault_root / "Recipes").glob("*.md"))
    assert len(files) == len(on_disk)
    capped = await run(agent_index, "list_notes", limit=3)
    assert len(capped.notes) == 3 and "more: narrow with" in capped.content
    tagged = await run(agent_index, "list_notes", tag="#Daily", limit=100)  # '#', case forgiven
    tagged_files = {n.file for n in tagged.notes}
    assert tagged_files >= {"Daily/2026-11-11.md", "Daily/2026-11-12.md"}
    assert all(f.startswith(("Daily/", "Templates/")) for f in tagged_files)


async def test_recent_daily_notes_are_newest_first_with_their_text(
    agent_index: VaultIndex,
) -> None:
    newest = latest_daily(agent_index)
    result = await run(agent_index, "recent_daily_notes", days=7)
    days = [n.title for n in result.notes]
    assert days == sorted(days, reverse=True) and days[0] == newest.isoformat()
    assert all(newest - timedelta(days=6) <= date.fromisoformat(d) <= newest for d in days)
    assert "## Log" in result.content or "- " in result.content  # the notes' text is there


async def test_recent_daily_notes_count_back_from_the_newest_when_none_are_recent(
    agent_index: VaultIndex,
) -> None:
    newest = latest_daily(agent_index)
    # A vault whose daily notes stopped long ago: "the last 7 days" are the newest note's 7.
    toolbox = Toolbox(context_for(agent_index, today=newest + timedelta(days=900)))
    result = await toolbox.run(ToolCall(id="c", name="recent_daily_notes", arguments={"days": 7}))
    assert result.content.startswith("No daily notes between")
    days = [date.fromisoformat(n.title) for n in result.notes]
    assert days[0] == newest and days == sorted(days, reverse=True)
    assert all(newest - timedelta(days=6) <= day for day in days)
    assert len(days) == len(daily_files(agent_index, newest - timedelta(days=6), newest))


@pytest.mark.parametrize(
    ("arguments", "first", "last"),
    [
        ({"date_from": "2026-10-27", "date_to": "2026-11-02"}, "2026-10-27", "2026-11-02"),
        ({"date_from": "October 2026", "date_to": "October 2026"}, "2026-10-01", "2026-10-31"),
        ({"date_from": "Nov 5 2026", "date_to": "2026/11/09"}, "2026-11-05", "2026-11-09"),
        ({"date_to": "31 Oct 2026"}, "1900-01-01", "2026-10-31"),
        ({"date_from": "2026-11-09"}, "2026-11-09", "9999-12-30"),
        ({"date_from": "2026-11-02", "date_to": "2026-10-29"}, "2026-10-29", "2026-11-02"),
    ],
)
async def test_recent_daily_notes_reach_any_range_given_as_dates(
    agent_index: VaultIndex, arguments: dict[str, str], first: str, last: str
) -> None:
    # "today" is years later: a range is never limited to days near today.
    newest = latest_daily(agent_index)
    toolbox = Toolbox(context_for(agent_index, today=newest + timedelta(days=3 * 365)))
    result = await toolbox.run(ToolCall(id="c", name="recent_daily_notes", arguments=arguments))
    assert result.ok, result.content
    wanted = daily_files(agent_index, date.fromisoformat(first), date.fromisoformat(last))
    assert wanted and [n.file for n in result.notes] == wanted


async def test_recent_daily_notes_say_when_a_range_has_none(agent_index: VaultIndex) -> None:
    result = await run(agent_index, "recent_daily_notes", date_from="2023-01-01", date_to="2023-12")
    assert result.ok and result.notes == []
    assert result.content == "No daily notes from 2023-01-01 to 2023-12-31."


async def test_recent_daily_notes_stay_within_their_size_budget(
    agent_index: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tools_module, "DAILY_CHARS", 600)
    monkeypatch.setattr(tools_module, "DAILY_LISTED", 4)
    result = await run(agent_index, "recent_daily_notes", days=3000)
    assert len(result.content) < 600 + 1_000  # headers and the closing line
    assert "not shown (over the size budget)" in result.content
    assert "older daily notes" in result.content and "date_from and date_to" in result.content
    assert result.summary.startswith(f"{len(daily_files(agent_index))} daily notes")


async def test_note_links_lists_links_and_backlinks(agent_index: VaultIndex) -> None:
    result = await run(agent_index, "note_links", path=STARTER)
    links, backlinks = result.content.splitlines()[1:3]
    assert "[[Recipes/Country Loaf]]" in links and "[[People/Ruth Adler]]" in links
    assert "[[Daily/" in backlinks
    assert {n.file for n in result.notes} >= {STARTER, "Recipes/Country Loaf.md"}


async def test_note_links_names_only_indexed_notes(
    tmp_path: Path, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> None:
    # Found by an audit: links to files the index skipped (too big, ignored, not a note) were
    # named, and became notes an answer could cite without anyone having read them.
    vault = tmp_path / "vault"
    (vault / "Private").mkdir(parents=True)
    (vault / "Public.md").write_text(
        "# Public\n\nSee [[Big]], [[secret.txt]], [[Private/Diary]] and [[Shared]].\n",
        encoding="utf-8",
    )
    (vault / "Big.md").write_text("# Big\n\n" + "x " * 3_000, encoding="utf-8")
    (vault / "secret.txt").write_text("a secret", encoding="utf-8")
    (vault / "Private" / "Diary.md").write_text("# Diary\n\nprivate\n", encoding="utf-8")
    (vault / "Shared.md").write_text("# Shared\n\nBack to [[Public]].\n", encoding="utf-8")
    index_settings = IndexSettings(max_file_bytes=3_000, ignore=["Private/**"])
    settings = Settings(vault=vault, data_dir=tmp_path / "data", index=index_settings)
    with VaultIndex(settings, embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        toolbox = Toolbox(ToolsContext.from_index(index))
        links = await toolbox.run(
            ToolCall(id="call00001", name="note_links", arguments={"path": "Public"})
        )
    assert links.ok
    assert [ref.file for ref in links.notes] == ["Public.md", "Shared.md"]
    for unread in ("Big", "secret", "Diary"):
        assert unread not in links.content, links.content


async def test_a_repeated_call_says_so(agent_index: VaultIndex) -> None:
    toolbox = Toolbox(context_for(agent_index))
    call = ToolCall(id="a", name="list_notes", arguments={"type": "recipe"})
    first = await toolbox.run(call)
    again = await toolbox.run(call.model_copy(update={"id": "b"}))
    assert again.content.startswith("(You already made this exact call")
    assert again.notes == first.notes
    assert again.repeated and not first.repeated


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "feeding the starter", "limit": "5"},
        {"query": "feeding the starter", "limit": 5.0},
        {"query": "feeding the starter", "limit": 50},  # over the maximum: brought to 20
        {"q": "feeding the starter"},
        {"query": ["feeding the starter"]},
        {"type": "object", "properties": {"query": "feeding the starter"}},
        {"arguments": '{"query": "feeding the starter"}'},
        {"query": "feeding the starter", "folders": '["Recipes"]'},
        {"query": "feeding the starter", "folder": "Recipes"},
    ],
)
async def test_arguments_small_models_get_wrong_still_run(
    agent_index: VaultIndex, arguments: dict[str, Any]
) -> None:
    result = await run(agent_index, "search_notes", **arguments)
    assert result.ok, result.content
    assert STARTER in {note.file for note in result.notes}


async def test_natural_dates_filter_a_search(agent_index: VaultIndex) -> None:
    newest = latest_daily(agent_index)
    toolbox = Toolbox(context_for(agent_index, today=newest + timedelta(days=1)))
    call = ToolCall(
        id="a",
        name="search_notes",
        arguments={"query": "starter", "date_from": "last week", "date_to": "yesterday"},
    )
    result = await toolbox.run(call)
    assert result.ok and result.notes
    monday = newest + timedelta(days=1) - timedelta(days=(newest + timedelta(days=1)).weekday())
    start = monday - timedelta(days=7)
    assert f"dated {start} to {newest}" in result.content.splitlines()[0]


@pytest.mark.parametrize("name", ["functions.search_notes", "Search-Notes", "search_note"])
async def test_a_tool_name_written_loosely_runs_the_tool(
    agent_index: VaultIndex, name: str
) -> None:
    toolbox = Toolbox(context_for(agent_index))
    result = await toolbox.run(ToolCall(id="a", name=name, arguments={"query": "starter"}))
    assert result.ok and result.notes


async def test_an_unknown_tool_names_the_real_ones(agent_index: VaultIndex) -> None:
    toolbox = Toolbox(context_for(agent_index))
    result = await toolbox.run(ToolCall(id="a", name="delete_note", arguments={"path": "x"}))
    assert not result.ok
    assert "there is no tool 'delete_note'. Did you mean get_note?" in result.content
    assert all(name in result.content for name in TOOLS)


async def test_a_failing_store_is_a_tool_error_not_a_crash(
    agent_index: VaultIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    toolbox = Toolbox(context_for(agent_index))
    monkeypatch.setattr(toolbox.reader.context.searcher, "search", broken)
    result = await toolbox.run(ToolCall(id="a", name="search_notes", arguments={"query": "x"}))
    assert not result.ok and "disk on fire" in result.content
    assert set(TOOLS)  # the registry itself is untouched


def test_context_block_respects_its_budget_and_names_what_did_not_fit(
    agent_index: VaultIndex,
) -> None:
    graph = agent_index.graph
    neighbours = neighbourhood_of(graph, STARTER)
    assert {n.path for n in neighbours} >= {"Recipes/Country Loaf.md", "People/Ruth Adler.md"}
    assert all(n.path.endswith(".md") for n in neighbours)
    reader = NoteReader(context_for(agent_index), {STARTER: "# Starter\n\nUnsaved words."})
    block = build_context(reader, STARTER, "the selected line", neighbours, budget=2_000)
    assert block.text.index("<selection") < block.text.index("Unsaved words.")
    assert "Other notes nearby (not shown; use get_note)" in block.text
    shown = [n.file for n in block.notes]
    assert shown[0] == STARTER and 1 < len(shown) < len(neighbours) + 1
    # Text sent stays near the budget (tags, links and labels are a small overhead).
    assert len(block.text) < 2_000 + 1_200
    roomy = build_context(reader, STARTER, None, neighbours, budget=100_000)
    assert len(roomy.notes) == len(neighbours) + 1 and "not shown" not in roomy.text


def test_context_block_for_a_missing_active_note_says_so(agent_index: VaultIndex) -> None:
    block = build_context(NoteReader(context_for(agent_index)), "Drafts/New.md", None, [])
    assert "[[Drafts/New]] is empty or not indexed yet" in block.text and block.notes == []
    neighbour = NeighbourNote(path="Nowhere/Missing.md", relation="link")
    assert build_context(NoteReader(context_for(agent_index)), "", None, [neighbour]).text == ""


def test_the_question_survives_the_context_block() -> None:
    message = user_message("What about Question: this?", "Context...\n\nQuestion: in a note")
    assert question_of(message) == "What about Question: this?"
    assert question_of("plain question") == "plain question"
