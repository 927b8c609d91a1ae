"""The arguments of each tool: pydantic models whose JSON schema is what the model fills in.

Written once: the schema sent to the model is derived from these models (`tools.tool_specs`),
and the same models validate what comes back. They are lenient where small models are
predictably sloppy (a string for a one-item list, "tag" for "tags") and strict where a silent
fix would change the answer (unknown keys are errors the model sees).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

LIST_DEFAULT, LIST_MAX = 30, 100
SOURCES_HELP = (
    'Only these sources: "vault" for the notes, or the name of another source of documents '
    "(web clippings, highlights...) as results show it. Default: every source."
)


class _Arguments(BaseModel):
    # Unknown keys are errors the model sees: silently dropping "folder" would drop a filter.
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class SearchNotesArgs(_Arguments):
    """Arguments of search_notes."""

    query: str = Field(min_length=1, description="What to look for, in words the notes may use.")
    tags: list[str] | None = Field(
        default=None,
        validation_alias=AliasChoices("tags", "tag"),
        description="Only notes with one of these tags (a tag also matches its nested tags).",
    )
    type: str | None = Field(
        default=None, description="Only notes whose frontmatter type is this (e.g. recipe)."
    )
    folders: list[str] | None = Field(
        default=None,
        validation_alias=AliasChoices("folders", "folder"),
        description="Only notes inside one of these folders (e.g. Projects/Garden).",
    )
    date_from: date | None = Field(
        default=None, description="Only daily notes dated on or after this day (YYYY-MM-DD)."
    )
    date_to: date | None = Field(
        default=None, description="Only daily notes dated on or before this day (YYYY-MM-DD)."
    )
    sources: list[str] | None = Field(
        default=None,
        validation_alias=AliasChoices("sources", "source"),
        description=SOURCES_HELP,
    )
    limit: int = Field(default=8, ge=1, le=20, description="How many passages to return.")

    @field_validator("tags", "folders", "sources", mode="before")
    @classmethod
    def _one_value_as_list(cls, value: Any) -> Any:
        """Small models send ``"tags": "recipe"`` for a list; take it as ``["recipe"]``."""
        return [value] if isinstance(value, str) else value


class PathArgs(_Arguments):
    """Arguments of the tools that take one note."""

    path: str = Field(
        min_length=1,
        validation_alias=AliasChoices("path", "note", "file"),
        description="The note's vault path as tools show it, e.g. 'Recipes/Miso Soup'.",
    )


class ListNotesArgs(_Arguments):
    """Arguments of list_notes."""

    tag: str | None = Field(default=None, description="Only notes with this tag.")
    type: str | None = Field(default=None, description="Only notes of this frontmatter type.")
    folder: str | None = Field(default=None, description="Only notes inside this folder.")
    sources: list[str] | None = Field(
        default=None,
        validation_alias=AliasChoices("sources", "source"),
        description=SOURCES_HELP,
    )
    limit: int = Field(default=LIST_DEFAULT, ge=1, le=LIST_MAX, description="At most this many.")

    @field_validator("sources", mode="before")
    @classmethod
    def _one_source_as_list(cls, value: Any) -> Any:
        """``"source": "vault"`` for a list: take it as ``["vault"]``."""
        return [value] if isinstance(value, str) else value


class RecentDailyArgs(_Arguments):
    """Arguments of recent_daily_notes."""

    days: int = Field(default=7, ge=1, le=90, description="How many days back from today.")
