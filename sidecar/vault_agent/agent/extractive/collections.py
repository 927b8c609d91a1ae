"""Questions asking for the notes of one kind: "what books have I read?", "which recipes do I
have?", "list my meetings".

Search ranks passages by how close they come to the question; such a question wants every note
of a kind, whatever its words. A vault says which notes are of a kind in one of four ways, looked
up in this order: a folder ("Recipes/"), a tag (#book), a `type` property (`type: meeting`), or
a category note its members link to (`categories: [[Books]]`, as kepano's vault does). The notes
found are listed, newest first when the question asks for recent ones, else by title. A list
is read as asked in English, German, French and Spanish; the kind's name is matched as the
vault's language stems it ("Bücher" names a folder "Bücher" and a tag "buch").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from vault_agent.agent.citations.links import NoteRef
from vault_agent.agent.extractive.units import split_units
from vault_agent.agent.reader import ToolsContext
from vault_agent.index.store.protocol import VAULT_SOURCE, ChunkPayload, SearchFilter
from vault_agent.vault.properties import is_bookkeeping, is_filing

#: Notes listed at most (the answer says how many more there are).
LISTED = 12
#: A folder or note name is stemmed to compare with the kind only when it starts with the
#: same this many letters.
STEM_PREFIX = 3
#: A listed note without text shows this many of its properties.
ROW_PROPERTIES = 3
#: The kinds of thing a question may ask for ("what *books* have I read?"), as it writes them,
#: in English, German, French and Spanish. Nothing more than when may follow: "...about
#: gardening?" asks for some of them, not a list.
_ASKS_LIST = re.compile(
    r"^\s*¿?(?:"
    r"(?:what|which) (?:are )?(?:all )?(?:the |my )?(?P<en>[\w-]+)"
    r" (?:do i have|have i(?: ever)? \w+|did i \w+|are (?:there )?in my (?:notes|vault))"
    r"(?: (?:to|at|in|on|with|from))?"
    r"(?: (?:recently|lately|so far|yet|this \w+|last \w+|in \d{4}))?"
    r"|(?:list|show me|show) (?:all )?(?:of )?(?:my |the )?(?P<listed>[\w-]+)"
    r"|welche (?P<de>[\w-]+) (?:habe ich|hatte ich|gibt es)(?: \w+)?"
    r"|(?:liste|zeige?) (?:mir )?(?:alle )?(?:meine )?(?P<de_listed>[\w-]+)(?: auf)?"
    r"|(?:quels|quelles) (?:sont )?(?:les |mes )?(?P<fr>[\w-]+) (?:ai-je|j'ai|avons-nous)(?: \w+)?"
    r"|(?:liste|montre-moi) (?:tous |toutes )?(?:les |mes )?(?P<fr_listed>[\w-]+)"
    r"|(?:qué|cuáles) (?:son )?(?:los |las |mis )?(?P<es>[\w-]+) (?:he|tengo|hay)(?: \w+)?"
    r")\s*[?.!]?\s*$",
    re.IGNORECASE,
)
_RECENT = re.compile(r"\b(?:recent(?:ly)?|latest|lately|last|newest)\b", re.IGNORECASE)
#: A note whose path says it is a template (a category's template links to it too).
_TEMPLATE = re.compile(r"template", re.IGNORECASE)


@dataclass(frozen=True)
class Collection:
    """The notes of one kind, as the vault keeps them, and how the answer names it."""

    described: str
    """"in Recipes", "tagged #book", "of type meeting", "linking to Books"."""
    notes: list[ChunkPayload]
    """Each note's first chunk, in the order to list them."""


def asked_kind(question: str) -> str:
    """The kind of note `question` asks for a list of ("books"), or "" when it asks none."""
    asked = _ASKS_LIST.match(question)
    if asked is None:
        return ""
    return next((kind.lower() for kind in asked.groups() if kind), "")


def collection(question: str, kind: str, context: ToolsContext) -> Collection | None:
    """The notes of `kind` in the vault (see the module's docstring), or None when the vault
    keeps no notes of that kind."""
    analyzer = context.searcher.sparse.analyzer
    stems = tuple(analyzer.terms(kind))  # "Bücher" is a German vault's "buch"
    forms = _forms(kind) | set(stems)

    def names(name: str) -> bool:
        # Stemming every file name of a large vault costs: only a name starting as the kind.
        written = name.lower()
        if written in forms:
            return True
        return written[:STEM_PREFIX] == kind[:STEM_PREFIX] and tuple(analyzer.terms(name)) == stems

    found = _in_folder(names, context) or _tagged(forms, context) or _typed(forms, context)
    found = found or _linked(names, context)
    if found is None:
        return None
    described, notes = found
    if _RECENT.search(question):
        notes.sort(key=lambda note: (note.date or note.created or "", note.mtime), reverse=True)
    else:
        notes.sort(key=lambda note: note.title.lower())
    return Collection(described, notes)


def row(note: ChunkPayload) -> tuple[NoteRef, str]:
    """A listed note: its citation, and what follows it (its date, its first sentence)."""
    said = next(
        (unit.text for unit in split_units(note.body, "") if not (unit.label or unit.navigation)),
        "",
    )
    if not said:  # a note of properties only ("rating: 7", "last: 2022-04") says them
        shown = [
            line
            for line in note.properties
            if not (line.endswith(":") or is_filing(line) or is_bookkeeping(line))
        ]
        said = "; ".join(shown[:ROW_PROPERTIES])
    day = (note.date or note.created or "")[:10]
    facts = f" ({day})" if day and day not in note.title else ""  # "2024-03-05" says it
    return NoteRef(file=note.file, title=note.title), f"{facts}: {said}" if said else facts


def _forms(kind: str) -> set[str]:
    """How a vault may spell `kind`: "books" as "book" or "Books", "recipe" as "recipes"."""
    singular = kind.removesuffix("es") if kind.endswith(("ches", "shes", "xes")) else kind
    singular = singular.removesuffix("s") if singular == kind else singular
    return {kind, singular, f"{singular}s"}


def _firsts(context: ToolsContext, only: SearchFilter) -> list[ChunkPayload]:
    """The first chunk of each note `only` keeps, templates left out: a kind's template is
    tagged, typed and linked as its notes are, and is none of them."""
    firsts = context.store.scroll(only.model_copy(update={"chunk_index": 0}))
    return [note for note in firsts if not _TEMPLATE.search(note.file)]


def _in_folder(
    names: Callable[[str], bool], context: ToolsContext
) -> tuple[str, list[ChunkPayload]] | None:
    folders = {PurePosixPath(file).parent for file in context.graph.files()}
    named = sorted(str(folder) for folder in folders if folder.name and names(folder.name))
    if not named:
        return None
    notes = _firsts(context, SearchFilter(folders=named, sources=[VAULT_SOURCE]))
    return (f"in {' and '.join(named)}", notes) if notes else None


def _tagged(forms: set[str], context: ToolsContext) -> tuple[str, list[ChunkPayload]] | None:
    for tag in sorted(forms):
        notes = _firsts(context, SearchFilter(tags=[tag]))
        if notes:
            return f"tagged #{tag}", notes
    return None


def _typed(forms: set[str], context: ToolsContext) -> tuple[str, list[ChunkPayload]] | None:
    for form in sorted(forms):
        for written in (form, form.capitalize()):
            notes = _firsts(context, SearchFilter(types=[written]))
            if notes:
                return f"of type {written}", notes
    return None


def _linked(
    names: Callable[[str], bool], context: ToolsContext
) -> tuple[str, list[ChunkPayload]] | None:
    """The notes linking to a note named like the kind ("Categories/Books.md")."""
    for file in sorted(context.graph.files()):
        if names(PurePosixPath(file).stem):
            members = sorted(set(context.graph.backlinks(file)))
            notes = _firsts(context, SearchFilter(files=members)) if members else []
            if notes:
                return f"linking to {PurePosixPath(file).stem}", notes
    return None
