"""The names and identifiers written in a query: the words that mean the same in any language.

A name (`Todoist`, `Tokyo`), an identifier (`app.vault.getFiles`, `snake_case`, `iOS`) or an
acronym (`LSP`) is written alike in a note of any language, which plain words are not. Keyword
search across languages keeps only these (`bm25.py`), and a name the vault never mentions is
evidence it doesn't answer (`search/confidence.py`).
"""

from __future__ import annotations

import re

# A name or identifier as written: a capital after the first letter of the word (camelCase,
# "iOS"), all capitals (LSP, BOTW), dots/underscores between letters (app.vault.getFiles),
# a version (1.4.5), a file extension or dot-folder (.docx, .obsidian), or a capitalised word
# past the first word of a sentence (Todoist).
_IDENTIFIER = re.compile(
    r"\b\w+(?:[._]\w+)+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z]{2,}[a-z]*s?\b|\bv?\d+(?:\.\d+)+\b"
    r"|(?<![\w.])\.[A-Za-z][\w-]{1,15}\b"
)
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+\w*\b")
#: A capitalised word right after these (or first) starts a sentence: no sign of a name.
_SENTENCE_START = ".!?:\"'(«“¿¡"
#: Languages that capitalise every noun: a capital says nothing of a name there.
_NOUNS_CAPITALISED = {"de", "lb"}
#: Quoted or backticked text is meant literally.
_QUOTED = re.compile(r"`([^`]+)`|\"([^\"]+)\"|“([^”]+)”|«([^»]+)»")


def names_in(query: str, language: str) -> list[str]:
    """The names, identifiers and quoted phrases of `query` (written in `language`), in order
    of appearance, each once."""
    found: list[tuple[int, str]] = []
    for match in _QUOTED.finditer(query):
        found.append((match.start(), next(group for group in match.groups() if group)))
    found += [(match.start(), match.group()) for match in _IDENTIFIER.finditer(query)]
    if language not in _NOUNS_CAPITALISED:
        for match in _CAPITALISED.finditer(query):
            before = query[: match.start()].rstrip()
            if before and before[-1] not in _SENTENCE_START:
                found.append((match.start(), match.group()))
    return list(dict.fromkeys(name for _, name in sorted(found)))
