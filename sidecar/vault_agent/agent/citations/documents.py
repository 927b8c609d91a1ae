"""How answers cite documents of other sources (web clippings, highlights...), which are not
vault notes and so have no ``[[wikilink]]``:

- a document with a ``url`` is cited as a markdown link to it: ``[Title](https://...)``;
- one without, by its title with its source named: ``[Title (clippings)]``.

Tools show the model the exact form for each document; :mod:`vault_agent.agent.citations.checker`
checks both forms as it checks wikilinks. This module only writes and finds them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from vault_agent.agent.spans import Spans
from vault_agent.index.store.protocol import VAULT_SOURCE

# [text](url) or [text](<url>) with an optional "title"; the url may hold balanced parentheses
# (Wikipedia's) and is a web address. Not an image, not the inside of a [[wikilink]].
_MARKDOWN_LINK = re.compile(
    r"(?<![!\[\]])\[(?P<text>(?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
    r"\((?P<dest><https?://[^<>\n]*>|https?://(?:[^\s()]|\([^\s()]*\))+)"
    r"(?:[ \t]+\"[^\"\n]*\")?\)",
    re.IGNORECASE,
)
# [Title (source)]: not a link (no "(" or "[" after it), no reference definition (":").
_TITLED = re.compile(
    r"(?<![!\[\]\w])\[(?P<title>[^\[\]\n]+?) \((?P<source>[a-z0-9][a-z0-9_-]{0,63})\)\]"
    r"(?![\[(:])"
)
_UNSAFE_TITLE = str.maketrans({"[": "(", "]": ")", "\n": " ", "\r": " ", "\t": " "})


class DocumentLookup(Protocol):
    """What the citation check asks the index about documents the model did not retrieve."""

    def is_source(self, name: str) -> bool:
        """True when `name` is a source holding documents."""
        ...

    def is_document_url(self, url: str) -> bool:
        """True when some document has this url."""
        ...


@dataclass(frozen=True)
class DocumentCitation:
    """A ``[text](url)`` or ``[Title (source)]`` found in a text."""

    raw: str
    text: str
    """The link text, or the title."""
    url: str | None
    source: str | None
    start: int
    end: int


def document_citation(title: str, source: str, url: str | None) -> str:
    """How an answer cites a document: a link to its url, else its title and source."""
    label = clean_title(title)
    if url:
        return f"[{label}]({url.replace('(', '%28').replace(')', '%29')})"
    return f"[{label} ({source})]"


def clean_title(title: str) -> str:
    """``title`` as link text: no brackets, on one line."""
    return " ".join(title.translate(_UNSAFE_TITLE).split()) or "untitled"


def same_title(a: str, b: str) -> bool:
    """True when two titles name the same document (case and spacing aside)."""
    return clean_title(a).casefold() == clean_title(b).casefold()


def normal_url(url: str) -> str:
    """A url as written in markdown, compared with a document's: no <>, parentheses decoded."""
    return url.strip().strip("<>").replace("%28", "(").replace("%29", ")")


def find_document_citations(text: str, code: list[tuple[int, int]]) -> list[DocumentCitation]:
    """Markdown links to web pages and ``[Title (source)]`` marks in ``text``, outside the
    ``code`` spans, in order. Whether they cite a document is for the check to decide."""
    found: list[DocumentCitation] = []
    for match in _MARKDOWN_LINK.finditer(text):
        found.append(
            DocumentCitation(
                raw=match.group(0),
                text=match.group("text").strip(),
                url=normal_url(match.group("dest")),
                source=None,
                start=match.start(),
                end=match.end(),
            )
        )
    for match in _TITLED.finditer(text):
        if match.group("source") == VAULT_SOURCE:
            continue
        found.append(
            DocumentCitation(
                raw=match.group(0),
                text=match.group("title").strip(),
                url=None,
                source=match.group("source"),
                start=match.start(),
                end=match.end(),
            )
        )
    inside = Spans(code)
    kept = [c for c in found if c.start not in inside]
    return sorted(kept, key=lambda citation: citation.start)


def strip_document_citations(text: str) -> str:
    """``text`` without any document citation (to tell a line made only of citations)."""
    return _TITLED.sub("", _MARKDOWN_LINK.sub("", text))


def has_document_citation(text: str) -> bool:
    """True when ``text`` holds a markdown web link or a ``[Title (source)]`` mark."""
    return bool(_MARKDOWN_LINK.search(text) or _TITLED.search(text))
