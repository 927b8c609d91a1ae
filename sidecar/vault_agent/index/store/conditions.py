"""What a `SearchFilter` means, written once for both stores.

Qdrant Edge and qdrant-client have different filter classes but the same filter model. This
module turns a `SearchFilter` into neutral conditions; each store only maps them one to one onto
its own classes, so the two implementations cannot drift apart on semantics.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from vault_agent.index.store.protocol import SearchFilter


@dataclass(frozen=True)
class AnyOf:
    """The keyword field `key` holds at least one of `values` (list payloads: any element)."""

    key: str
    values: list[str]


@dataclass(frozen=True)
class NoneOf:
    """The keyword field `key` holds none of `values` (a point without the field matches)."""

    key: str
    values: list[str]


@dataclass(frozen=True)
class IntEquals:
    """The integer field `key` equals `value`."""

    key: str
    value: int


@dataclass(frozen=True)
class IntAtLeast:
    """The integer field `key` is at least `value` (a point without the field does not match)."""

    key: str
    value: int


@dataclass(frozen=True)
class DateRange:
    """The datetime field `key` lies in [gte, lt); bounds are ISO dates ("YYYY-MM-DD")."""

    key: str
    gte: str | None
    lt: str | None


Condition = AnyOf | NoneOf | IntEquals | IntAtLeast | DateRange


def conditions(search_filter: SearchFilter | None) -> list[Condition]:
    """The conditions that must all hold (AND); an empty list matches every point."""
    if search_filter is None:
        return []
    out: list[Condition] = []
    lists = (
        ("tags", [_tag(t) for t in search_filter.tags]),
        ("type", search_filter.types),
        ("folders", [f.strip("/") for f in search_filter.folders]),
        ("file", search_filter.files),
        ("source", search_filter.sources),
        ("document.url", search_filter.urls),
    )
    for key, values in lists:
        kept = [v for v in values if v]
        if kept:
            out.append(AnyOf(key, kept))
    excluded = [t for t in search_filter.exclude_types if t]
    if excluded:
        out.append(NoneOf("type", excluded))
    excluded = [s for s in search_filter.exclude_sources if s]
    if excluded:
        out.append(NoneOf("source", excluded))
    excluded = [f for f in search_filter.exclude_files if f]
    if excluded:
        out.append(NoneOf("file", excluded))
    if search_filter.date_from is not None or search_filter.date_to is not None:
        # date_to is inclusive for the caller. An exclusive bound on the next day keeps it
        # inclusive even if a `date` ever carries a time of day ("2024-05-01T18:00").
        # The last day a `date` holds has no next one: up to it is no bound at all.
        upper = None
        if search_filter.date_to is not None and search_filter.date_to < date.max:
            upper = search_filter.date_to + timedelta(days=1)
        out.append(
            DateRange(
                "date",
                gte=search_filter.date_from.isoformat() if search_filter.date_from else None,
                lt=upper.isoformat() if upper else None,
            )
        )
    if search_filter.chunk_index is not None:
        out.append(IntEquals("chunk_index", search_filter.chunk_index))
    if search_filter.open_tasks:
        out.append(IntAtLeast("open_tasks", 1))
    return out


def _tag(tag: str) -> str:
    """Tags are stored lower-case without '#'; accept '#Project' from a model or a user."""
    return tag.strip().lstrip("#").lower()
