"""A field the note asked about doesn't record: "What's the ISBN of The Machine Stops?"

Notes of one kind record the same fields (`isbn:`, `director:`, `url:`), and a question naming
a note by its title and asking for one of them is answered by that note's property. When the
note lacks it (no value under that key, and no word of the note writes it) while notes of
its kind record it (those of its folder sharing most of its property names, as notes made
from one template do), the notes don't cover the question, however close the note's other
sentences read: quoting "There was the button that produced literature." for its ISBN would
pass a novel's line off as the answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from vault_agent.agent.extractive.plan import SearchPlan
from vault_agent.agent.extractive.scoring import of_key
from vault_agent.agent.reader import ToolsContext, folder_of
from vault_agent.index.embed.terms import Analyzer
from vault_agent.index.search.hits import SearchHit
from vault_agent.index.search.searcher import Passage
from vault_agent.index.search.titles import PHRASE_BOOST
from vault_agent.index.store.protocol import ChunkPayload, SearchFilter

#: Notes of the named note's folder read for the fields they record, at most.
SIBLINGS = 50
#: Notes sharing this much of their property names (of all either has) are of one kind.
KINDRED_SHARE = 0.5


def unrecorded_field(
    plan: SearchPlan, passages: list[Passage], context: ToolsContext
) -> SearchHit | None:
    """The note (a hit of it) search found first, which the question names by its title and
    asks for a field that notes of its kind record and it doesn't; None when there is none."""
    if plan.order or plan.how_to or plan.open_tasks or plan.kind or plan.days:
        return None  # "when did I last...": `last:` is a field, but also the newest day's note
    analyzer = context.searcher.sparse.analyzer
    asked = analyzer.terms(plan.question, query=True)
    # Asked of the note search found first: one named further down is not what it is about.
    named = passages[0] if passages else None
    if named is None or context.searcher.titles.boost(asked, named.chunk) < PHRASE_BOOST:
        return None
    file, title = named.hit.file, named.chunk
    rest = set(analyzer.subject_terms(plan.question, query=True)) - set(
        analyzer.terms(" ".join([title.title, *title.aliases]))
    )
    if not rest:
        return None  # "what about Blade Runner?" asks the note whole
    own = sorted(context.store.scroll(SearchFilter(files=[file])), key=lambda c: c.chunk_index)
    written = set(analyzer.terms(" ".join(_text(chunk) for chunk in own)))
    recorded = _keys(own[:1], analyzer)
    # What the note neither writes nor records must each be a field notes of its kind
    # record: "when was the Well Made episode with Kevin Kelly published?" asks Kevin Kelly's
    # note (a person's) for the `published:` of episodes, another kind of note.
    unknown = {term for term in rest - written if not of_key(term, recorded)}
    if not unknown:
        return None
    fields = _kindred_fields(file, _keys(own[:1], analyzer, empty=True), context, analyzer)
    return named.hit if all(of_key(term, fields) for term in unknown) else None


def _text(chunk: ChunkPayload) -> str:
    return "\n".join([chunk.heading, chunk.body, *chunk.properties])


def _keys(chunks: Iterable[ChunkPayload], analyzer: Analyzer, empty: bool = False) -> set[str]:
    """The terms of the property names `chunks` record a value under (`empty`: or none)."""
    return {
        term
        for chunk in chunks
        for line in chunk.properties
        if empty or not line.rstrip().endswith(":")
        for term in analyzer.terms(line.split(":", 1)[0])
    }


def _kindred_fields(
    file: str, keys: set[str], context: ToolsContext, analyzer: Analyzer
) -> set[str]:
    """The fields notes of `file`'s kind record: notes of its folder whose property names
    (`keys`: its own, with a value or not) are mostly its own, as notes made from one template
    are. A person's note (`categories`, `type`, `created`) is of another kind than a podcast
    episode's (`show`, `guests`, `published`...) in the same folder."""
    if not keys:
        return set()
    folder = folder_of(file)
    siblings = sorted(
        other
        for other in context.graph.files()
        if other != file and other.endswith(".md") and folder_of(other) == folder
    )[:SIBLINGS]
    if not siblings:
        return set()
    fields: set[str] = set()
    for chunk in context.store.scroll(SearchFilter(files=siblings, chunk_index=0)):
        theirs = _keys([chunk], analyzer, empty=True)
        if len(keys & theirs) >= KINDRED_SHARE * len(keys | theirs):
            fields |= _keys([chunk], analyzer)
    return fields
