"""Frontmatter: find the YAML block at the top of a note, load it, and read the fields we index.

Owns the Obsidian rules for the properties block (it must open on the first line with `---` and
close with a `---` line) and for the typed fields the index needs (`tags`, `aliases`, `type`,
`created`). Bad YAML is never fatal: it becomes a message the user can act on.
"""

from __future__ import annotations

import base64
import functools
import math
import re
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

#: Most values (aliases expanded) a properties block may hold: far more than any real note.
MAX_VALUES = 100_000
#: Deepest nesting of lists and maps a properties block may hold. libyaml builds a block's
#: values by recursing in C, which no `RecursionError` stops: 30,000 "- " killed the process.
MAX_NESTING = 1_000
_DELIMITER = re.compile(r"^---[ \t]*$")
_TAG_SPLIT = re.compile(r"[,\s]+")
_WIKILINK_VALUE = re.compile(r"^\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]$")


class FrontmatterBlock:
    """The YAML text of a note's properties block and where the body starts."""

    __slots__ = ("body_line", "body_start", "yaml_text")

    def __init__(self, yaml_text: str, body_start: int, body_line: int) -> None:
        self.yaml_text = yaml_text
        self.body_start = body_start  # character offset of the body in the note's text
        self.body_line = body_line  # 0-based line of the body in the note's text


def split_frontmatter(text: str) -> FrontmatterBlock | None:
    """The frontmatter block of `text` (newlines already normalised to '\\n'), or None.

    Like Obsidian, only a `---` on the very first line opens a block, and an unclosed block is
    no block at all (the whole text is then body).
    """
    if not text.startswith("---"):
        return None
    first_end = text.find("\n")
    if first_end < 0 or not _DELIMITER.match(text[:first_end]):
        return None
    pos = first_end + 1
    line = 1
    while pos <= len(text):
        end = text.find("\n", pos)
        if end < 0:
            end = len(text)
        if _DELIMITER.match(text[pos:end]):
            body_start = min(end + 1, len(text))
            return FrontmatterBlock(text[first_end + 1 : pos], body_start, line + 1)
        pos = end + 1
        line += 1
    return None


def load_frontmatter(yaml_text: str) -> tuple[dict[str, Any], str | None]:
    """Parse the YAML of a properties block into a JSON-serialisable dict.

    Returns (data, error). On invalid YAML, data is empty and error says where and why, with
    the line counted in the note's file (line 1 is the opening `---`).
    """
    import yaml  # see `_loader`

    try:
        if _nested_too_deep(yaml_text):
            return {}, f"frontmatter nested too deep: more than {MAX_NESTING:,} levels"
        data = yaml.load(yaml_text, Loader=_loader())  # a SafeLoader: no arbitrary objects
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = exc.problem or exc.context or "cannot parse"
        return {}, f"frontmatter YAML invalid{where}: {problem}"
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        return {}, f"frontmatter YAML invalid: {exc}"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, f"frontmatter is not a list of properties (found a {type(data).__name__})"
    budget = [MAX_VALUES]
    try:
        return {str(key): _jsonable(value, budget) for key, value in data.items()}, None
    except (_TooManyValues, RecursionError):
        # YAML aliases reuse a value without copying it: a few hundred bytes can stand for a
        # billion values ("billion laughs"), or for a list that contains itself.
        return {}, (
            f"frontmatter too large: more than {MAX_VALUES:,} values, nested too deep, "
            "or aliases that refer to themselves"
        )


def frontmatter_tags(frontmatter: dict[str, Any]) -> list[str]:
    """Raw tags from `tags`/`tag` (a list, or a comma/space separated string), '#' removed."""
    tags: list[str] = []
    for value in (_get(frontmatter, "tags"), _get(frontmatter, "tag")):
        for item in _as_list(value):
            tags.extend(part.lstrip("#") for part in _TAG_SPLIT.split(str(item)) if part)
    return tags


def frontmatter_aliases(frontmatter: dict[str, Any]) -> list[str]:
    """Aliases from `aliases`/`alias` (a list, or a comma separated string), unique, in order."""
    aliases: dict[str, None] = {}  # ordered and unique
    for value in (_get(frontmatter, "aliases"), _get(frontmatter, "alias")):
        items = value.split(",") if isinstance(value, str) else _as_list(value)
        for item in items:
            alias = str(item).strip()
            if alias:
                aliases[alias] = None
    return list(aliases)


def frontmatter_type(frontmatter: dict[str, Any]) -> str | None:
    """The `type` property as a string (first item of a list; `[[Link]]` brackets removed)."""
    values = _as_list(_get(frontmatter, "type"))
    if not values:
        return None
    value = str(values[0]).strip()
    linked = _WIKILINK_VALUE.match(value)
    if linked:
        value = linked.group(1).strip()
    return value or None


def frontmatter_created(frontmatter: dict[str, Any]) -> str | None:
    """`created` (or `date-created`, `date_created`) as an ISO date/datetime string, or None."""
    for key in ("created", "date-created", "date_created"):
        value = iso_date_or_datetime(_get(frontmatter, key))
        if value:
            return value
    return None


def iso_date_or_datetime(value: Any) -> str | None:
    """`value` as an ISO 8601 date or datetime string if it is one (or parses as one)."""
    if isinstance(value, list) and value:
        value = value[0]
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) < 10:
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    # A bare date stays a date: "2026-11-03", not "2026-11-03T00:00:00".
    if len(text) == 10:
        return parsed.date().isoformat()
    return parsed.isoformat()


def _get(frontmatter: dict[str, Any], key: str) -> Any:
    """A property by name, ignoring case (Obsidian treats `Tags` and `tags` alike)."""
    if key in frontmatter:
        return frontmatter[key]
    for name, value in frontmatter.items():
        if name.lower() == key:
            return value
    return None


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return [item for item in value if item is not None and not isinstance(item, dict | list)]
    if isinstance(value, dict):
        return []
    return [value]


def _nested_too_deep(yaml_text: str) -> bool:
    """True when `yaml_text` nests lists and maps more than `MAX_NESTING` deep, read from the
    parser's events (the parser does not recurse, the loader does)."""
    import yaml

    if len(yaml_text) < 2 * MAX_NESTING:  # each level takes two characters at least
        return False
    depth = 0
    for event in yaml.parse(yaml_text, Loader=_loader()):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_NESTING:
                return True
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return False


class _TooManyValues(Exception):
    """The frontmatter's values, aliases expanded, are over `MAX_VALUES`."""


def _jsonable(value: Any, budget: list[int]) -> Any:
    """YAML values as JSON-safe values: dates become ISO strings, sets lists, keys strings.
    Each value spends one from `budget` (a one-item list); `_TooManyValues` when it runs out."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooManyValues
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(key): _jsonable(item, budget) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_jsonable(item, budget) for item in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return value


@functools.cache
def _loader() -> type[yaml.SafeLoader]:
    """`yaml.safe_load` semantics, except an impossible date (`2026-02-30`) stays a string
    instead of failing the whole block; libyaml's parser when present (10x faster on big
    vaults), the same safe constructors either way. Made on first use: PyYAML takes 20-40 ms
    to import, which a command that reads no note (a search of an unchanged vault) never
    needs."""
    import yaml

    base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[valid-type,misc]
        def construct_yaml_timestamp(self, node: yaml.Node) -> Any:
            try:
                return super().construct_yaml_timestamp(node)
            except ValueError:
                return self.construct_scalar(node)

    Loader.add_constructor("tag:yaml.org,2002:timestamp", Loader.construct_yaml_timestamp)
    return Loader
