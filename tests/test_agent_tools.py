"""The agent's tools and context block, run against a real index of examples/vault."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from agent_helpers import context_for, latest_daily
from vault_agent.agent.passages import parse_passages
from vault_agent.agent.prompts import (
    NeighbourNote,
    build_context,
    neighbourhood_of,
    question_of,
    user_message,
)
from vault_agent.agent.reader import NoteReader
from vault_agent.agent.toolbox import (
    Toolbox,
)
from vault_agent.agent.tools import (
    TOOLS,
    ToolResult,
    tool_specs,
)
from vault_agent.index.vault_index import VaultIndex
from vault_agent.llm.messages import (
    ToolCall,
)

STARTER = "Recipes/Sourdough Starter.md"


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


async def test_get_note_rebuilds_the_note_with_its_sections(agent_index: VaultIndex) -> None:
    result = await run(agent_index, "get_note", path="Sourdough Starter")  # a name, not a path
    assert result.ok
    on_disk = (agent_index.settings.vault_root / STARTER).read_text(encoding="utf-8")
    assert "## Feeding schedule" in result.content and "## Troubleshooting" in result.content
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


async def test_recent_daily_notes_fall_back_to_the_latest_when_none_are_recent(
    agent_index: VaultIndex,
) -> None:
    later = latest_daily(agent_index) + timedelta(days=100)
    toolbox = Toolbox(context_for(agent_index, today=later))
    result = await toolbox.run(ToolCall(id="c", name="recent_daily_notes", arguments={"days": 3}))
    assert result.content.startswith("No daily notes between")
    assert result.notes[0].title == latest_daily(agent_index).isoformat()
    assert len(result.notes) == 3


async def test_note_links_lists_links_and_backlinks(agent_index: VaultIndex) -> None:
    result = await run(agent_index, "note_links", path=STARTER)
    links, backlinks = result.content.splitlines()[1:3]
    assert "[[Recipes/Country Loaf]]" in links and "[[People/Ruth Adler]]" in links
    assert "[[Daily/" in backlinks
    assert {n.file for n in result.notes} >= {STARTER, "Recipes/Country Loaf.md"}


async def test_a_repeated_call_says_so(agent_index: VaultIndex) -> None:
    toolbox = Toolbox(context_for(agent_index))
    call = ToolCall(id="a", name="list_notes", arguments={"type": "recipe"})
    first = await toolbox.run(call)
    again = await toolbox.run(call.model_copy(update={"id": "b"}))
    assert again.content.startswith("(You already made this exact call")
    assert again.notes == first.notes


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
