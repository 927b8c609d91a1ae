"""The extractive answer's markdown: the quotes that answer, then the other notes that bear on
the question, each cited to the heading it sits under; or, when nothing answers, why not.
"""

from __future__ import annotations

from vault_agent.agent.citations.links import NoteRef, cite, note_title
from vault_agent.agent.extractive.scoring import Quote

#: Notes quoted after the answer, at most.
MORE_NOTES = 3
#: A longer quote is cut at a word.
QUOTE_CHARS = 400
DISCLAIMER = "_Extractive answer: sentences quoted from your notes, no language model involved._"
NOT_COVERED = "Your notes don't seem to cover this."
UNSURE = "Your notes may not answer this directly; the closest they come:"
SEARCH_FAILED = "I could not search your notes, so I have no answer. The search said: "
NOTHING = (
    "I couldn't find anything about this in your notes. Try other words, or check that the "
    "notes you expect are indexed."
)


def compose(first: list[Quote], kept: list[Quote], dated: bool, unsure: bool = False) -> str:
    """The answer: `first` (with the date of its note for a last/first question, `dated`),
    then up to MORE_NOTES other notes among `kept`, two quotes each; `unsure` opens it with
    the notes may not answer it directly."""
    # Nothing found comes close enough to be sure: the quotes are the nearest, said as such.
    lines = [UNSURE, ""] if unsure else []
    # A last/first question is answered by a date: it opens the line.
    for quote in first:
        said = f"{clip(quote.unit.text)} {quote.link}"
        # A property dated by its own value ("published: 2022-09-16") says it already.
        dated_line = dated and quote.date and not quote.dates_itself
        lines.append(f"{quote.date}: {said}" if dated_line else said)
        if quote.unit.shows:  # the code or the list the sentence introduces
            lines.append(quote.unit.shows)
    shown = {(q.ref.file, q.unit.text) for q in first}
    more: dict[str, list[Quote]] = {}
    for quote in kept:
        if (quote.ref.file, quote.unit.text) in shown or _shown_after(quote, first):
            continue
        if quote.unit.label:  # "Making the crust", a callout's "Note": names, says nothing
            continue
        if quote.ref.file in more or len(more) < MORE_NOTES:
            group = more.setdefault(quote.ref.file, [])
            if len(group) < 2:
                group.append(quote)
    if more:
        lines += ["", "**More from your notes**"]
        for quotes in more.values():
            title = quotes[0].ref.title or note_title(quotes[0].ref.file)
            lines.append(f"- **{title}**: {_in_order(quotes)}")
    lines += ["", DISCLAIMER]
    return "\n".join(lines)


def _shown_after(quote: Quote, first: list[Quote]) -> bool:
    """True when `quote` is among the code, items or steps a quote of `first` shows (or is
    one, numbered)."""
    return any(
        q.ref.file == quote.ref.file
        and (quote.unit.text in q.unit.text or quote.unit.text in q.unit.shows)
        for q in first
    )


def _in_order(quotes: list[Quote]) -> str:
    """A note's quotes in the note's order, each run under one heading cited to it: sentences
    that follow each other read on, a gap between them shows as "…"."""
    ordered = sorted(quotes, key=lambda quote: quote.place)
    parts: list[str] = []
    for position, quote in enumerate(ordered):
        before = ordered[position - 1] if position else None
        if before is not None:
            if before.link != quote.link:
                parts.append(f"{before.link} …")  # another section: cite the one just quoted
            elif quote.place != (before.chunk, before.unit.position + 1):
                parts.append("…")
        parts.append(clip(quote.unit.text))
    parts.append(ordered[-1].link)
    return " ".join(parts)


def listing(described: str, rows: list[tuple[NoteRef, str]], total: int) -> str:
    """The notes of one kind (`rows`: each note and what follows its link), `described` as
    the vault keeps them ("tagged #book"), and how many more there are of the `total`."""
    opening = f"{total} {'note' if total == 1 else 'notes'} {described}:"
    items = [f"{cite(ref)}{clip(said)}" for ref, said in rows]
    return _bulleted(opening, items, f"… and {total - len(rows)} more", total > len(rows))


def holding(note: NoteRef, rows: list[tuple[NoteRef, str]], total: int) -> str:
    """What one note holds (`rows`: each unit's text and the heading it sits under), and how
    many more of its `total` units there are."""
    opening = f"{note.title or note_title(note.file)} holds:"
    items = [f"{clip(said)} {cite(ref)}" for ref, said in rows]
    remainder = f"… and {total - len(rows)} more in {cite(note)}"
    return _bulleted(opening, items, remainder, total > len(rows))


def in_series(
    note: NoteRef,
    named: str,
    newest: bool,
    count: int,
    folder: str,
    rows: list[tuple[NoteRef, str]],
    total: int,
) -> str:
    """The newest (oldest, not `newest`) of a series of `count` notes kept in `folder`, named
    by `named` (its date or version), and what it holds (`rows`, of its `total` units)."""
    which = "newest" if newest else "oldest"
    where = f"in {folder}" if folder else "at the top of the vault"
    opening = f"{named}: {cite(note)}, the {which} of {count} notes {where}."
    if not rows:  # only headings, embeds or code: a base embedded, a query per section
        return f"{opening} It holds no sentence to quote.\n\n{DISCLAIMER}"
    opening = f"{opening} It holds:"
    items = [f"{clip(said)} {cite(ref)}" for ref, said in rows]
    remainder = f"… and {total - len(rows)} more in {cite(note)}"
    return _bulleted(opening, items, remainder, total > len(rows))


def _bulleted(opening: str, items: list[str], remainder: str, more: bool) -> str:
    """`opening`, then `items` as a bulleted list (and `remainder`, when there are `more`),
    then the disclaimer."""
    lines = [opening, "", *(f"- {item}" for item in items)]
    if more:
        lines.append(f"- {remainder}")
    lines += ["", DISCLAIMER]
    return "\n".join(lines)


def absent(closest: list[NoteRef]) -> str:
    """The notes don't seem to cover it: the `closest` notes named as closest, not as answers."""
    names = ", ".join(cite(ref) for ref in closest)
    return f"{NOT_COVERED} The closest notes: {names}.\n\n{DISCLAIMER}" if names else NOTHING


def clip(text: str, chars: int = QUOTE_CHARS) -> str:
    """`text`, cut at a word to at most `chars` characters ("…" ending a cut one)."""
    if len(text) <= chars:
        return text
    return text[: chars - 1].rsplit(" ", 1)[0] + "…"
