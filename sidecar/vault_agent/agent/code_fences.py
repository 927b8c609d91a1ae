"""Code blocks that render as code: a fence's language is kept only when it names one.

Obsidian hands a fenced block to whatever registered its language: ```` ```mermaid ```` draws a
diagram (whose labels may hold an ``<img>`` fetched when it is drawn), ```` ```math ```` typesets
(``\\href``), and plugins register more (Dataview's ```` ```dataviewjs ```` runs the block as
JavaScript, Tasks' ```` ```tasks ```` runs a query). In an answer a block is something quoted, to
be read: only the languages below, which Obsidian highlights as code and nothing more, keep their
name; any other fence loses its info string and shows its lines as plain code. An allowlist, so a
plugin's new language is plain code too.

The rule works on lines, not on a parse: any line that opens like a fence (after quote and list
markers) is treated as one. A line that only looks like a fence inside another code block loses
its language word, which shows as text there; a real fence is never missed, whatever a parser
would make of its container. The pane applies the same rule before Obsidian renders anything
(plugin/src/safe-fences.ts, the list coming from the contract).
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

#: A line opening a fence: quote and list markers, the fence, its info string.
_FENCE_LINE = re.compile(
    r"^(?P<lead>(?:[ \t]*(?:>|[-*+][ \t]|\d{1,9}[.)][ \t]))*[ \t]*)"
    r"(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$",
    re.MULTILINE,
)


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
