"""The words a reader sees in a piece of markdown: what is embedded and searched.

Obsidian's reading view shows no `%% comments %%`, no URLs behind links, no image or badge
URLs, no HTML tags. Embedding them anyway spends the encoder's few hundred tokens on noise
(a community-hub note is mostly badge URLs and a "do not edit" comment around one line that
says what the plugin does) and gives every note of a template the same words. So a chunk is
embedded (and BM25-indexed) as its reading text: prose, list items, table cells, code and
math as written, link texts, wikilinks by their display text; images, URLs, comments and HTML
tags left out. The chunk's `body` keeps the markdown: that is what answers quote and cite.
"""

from __future__ import annotations

import functools
import re
from html.parser import HTMLParser
from typing import TYPE_CHECKING

from vault_agent.vault.markdown import hide_hidden, obsidian_syntax, parse_wikilink

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

#: The opening of an HTML marked section (`<![CDATA[`), which the parser may refuse.
_MARKED_SECTION = re.compile(r"<!\[")
#: Text with none of these is plain already: no parse needed.
_MARKUP = re.compile(r"[\[<`&\\#|]|%%|://|www\.")
#: A scheme is at most 32 characters: unbounded, each word of a long hyphenated run
#: ("a-a-a-...") was read to the run's end looking for "://" (quadratic).
_URL = re.compile(r"\b(?:[a-z][a-z0-9+.-]{0,31}://|www\.)\S+", re.IGNORECASE)
_BLOCK_ENDS = ("paragraph_close", "heading_close", "tr_close")


def reading_text(markdown: str) -> str:
    """`markdown` as the words its reader sees, one block per line."""
    if not _MARKUP.search(markdown):
        return _lines([markdown])
    lines: list[str] = []
    current: list[str] = []
    for token in _parser().parse(hide_hidden(markdown)):
        kind = token.type
        if kind == "inline":
            current.append(_inline_text(token.children or []))
        elif kind in ("fence", "code_block", "math_block"):
            lines.append(token.content.strip())
        elif kind == "html_block":
            lines.append(_html_text(token.content))
        elif kind in ("th_close", "td_close"):
            current.append(" | ")
        elif kind in _BLOCK_ENDS and current:
            lines.append("".join(current).strip(" |"))
            current = []
    if current:
        lines.append("".join(current).strip(" |"))
    return _lines(lines)


def _lines(blocks: list[str]) -> str:
    """The blocks' non-empty lines, runs of spaces collapsed."""
    return "\n".join(
        " ".join(line.split()) for block in blocks for line in block.splitlines() if line.strip()
    )


def _inline_text(children: list[Token]) -> str:
    parts: list[str] = []
    for child in children:
        kind = child.type
        if kind in ("text", "text_special"):
            parts.append(_URL.sub(" ", child.content))
        elif kind in ("code_inline", "math_inline"):
            parts.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif kind == "wikilink" and not child.meta.get("embed"):
            link = parse_wikilink(child.content, embed=False)
            if link is not None:
                parts.append(link.shown)
        # Images, embeds, HTML tags and link markers show no words of their own; a link's
        # text arrives as the text tokens between its open and close.
    return "".join(parts)


def _html_text(html: str) -> str:
    """The text between the tags of an HTML block (scripts and styles show none)."""
    collector = _TextOfHtml()
    try:
        collector.feed(html)
        collector.close()
    except AssertionError:
        # Python 3.11's parser asserts on a marked section it can't name ("<![[Diagram]]",
        # "<![x]>"): read as text, which is what a browser shows of it.
        collector = _TextOfHtml()
        collector.feed(_MARKED_SECTION.sub("&lt;![", html))
        collector.close()
    return " ".join(" ".join(collector.parts).split())


class _TextOfHtml(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(_URL.sub(" ", data))


@functools.cache
def _parser() -> MarkdownIt:
    """Only what changes which words show: links, images, HTML, code (its text is kept as is);
    lists, tables, quotes and headings need no parsing to read their words. Made on first use
    (see markdown.py's parsers)."""
    from markdown_it import MarkdownIt

    return obsidian_syntax(
        MarkdownIt("zero", {"html": True}).enable(
            ["heading", "table", "link", "image", "html_inline", "html_block", "autolink",
             "backticks", "fence", "code", "escape", "entity"]
        )
    )  # fmt: skip
