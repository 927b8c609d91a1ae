"""Does the vault hold an answer at all? A retrieval-side signal, before anyone reads a hit.

Ranks and fused scores can't say this: fusion always ranks something first. Two things the
search already measured can:

- how close the query's nearest chunk is in meaning (the dense list's best cosine): under
  `LOW_CONFIDENCE_COSINE`, nothing in the vault is about the question;
- whether the query names something the vault never mentions. A name, an identifier or an
  acronym (`Todoist`, `Google`, `LSP`, `app.vault.watchFolder`) that no chunk holds is strong
  evidence the notes don't cover it, which plain words are not (a question says "colour"
  where the note says "color", "brought" where it says "introduced"): with such a name
  missing, the nearest chunk must be closer (`NAMED_COSINE`) to count as an answer.

Both thresholds were chosen on the development halves of the question sets of five vaults and
are reported as precision and recall in docs/retrieval.md.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from vault_agent.index.embed.names import names_in
from vault_agent.index.embed.terms import Analyzer, term_id
from vault_agent.index.search.hints import date_words

#: Below this top-chunk cosine, retrieval reports low confidence.
LOW_CONFIDENCE_COSINE = 0.40
#: With a name of the query missing from the vault, below this.
NAMED_COSINE = 0.70


@dataclass(frozen=True)
class Confidence:
    """What the search said about whether the vault answers the query."""

    top_cosine: float
    missing_names: tuple[str, ...] = ()

    @property
    def low(self) -> bool:
        """True when the notes probably don't answer the query."""
        if self.top_cosine < LOW_CONFIDENCE_COSINE:
            return True
        return bool(self.missing_names) and self.top_cosine < NAMED_COSINE


def missing_names(
    query: str, absent: Collection[int], analyzer: Analyzer, language: str | None = None
) -> tuple[str, ...]:
    """The names and identifiers written in `query` (in `language`, default the notes') whose
    terms no chunk of the vault holds (`absent`: the ids of the query's terms the store found
    nowhere)."""
    if not absent:
        return ()
    missing = []
    dates = date_words(query)
    for name in names_in(query, language or analyzer.language):
        if name in dates:
            continue
        terms = analyzer.terms(name, query=True)
        # The whole identifier (its first term) or a one-word name missing: the vault never
        # writes it. Parts of an identifier may exist elsewhere ("vault", "watch"). A generic
        # word in capitals ("OK", "FAQ") is no name.
        if terms and term_id(terms[0]) in absent and not analyzer.is_weak(terms[0]):
            missing.append(name)
    return tuple(missing)
