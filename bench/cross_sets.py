"""Write the cross-lingual dev sets: every dev question over every other translation.

    uv run python -m bench.cross_sets      # writes tests/data/qa/obsidian-help-*.cross.dev.jsonl

The translated help vaults hold the same 173 notes, and a note's `permalink` frontmatter is
the same in every language (../shared/data/README.md). So a dev question asked in one language
about one vault is also a question in another language about each other translation: its
answering notes are the notes with the same permalinks there. Mapping the dev questions
(English and the six others) this way gives each translated vault a set of questions asked in
every language but its own, about ten times the hand-written cross-lingual dev questions, so a
cross-lingual lever can be measured on the kind of case (a question in one language over notes
in another) rather than on one language pair.

Only dev sets are read (`*.dev.jsonl`, `*.dev2.jsonl`); held-out sets never are. Questions the
vault cannot answer (`note: null`) stay unanswerable in every translation.
"""

from __future__ import annotations

import json
from pathlib import Path

from vault_agent.vault.frontmatter import load_frontmatter, split_frontmatter

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
VAULTS = SHARED / "vaults"
OUT = REPO / "tests" / "data" / "qa"
LANGUAGES = ("de", "es", "fr", "ja", "ru", "zh")


def sources() -> list[tuple[Path, str, str]]:
    """(dev question file, the questions' language, the vault its note paths are in)."""
    found = [(SHARED / "qa" / "obsidian-help-en.dev.jsonl", "en", "en")]
    for lang in LANGUAGES:
        found.append((SHARED / "qa" / f"obsidian-help-{lang}.dev.jsonl", lang, lang))
        found.append((OUT / f"obsidian-help-{lang}.dev2.jsonl", lang, lang))
    found.append((SHARED / "qa" / "obsidian-help-zh.cross-en.dev.jsonl", "en", "zh"))
    found.append((OUT / "obsidian-help-zh.cross-en.dev2.jsonl", "en", "zh"))
    found.append((OUT / "obsidian-help-de.cross-en.dev.jsonl", "en", "de"))
    return found


def permalinks(lang: str) -> dict[str, str]:
    """Note path -> permalink in the `lang` translation of the help vault."""
    vault = VAULTS / f"obsidian-help-{lang}"
    found = {}
    for path in sorted(vault.rglob("*.md")):
        block = split_frontmatter(path.read_text(encoding="utf-8").replace("\r\n", "\n"))
        meta, _ = load_frontmatter(block.yaml_text) if block else ({}, None)
        link = meta.get("permalink")
        if isinstance(link, str):
            found[path.relative_to(vault).as_posix()] = link
    return found


def main() -> None:
    """Write one cross-lingual dev set per translated vault."""
    paths = {lang: permalinks(lang) for lang in ("en", *LANGUAGES)}
    by_link = {lang: {link: path for path, link in paths[lang].items()} for lang in LANGUAGES}
    for target in LANGUAGES:
        rows: list[dict[str, object]] = []
        seen: set[str] = set()
        for file, lang, vault in sources():
            if lang == target:
                continue  # in-language questions are the per-language dev sets' job
            for line in file.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                question = json.loads(line)
                if question["q"] in seen:
                    continue
                seen.add(question["q"])

                to_target = {note: by_link[target][link] for note, link in paths[vault].items()}
                note = question.get("note")
                rows.append(
                    {
                        "q": question["q"],
                        "note": to_target[note] if note else None,
                        "notes": [to_target[n] for n in question.get("notes", [])],
                        "also_ok": [to_target[n] for n in question.get("also_ok", [])],
                        "lang": lang,
                        "from": file.name,
                    }
                )
        out = OUT / f"obsidian-help-{target}.cross.dev.jsonl"
        out.write_text(
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8"
        )
        print(f"{out.relative_to(REPO)}: {len(rows)} questions")


if __name__ == "__main__":
    main()
