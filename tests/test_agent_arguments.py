"""Tool arguments as small models send them: natural dates, numbers as text, lists as JSON text.

Pure functions and the argument models; the tools' behaviour on a real index is in
test_agent_tools.py.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from pydantic import ValidationError

from vault_agent.agent.dates import parse_period
from vault_agent.agent.tool_args import ListNotesArgs, RecentDailyArgs, SearchNotesArgs

TODAY = date(2026, 11, 12)  # a Thursday


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("2023-10-05", "2023-10-05", "2023-10-05"),
        ("2023-10-05T08:30:00Z", "2023-10-05", "2023-10-05"),
        ("2023/10/5", "2023-10-05", "2023-10-05"),
        ("Oct 5 2023", "2023-10-05", "2023-10-05"),
        ("October 5th, 2023", "2023-10-05", "2023-10-05"),
        ("5 October 2023", "2023-10-05", "2023-10-05"),
        ("Sept. 5 2023", "2023-09-05", "2023-09-05"),
        ("25/10/2023", "2023-10-25", "2023-10-25"),
        ("10/25/2023", "2023-10-25", "2023-10-25"),
        ("2023-10", "2023-10-01", "2023-10-31"),
        ("October 2023", "2023-10-01", "2023-10-31"),
        ("2024-02", "2024-02-01", "2024-02-29"),
        ("2023", "2023-01-01", "2023-12-31"),
        ("today", "2026-11-12", "2026-11-12"),
        ("Yesterday", "2026-11-11", "2026-11-11"),
        ("3 days ago", "2026-11-09", "2026-11-09"),
        ("a week ago", "2026-11-05", "2026-11-05"),
        ("two months ago", "2026-09-12", "2026-09-12"),
        ("last week", "2026-11-02", "2026-11-08"),
        ("this week", "2026-11-09", "2026-11-15"),
        ("last month", "2026-10-01", "2026-10-31"),
        ("this year", "2026-01-01", "2026-12-31"),
        ("last year", "2025-01-01", "2025-12-31"),
        ("monday", "2026-11-09", "2026-11-09"),
        ("last thursday", "2026-11-05", "2026-11-05"),
        ("Oct 5", "2026-10-05", "2026-10-05"),
        ("Dec 24", "2025-12-24", "2025-12-24"),  # no year: the last one that has been
        ("December", "2025-12-01", "2025-12-31"),
    ],
)
def test_natural_dates_name_the_period_they_mean(text: str, first: str, last: str) -> None:
    assert parse_period(text, TODAY) == (date.fromisoformat(first), date.fromisoformat(last))


@pytest.mark.parametrize(
    "text",
    ["", "soon", "05/10/2023", "2023-02-30", "13/13/2023", "99999999999 years ago", "Octember 5"],
)
def test_what_is_no_date_or_ambiguous_is_not_guessed(text: str) -> None:
    assert parse_period(text, TODAY) is None


def read(model: type[Any], arguments: dict[str, Any]) -> Any:
    return model.model_validate(arguments, context={"today": TODAY})


def test_a_date_range_takes_the_first_and_last_day_of_what_it_names() -> None:
    args = read(RecentDailyArgs, {"date_from": "March 2023", "date_to": "March 2023"})
    assert (args.date_from, args.date_to) == (date(2023, 3, 1), date(2023, 3, 31))
    args = read(SearchNotesArgs, {"query": "x", "date_from": "last week", "date_to": "last week"})
    assert (args.date_from, args.date_to) == (date(2026, 11, 2), date(2026, 11, 8))


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"days": "14"}, 14),
        ({"days": "2 weeks"}, 14),
        ({"days": "a week"}, 7),
        ({"days": 3.0}, 3),
        ({"days": 0}, 1),
        ({"days": 100_000}, 3_660),
        ({"days": 400}, 400),  # no 90-day cap: an old vault's days are reachable
    ],
)
def test_days_are_read_as_a_number_within_bounds(arguments: dict[str, Any], expected: int) -> None:
    assert read(RecentDailyArgs, arguments).days == expected


def test_lists_arrive_as_json_text_or_one_value() -> None:
    args = read(SearchNotesArgs, {"query": "x", "tags": '["recipe", "food/bread"]'})
    assert args.tags == ["recipe", "food/bread"]
    assert read(SearchNotesArgs, {"query": "x", "tag": "recipe"}).tags == ["recipe"]
    assert read(ListNotesArgs, {"source": "vault"}).sources == ["vault"]
    assert read(SearchNotesArgs, {"query": "x", "tags": "[not json"}).tags == ["[not json"]


def test_wrapped_or_encoded_arguments_are_unwrapped() -> None:
    for arguments in (
        {"arguments": {"query": "tea"}},
        {"parameters": '{"query": "tea"}'},
        {"type": "object", "properties": {"query": "tea"}, "required": ["query"]},
    ):
        assert read(SearchNotesArgs, arguments).query == "tea"


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"query": "x", "limit": "lots"}, "valid integer"),
        ({"query": "x", "date_from": "soon"}, "valid date"),
        ({"query": "x", "date_from": "05/10/2023"}, "valid date"),
        ({"query": "x", "colour": "red"}, "Extra inputs"),
        ({"limit": 3}, "query"),
    ],
)
def test_what_cannot_be_read_is_still_an_error_the_model_sees(
    arguments: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValidationError, match=problem):
        read(SearchNotesArgs, arguments)
