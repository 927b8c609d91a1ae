"""Citations written other ways, turned into the ``[[wikilinks]]`` the check reads.

Models cite what they saw, but not always in our form:

- ``[1]``, ``[1, 3]``, ``[1][2]``, ``[^1]``: the numbered passages of a search_notes result
  (`passages.py` writes them ``[1] [[Note#Heading]] ...``);
- ``(Sourdough Starter)``, ``(Recipes/Sourdough Starter.md#Feeding)``: a note's title or path in
  parentheses, one or several (``;`` or ``,`` between);
- ``[[Sourdough Starter.md]]``: a wikilink with the file's extension;
- ``[Sourdough Starter](Recipes/Sourdough%20Starter.md#Feeding)``: a markdown link to the file.

Each becomes ``[[path#Heading]]`` (``[[path|text]]`` when a link's text is not the note's
title), but only when it names a note the model saw; otherwise the text is left as written.
A number is rewritten only when it means one passage: several search results all number
from [1], and a [1] that differs between them is left alone. Code is never touched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from urllib.parse import unquote

from vault_agent.agent.citations.links import (
    CODE,
    WIKILINK,
    NoteRef,
    find_citations,
    note_link,
    note_title,
)
from vault_agent.index.store.protocol import VAULT_SOURCE
from vault_agent.vault.link_names import fold

# [1], [1, 2], [1][2], [^1], outside links ([1](url)), reference definitions ([1]: url) and
# wikilinks; not after a word ("x[1]" is an index), nor a closing bracket.
_NUMBERED = re.compile(r"(?<![\w\]\[!\\])(?:\[\^?\d{1,3}(?:[ \t]*,[ \t]*\d{1,3})*\])+(?![(\[:])")
_PARENTHESISED = re.compile(r"(?<![\]\w])\(([^()\n]{1,300})\)")
#: A destination in angle brackets holds no "<" (CommonMark): "[a](<" repeated was read to the
#: line's end from each "<" (quadratic).
_MARKDOWN_LINK = re.compile(r"(?<![!\[\]])\[([^\[\]\n]*)\]\((<[^<>\n]+>|[^\s()]+)\)")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def normalise_citations(
    text: str, seen: Sequence[NoteRef], numbered: Sequence[Sequence[NoteRef]] = ()
) -> str:
    """``text`` with the citation forms of the module docstring written as wikilinks."""
    notes = _SeenNotes([ref for ref in seen if ref.source == VAULT_SOURCE])
    if not notes.files:
        return text
    passages = _passages(numbered)
    steps: list[Callable[[str], str]] = [
        _outside_wikilinks(lambda p: _NUMBERED.sub(lambda m: _numbered(m[0], passages), p)),
        _outside_wikilinks(lambda p: _MARKDOWN_LINK.sub(lambda m: _markdown_link(m, notes), p)),
        _outside_wikilinks(lambda p: _PARENTHESISED.sub(lambda m: _parenthesised(m, notes), p)),
        lambda part: _without_extension(part, notes),
    ]
    out: list[str] = []
    position = 0
    for code in CODE.finditer(text):
        out.append(_apply(text[position : code.start()], steps))
        out.append(code.group(0))
        position = code.end()
    out.append(_apply(text[position:], steps))
    return "".join(out)


def _apply(part: str, steps: list[Callable[[str], str]]) -> str:
    for step in steps:
        part = step(part)
    return part


def _outside_wikilinks(step: Callable[[str], str]) -> Callable[[str], str]:
    """``step`` applied to the text between wikilinks only ("[[Note (draft)]]" stays whole)."""

    def apply(part: str) -> str:
        out: list[str] = []
        position = 0
        for link in WIKILINK.finditer(part):
            out.append(step(part[position : link.start()]))
            out.append(link.group(0))
            position = link.end()
        out.append(step(part[position:]))
        return "".join(out)

    return apply


class _SeenNotes:
    """The vault notes the model saw, found by path or by title (when only one has it)."""

    def __init__(self, refs: list[NoteRef]) -> None:
        self.files = list(dict.fromkeys(ref.file for ref in refs))
        self._by_path = {_key(file): file for file in self.files}
        titles: dict[str, set[str]] = {}
        for file in self.files:
            titles.setdefault(_folded(note_title(file)), set()).add(file)
        self._by_title = {title: next(iter(f)) for title, f in titles.items() if len(f) == 1}

    def find(self, name: str) -> str | None:
        """The seen note ``name`` (a path or title, with or without ``.md``) names."""
        key = _key(name)
        if not key:
            return None
        if key in self._by_path:
            return self._by_path[key]
        tails = [file for path, file in self._by_path.items() if path.endswith("/" + key)]
        if len(tails) == 1:
            return tails[0]
        return self._by_title.get(key) if "/" not in key else None


def _key(name: str) -> str:
    key = _folded(name.strip().strip("*_`\"'").strip().lstrip("./"))
    return key[:-3] if key.endswith(".md") else key


def _folded(text: str) -> str:
    """`text` compared as the link graph compares names (`fold`: composed, NFC), and
    without case as Unicode folds it ("ß" is "ss")."""
    return fold(text).casefold()


def _passages(numbered: Sequence[Sequence[NoteRef]]) -> dict[int, NoteRef | None]:
    """Rank -> the passage every search result agrees it is (None when they differ)."""
    ranks: dict[int, NoteRef | None] = {}
    for result in numbered:
        for rank, ref in enumerate(result, start=1):
            if ref.source != VAULT_SOURCE:
                ranks[rank] = None
                continue
            earlier = ranks.get(rank, ref)
            same = earlier is not None and (earlier.file, earlier.heading) == (
                ref.file,
                ref.heading,
            )
            ranks[rank] = ref if same else None
    return ranks


def _place(ref: NoteRef) -> tuple[str, str]:
    return ref.file, ref.heading


def _numbered(cluster: str, passages: dict[int, NoteRef | None]) -> str:
    links: list[str] = []
    for number in re.findall(r"\d+", cluster):
        ref = passages.get(int(number))
        if ref is None:
            return cluster
        link = note_link(ref.file, ref.heading)
        if link not in links:
            links.append(link)
    return " ".join(links)


def _split_target(target: str) -> tuple[str, str]:
    """``Note#Heading`` or ``Note > Heading`` -> (note, heading)."""
    if "#" in target:
        note, _, heading = target.partition("#")
        return note, heading.strip()
    if " > " in target:
        note, _, heading = target.partition(" > ")
        return note, heading.strip()
    return target, ""


def _parenthesised(match: re.Match[str], notes: _SeenNotes) -> str:
    inner = match.group(1).strip()
    inner = re.sub(r"^(?:source|sources|see|from|in|note)\s*:?\s+", "", inner, flags=re.I)
    links: list[str] = []
    for part in re.split(r"\s*[;,]\s*", inner):
        note, heading = _split_target(part)
        file = notes.find(note)
        if file is None:
            return match.group(0)
        links.append(note_link(file, heading))
    return " ".join(links)


def _markdown_link(match: re.Match[str], notes: _SeenNotes) -> str:
    text, destination = match.group(1).strip(), match.group(2).strip("<>")
    if _SCHEME.match(destination) or destination.startswith("#"):
        return match.group(0)
    path, _, heading = unquote(destination).partition("#")
    file = notes.find(path)
    if file is None:
        return match.group(0)
    link = note_link(file, heading)
    plain = _folded(text.strip("*_`"))
    if not plain or plain in (_folded(note_title(file)), _key(file), _key(path)):
        return link
    return f"{link[:-2]}|{text}]]"


def _without_extension(part: str, notes: _SeenNotes) -> str:
    """``[[Note.md#Heading|x]]`` -> ``[[Note#Heading|x]]`` for a seen note."""
    out: list[str] = []
    position = 0
    for citation in find_citations(part):
        if not citation.target.lower().endswith(".md") or notes.find(citation.target) is None:
            continue
        inner = citation.target[:-3]
        if citation.subpath:
            inner += f"#{citation.subpath}"
        if citation.display:
            inner += f"|{citation.display}"
        out.append(part[position : citation.start])
        out.append(f"{'!' if citation.embed else ''}[[{inner}]]")
        position = citation.end
    out.append(part[position:])
    return "".join(out)
