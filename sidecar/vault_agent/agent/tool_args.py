"""The arguments of each tool: pydantic models whose JSON schema is what the model fills in.

Written once: the schema sent to the model is derived from these models (`tools.tool_specs`),
and the same models validate what comes back. They are lenient where small models are
predictably sloppy (`lenient.py`: "5" for 5, a string for a one-item list, a JSON string for a
list, "last week" for a date; "tag" for "tags") and strict where a silent fix would change the
answer (unknown keys are errors the model sees). Relative dates count from the tools' today,
passed as the validation context ``{"today": date}``.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from vault_agent.agent.lenient import lenient_arguments

LIST_DEFAULT, LIST_MAX = 30, 100
#: Bounds on what a model may send (a broken or hostile one sends megabytes): a query longer
#: than a question may be, a note path longer than file systems allow, more filters than a
#: vault has use for. Over them, the call is refused with the reason, as any invalid one.
QUERY_MAX_CHARS = 8_000
PATH_MAX_CHARS = 1_024
NAME_MAX_CHARS = 256
FILTERS_MAX = 50
DAYS_MAX = 3_660
"""recent_daily_notes: ten years back at most (what is shown is bounded by size anyway)."""
SOURCES_HELP = (
    'Only these sources: "vault" for the notes, or the name of another source of documents '
    "(web clippings, highlights...) as results show it. Default: every source."
)


DATE_HELP = "YYYY-MM-DD; 'yesterday', 'last week', 'March 2023' work too"


class _Arguments(BaseModel):
    # Unknown keys are errors the model sees: silently dropping "folder" would drop a filter.
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _read_leniently(cls, data: Any, info: ValidationInfo) -> Any:
        """What small models send, read as meant (`lenient.py`)."""
        context = info.context if isinstance(info.context, dict) else {}
        today = context.get("today")
        return lenient_arguments(cls, data, today if isinstance(today, date) else date.today())


class SearchNotesArgs(_Arguments):
    """Arguments of search_notes."""

    query: str = Field(
        min_length=1,
        max_length=QUERY_MAX_CHARS,
        validation_alias=AliasChoices("query", "q", "search", "search_query", "keywords"),
        description="What to look for, in words the notes may use.",
    )
    tags: list[str] | None = Field(
        default=None,
        max_length=FILTERS_MAX,
        validation_alias=AliasChoices("tags", "tag"),
        description="Only notes with one of these tags (a tag also matches its nested tags).",
    )
    type: str | None = Field(
        default=None, description="Only notes whose frontmatter type is this (e.g. recipe)."
    )
    folders: list[str] | None = Field(
        default=None,
        max_length=FILTERS_MAX,
        validation_alias=AliasChoices("folders", "folder"),
        description="Only notes inside one of these folders (e.g. Projects/Garden).",
    )
    date_from: date | None = Field(
        default=None, description=f"Only daily notes dated on or after this day ({DATE_HELP})."
    )
    date_to: date | None = Field(
        default=None, description=f"Only daily notes dated on or before this day ({DATE_HELP})."
    )
    sources: list[str] | None = Field(
        default=None,
        max_length=FILTERS_MAX,
        validation_alias=AliasChoices("sources", "source"),
        description=SOURCES_HELP,
    )
    open_tasks: bool = Field(
        default=False,
        description="Only passages holding a task still open (an unchecked `- [ ]`): "
        "what is still to do.",
    )
    limit: int = Field(default=8, ge=1, le=20, description="How many passages to return.")


class PathArgs(_Arguments):
    """Arguments of the tools that take one note."""

    path: str = Field(
        min_length=1,
        max_length=PATH_MAX_CHARS,
        validation_alias=AliasChoices("path", "note", "file"),
        description="The note's vault path as tools show it, e.g. 'Recipes/Miso Soup'.",
    )


class ListNotesArgs(_Arguments):
    """Arguments of list_notes."""

    tag: str | None = Field(
        default=None, max_length=NAME_MAX_CHARS, description="Only notes with this tag."
    )
    type: str | None = Field(
        default=None, max_length=NAME_MAX_CHARS, description="Only notes of this frontmatter type."
    )
    folder: str | None = Field(
        default=None, max_length=PATH_MAX_CHARS, description="Only notes inside this folder."
    )
    sources: list[str] | None = Field(
        default=None,
        max_length=FILTERS_MAX,
        validation_alias=AliasChoices("sources", "source"),
        description=SOURCES_HELP,
    )
    limit: int = Field(default=LIST_DEFAULT, ge=1, le=LIST_MAX, description="At most this many.")


class RecentDailyArgs(_Arguments):
    """Arguments of recent_daily_notes: a number of days back, or a range of dates."""

    days: int = Field(
        default=7,
        ge=1,
        le=DAYS_MAX,
        description="How many days back from today (from the newest daily note when none are "
        "that recent). Ignored when dates are given.",
    )
    date_from: date | None = Field(
        default=None, description=f"Daily notes dated on or after this day ({DATE_HELP})."
    )
    date_to: date | None = Field(
        default=None, description=f"Daily notes dated on or before this day ({DATE_HELP})."
    )
