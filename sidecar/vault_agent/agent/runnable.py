"""Text in an answer that Obsidian or another plugin would run rather than show, made inert.

An answer is quoted text, to be read in the pane, saved as a note ("Save as note") or inserted
into one. Three kinds of markdown are programs to the plugins people install with Obsidian:

- a fenced block is handed to whatever registered its language, while it renders:
  ```` ```mermaid ```` draws a diagram (whose labels may hold an ``<img>`` fetched when it is
  drawn), ```` ```math ```` typesets (``\\href``), Dataview's ```` ```dataviewjs ```` runs the
  block as JavaScript, Tasks' ```` ```tasks ```` runs a query. Only the languages of
  `CODE_LANGUAGES`, which Obsidian highlights as code and nothing more, keep their name; any
  other fence loses its info string and shows its lines as plain code. An allowlist, so a
  plugin's new language is plain code too;
- Templater runs every ``<% ... %>`` of a note created while "Trigger Templater on new file
  creation" is on (``<%* ... %>`` is JavaScript with Node's ``require``), in code too: it reads no
  markdown. A saved answer is such a note;
- Dataview evaluates code whose text, trimmed, starts with ``=`` (a query, on by default: it can
  read any note's properties and renders a string result as markdown, an image URL too) or
  ``$=`` (JavaScript): a code span, a raw ``<code>``, and a code block too (its
  `inlineQueriesInCodeblocks` is on by default).

A zero-width space (U+200B) after ``<`` and before ``=`` (no space to JavaScript's ``trim()``)
breaks each command without changing what a reader sees. The rules work on lines and
characters, not on a parse: any line that opens like a fence (after quote and list markers, or
a footnote's label) is treated as one, any backtick run followed by ``=`` as inline code and
any line starting with ``=`` as a code block's, so a real one is never missed; a look-alike in
prose only gains an invisible character. The pane applies the same rules before Obsidian
renders anything (plugin/src/runnable.ts, the language list coming from the contract).
"""

from __future__ import annotations

import re

#: Languages a fence may keep: Obsidian highlights them (Prism) and runs nothing on them.
CODE_LANGUAGES = frozenset(
    {
        *("bash", "sh", "shell", "zsh", "fish", "console", "powershell", "ps1", "bat", "cmd"),
        *("c", "cpp", "c++", "h", "hpp", "cs", "csharp", "java", "kotlin", "kt", "scala", "groovy"),
        *("go", "rust", "rs", "swift", "objectivec", "objc", "dart", "zig", "nim", "d"),
        *("python", "py", "ruby", "rb", "php", "perl", "lua", "r", "julia", "matlab", "elixir"),
        *("erlang", "haskell", "hs", "clojure", "lisp", "scheme", "racket", "ocaml", "fsharp"),
        *("js", "javascript", "jsx", "mjs", "ts", "typescript", "tsx", "coffeescript", "wasm"),
        *("json", "json5", "jsonc", "yaml", "yml", "toml", "ini", "properties", "xml", "csv"),
        *("html", "css", "scss", "sass", "less", "svelte", "vue", "handlebars", "twig", "liquid"),
        *("markdown", "md", "latex", "tex", "bibtex", "sql", "graphql", "regex", "diff", "log"),
        *("dockerfile", "docker", "makefile", "cmake", "nginx", "apacheconf", "nix", "hcl"),
        *("protobuf", "vim", "asm", "nasm", "fortran", "pascal", "vb", "vba", "applescript"),
        *("text", "txt", "plain", "plaintext"),
    }
)

#: What may open a line before a fence or a code line: quote and list markers, a footnote's
#: label (its text is parsed as blocks).
_LEAD = r"(?:[ \t]*(?:>|[-*+][ \t]|\d{1,9}[.)][ \t]|\[\^[^\]\s]+\]:))*"
#: A line opening a fence: its lead, the fence, its info string.
_FENCE_LINE = re.compile(
    rf"^(?P<lead>{_LEAD}[ \t]*)(?P<fence>`{{3,}}|~{{3,}})(?P<info>[^\n]*)$", re.MULTILINE
)


#: What starts a Templater command.
_TEMPLATER = re.compile(r"<(?=%)")
#: JavaScript's `trim()` strips these (Python's `\s` and the byte order mark): Dataview reads
#: a code element's text trimmed.
_SPACE = r"[\s\ufeff]"
#: Dataview evaluates a code element whose trimmed text starts with "=" (a query) or "$="
#: (JavaScript): a code span (a backtick run is tried from its start only: from each of
#: 100,000 backticks took minutes), a raw <code>, or a code block's first line, which may be
#: any line (a line of "=" alone underlines a heading).
_DATAVIEW_CODE = re.compile(rf"((?<!`)`+{_SPACE}*|<code>{_SPACE}*)(?=\$?=)", re.IGNORECASE)
#: Within one line: each line is tried (and a run of blank lines is not read from each of them).
_LINE_SPACE = r"(?:[^\S\r\n]|\ufeff)"
_DATAVIEW_LINE = re.compile(rf"^({_LEAD}{_LINE_SPACE}*)(?=\$=|=(?!=*[ \t]*$))", re.MULTILINE)
#: Invisible, and no whitespace to Dataview's `trim()`: "`\u200b= x`" is code, not a query.
ZERO_WIDTH_SPACE = "\u200b"


def inert(markdown: str) -> str:
    """`markdown` with nothing another plugin runs: fences plain code unless a programming
    language's, Templater's ``<%`` and Dataview's inline ``=`` / ``$=`` broken."""
    text = _TEMPLATER.sub("<" + ZERO_WIDTH_SPACE, plain_fences(markdown))
    text = _DATAVIEW_CODE.sub(lambda run: run[1] + ZERO_WIDTH_SPACE, text)
    return _DATAVIEW_LINE.sub(lambda line: line[1] + ZERO_WIDTH_SPACE, text)


def plain_fences(markdown: str) -> str:
    """`markdown` with the info string of every fence not naming a `CODE_LANGUAGES` language
    removed (its lines then render as plain code)."""
    return _FENCE_LINE.sub(_plain, markdown)


def _plain(line: re.Match[str]) -> str:
    info = line["info"]
    if line["fence"].startswith("`") and "`" in info:
        return line[0]  # "```mermaid```" is inline code, not a fence
    language = re.split(r"[\s{]", info.strip(), maxsplit=1)[0].lower()
    if not language or language in CODE_LANGUAGES:
        return line[0]
    return f"{line['lead']}{line['fence']}"
