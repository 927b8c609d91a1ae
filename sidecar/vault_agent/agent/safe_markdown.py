"""What an answer may render: images of the vault, links a click may follow, and plain formatting.

An answer quotes notes, and a note can carry (or tell the model to build) a URL that a renderer
would fetch by itself: an image whose address holds what the agent read is enough to send it
away. So an answer is parsed the way a renderer parses it (markdown-it, CommonMark with tables
and raw HTML on) and every URL in it is judged by :mod:`vault_agent.agent.vault_urls` after
entity decoding, unescaping and WHATWG URL parsing, never by how it is spelled:

- an image (inline, reference-style, in a table or a quote) that is not a vault resource is
  removed, and so is the reference definition it used;
- a link whose URL is not a safe link (``javascript:``, ``obsidian:``, ``data:``...) becomes its
  text, as does an autolink to one; links to web pages stay links (a click is not a load);
- raw HTML is removed, tag by tag, except a few formatting tags written without attributes
  (``<b>``, ``<br>``, ``<sub>``...), which cannot name a URL; the text between tags stays, the
  content of ``<style>``, ``<script>`` and the like goes with them. A ``<`` that starts no
  complete tag becomes ``&lt;``, so nothing left can open a tag; so does the ``<`` of a
  ``<textarea>``, ``<script>``, ``<style>`` or ``<pre>`` that opens a line and is never closed,
  which would make the rest of the answer (its citations and Sources list) raw HTML;
- a reference definition that is neither a vault resource nor a safe link is removed;
- a footnote's text is markdown, as Obsidian renders it; a block nested past markdown-it's limit
  (whose rest it skips unread, where a renderer with a higher limit reads it) is flattened
  first, so that what it holds is judged.

With ``embeds=False`` (the citation check's last pass, :mod:`vault_agent.agent.citations.checker`)
nothing embeds at all: an embed ``![[...]]`` would paste a whole note (and load what it shows),
and so would an image naming one (``![x](Note.md)``). Every ``!`` right before ``[[`` is removed
(the link stays a link) and every image becomes its text, wherever the ``!`` came from (the
model, or a removal that brought it next to a link).

Code spans and blocks render as text and are left alone, once a fence naming anything but a
programming language has lost that name and Templater's and Dataview's commands are broken
(:mod:`vault_agent.agent.runnable`: Obsidian would draw a ``mermaid`` block, Dataview run a
``dataviewjs`` one, Templater a ``<% ... %>`` in a saved answer). The rewritten text is parsed again
until nothing changes, so no edit can leave behind what an earlier pass would have removed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.html_re import HTML_TAG_RE
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.footnote.index import footnote_def

from vault_agent.agent.runnable import inert
from vault_agent.agent.spans import Spans
from vault_agent.agent.vault_urls import is_safe_link, is_vault_resource
from vault_agent.vault.markdown import linear_link_labels

#: Raw HTML that may stay: these tags, with no attribute, on one line.
_ALLOWED_TAG = re.compile(
    r"</?(?:b|i|em|strong|u|s|del|ins|sub|sup|mark|kbd|small|br|wbr|hr|p|div|span|code|pre"
    r"|blockquote|ul|ol|li|dl|dt|dd|table|thead|tbody|tr|th|td|details|summary|h[1-6])"
    r"[ \t]*/?>",
    re.IGNORECASE,
)
#: Elements whose content is no text to show: removed with their tags.
_RAW_TEXT = frozenset(
    {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"}
)
#: CommonMark's HTML blocks of type 1: opened at the start of a line, they end only at a line
#: closing one of them, so one left open makes the rest of the answer raw HTML.
_TYPE_1_BLOCK = re.compile(r"<(script|pre|style|textarea)(?=[\s/>]|$)", re.IGNORECASE)
_TYPE_1_END = re.compile(r"</(?:script|pre|style|textarea)>", re.IGNORECASE)
_OPEN_TAG_NAME = re.compile(r"<([A-Za-z][A-Za-z0-9-]*)")
_CLOSE_TAG = re.compile(r"</([A-Za-z][A-Za-z0-9-]*)\s*>")
#: Characters escaped when a link's text replaces the link, so that it stays text.
_MARKUP = re.compile(r"([\\`*_\[\]<>!&~|])")
#: The "!" (however many) that makes the wikilink after it an embed. From the run's first "!"
#: only: tried from each of 40,000, it took seconds.
_EMBED_MARK = re.compile(r"(?<!!)!+(?=\[\[)")
#: At most this many rewrite passes; an answer needing more is shown as plain text.
MAX_PASSES = 8
#: What opens a container block at the start of a line: a quote, a list item, a footnote.
_OPENER = re.compile(r"^(\d{0,9})([>*+\-.)]|\[(?=\^))")
#: Set in a parse's env when a block opened as deep as markdown-it reads (`_depth_guard`).
_TOO_DEEP = "vault_agent_too_deep"
#: A removed tag is reported with at most this many characters.
_REPORTED = 200


@dataclass
class SafeMarkdown:
    """An answer with nothing left that loads a URL by itself, and what was taken out."""

    markdown: str
    removed: list[str] = field(default_factory=list)
    """The URLs of removed images and definitions, and the removed HTML tags that open an
    element or comment (closing tags are not listed)."""


def sanitise_markdown(
    markdown: str, links: Callable[[str], bool] = is_safe_link, *, embeds: bool = True
) -> SafeMarkdown:
    """``markdown`` rewritten so that rendering it loads nothing but vault resources, and a
    link stays one only where ``links`` allows its URL (else it becomes its text). Without
    ``embeds``, nothing embeds either: no ``![[...]]`` and no image is left outside code."""
    # The parser works on normalised text (CRLF, NUL): edits are made on the same text.
    text = markdown.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
    text = inert(text)  # quoted code renders as code: no diagram, query or command runs
    removed: list[str] = []
    for _ in range(MAX_PASSES):
        edits = _edits(text, removed, links, embeds)
        # An edit can make a command of what it leaves ("<![%](a.png)*..." -> "<%*..."): each
        # pass's text is made inert again, and only text both inert and safe is returned.
        rewritten = inert(_apply(text, edits))
        if rewritten == text:
            return SafeMarkdown(text, _unique(removed))
        text = rewritten
    # Never seen: each pass removes what it finds. If it ever happens, escape all markup.
    return SafeMarkdown(_MARKUP.sub(r"\\\1", text), _unique(removed))


@dataclass(frozen=True)
class _Edit:
    """Replace ``text[start:end]`` with ``replacement``."""

    start: int
    end: int
    replacement: str


def _edits(
    text: str, removed: list[str], links: Callable[[str], bool], embeds: bool
) -> list[_Edit]:
    """What to change in ``text`` (one parse), recording what goes into ``removed``."""
    env: dict[str, Any] = {}
    tokens = _PARSER.parse(text, env)
    lines = _Lines(text)
    if env.get(_TOO_DEEP):
        # Blocks nested past markdown-it's limit: it skips what they hold, unread, and a
        # renderer with a higher limit renders it. Each such block is flattened; the next
        # pass judges what it holds.
        return _deep_edits(text, tokens, env[_TOO_DEEP], lines)
    edits: list[_Edit] = [] if embeds else _embed_edits(text, tokens)
    unsafe_images: set[str] = set()
    definitions: list[Token] = []
    for index, token in enumerate(tokens):
        if token.type == "inline" and token.children and token.map:
            found = _inline_edits(token.children, removed, unsafe_images, links, embeds)
            if not found:
                continue
            to_source = lines.locate(token, tokens[index - 1] if index else None)
            if to_source is None:  # never seen: all markup of the block's lines made text
                start, end = lines.span(token.map)
                edits.append(_Edit(start, end, _MARKUP.sub(r"\\\1", text[start:end])))
                continue
            edits += [_Edit(*to_source(e.start, e.end), e.replacement) for e in found]
        elif token.type == "html_block" and token.map:
            start, end = lines.span(token.map)
            if _unclosed_type_1(text, start, end):
                # Left open, it would swallow the rest of the answer (its citations and Sources
                # list too) into raw HTML: its "<" is text, and the rest stays markdown.
                at = text.index("<", start)
                removed.append(text[at : text.find(">", at) + 1 or end][:_REPORTED])
                edits.append(_Edit(at, at + 1, "&lt;"))
                continue
            edits += _html_edits(text, start, end, removed)
            # Markdown inside raw HTML is text to markdown-it, but a renderer that ends the
            # block elsewhere would read it: its images and links are judged as well.
            inline = _PARSER.parseInline(token.content, env)[0]
            found = _inline_edits(
                inline.children or [], removed, unsafe_images, links, embeds, markup_only=True
            )
            to_source = lines.locate(token, None) if found else None
            if to_source is not None:
                edits += [_Edit(*to_source(e.start, e.end), e.replacement) for e in found]
            elif found:  # never seen: as above (this edit covers the block's others)
                start, end = lines.span(token.map)
                edits.append(_Edit(start, end, _MARKUP.sub(r"\\\1", text[start:end])))
        elif token.type == "definition" and token.map:
            definitions.append(token)
    for definition in definitions:
        url = str(definition.meta["url"])
        if (is_vault_resource(url) or links(url)) and url not in unsafe_images:
            continue
        start, end = lines.span(definition.map or [0, 0])
        # The definition starts at its "[", after any quote or list markers of its line.
        start = text.index("[", start, end)
        edits.append(_Edit(start, end, ""))
        removed.append(url)
    return edits


def _inline_edits(
    children: list[Token],
    removed: list[str],
    unsafe_images: set[str],
    links: Callable[[str], bool],
    embeds: bool,
    markup_only: bool = False,
) -> list[_Edit]:
    """Edits for one paragraph, heading or table cell, in its text's offsets (the spans its
    tokens carry); with ``markup_only``, for markdown images and links alone."""
    edits: list[_Edit] = []
    closings: dict[str, list[int]] = {}
    for index, child in enumerate(children):
        if "span" not in child.meta:
            continue  # text gathered between rules: nothing to judge
        span: tuple[int, int] = child.meta["span"]
        if child.type == "image":
            src = str(child.attrs.get("src", ""))
            if is_vault_resource(src):
                if not embeds:  # `![x](Note.md)` embeds the note, as `![[Note]]` does
                    removed.append(src)
                    edits.append(_Edit(*span, _MARKUP.sub(r"\\\1", _words(child.children))))
                continue
            removed.append(src)
            unsafe_images.add(src)
            edits.append(_Edit(*span, ""))
        elif child.type == "link_open":
            if links(str(child.attrs.get("href", ""))):
                continue
            edits.append(_Edit(*span, _MARKUP.sub(r"\\\1", _link_text(children, index))))
        elif child.type == "html_inline" and not markup_only:
            if _ALLOWED_TAG.fullmatch(child.content):
                continue
            start, end = span
            name = _opened(child.content)
            last = index
            if name in _RAW_TEXT:  # <style>...</style>: the content goes too
                last = _closing_index(children, index, name, closings)
                end = children[last].meta["span"][1]
            if name or child.content.startswith("<!"):
                removed.append("".join(c.content for c in children[index : last + 1])[:_REPORTED])
            edits.append(_Edit(start, end, ""))
    return edits


def _html_edits(text: str, start: int, end: int, removed: list[str]) -> list[_Edit]:
    """Edits for a raw HTML block: every tag removed but the allowed ones, every other ``<``
    escaped, so no tag is left to open."""
    edits: list[_Edit] = []
    position = start
    last_close = text.rfind("-->", start, end)
    last: dict[str, int] = {}  # the block's last "?>", "]]>" and ">", each found once
    while (lt := text.find("<", position, end)) >= 0:
        if text.startswith("<!--", lt):
            # Found, not matched: the tag pattern backtracks from each "<!--" of a run to the
            # block's end (10,000 of them: 6 s).
            found = _comment_end(text, lt, end, last_close)
        elif not _may_close(text, lt, end, last):
            found = None
        else:
            tag = HTML_TAG_RE.match(text, lt, end)
            found = tag.end() if tag else None
        if found is None:
            edits.append(_Edit(lt, lt + 1, "&lt;"))
            position = lt + 1
            continue
        position = found
        if _ALLOWED_TAG.fullmatch(text, lt, found):
            continue
        name = _opened(text[lt:found])
        if name in _RAW_TEXT:
            closing = re.compile(rf"</{name}\b[^>]*>", re.IGNORECASE).search(text, position, end)
            position = closing.end() if closing else end
        if name or text.startswith("<!", lt):
            removed.append(text[lt:position][:_REPORTED])
        edits.append(_Edit(lt, position, ""))
    return edits


def _may_close(text: str, lt: int, end: int, last: dict[str, int]) -> bool:
    """False when the tag opening at ``lt`` can't end before ``end``: its closing mark (``?>``,
    ``]]>`` or ``>``) is not in the block after it. The tag pattern's lazy parts read to the
    block's end before failing, from each ``<?`` of a run (40,000 characters: 6 s); a mark
    that is there ends the first tag reaching it, so every attempt that reads far matches."""
    if text.startswith("<?", lt):
        mark, least = "?>", lt + 2  # `<??>`
    elif text.startswith("<![CDATA[", lt):
        mark, least = "]]>", lt + 9
    else:
        mark, least = ">", lt + 2
    if mark not in last:
        last[mark] = text.rfind(mark, lt, end)
    return last[mark] >= least


def _unclosed_type_1(text: str, start: int, end: int) -> bool:
    """True for an HTML block of type 1 (``<textarea>``...) whose lines close none of them."""
    at = text.index("<", start)
    return bool(_TYPE_1_BLOCK.match(text, at)) and not _TYPE_1_END.search(text, at, end)


def _link_text(children: list[Token], open_index: int) -> str:
    """The words of the link opened at ``open_index`` (images and markup left out)."""
    return _words(children[open_index + 1 :])


def _words(tokens: list[Token] | None) -> str:
    """The words of inline ``tokens``, up to a link's end (images and markup left out)."""
    words: list[str] = []
    for child in tokens or []:
        if child.type == "link_close":
            break
        if child.type in ("text", "text_special", "code_inline"):
            words.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            words.append(" ")
    return "".join(words)


def _embed_edits(text: str, tokens: list[Token]) -> list[_Edit]:
    """Edits removing the ``!`` of every ``![[`` outside code: the link stays, unembedded."""
    code = Spans(_code_spans(text, tokens))
    return [
        _Edit(*match.span(), "")
        for match in _EMBED_MARK.finditer(text)
        if match.start() not in code
    ]


def code_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` is code (a block, or a code span), as (start, end) offsets."""
    return _code_spans(text, _PARSER.parse(text, {}))


def _code_spans(text: str, tokens: list[Token]) -> list[tuple[int, int]]:
    """Where ``text`` is code (blocks, and the inline code of blocks whose text is placed)."""
    lines = _Lines(text)  # its own: placing table cells is stateful
    spans: list[tuple[int, int]] = []
    for index, token in enumerate(tokens):
        if token.type in ("fence", "code_block") and token.map:
            spans.append(lines.span(token.map))
        elif token.type == "inline" and token.children and token.map:
            code = [c.meta["span"] for c in token.children if c.type == "code_inline"]
            to_source = lines.locate(token, tokens[index - 1] if index else None) if code else None
            if to_source is not None:  # unplaced: not code, so its "![[" goes (stricter)
                spans += [to_source(*span) for span in code]
    return spans


def _opened(tag: str) -> str | None:
    """The element name of an opening tag (lower case), None for a closing tag or comment."""
    match = _OPEN_TAG_NAME.match(tag)
    return match.group(1).lower() if match else None


def _closing_index(
    children: list[Token], open_index: int, name: str, closings: dict[str, list[int]]
) -> int:
    """The index of the tag closing the element opened at ``open_index`` (itself if none).
    ``closings`` (filled here once per paragraph) holds where each element's closing tags
    are: sought from each opener of a run of ``<style>``, they took seconds."""
    if not closings:
        for index, child in enumerate(children):
            if child.type == "html_inline" and (match := _CLOSE_TAG.fullmatch(child.content)):
                closings.setdefault(match.group(1).lower(), []).append(index)
        closings.setdefault("", [])  # filled, even when no element is closed
    found = closings.get(name, [])
    at = bisect_right(found, open_index)
    return found[at] if at < len(found) else open_index


def _apply(text: str, edits: list[_Edit]) -> str:
    """``text`` with ``edits`` made; an edit inside one already made (an image inside a link
    that became text) is skipped."""
    out: list[str] = []
    position = 0
    for edit in sorted(edits, key=lambda e: (e.start, -e.end)):
        if edit.start < position:
            continue
        out.append(text[position : edit.start])
        out.append(edit.replacement)
        position = edit.end
    out.append(text[position:])
    return "".join(out)


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


class _Lines:
    """Source lines, and where an inline token's text lies in them.

    markdown-it gives blocks their lines but inline tokens no offsets, and a block's inline
    text is its lines without quote and list markers and indentation. Each line of that text
    is the end of its source line (paragraphs, setext headings), the text after the ``#``
    markers (headings) or the next cell of its row (tables): found there and checked."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for match in re.finditer("\n", text):
            self.starts.append(match.end())
        self._cells: dict[int, int] = {}

    def line(self, number: int) -> str:
        start = self.starts[number]
        end = self.starts[number + 1] - 1 if number + 1 < len(self.starts) else len(self.text)
        return self.text[start:end]

    def span(self, lines: list[int]) -> tuple[int, int]:
        """Source offsets of lines ``[first, last)``."""
        first, last = lines
        start = self.starts[first]
        end = self.starts[last] - 1 if last < len(self.starts) else len(self.text)
        return start, max(start, end)

    def locate(
        self, token: Token, opener: Token | None
    ) -> Callable[[int, int], tuple[int, int]] | None:
        """Maps a span of ``token.content`` to a span of the source, or None."""
        first = (token.map or [0, 0])[0]
        content_lines = token.content.removesuffix("\n").split("\n")
        offsets: list[int] = []  # where each content line starts in the source
        for number, content in enumerate(content_lines, start=first):
            if number >= len(self.starts):
                return None
            line = self.line(number)
            found = self._find(
                line, content, number, opener, number == first + len(content_lines) - 1
            )
            if found is None:
                return None
            offsets.append(self.starts[number] + found)
        line_starts = [0]
        for content in content_lines[:-1]:
            line_starts.append(line_starts[-1] + len(content) + 1)

        def to_source(start: int, end: int) -> tuple[int, int]:
            return _at(start, offsets, line_starts), _at(end - 1, offsets, line_starts) + 1

        return to_source

    def _find(
        self, line: str, content: str, number: int, opener: Token | None, last: bool
    ) -> int | None:
        kind = opener.type if opener is not None else ""
        if not kind:  # a raw HTML block: each line the end of its source line
            return len(line) - len(content) if line.endswith(content) else None
        if kind in ("th_open", "td_open"):
            at = line.find(content, self._cells.get(number, 0))
            if at >= 0:
                self._cells[number] = at + len(content)
            return at if at >= 0 else None
        if kind == "heading_open" and opener is not None and opener.markup.startswith("#"):
            at = line.find(content, len(line) - len(line.lstrip(" \t#")))
            return at if at >= 0 else None
        # A paragraph (or setext heading) line: the rest of its source line; the last one
        # without its trailing whitespace.
        visible = line.rstrip() if last else line
        return len(visible) - len(content) if visible.endswith(content) else None


def _at(index: int, offsets: list[int], line_starts: list[int]) -> int:
    """The source offset of ``index`` in a token's content."""
    line = 0
    while line + 1 < len(line_starts) and line_starts[line + 1] <= index:
        line += 1
    return offsets[line] + index - line_starts[line]


def _spanned(rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """``rule``, recording on the tokens it makes the span of text it consumed."""

    def spanned(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        matched = rule(state, silent)
        if matched and not silent:
            for token in state.tokens[count:]:
                token.meta.setdefault("span", (start, state.pos))
        return matched

    return spanned


def _deep_edits(text: str, tokens: list[Token], deep: list[int], lines: _Lines) -> list[_Edit]:
    """Each outermost block holding a line of `deep` flattened (all of ``text`` if none is
    found to hold one)."""
    spans = {
        (token.map[0], token.map[1])
        for token in tokens
        if token.level == 0
        and token.map
        and any(token.map[0] <= line < token.map[1] for line in deep)
    }
    if not spans:  # never seen: every block opens a line of its own
        return [_Edit(0, len(text), _flat(text))]
    edits = []
    for first, last in sorted(spans):
        start, end = lines.span([first, last])
        edits.append(_Edit(start, end, _flat(text[start:end])))
    return edits


def _flat(text: str) -> str:
    """``text`` with no block in another: no line indented, none opening a quote, a list item
    or a footnote (its marker escaped). What the lines say stays markdown, to be judged."""
    return "\n".join(_OPENER.sub(r"\1\\\2", line.lstrip()) for line in text.split("\n"))


def _depth_guard(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A block rule that never matches: it notes (`_TOO_DEEP`) that a block opened here, a
    list item two levels down, would hold blocks past ``maxNesting``, which markdown-it skips."""
    if state.level >= state.md.options["maxNesting"] - 2:
        state.env.setdefault(_TOO_DEEP, []).append(start)
    return False


def _as_written(url: str) -> str:
    return url


def _accept(url: str) -> bool:
    return True


def _make_parser() -> MarkdownIt:
    options: dict[str, Any] = {"html": True, "inline_definitions": True}
    parser = MarkdownIt("commonmark", options).enable(["table", "strikethrough"])
    # Each URL as written (entities decoded, escapes removed): judged here, not by markdown-it,
    # whose percent-encoding would hide backslashes another renderer reads as slashes.
    parser.normalizeLink = _as_written  # type: ignore[method-assign]
    parser.validateLink = _accept  # type: ignore[method-assign]
    linear_link_labels(parser)  # linear on runs of "["
    parser.inline.ruler.before("html_inline", "html_comment", _html_comment)
    # Footnotes (Obsidian renders them): a definition's text is markdown, its later indented
    # paragraphs too, where CommonMark reads a reference definition or an indented code block.
    # The definitions alone: a reference `[^1]` holds nothing to judge, and an inline footnote
    # `^[...]` is already text whose images and links are found.
    parser.block.ruler.before(
        "reference", "footnote_def", footnote_def, {"alt": ["paragraph", "reference"]}
    )
    parser.block.ruler.before(parser.block.ruler.get_all_rules()[0], "depth", _depth_guard)
    for name in parser.inline.ruler.get_all_rules():
        parser.inline.ruler.at(name, _spanned(_rule(parser, name)))
    return parser


def _html_comment(state: StateInline, silent: bool) -> bool:
    """An inline HTML comment as CommonMark defines it: from ``<!--`` to the first ``-->``
    after ``<!`` (``<!-->`` too). markdown-it's tag pattern refuses some ("<!--<!---->") and
    backtracks to the paragraph's end from each ``<!--`` of a run before refusing it:
    40,000 characters took 3 s. One never closed is no comment: its ``<`` is text."""
    start = state.pos
    if not state.src.startswith("<!--", start):
        return False
    # Each paragraph's last "-->", found once per parse (`env` is the parse's own).
    last_close: dict[str, int] = state.env.setdefault("last_comment_close", {})
    if state.src not in last_close:
        last_close[state.src] = state.src.rfind("-->")
    end = _comment_end(state.src, start, state.posMax, last_close[state.src])
    if end is None:
        return False
    if not silent:
        state.push("html_inline", "", 0).content = state.src[start:end]
    state.pos = end
    return True


def _comment_end(text: str, start: int, end: int, last_close: int) -> int | None:
    """Where the HTML comment opening at ``start`` ends: after the first ``-->`` from its
    ``<!`` (as CommonMark and a browser read it: ``<!-->`` too), before ``end``; None when
    nothing closes it. ``last_close``, the text's last ``-->``, spares a run of unclosed
    openers a search to the end from each."""
    if last_close < start + 2:
        return None
    close = text.find("-->", start + 2, end)
    return close + 3 if close >= 0 else None


def _rule(parser: MarkdownIt, name: str) -> Callable[[StateInline, bool], bool]:
    for rule in _rules(parser):
        if rule.name == name:
            return rule.fn  # type: ignore[no-any-return]
    raise KeyError(name)


def _rules(parser: MarkdownIt) -> Iterator[Any]:
    yield from parser.inline.ruler.__rules__


_PARSER = _make_parser()
