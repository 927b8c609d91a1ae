"""Build large, realistic vaults from real text, for the scale benchmark.

    uv run python -m bench.vaultgen --notes 10000 --out /tmp/vault-10k

The text is real: SciFact abstracts become literature notes, paragraphs of the shared vaults
(Obsidian's docs, help, hub, release notes, Tasks, kepano's vault) become topic notes and
daily-note entries. Around it, the structure a long-lived vault has: PARA-style folders, YAML
frontmatter with nested tags (Zipf-distributed, a few very common) and a `type`, wikilinks with
preferential attachment (popular notes collect most backlinks), a journal of daily notes
under Daily/YYYY/, and a few hub (MOC) notes. The same seed always builds the same vault.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

#: Part of the cached vaults' names: bump when the same seed would write different files.
GENERATOR_VERSION = 2
REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
SCIFACT = SHARED / "bench" / "scifact" / "corpus.jsonl"
VAULTS = SHARED / "vaults"

#: Share of each kind of note (the rest are topic notes).
PAPER_SHARE = 0.35
DAILY_SHARE = 0.25
HUB_SHARE = 0.02
AREAS = ("Projects", "Areas", "Resources", "Archive")
TOPICS = (
    "biology", "medicine", "genetics", "neuroscience", "immunology", "oncology", "obsidian",
    "plugins", "writing", "productivity", "reading", "cooking", "travel", "finance", "health",
    "software", "design", "research", "teaching", "music",
)  # fmt: skip
TYPES = ("note", "idea", "meeting", "person", "project", "reference")
FIRST_DAY = dt.date(2026, 11, 1)

_FRONTMATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_WIKILINK = re.compile(r"!?\[\[([^\]|#]*)(?:[^\]|]*)?(?:\|([^\]]*))?\]\]")
_NOT_PROSE = ("```", "~~~", "|", "<", "!", "%%", "#", "-", "*", "[")
_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]]+')


@dataclass
class Note:
    """One note to write: where, its frontmatter and its body."""

    path: str
    title: str
    frontmatter: dict[str, object]
    body: str
    links: list[str] = field(default_factory=list)

    def render(self) -> str:
        """The file's text: YAML frontmatter, a title heading, the body, then links."""
        lines = ["---"]
        for key, value in self.frontmatter.items():
            lines.append(f"{key}: {json.dumps(value)}")
        lines += ["---", "", f"# {self.title}", "", self.body.strip(), ""]
        if self.links:
            lines += ["## Related", ""] + [f"- [[{link}]]" for link in self.links] + [""]
        return "\n".join(lines)


def scifact_papers() -> list[tuple[str, str]]:
    """(title, abstract) of every SciFact document."""
    papers = []
    with SCIFACT.open(encoding="utf-8") as corpus:
        for line in corpus:
            row = json.loads(line)
            if row["title"].strip() and row["text"].strip():
                papers.append((row["title"].strip(), row["text"].strip()))
    return papers


def vault_paragraphs() -> list[str]:
    """Prose paragraphs (80 to 1200 characters) of the shared vaults, links made plain text."""
    paragraphs: dict[str, None] = {}  # ordered and without repeats (hub notes share templates)
    for path in sorted(VAULTS.rglob("*.md")):
        if any(part.startswith(".") for part in path.relative_to(VAULTS).parts):
            continue
        text = _FRONTMATTER.sub("", path.read_text(encoding="utf-8", errors="replace"))
        text = _WIKILINK.sub(lambda m: m.group(2) or m.group(1), text)
        for block in re.split(r"\n\s*\n", text):
            block = block.strip()
            if 80 <= len(block) <= 1200 and not block.startswith(_NOT_PROSE):
                paragraphs[block] = None
    return list(paragraphs)


def generate_vault(target: Path, notes: int, seed: int = 7) -> dict[str, int]:
    """Write `notes` notes into `target` (which must not exist yet). Returns counts by kind."""
    if target.exists():
        raise FileExistsError(f"{target} exists; the generator only writes new vaults")
    rng = random.Random(seed)
    papers = scifact_papers()
    rng.shuffle(papers)
    paragraphs = vault_paragraphs()
    tags = _tag_vocabulary(rng)
    planned = list(_plan(notes, rng))
    titles: list[str] = []
    used: set[str] = set()
    counts = {"paper": 0, "daily": 0, "hub": 0, "topic": 0}
    for number, kind in enumerate(planned):
        if kind == "daily":
            note = _daily(number, counts["daily"], titles, paragraphs, tags, rng)
        elif kind == "paper":
            note = _paper(counts["paper"], papers, titles, tags, rng)
        elif kind == "hub":
            note = _hub(counts["hub"], titles, tags, rng)
        else:
            note = _topic(paragraphs, titles, tags, rng)
        note.title = _unique(note.title, used)
        note.path = f"{note.path}/{note.title}.md" if kind != "daily" else note.path
        counts[kind] += 1
        if kind != "daily":
            titles.append(note.title)
        path = target / note.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note.render(), encoding="utf-8")
    return counts


def _plan(notes: int, rng: random.Random) -> Iterator[str]:
    for _ in range(notes):
        roll = rng.random()
        if roll < PAPER_SHARE:
            yield "paper"
        elif roll < PAPER_SHARE + DAILY_SHARE:
            yield "daily"
        elif roll < PAPER_SHARE + DAILY_SHARE + HUB_SHARE:
            yield "hub"
        else:
            yield "topic"


def _tag_vocabulary(rng: random.Random) -> list[str]:
    words = ["todo", "review", "idea", "important", "draft", "evergreen", "question", "source"]
    nested = [f"{topic}/{word}" for topic in TOPICS for word in ("basics", "notes", "open")]
    vocabulary = list(TOPICS) + words + nested
    rng.shuffle(vocabulary)
    return vocabulary


def _pick_tags(tags: list[str], rng: random.Random) -> list[str]:
    # Zipf-like: the first tags of the shuffled vocabulary are on many notes.
    count = rng.choice((0, 1, 1, 2, 2, 3))
    return sorted({tags[min(int(rng.paretovariate(1.2)) - 1, len(tags) - 1)] for _ in range(count)})


def _pick_links(titles: list[str], rng: random.Random, count: int) -> list[str]:
    """Earlier notes, with a strong bias to the oldest (they gather the most backlinks)."""
    if not titles:
        return []
    picked = set()
    for _ in range(count):
        rank = min(int(rng.paretovariate(0.8)) - 1, len(titles) - 1)
        picked.add(titles[rank] if rng.random() < 0.5 else rng.choice(titles))
    return sorted(picked)


def _paper(index: int, papers: list[tuple[str, str]], titles: list[str], tags: list[str],
           rng: random.Random) -> Note:  # fmt: skip
    title, abstract = papers[index % len(papers)]
    if index >= len(papers):  # past the corpus: a second reading note on the same paper
        title = f"{title} (reading {index // len(papers) + 1})"
    sentences = re.split(r"(?<=[.!?])\s+", abstract)
    third = max(1, len(sentences) // 3)
    body = "\n\n".join(" ".join(sentences[i : i + third]) for i in range(0, len(sentences), third))
    topic = rng.choice(TOPICS[:6])
    return Note(
        path=f"Resources/Papers/{topic}",
        title=_safe_title(title),
        frontmatter={"type": "paper", "tags": sorted({topic, *_pick_tags(tags, rng)})},
        body=body,
        links=_pick_links(titles, rng, rng.randint(0, 3)),
    )


def _topic(paragraphs: list[str], titles: list[str], tags: list[str], rng: random.Random) -> Note:
    chosen = [rng.choice(paragraphs) for _ in range(rng.randint(1, 4))]
    words = re.findall(r"[A-Za-z][A-Za-z'-]+", chosen[0])
    title = " ".join(words[:6]) or "Untitled"
    area = rng.choice(AREAS)
    frontmatter: dict[str, object] = {"type": rng.choice(TYPES), "tags": _pick_tags(tags, rng)}
    if rng.random() < 0.3:
        frontmatter["aliases"] = [" ".join(words[:3])] if len(words) >= 3 else []
    return Note(
        path=f"{area}/{rng.choice(TOPICS)}",
        title=_safe_title(title),
        frontmatter=frontmatter,
        body="\n\n".join(chosen),
        links=_pick_links(titles, rng, rng.randint(1, 5)),
    )


def _daily(number: int, day_index: int, titles: list[str], paragraphs: list[str],
           tags: list[str], rng: random.Random) -> Note:  # fmt: skip
    day = FIRST_DAY - dt.timedelta(days=day_index)
    entries = []
    for link in _pick_links(titles, rng, rng.randint(1, 3)):
        sentence = re.split(r"(?<=[.!?])\s+", rng.choice(paragraphs))[0]
        entries.append(f"- {sentence} See [[{link}]].")
    return Note(
        path=f"Daily/{day.year}/{day.isoformat()}.md",
        title=day.isoformat(),
        frontmatter={"type": "daily", "tags": ["daily", *_pick_tags(tags, rng)[:1]]},
        body="## Log\n\n" + "\n".join(entries),
    )


def _hub(index: int, titles: list[str], tags: list[str], rng: random.Random) -> Note:
    topic = TOPICS[index % len(TOPICS)]
    return Note(
        path="Maps",
        title=f"{topic.title()} map {index // len(TOPICS) + 1}",
        frontmatter={"type": "moc", "tags": [topic, *_pick_tags(tags, rng)]},
        body=f"Everything on {topic}, collected over the years.",
        links=_pick_links(titles, rng, rng.randint(10, 30)),
    )


def _safe_title(title: str) -> str:
    return _UNSAFE.sub(" ", title)[:120].strip(" .") or "Untitled"


def _unique(title: str, used: set[str]) -> str:
    candidate, number = title, 2
    while candidate.lower() in used:
        candidate, number = f"{title} {number}", number + 1
    used.add(candidate.lower())
    return candidate


def main() -> None:
    """Write one vault."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    counts = generate_vault(args.out, args.notes, args.seed)
    print(f"wrote {sum(counts.values())} notes to {args.out}: {counts}")


if __name__ == "__main__":
    main()
