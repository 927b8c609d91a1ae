"""The answer's opening quotes read as one passage where the note writes one.

The best unit alone can be half a thought. One that refers back ("This enables searching in
the rare case...", "It probably didn't have the best cost per use, but...") needs the sentence
it refers to, which the best unit's score says nothing about: that sentence comes first. One
that opens a thought ("*Cost per use* is not the only way to make buying decisions.", "By
default, new unique notes are empty.") is answered by what follows it: the next unit under the
same heading comes second, if it bears on the question nearly as well, rather than a line of
another note.
"""

from __future__ import annotations

import re

from vault_agent.agent.extractive.scoring import Quote
from vault_agent.agent.extractive.units import says_something

#: Units quoted first, as the answer.
ANSWER_UNITS = 2
#: The unit after the best reads on if it scores within this of it. Over the English answer
#: sets (304 answerable questions): 0.15 gains 3 answers, 0.3 gains 2; none lost.
FOLLOW_WITHIN = 0.15
#: A sentence opening with a word that refers back to the one before it: demonstratives and
#: pronouns, not those a language also uses without a referent ("It may sound silly", German
#: "Sie" is "you", "Es gibt" and French "Il faut" refer to nothing). Not Japanese's "これで"
#: or "その": read back, a Japanese set's answer opened with the line before, "おめでとう
#: ございます！" (Congratulations!), and no answer gained.
REFERS_BACK = re.compile(
    r"(?:This|That|These|Those|Its|They|Their|He|She|Such"  # English
    r"|Dies|Diese|Dieser|Dieses|Das|Damit|Dadurch|Dafür|Dazu|Daher|Deshalb"  # German
    r"|Cela|Ceci|Ce|Cette|Ces|Celle|Celui|Ainsi|Ils|Elles"  # French
    r"|Esto|Eso|Esta|Este|Estos|Estas|Ese|Esa|Ello|Así"  # Spanish
    r"|Это|Этот|Эта|Эти|Так|Поэтому|Они"  # Russian
    r")\b"
)


def read_on(first: list[Quote], quotes: list[Quote], *, leads: bool = False) -> list[Quote]:
    """`first` (the best quote, and maybe a second), read as the note writes it: the unit
    before the best first when the best refers back to it (unless the best `leads`: it holds
    the date or the amount asked for, which opens the answer), else the unit after the best
    as the second when it bears on the question within `FOLLOW_WITHIN` and the second place
    is empty or another note's. `quotes`: every unit found, scored."""
    best = first[0]
    refers_back = not leads and REFERS_BACK.match(best.unit.text)
    before = _next_to(best, quotes, -1) if refers_back else None
    if before is not None:
        return [before, best]
    # Not after a lead that shows its code or list (what follows is shown), nor after a
    # property (the next is another property, not what it leads into).
    if best.unit.shows or best.unit.fact:
        return first
    after = _next_to(best, quotes, 1)
    # A FAQ's question read on into its reply holds the reply already.
    if after is None or after.unit.text in best.unit.text:
        return first
    another_note = len(first) < ANSWER_UNITS or first[1].ref.file != best.ref.file
    if another_note and after.score >= best.score - FOLLOW_WITHIN:
        return [best, after]
    return first


def _next_to(quote: Quote, quotes: list[Quote], step: int) -> Quote | None:
    """The unit `step` places from `quote` under the same heading, if it says something."""
    place = (quote.chunk, quote.unit.position + step)
    for other in quotes:
        if other.place == place and other.link == quote.link and says_something(other.unit):
            return other
    return None
