"""The citation format of answers: ``[[path/Note#Heading]]``, how to write one and find them.

A note is cited by its vault path (two notes may share a name; a path always resolves) and,
for a section, the last part of its heading path; a PDF page as ``#page=N``, the subpath
Obsidian opens a PDF at. Documents of other sources have their own form (`documents.py`).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from pydantic import BaseModel

from vault_agent.agent.citations.documents import document_citation
from vault_agent.agent.spans import Spans
from vault_agent.index.store.protocol import VAULT_SOURCE
from vault_agent.vault.files import is_pdf
from vault_agent.vault.markdown import rendered_wikilinks
from vault_agent.vault.pdf_note import page_of_heading, page_subpath

WIKILINK = re.compile(r"(?P<embed>!?)\[\[(?P<inner>[^\[\]\n]+?)\]\]")
# Fenced blocks and inline code: a [[...]] in there is quoted text, not a citation.
CODE = re.compile(r"(?ms)^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$|`[^`\n]+`")
# Characters Obsidian can't keep in a heading link; it matches them as spaces.
_HEADING_UNSAFE = re.compile(r"[#|^:\[\]\\]+")


class NoteRef(BaseModel):
    """One note, or one section of a note, as clients show it: ``heading`` is "" for a whole
    note, else a heading path such as "Setup > Linux". A document of another source has its
    ``source`` and, when it has one, its ``url``; its ``file`` is "<source>://<id>"."""

    file: str
    title: str
    heading: str = ""
    source: str = VAULT_SOURCE
    url: str | None = None


@dataclass(frozen=True)
class Citation:
    """One ``[[target#subpath|display]]`` found in a text."""

    raw: str
    target: str
    subpath: str
    display: str | None
    embed: bool
    start: int
    end: int


def note_link(file: str, heading: str = "") -> str:
    """The wikilink that opens ``file`` at ``heading`` (a heading path; its last part is used).

    Paths, not bare names: two notes may share a name, and a path always resolves. A PDF's
    page ("Page 3") becomes ``#page=3``, the subpath Obsidian opens a PDF at.
    """
    page = page_of_heading(heading) if is_pdf(file) else None
    if page is not None:
        return f"[[{file}#{page_subpath(page)}]]"
    target = file[:-3] if file.lower().endswith(".md") else file
    section = heading_anchor(heading)
    return f"[[{target}#{section}]]" if section else f"[[{target}]]"


def cite(ref: NoteRef) -> str:
    """How an answer cites ``ref``: a wikilink for a note, a document's own form otherwise."""
    if ref.source != VAULT_SOURCE:
        return document_citation(ref.title, ref.source, ref.url)
    return note_link(ref.file, ref.heading)


def heading_anchor(heading: str) -> str:
    """The part after ``#`` in a link to ``heading`` ("Setup > Linux" -> "Linux")."""
    last = heading.rsplit(" > ", 1)[-1]
    return " ".join(_HEADING_UNSAFE.sub(" ", last).split())


def note_title(file: str) -> str:
    """A note's title: its file name without ``.md``."""
    name = posixpath.basename(file)
    return name[:-3] if name.lower().endswith(".md") else name


def find_citations(text: str) -> list[Citation]:
    """Every ``[[...]]`` and ``![[...]]`` in ``text``, except inside code.

    Code is what both `CODE` and a markdown parser say is code: the pattern alone misreads
    escaped backticks (``\\`[[x]]\\` `` is a link), unbalanced ones, a fence indented four
    spaces into a paragraph or one with a backtick in its info string, and a link the renderer
    shows must never escape the check. Spelled the same, a link is checked everywhere."""
    code = Spans(m.span() for m in CODE.finditer(text))
    live = rendered_wikilinks(text) if code else set()
    found: list[Citation] = []
    for match in WIKILINK.finditer(text):
        in_code = match.start() in code
        if in_code and match.group(0) not in live:
            continue
        inner = match.group("inner")
        link, _, display = inner.partition("|")
        target, _, subpath = link.partition("#")
        found.append(
            Citation(
                raw=match.group(0),
                target=target.strip(),
                subpath=subpath.strip(),
                display=display.strip() or None,
                embed=bool(match.group("embed")),
                start=match.start(),
                end=match.end(),
            )
        )
    return found
