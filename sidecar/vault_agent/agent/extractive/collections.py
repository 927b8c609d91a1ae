"""Questions asking for the notes of one kind: "what books have I read?", "which recipes do I
have?", "list my meetings", "what's in my inbox?".

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
from vault_agent.agent.extractive.units import Unit, split_units
from vault_agent.agent.reader import ToolsContext
from vault_agent.index.embed.terms import Analyzer
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
    r"(?: (?:the )?(?:highest|lowest|best|worst|most|least))?"
    r"|(?:list|show me|show) (?:all )?(?:of )?(?:my |the )?(?P<listed>[\w-]+)"
    r"|what(?:'s| is) in (?:my |the )(?P<en_in>[\w-]+)(?: folder)?"
    r"|was (?:ist|liegt) in meinem (?P<de_in>[\w-]+)(?:-?ordner)?"
    r"|qu'(?:y a-t-il|est-ce qu'il y a) dans (?:mon |ma |le |la )(?P<fr_in>[\w-]+)"
    r"|qué hay en (?:mi |el |la )(?P<es_in>[\w-]+)"
    r"|welche (?P<de>[\w-]+) (?:habe ich|hatte ich|gibt es)(?: \w+)?"
    r"|(?:liste|zeige?) (?:mir )?(?:alle )?(?:meine )?(?P<de_listed>[\w-]+)(?: auf)?"
    r"|(?:quels|quelles) (?:sont )?(?:les |mes )?(?P<fr>[\w-]+) (?:ai-je|j'ai|avons-nous)(?: \w+)?"
    r"|(?:liste|montre-moi) (?:tous |toutes )?(?:les |mes )?(?P<fr_listed>[\w-]+)"
    r"|(?:qué|cuáles) (?:son )?(?:los |las |mis )?(?P<es>[\w-]+) (?:he|tengo|hay)(?: \w+)?"
    r")\s*[?.!]?\s*$",
    re.IGNORECASE,
)
#: "Which books did I rate *highest*?": the notes ordered by the property the question names.
_HIGHEST = re.compile(r"\b(?:highest|best|most)\b", re.IGNORECASE)
_LOWEST = re.compile(r"\b(?:lowest|worst|least)\b", re.IGNORECASE)
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?")
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
    ordered_by: str = ""
    """The property they are ordered by ("rating"), when the question asks for an order."""


def asked_kind(question: str) -> str:
    """The kind of note `question` asks for a list of ("books"), or "" when it asks none."""
    asked = _ASKS_LIST.match(question)
    if asked is None:
        return ""
    return next((kind.lower() for kind in asked.groups() if kind), "")


def asks_contents(question: str) -> bool:
    """True when `question` asks what something holds ("what's in my inbox?"): a note named
    so is asked about itself, not as a category its members link to."""
    asked = _ASKS_LIST.match(question)
    return asked is not None and any(
        value for name, value in asked.groupdict().items() if name.endswith("_in")
    )


def collection(question: str, kind: str, context: ToolsContext) -> Collection | None:
    """The notes of `kind` in the vault (see the module's docstring), or None when the vault
    keeps no notes of that kind."""
    analyzer = context.searcher.sparse.analyzer
    forms = _spellings(kind, analyzer)
    names = _namer(kind, analyzer)
    found = _in_folder(names, context) or _tagged(forms, context) or _typed(forms, context)
    if not asks_contents(question):  # "what's in my inbox?" of Inbox.md: what it says
        found = found or _linked(names, context)
    if found is None:
        return None
    described, notes = found
    ranked = _by_property(question, kind, notes, analyzer)
    if ranked is not None:
        key, ordered = ranked
        return Collection(f"{described}, by {key}", ordered, key)
    if _RECENT.search(question):
        notes.sort(key=lambda note: (note.date or note.created or "", note.mtime), reverse=True)
    else:
        notes.sort(key=lambda note: note.title.lower())
    return Collection(described, notes)


def held_by_note(kind: str, context: ToolsContext) -> tuple[NoteRef, list[Unit]] | None:
    """The note named `kind` ("what's in my inbox?" of `Inbox.md`) and what it holds: its
    units in order, links-only lists and labels left out; None when no note is so named."""
    names = _namer(kind, context.searcher.sparse.analyzer)
    files = sorted(
        file
        for file in context.graph.files()
        if file.endswith(".md") and names(PurePosixPath(file).stem)
    )
    return note_units(files[0], context) if files else None


def note_units(file: str, context: ToolsContext) -> tuple[NoteRef, list[Unit]] | None:
    """The indexed note `file` and what it holds: its units in order, links-only lists and
    labels left out; None when the index holds no chunk of it."""
    chunks = sorted(context.store.scroll(SearchFilter(files=[file])), key=_chunk_order)
    if not chunks:
        return None
    units = [
        unit
        for chunk in chunks
        for unit in split_units(chunk.body, chunk.heading, chunk.table_header)
        if not (unit.navigation or unit.label)
    ]
    return NoteRef(file=chunks[0].file, title=chunks[0].title), units


def is_template(file: str) -> bool:
    """True for a note whose path says it is a template: a kind's or a journal's template
    is tagged, typed, linked and filed as its notes are, and is none of them."""
    return bool(_TEMPLATE.search(file))


def _chunk_order(chunk: ChunkPayload) -> int:
    return chunk.chunk_index


def _namer(kind: str, analyzer: Analyzer) -> Callable[[str], bool]:
    """Whether a folder or note name names `kind`: as written, in another number ("books",
    "Book"), or as the vault's language stems it ("Bücher" is a German vault's "buch")."""
    stems = tuple(analyzer.terms(kind))
    forms = _spellings(kind, analyzer)

    def names(name: str) -> bool:
        # Stemming every file name of a large vault costs: only a name starting as the kind.
        written = name.lower()
        if written in forms:
            return True
        return written[:STEM_PREFIX] == kind[:STEM_PREFIX] and tuple(analyzer.terms(name)) == stems

    return names


def _by_property(
    question: str, kind: str, notes: list[ChunkPayload], analyzer: Analyzer
) -> tuple[str, list[ChunkPayload]] | None:
    """`notes` ordered by the number in the property the question names ("which books did I
    *rate* highest?" and ``rating: 7``), highest or lowest first as it asks, those without
    it left out, with the property's key; None when it asks for no order or names no
    property they hold."""
    highest, lowest = bool(_HIGHEST.search(question)), bool(_LOWEST.search(question))
    if highest == lowest:
        return None
    asked = set(analyzer.terms(question, query=True)) - set(analyzer.terms(kind))
    valued: list[tuple[float, ChunkPayload]] = []
    keys: list[str] = []
    for note in notes:
        for line in note.properties:
            key, _, value = line.partition(": ")
            number = _NUMBER.match(value.strip())
            if number and asked & set(analyzer.terms(key)):
                valued.append((float(number.group()), note))
                keys.append(key)
                break
    if not valued:
        return None
    valued.sort(key=lambda pair: pair[0], reverse=highest)
    return max(set(keys), key=keys.count), [note for _, note in valued]


def row(note: ChunkPayload, ordered_by: str = "") -> tuple[NoteRef, str]:
    """A listed note: its citation, and what follows it (the property the list is ordered by,
    its date, its first sentence)."""
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
    ordering = next((p for p in note.properties if p.startswith(f"{ordered_by}: ")), "")
    if ordered_by and ordering:
        facts = f" ({ordering})"
        said = "" if said == ordering or ordering in said.split("; ") else said
    return NoteRef(file=note.file, title=note.title), f"{facts}: {said}" if said else facts


def _spellings(kind: str, analyzer: Analyzer) -> set[str]:
    """`kind` in either number (`_forms`) and as the vault's language stems it."""
    return _forms(kind) | set(analyzer.terms(kind))


def _forms(kind: str) -> set[str]:
    """How a vault may spell `kind`: "books" as "book" or "Books", "recipe" as "recipes"."""
    singular = kind.removesuffix("es") if kind.endswith(("ches", "shes", "xes")) else kind
    singular = singular.removesuffix("s") if singular == kind else singular
    return {kind, singular, f"{singular}s"}


def _firsts(context: ToolsContext, only: SearchFilter) -> list[ChunkPayload]:
    """The first chunk of each note `only` keeps, templates left out: a kind's template is
    tagged, typed and linked as its notes are, and is none of them."""
    firsts = context.store.scroll(only.model_copy(update={"chunk_index": 0}))
    return [note for note in firsts if not is_template(note.file)]


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
