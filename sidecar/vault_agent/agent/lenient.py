"""Arguments as small models send them, read as they were meant, before validation.

Applied to every tool's arguments (`tool_args._Arguments`), by the type of each field:

- the arguments wrapped the way the schema is (``{"type": "object", "properties": {...}}``)
  or in ``{"arguments": {...}}``, or sent as a JSON string: unwrapped, decoded;
- a list field: a JSON string holding a list (``'["a", "b"]'``, vLLM documents Llama 3 doing
  this) is decoded, a plain string becomes a one-item list;
- a text field: a one-item list gives its item, a number its digits;
- a whole-number field: ``"5"``, ``"5.0"``, ``5.0``, ``"7 days"``, ``"2 weeks"`` are read,
  and a value out of range is brought to the nearest bound (``limit: 50`` where 20 is the
  most gives 20, not an error);
- a date field: the natural forms of `dates.py`, ``date_to`` taking a period's last day.

What still can't be read is left as sent: validation then tells the model what to fix.
"""

from __future__ import annotations

import json
import math
import re
import types
from datetime import date
from typing import Any, Union, get_args, get_origin

from pydantic import AliasChoices, BaseModel
from pydantic.fields import FieldInfo

from vault_agent.agent.dates import as_day

_WRAPPERS = ("arguments", "parameters", "args", "input")
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10}
_AMOUNT = re.compile(r"(\d+(?:\.\d+)?|[a-z]+)\s*(days?|weeks?|months?|years?)?")
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


def lenient_arguments(model: type[BaseModel], data: Any, today: date) -> Any:
    """``data`` with the forms described in the module docstring read as meant."""
    data = _unwrapped(_decoded(data))
    if not isinstance(data, dict):
        return data
    fields = _fields_by_key(model)
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = fields.get(key)
        if name is None or value is None:
            out[key] = value
            continue
        out[key] = _coerce(value, model.model_fields[name], name, today)
    return out


def _decoded(data: Any) -> Any:
    if isinstance(data, str) and data.strip().startswith("{"):
        try:
            return json.loads(data)
        except (ValueError, RecursionError):
            return data
    return data


def _unwrapped(data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    if len(data) == 1 and next(iter(data)) in _WRAPPERS:
        inner = _decoded(next(iter(data.values())))
        return inner if isinstance(inner, dict) else data
    properties = data.get("properties")
    if isinstance(properties, dict) and set(data) <= {"type", "properties", "required"}:
        return properties
    return data


def _fields_by_key(model: type[BaseModel]) -> dict[str, str]:
    """Every key a field accepts (its name and aliases) -> the field's name."""
    keys: dict[str, str] = {}
    for name, info in model.model_fields.items():
        keys[name] = name
        if isinstance(info.validation_alias, AliasChoices):
            for choice in info.validation_alias.choices:
                if isinstance(choice, str):
                    keys[choice] = name
        elif isinstance(info.validation_alias, str):
            keys[info.validation_alias] = name
    return keys


def _coerce(value: Any, info: FieldInfo, name: str, today: date) -> Any:
    kind = _kind(info.annotation)
    if kind is list:
        return _as_list(value)
    if kind is str:
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        return (
            str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value
        )
    if kind is int:
        return _in_range(_as_int(value), info)
    if kind is date:
        return as_day(value, today, end=name.endswith("_to"))
    return value


def _kind(annotation: Any) -> Any:
    """The field's base type: ``list[str] | None`` -> list, ``int`` -> int."""
    if get_origin(annotation) in (Union, types.UnionType):
        options = [a for a in get_args(annotation) if a is not type(None)]
        annotation = options[0] if len(options) == 1 else annotation
    return get_origin(annotation) or annotation


def _as_list(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        try:
            decoded = json.loads(text)
        except (ValueError, RecursionError):
            return [value]
        if isinstance(decoded, list):
            return decoded
    return [value]


def _as_int(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        return round(value) if math.isfinite(value) else value
    if not isinstance(value, str):
        return value
    match = _AMOUNT.fullmatch(value.strip().lower())
    if match is None:
        return value
    amount, unit = match.groups()
    number = float(amount) if amount[0].isdigit() else _WORDS.get(amount)
    if number is None:
        return value
    if unit:
        number *= _UNIT_DAYS[unit.rstrip("s")]
    return round(number)


def _in_range(value: Any, info: FieldInfo) -> Any:
    """A whole number brought within the field's ``ge``/``le`` bounds."""
    if not isinstance(value, int) or isinstance(value, bool):
        return value
    for bound in info.metadata:
        low = getattr(bound, "ge", None)
        high = getattr(bound, "le", None)
        if isinstance(low, int):
            value = max(value, low)
        if isinstance(high, int):
            value = min(value, high)
    return value
