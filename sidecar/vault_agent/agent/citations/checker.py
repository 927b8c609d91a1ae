"""Checks the citations in an answer and closes it with our own Sources list.

Owns the rule that an answer may only cite notes the model actually saw: notes returned by a
tool or sent as context. :func:`check_answer`:

1. writes citations made other ways (``[1]``, ``(Note)``, ``[[Note.md]]``,
   ``[Note](Note.md)``) as wikilinks when they name a note the model saw
   (:mod:`vault_agent.agent.citations.normalise`);
2. keeps only what may render (:mod:`vault_agent.agent.safe_markdown`): images that are not
   vault resources, raw HTML and links to anything but web pages go (a note can smuggle in
   instructions to build a URL that carries data out; a markdown link into the vault cites a
   note unchecked: it becomes its text); checked again at the end, where nothing may embed:
   no ``![[...]]`` and no image is left, whatever put a ``!`` before a link;
3. strips the model's own closing "Sources" list (its supported links are kept as sources);
4. checks every ``[[...]]`` outside code: it is resolved as Obsidian would (the link graph),
   then matched against the supported notes. A link naming a supported note ambiguously (two
   notes called "Ideas") is rewritten to that note's full path; an unsupported one is removed
   (its display text kept when it has one) and reported. A supported note cited at a heading
   it does not have (the ``headings`` lookup says which it has) is corrected: to the heading
   meant when only the spelling differs (``#feeding-schedule``), else to the note itself. A
   correction is not a removal (the note is a source all the same): it is listed in
   ``corrected_citations``, not ``removed_citations``;
5. appends ``Sources:`` with one ``- [[Note#Heading]]`` per cited note (its first cited
   section; the note alone when only the note was cited).

Documents of other sources are cited as ``[Title](url)`` or ``[Title (source)]``
(:mod:`vault_agent.agent.citations.documents`) and checked alike: one the model retrieved stays
and is listed in Sources; one it did not (a url or source the index knows, through the
``documents`` lookup, or a source it saw other documents of) is removed and reported. Links to
web pages that are no document are no citations and stay as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import Protocol

from pydantic import BaseModel

from vault_agent.agent.citations.documents import (
    DocumentCitation,
    DocumentLookup,
    find_document_citations,
    has_document_citation,
    normal_url,
    same_title,
    strip_document_citations,
)
from vault_agent.agent.citations.links import (
    CODE,
    WIKILINK,
    Citation,
    NoteRef,
    cite,
    find_citations,
    heading_anchor,
    note_link,
    note_title,
)
from vault_agent.agent.citations.normalise import normalise_citations
from vault_agent.agent.citations.shown_links import unlink_unshown
from vault_agent.agent.safe_markdown import sanitise_markdown
from vault_agent.agent.vault_urls import is_safe_link, is_web_link
from vault_agent.index.store.protocol import VAULT_SOURCE
from vault_agent.vault.files import is_pdf
from vault_agent.vault.pdf_note import page_heading, page_of_heading, page_subpath

# No two runs of spaces may meet (`[ \t]*` beside `[ \t]*`): a line of 40,000 spaces would be
# split between them every way before failing.
_SOURCES_HEADING = re.compile(
    r"(?im)^[ \t]*(?:#{1,6}[ \t]*)?(?:(?:\*\*|__)[ \t]*)?(?:sources?|references?|citations?)"
    r"[ \t]*(?:\*\*|__)?[ \t]*:?[ \t]*(?:\*\*|__)?(?P<rest>[^\n]*)$"
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SENTINEL = "\x00"


class RemovedCitation(BaseModel):
    """A citation taken out of the answer, and why."""

    citation: str
    reason: str


class CorrectedCitation(BaseModel):
    """A citation rewritten to what exists: ``[[Note#No such heading]]`` -> ``[[Note]]``."""

    citation: str
    corrected: str
    reason: str


class CheckedAnswer(BaseModel):
    """The answer after the citation check, ready for the user."""

    answer: str
    sources: list[NoteRef]
    removed_citations: list[RemovedCitation]
    removed_images: list[str]
    corrected_citations: list[CorrectedCitation] = []


HeadingsOf = Callable[[str], Collection[str] | None]
"""A note's heading paths ("Setup > Linux"), or None when unknown (then none is corrected)."""


class LinkResolver(Protocol):
    """What the check needs from the link graph (:class:`~vault_agent.vault.graph.LinkGraph`)."""

    def resolve(self, target: str, source_file: str) -> str | None:
        """The file a link resolves to, as Obsidian would resolve it, or None."""
        ...


def check_answer(
    text: str,
    supported: Collection[str | NoteRef],
    resolver: LinkResolver,
    source_file: str = "",
    documents: DocumentLookup | None = None,
    *,
    numbered: Sequence[Sequence[NoteRef]] = (),
    headings: HeadingsOf | None = None,
    links: Callable[[str], bool] = is_web_link,
) -> CheckedAnswer:
    """Check ``text``'s citations against the ``supported`` notes; see the module docstring.

    ``supported`` holds the notes the model saw: vault paths, or :class:`NoteRef` s whose
    headings let a source citing a section by its last heading report the full heading path.
    ``source_file`` is the note links are resolved from (the active note, if any), as in
    Obsidian, where ``[[#Heading]]`` and relative links depend on it. ``documents`` tells
    which sources and urls hold documents, for document citations of nothing retrieved.
    ``numbered`` holds the passages of each search result in rank order (what "[1]" cites);
    ``headings`` gives a note's real headings (None: headings are not checked); ``links``
    which web links stay links (`shown_links.shown_only`: those the model was shown).
    """
    refs = [ref if isinstance(ref, NoteRef) else NoteRef(file=ref, title="") for ref in supported]
    # Links to notes the model saw are wikilinks by now (normalise); any other link into the
    # vault (`[x](Secrets/Passwords.md)`, a note it never read) cites unchecked: its text.
    safe = sanitise_markdown(normalise_citations(text, refs, numbered), links=is_web_link)
    body, listed = _split_sources(safe.markdown)
    check = _Checker(refs, resolver, source_file, documents, headings)
    body = check.rewrite(body)
    check.rewrite(listed, from_sources_list=True)
    answer = body.strip()
    if check.sources:
        lines = "\n".join(f"- {cite(ref)}" for ref in check.sources)
        answer = f"{answer}\n\nSources:\n{lines}" if answer else f"Sources:\n{lines}"
    # Rewriting citations and citing documents by their url must not make anything that loads,
    # nor an embed: a "!" the model wrote before a rewritten link (`!![[Note]]` -> `![[Note]]`)
    # or a removal brought next to one. Nothing embeds in an answer, however it got there.
    # Web links stay only where `links` says (a model's: pages it was shown), once citations
    # of documents by their url were checked and reported.
    final = sanitise_markdown(answer, _kept(links), embeds=False)
    markdown = final.markdown if links is is_web_link else unlink_unshown(final.markdown, links)
    return CheckedAnswer(
        answer=markdown,
        sources=check.sources,
        removed_citations=check.removed,
        removed_images=list(dict.fromkeys(safe.removed + final.removed)),
        corrected_citations=check.corrected,
    )


def _kept(links: Callable[[str], bool]) -> Callable[[str], bool]:
    """The links the last pass keeps: web pages `links` keeps, and the other safe links."""
    if links is is_web_link:
        return is_safe_link
    return lambda url: links(url) if is_web_link(url) else is_safe_link(url)


def _split_sources(text: str) -> tuple[str, str]:
    """(body, the model's closing Sources list) - the list only if nothing else follows it."""
    for heading in reversed(list(_SOURCES_HEADING.finditer(text))):
        rest = heading.group("rest")
        if rest.strip() and not _only_links(rest):
            continue
        tail = text[heading.end() :].splitlines()
        if all(not line.strip() or _LIST_ITEM.match(line) or _only_links(line) for line in tail):
            return text[: heading.start()], text[heading.start() :]
        return text, ""  # a "Sources" line followed by prose: leave it be
    return text, ""


def _only_links(line: str) -> bool:
    """True for a line made of citations (wikilinks or documents') and separators only."""
    without = strip_document_citations(WIKILINK.sub("", _LIST_ITEM.sub("", line)))
    cites = bool(WIKILINK.search(line)) or has_document_citation(line)
    return cites and not without.strip(" \t,;.-–—·|")


class _Checker:
    """Decides each citation and collects the sources, in first-cited order."""

    def __init__(
        self,
        seen: list[NoteRef],
        resolver: LinkResolver,
        source_file: str,
        lookup: DocumentLookup | None = None,
        headings: HeadingsOf | None = None,
    ) -> None:
        self.supported = {ref.file for ref in seen}
        self.headings = headings
        self._headings: dict[str, Collection[str] | None] = {}
        self.documents = {ref.file: ref for ref in seen if ref.source != VAULT_SOURCE}
        self.seen_sources = {ref.source for ref in self.documents.values()}
        self.lookup = lookup
        # (file, last heading, lower-case) -> heading path, for sections the model was shown.
        self.paths = {
            (ref.file, heading_anchor(ref.heading).lower()): ref.heading
            for ref in reversed(seen)
            if ref.heading
        }
        self.resolver = resolver
        self.source_file = source_file
        self.sources: list[NoteRef] = []
        self.removed: list[RemovedCitation] = []
        self.corrected: list[CorrectedCitation] = []

    def rewrite(self, body: str, from_sources_list: bool = False) -> str:
        """``body`` with each citation kept, rewritten to its full path, or removed."""
        code = [m.span() for m in CODE.finditer(body)]
        wikilinks = find_citations(body)
        inside = [(c.start, c.end) for c in wikilinks]
        found: list[Citation | DocumentCitation] = [*wikilinks]
        found += find_document_citations(body, code + inside)
        out: list[str] = []
        position = 0
        for citation in sorted(found, key=lambda c: c.start):
            if citation.start < position:
                continue  # inside a citation already handled
            out.append(body[position : citation.start])
            if isinstance(citation, Citation):
                out.append(self.cite(citation, from_sources_list))
            else:
                out.append(self.cite_document(citation, from_sources_list))
            position = citation.end
        out.append(body[position:])
        return _tidy("".join(out))

    def cite_document(self, citation: DocumentCitation, from_sources_list: bool = False) -> str:
        """What replaces a document citation; a link to a page that is no document stays."""
        ref = self._document(citation)
        if ref is not None:
            self._add_document(ref)
            return citation.raw if citation.url else cite(ref)
        if citation.url is not None:
            known = self.lookup is not None and self.lookup.is_document_url(citation.url)
            replacement = citation.text or _SENTINEL
        else:
            known = citation.source in self.seen_sources or (
                self.lookup is not None and self.lookup.is_source(citation.source or "")
            )
            replacement = _SENTINEL
        if not known:
            return citation.raw
        if not from_sources_list:
            reason = "not among the documents retrieved for this answer"
            self.removed.append(RemovedCitation(citation=citation.raw, reason=reason))
        return replacement

    def _document(self, citation: DocumentCitation) -> NoteRef | None:
        for ref in self.documents.values():
            if citation.url is not None:
                if ref.url is not None and normal_url(ref.url) == citation.url:
                    return ref
            elif ref.source == citation.source and same_title(ref.title, citation.text):
                return ref
        return None

    def _add_document(self, ref: NoteRef) -> None:
        if all(source.file != ref.file for source in self.sources):
            self.sources.append(ref)

    def cite(self, citation: Citation, from_sources_list: bool = False) -> str:
        """What replaces ``citation`` in the answer; records it as a source or as removed."""
        file, reason = self._resolve(citation)
        if file is None:
            if not from_sources_list:
                self.removed.append(RemovedCitation(citation=citation.raw, reason=reason))
            # An aliased link reads as prose ("[[Maya Okafor|Maya]] said"): keep the words.
            return citation.display or _SENTINEL
        if file in self.documents:  # [[clips://a1]]: cite the document as documents are
            self._add_document(self.documents[file])
            return cite(self.documents[file])
        heading = citation.subpath.replace("#", " > ")
        page = page_of_heading(heading) if is_pdf(file) else None
        missing_page = None
        if page is not None:  # [[paper.pdf#page=3]]: the source is the page's chunks
            heading = self._real_heading(file, page_heading(page))
            if not heading:  # a page past the end, or without text: the model read none
                missing_page, page = page, None
        elif heading:
            heading = self._real_heading(file, heading)
        self._add_source(file, self.paths.get((file, heading_anchor(heading).lower()), heading))
        # Keep the link as written when it opens the right note; an embed would paste the whole
        # note into the answer, and an ambiguous name would open another note: use the path.
        # A page cited any other way than "#page=N" would open the PDF at its first page.
        canonical = page is None or citation.subpath == page_subpath(page)
        corrected = page is None and heading_anchor(heading) != heading_anchor(
            citation.subpath.replace("#", " > ")
        )
        if not citation.embed and canonical and not corrected and self._opens(citation, file):
            return citation.raw
        link = note_link(file, heading)
        link = f"{link[:-2]}|{citation.display}]]" if citation.display else link
        if corrected and not from_sources_list:
            reason = f"the note has no heading '{heading_anchor(citation.subpath)}'" + (
                "; cited at the heading meant" if heading else "; cited as the whole note"
            )
            if missing_page is not None:
                reason = f"the PDF has no page {missing_page} with text; cited as the whole PDF"
            self.corrected.append(
                CorrectedCitation(citation=citation.raw, corrected=link, reason=reason)
            )
        return link

    def _real_heading(self, file: str, heading: str) -> str:
        """``heading`` if ``file`` has it (or it can't be told), the heading meant when only
        the spelling differs, else "" (the note itself)."""
        anchor = heading_anchor(heading).lower()
        if (file, anchor) in self.paths or self.headings is None:
            return heading
        if file not in self._headings:
            self._headings[file] = self.headings(file)
        real = self._headings[file]
        if real is None:
            return heading
        anchors = {heading_anchor(path).lower(): path for path in real}
        if anchor in anchors:
            return heading
        loose = [path for key, path in anchors.items() if _letters(key) == _letters(anchor)]
        return loose[0] if len(loose) == 1 and _letters(anchor) else ""

    def _resolve(self, citation: Citation) -> tuple[str | None, str]:
        if not citation.target:  # [[#Heading]]: a section of the note the link sits in
            resolved = self.source_file or None
        else:
            resolved = self.resolver.resolve(citation.target, self.source_file)
        if resolved in self.supported:
            return resolved, ""
        # The graph may pick another note of the same name, or not know the note at all
        # (an index opened without a sync): match the target against the supported notes.
        candidates = _matching(citation.target, self.supported)
        if len(candidates) == 1:
            return candidates[0], ""
        if resolved is None and not candidates:
            return None, "no note by that name in the vault"
        return None, "not among the notes retrieved for this answer"

    def _opens(self, citation: Citation, file: str) -> bool:
        """True when the link as written opens ``file`` in Obsidian."""
        if not citation.target:
            return file == self.source_file
        return self.resolver.resolve(citation.target, self.source_file) == file

    def _add_source(self, file: str, heading: str) -> None:
        """One source per note: its first cited section, or the note when no section is."""
        for index, source in enumerate(self.sources):
            if source.file == file:
                if heading and not source.heading:
                    self.sources[index] = source.model_copy(update={"heading": heading})
                return
        self.sources.append(NoteRef(file=file, title=note_title(file), heading=heading))


def _letters(text: str) -> str:
    """Letters and digits only: "feeding-schedule" and "Feeding schedule" are one heading."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _matching(target: str, files: Collection[str]) -> list[str]:
    """Supported files that ``target`` names: by path or by trailing path segments."""
    wanted = target.strip().lstrip("/").lower()
    if not wanted:
        return []
    wanted = wanted[:-3] if wanted.endswith(".md") else wanted
    out = []
    for file in files:
        path = file.lower()
        path = path[:-3] if path.endswith(".md") else path
        if path == wanted or path.endswith("/" + wanted):
            out.append(file)
    return sorted(out)


# Each starts a run of spaces at its first one (a leftmost match does anyway): tried from each
# space of a long run, they would be quadratic.
_EMPTY_PARENS = re.compile(r"(?<![ \t])[ \t]*\([\s,;]*\)")
# "as in [[A]] and [[Removed]]." -> "as in [[A]]."
_DANGLING_CONJUNCTION = re.compile(r"(?:,|(?<![ \t]))[ \t]+(?:and|or)[ \t]*(?=[.;:!?)]|$)")
_SPACE_BEFORE_PUNCT = re.compile(r"(?<![ \t])[ \t]+([.,;:!?)])")


def _tidy(text: str) -> str:
    """Remove what deleted citations leave behind, on the lines they were deleted from."""
    if _SENTINEL not in text:
        return text
    lines = []
    for line in text.split("\n"):
        if _SENTINEL in line:
            line = re.sub(rf"{_SENTINEL}(?:[ \t]*[,;][ \t]*{_SENTINEL})*", _SENTINEL, line)
            line = line.replace(_SENTINEL, "")
            line = _EMPTY_PARENS.sub("", line)
            line = _DANGLING_CONJUNCTION.sub("", line)
            line = _SPACE_BEFORE_PUNCT.sub(r"\1", line)
            line = re.sub(r"(?<=\S)[ \t]{2,}", " ", line).rstrip()
        lines.append(line)
    return "\n".join(lines)
