"""Markdown structure of a note body: headings, links and inline tags, read the way Obsidian does.

Owns the markdown-it configuration (CommonMark + tables + strikethrough + `$math$` + a
`[[wikilink]]` rule) and the walk over its tokens. Because only prose tokens are scanned,
fenced/indented code, inline code, math and HTML never yield tags or links. Obsidian comments
(`%% ... %%`) and Templater commands (`<% ... %>`) are hidden before the walk.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Literal, NamedTuple
from urllib.parse import unquote

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

# Obsidian tag: '#' at the start or after whitespace, then letters/digits/_/-/'/'.
_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
#: An ATX heading line: its marks, then its text to the line's end (see `atx_heading`).
_ATX_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+)$")
_URL_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")
# Stands in for inline code, math, links and escapes: neither whitespace nor a tag character,
# so `x`#tag is not a tag (as in Obsidian) while `x` #tag is.
_OPAQUE = "\ufffc"
_HIDDEN_OPENERS = re.compile(r"(`+)|%%|<%")
_BACKTICKS = re.compile(r"`+")
_MAYBE_CODE = re.compile(r"```|~~~|\$\$|^(?: {4}|\t)", re.MULTILINE)
# A link's parts stop at a "[" (no link's name or address holds one): read from each "[[" (or
# "[a](") of a run to the line's end, 8,000 characters of "[[" took 2.3 s, 120,000 of "[a](" 10 s.
WIKILINK = re.compile(r"(?P<embed>!?)\[\[(?P<inner>[^\[\]\n]*)\]\]")
MARKDOWN_LINK = re.compile(r"(?P<image>!?)\[(?P<text>[^\[\]\n]*)\]\([^)\[\]\n]*\)")
#: What no sentence ends inside, besides code: a link (to a heading that asks, "[[FAQ#Can
#: I...？]]").
_LINKS = (WIKILINK, MARKDOWN_LINK)
#: Link text may nest brackets this deep ("[a [b] c](x)" is 2); deeper runs of "[" stay text.
MAX_LABEL_NESTING = 8


@dataclass
class RawLink:
    """A link as found in the text, before it becomes a `notes.Link`."""

    target: str
    subpath: str | None
    display: str | None
    embed: bool
    kind: Literal["wikilink", "markdown"]

    @property
    def shown(self) -> str:
        """The words a reader sees for it: its display text, else the note's name, else (a
        link within the note, `[[#Default properties]]`) the heading or block it points to."""
        return self.display or self.target.rsplit("/", 1)[-1] or self.subpath or ""


class HeadingSpan(NamedTuple):
    """A top-level heading and its lines [start, end) (0-based, within the body)."""

    level: int
    text: str
    start: int
    end: int


@dataclass
class MarkdownFacts:
    """What the token walk found in a body."""

    headings: list[HeadingSpan] = field(default_factory=list)
    links: list[RawLink] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)


def cuts_outside_links(boundary: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The matches of `boundary` in `text` that fall outside its links and code spans: a
    heading linked to ("[[FAQ#Can I use both？]]", "[[FAQ#Is it free? Yes|...]]") or a
    command in code ends no sentence of the note's, and no chunk is cut inside one."""
    if "[" not in text and "`" not in text:
        yield from boundary.finditer(text)
        return
    # Both run in order, the spans never overlapping: walked together, in linear time.
    spans = _spans(text, _LINKS)
    span = 0
    for match in boundary.finditer(text):
        while span < len(spans) and spans[span][1] <= match.start():
            span += 1
        if span == len(spans) or spans[span][0] >= match.start():
            yield match


def atx_heading(line: str) -> tuple[int, str] | None:
    """The level and text of an ATX heading line ("## Setup ##": 2, "Setup"), or None.

    The text runs to the line's end; its closing "#"s and spaces are then cut off. A lazy text
    before them tried the rest of the line from each of its characters: a heading line of
    20,000 characters of " #" took 4.7 s (quadratic)."""
    match = _ATX_HEADING.match(line)
    if match is None:
        return None
    written = match.group(2)
    return len(match.group(1)), (written.rstrip(" \t#") or written[:1]).strip()


def hide_hidden(body: str) -> str:
    """`body` without what Obsidian never shows: `%% comments %%` and `<% templater %>`
    (outside code, where they are text)."""
    if "%%" not in body and "<%" not in body:
        return body
    # Comment markers inside code are text: find the code blocks first (block pass only, and
    # only when the body could hold one).
    return hide_comments(body, code_lines(body))


def code_lines(body: str) -> set[int]:
    """The lines (0-based) of `body` inside code or math blocks, fenced or indented."""
    return _code_lines(_parsers()[1].parse(body)) if _MAYBE_CODE.search(body) else set()


def scan_markdown(body: str) -> MarkdownFacts:
    """Headings (top level only, with their line span), links and inline tags of `body`."""
    tokens = _parsers()[0].parse(hide_hidden(body))
    facts = MarkdownFacts()
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.level == 0 and token.map:
            title = " ".join(tokens[index + 1].content.split("\n")).strip()  # setext: 2+ lines
            facts.headings.append(HeadingSpan(int(token.tag[1:]), title, *token.map))
        elif token.type == "inline" and token.children:
            _scan_inline(token.children, facts)
    return facts


def rendered_wikilinks(markdown: str) -> set[str]:
    """Every ``[[...]]`` and ``![[...]]`` of `markdown` that renders as a link (not in code,
    math or raw HTML), as written."""
    found: set[str] = set()
    pending = [token for token in _parsers()[0].parse(markdown) if token.children]
    while pending:
        for child in pending.pop().children or []:
            if child.type == "wikilink":
                found.add(f"{'!' if child.meta.get('embed') else ''}[[{child.content}]]")
            elif child.children:  # an image's alt text
                pending.append(child)
    return found


def parse_wikilink(inner: str, embed: bool) -> RawLink | None:
    """`Target#Sub|Display` (the text between the brackets) as a link; None if it is empty."""
    inner = inner.replace("\\|", "|")
    target_part, has_display, display = inner.partition("|")
    target, has_subpath, subpath = target_part.partition("#")
    target = target.strip()
    subpath = subpath.strip() if has_subpath else ""
    if not target and not subpath:
        return None
    return RawLink(
        target=target,
        subpath=subpath or None,
        display=display.strip() or None if has_display else None,
        embed=embed,
        kind="wikilink",
    )


def hide_comments(text: str, code_lines: set[int]) -> str:
    """`text` with `%% comments %%` and `<% templater %>` removed outside code; lines are kept.

    An unclosed `%%` hides the rest of the note, as in Obsidian; an unclosed `<%` is left alone.
    """
    out: list[str] = []
    closer: str | None = None  # the delimiter that ends the hidden region we are in, if any
    offset = 0
    # Whether a "<%" is closed later is whether the text's last "%>" is after it: found once,
    # not sought to the end from each "<%" of a run (80,000 characters: 4.5 s).
    last_close = text.rfind("%>")
    for number, line in enumerate(text.split("\n")):
        if closer is None and number in code_lines:
            out.append(line)
        else:
            kept, closer = _hide_in_line(line, closer, last_close - offset)
            out.append(kept)
        offset += len(line) + 1
    return "\n".join(out)


def _hide_in_line(line: str, closer: str | None, last_close: int) -> tuple[str, str | None]:
    """One line with its hidden parts removed, and the delimiter still open at its end.
    ``last_close`` is where the note's last "%>" is, from the line's start."""
    kept: list[str] = []
    pos = 0
    span_ends: dict[int, int | None] | None = None  # read once, when the line holds code
    while pos < len(line):
        if closer is not None:
            end = line.find(closer, pos)
            if end < 0:
                break
            pos, closer = end + len(closer), None
            continue
        match = _HIDDEN_OPENERS.search(line, pos)
        if match is None:
            kept.append(line[pos:])
            break
        if match.group(1):  # an inline code span: copy it untouched
            if span_ends is None:
                span_ends = _code_span_ends(line)
            end = span_ends.get(match.start()) or match.end()
            kept.append(line[pos:end])
            pos = end
            continue
        kept.append(line[pos : match.start()])
        pos = match.end()
        if match.group() == "%%":
            closer = "%%"
        elif last_close >= pos:
            closer = "%>"
        else:
            kept.append(match.group())  # a lone "<%" is just text
    return "".join(kept), closer


def code_spans(text: str) -> list[tuple[int, int]]:
    """Where the code spans of `text` start and end: a run of backticks, what it holds (on its
    line), the next run of as many."""
    return _spans(text, ())


def _spans(text: str, links: Sequence[re.Pattern[str]]) -> list[tuple[int, int]]:
    """Where `links` or code spans are in `text`, leftmost first, as one pattern of them all
    (links first, then code) would find them, in linear time: a pattern seeking each run of
    backticks' closing run reads the line again from each (runs of distinct lengths: 1.3 MB
    took 10 s)."""
    # A run that opens no span is no span's start, from wherever the text is read.
    code = sorted((start, end) for start, end in _code_span_ends(text).items() if end is not None)
    found = [pattern.search(text) for pattern in links]
    spans: list[tuple[int, int]] = []
    position, run = 0, 0
    while True:
        while run < len(code) and code[run][0] < position:
            run += 1
        candidates = code[run : run + 1]
        for index, pattern in enumerate(links):
            match = found[index]
            if match is not None and match.start() < position:
                match = found[index] = pattern.search(text, position)
            if match is not None:
                candidates.insert(index, match.span())
        if not candidates:
            return spans
        span = min(candidates, key=lambda candidate: candidate[0])  # the first listed of a tie
        spans.append(span)
        position = span[1]


def _code_span_ends(text: str) -> dict[int, int | None]:
    """Where each run of backticks of `text` (by its start) ends the code span it opens: after
    the next run of as many backticks on its line, or None when none follows. Read once, right
    to left: sought from each run, runs of distinct lengths took 10 s on a 1 MB line."""
    ends: dict[int, int | None] = {}
    next_run_end: dict[int, int] = {}  # by length, the end of the nearest run to the right
    right = len(text)  # where the run to the right starts
    for run in reversed(list(_BACKTICKS.finditer(text))):
        start, end = run.span()
        if text.find("\n", end, right) >= 0:  # a span ends on its own line
            next_run_end.clear()
        ends[start] = next_run_end.get(end - start)
        next_run_end[end - start] = end
        right = start
    return ends


def _code_lines(tokens: list[Token]) -> set[int]:
    lines: set[int] = set()
    for token in tokens:
        if token.type in ("fence", "code_block", "math_block") and token.map:
            lines.update(range(token.map[0], token.map[1]))
    return lines


def _scan_inline(children: list[Token], facts: MarkdownFacts) -> None:
    """Collect links and tags from one inline token's children, in order."""
    prose: list[str] = []
    link_depth = 0
    link: RawLink | None = None
    label: list[str] = []
    for child in children:
        kind = child.type
        if kind == "link_open":
            link_depth += 1
            link = _markdown_link(str(child.attrs.get("href", "")), embed=False, display=None)
            label = []
            prose.append(_OPAQUE)
        elif kind == "link_close":
            link_depth = max(0, link_depth - 1)
            if link is not None:
                link.display = "".join(label).strip() or None
                facts.links.append(link)
                link = None
        elif link_depth:
            if kind in ("text", "code_inline", "text_special"):
                label.append(child.content)
        elif kind == "text":
            prose.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            prose.append("\n")
        elif kind == "wikilink":
            wikilink = parse_wikilink(child.content, embed=bool(child.meta.get("embed")))
            if wikilink is not None:
                facts.links.append(wikilink)
            prose.append(_OPAQUE)
        elif kind == "image":
            alt = child.content.strip() or None
            image = _markdown_link(str(child.attrs.get("src", "")), embed=True, display=alt)
            if image is not None:
                facts.links.append(image)
            prose.append(_OPAQUE)
        elif not kind.endswith(("_open", "_close")):  # code, math, html, escapes
            prose.append(_OPAQUE)
    for match in _TAG.finditer("".join(prose)):
        facts.tags.append(match.group(1))


def _markdown_link(href: str, *, embed: bool, display: str | None) -> RawLink | None:
    """A `[text](path)` link to a vault file; None for URLs (http:, mailto:, obsidian:...)."""
    href = href.strip()
    if not href or _URL_SCHEME.match(href):
        return None
    path, has_subpath, subpath = href.partition("#")
    return RawLink(
        target=unquote(path).strip(),
        subpath=unquote(subpath).strip() or None if has_subpath else None,
        display=display,
        embed=embed,
        kind="markdown",
    )


def wikilink_rule(state: StateInline, silent: bool) -> bool:
    """Inline rule for `[[...]]` and `![[...]]` (one line, up to the first `]]`)."""
    src, pos = state.src, state.pos
    embed = src.startswith("![[", pos)
    if not embed and not src.startswith("[[", pos):
        return False
    start = pos + (3 if embed else 2)
    # It ends at the first "]]" before the next "[[" or line break: looking no further keeps
    # a line of a hundred thousand "[[" linear instead of quadratic.
    limit = src.find("[[", start, state.posMax)
    limit = state.posMax if limit < 0 else limit
    line_end = src.find("\n", start, limit)
    end = src.find("]]", start, limit if line_end < 0 else line_end)
    if end < 0:
        return False
    inner = src[start:end]
    if not inner.strip() or "\n" in inner or "[[" in inner:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = inner
        token.meta = {"embed": embed}
    state.pos = end + 2
    return True


def link_label(state: StateInline, start: int, disable_nested: bool = False) -> int:
    """markdown-it's `parseLinkLabel` (the end of the link text opened at `start`, or -1),
    except that it gives up when brackets nest deeper than `MAX_LABEL_NESTING`: without a
    bound, every "[" of a long run of them scans to the end of the paragraph (quadratic)."""
    old_pos = state.pos
    state.pos = start + 1
    level = 1
    found = False
    while state.pos < state.posMax:
        marker = state.src[state.pos]
        if marker == "]":
            level -= 1
            if level == 0:
                found = True
                break
        previous = state.pos
        state.md.inline.skipToken(state)
        if marker == "[":
            if previous == state.pos - 1:  # a "[" that is text, not part of a token
                level += 1
                if level > MAX_LABEL_NESTING:
                    break
            elif disable_nested:
                state.pos = old_pos
                return -1
    end = state.pos if found else -1
    state.pos = old_pos
    return end


def _identity(url: str) -> str:
    return url


def _accept(url: str) -> bool:
    return True


def linear_link_labels(parser: MarkdownIt) -> MarkdownIt:
    """`parser` finding the end of a link's text in linear time (`link_label`): markdown-it's
    own scans to the paragraph's end from every `[` of a run (100 KB of `[`: 10 s)."""
    from markdown_it import helpers

    parser.helpers = SimpleNamespace(  # type: ignore[assignment]
        parseLinkLabel=link_label,
        parseLinkDestination=helpers.parseLinkDestination,
        parseLinkTitle=helpers.parseLinkTitle,
    )
    return parser


def obsidian_syntax(parser: MarkdownIt) -> MarkdownIt:
    """`parser` reading links as Obsidian writes them: `[[wikilinks]]`, hrefs kept as written
    (we read them, never render them), link labels parsed in linear time."""
    parser.inline.ruler.before("link", "wikilink", wikilink_rule)
    linear_link_labels(parser)
    parser.normalizeLink = _identity  # type: ignore[method-assign]
    parser.validateLink = _accept  # type: ignore[method-assign]
    return parser


def _make_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    options: dict[str, Any] = {"html": True}
    parser = MarkdownIt("commonmark", options).enable(["table", "strikethrough"])
    # Keep escapes and entities as separate tokens so `\#word` never becomes a tag.
    parser.disable("text_join")
    # Obsidian's inline math: `$x$` with no space inside the dollars, so "$5 and $10" is prose.
    dollarmath_plugin(parser, allow_labels=False, allow_space=False, allow_digits=False)
    return obsidian_syntax(parser)


@functools.cache
def _parsers() -> tuple[MarkdownIt, MarkdownIt]:
    """The parser and its block pass alone, made on first use: markdown-it takes ~60 ms to
    import, which a command that parses no note (a search of an unchanged vault) never needs."""
    return _make_parser(), _make_parser().disable("inline")
