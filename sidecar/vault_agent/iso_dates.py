"""Dates and times as the API's contract writes them: ISO 8601 text, never a count of seconds.

The JSON schema (and the TypeScript generated from it) says ``format: date`` or ``date-time``,
but pydantic also reads a number written as text ("0", "12") as seconds since 1970, in strict
mode too: ``{"date_from": "0"}`` searched from 1970-01-01. These types refuse it (422), and
read a date or a date and time written as the contract says.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated, Any

from pydantic import BeforeValidator

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _day(value: Any) -> Any:
    if not isinstance(value, str):
        return value  # a date already (from Python), or refused as no date by pydantic
    if not _DAY.fullmatch(value):
        raise ValueError("write a date as YYYY-MM-DD")
    return date.fromisoformat(value)


def _moment(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    # A date alone is no date and time: in `IsoDateTime | IsoDate` it is read as the date.
    if not _DAY.match(value) or len(value) == len("YYYY-MM-DD"):
        raise ValueError("write a date and time as YYYY-MM-DDTHH:MM:SS (a zone may follow)")
    return datetime.fromisoformat(value)


IsoDate = Annotated[date, BeforeValidator(_day)]
"""A calendar date, given as ``YYYY-MM-DD``."""
IsoDateTime = Annotated[datetime, BeforeValidator(_moment)]
"""A date and time, given as ISO 8601 text (``YYYY-MM-DDTHH:MM:SS``, a zone may follow)."""
