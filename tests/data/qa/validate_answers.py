#!/usr/bin/env python3
"""Validate the answer-evaluation question files (answers.dev.jsonl, answers.heldout.jsonl).

Standard library only. Checks, per line: valid JSON; the fields each kind needs; that the
vault, `note`, `also_ok` and `active` paths exist; that every evidence string occurs in the
note (list markers, task checkboxes and `> ` callout prefixes removed, whitespace collapsed,
so an item wrapped over two source lines still matches); that `heading` is the heading the
evidence sits under ("" before the first heading; headings in code fences and frontmatter
ignored); that `selection` occurs in the `active` note. Then prints counts per kind and per
vault, per file and in total. Exit status 1 when anything is flagged.

    python3 tests/data/qa/validate_answers.py [files...]
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
SHARED = Path("/work/shared/data/vaults")
VAULTS = {
    "examples/vault": REPO / "examples" / "vault",
    "obsidian-help-en": SHARED / "obsidian-help-en",
    "obsidian-tasks": SHARED / "obsidian-tasks",
    "kepano-obsidian": SHARED / "kepano-obsidian",
    "obsidian-release-notes": SHARED / "obsidian-release-notes",
}
KINDS = ("fact", "quantity", "when-last", "followup", "selection", "active", "howto", "unanswerable")
COMMON = ("vault", "q", "note", "also_ok", "evidence", "heading", "kind")
EXTRA = {"followup": ("history",), "selection": ("selection", "active"), "active": ("active",)}
MIN_PER_VAULT = 8

_PREFIX = re.compile(r"^\s*(?:>\s?)*\s*(?:(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?)?")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def parse(path: Path) -> tuple[str, list[int], list[tuple[int, str]]]:
    """The note as one normalised string, the source line of each character, and headings."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = 0
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                start = i + 1
                break
    headings: list[tuple[int, str]] = []
    chars: list[str] = []
    owner: list[int] = []
    fenced = False
    for number in range(start, len(lines)):
        line = lines[number]
        if _FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            headings.append((number, heading.group(2)))
            text = ""  # the heading line itself is not evidence
        else:
            text = _PREFIX.sub("", line, count=1)
        piece = squash(text)
        if not piece:
            continue
        piece = (" " if chars else "") + piece
        chars.extend(piece)
        owner.extend([number] * len(piece))
    return "".join(chars), owner, headings


def heading_at(line: int, headings: list[tuple[int, str]]) -> str:
    current = ""
    for number, text in headings:
        if number > line:
            break
        current = text
    return current


def check(record: dict, where: str, problems: list[str]) -> None:
    def flag(message: str) -> None:
        problems.append(f"{where}: {message}")

    kind = record.get("kind")
    if kind not in KINDS:
        flag(f"unknown kind {kind!r}")
        return
    for field in COMMON + EXTRA.get(kind, ()):
        if field not in record:
            flag(f"missing field {field!r}")
    if not isinstance(record.get("q"), str) or not record.get("q", "").strip():
        flag("empty q")
    if not isinstance(record.get("also_ok", []), list) or not isinstance(record.get("evidence", []), list):
        flag("also_ok and evidence must be lists")
        return
    if not isinstance(record.get("heading", ""), str):
        flag("heading must be a string")
    root = VAULTS.get(record.get("vault", ""))
    if root is None or not root.is_dir():
        flag(f"unknown or missing vault {record.get('vault')!r}")
        return
    for field in ("history", "selection", "active"):
        if field in record and field not in EXTRA.get(kind, ()):
            flag(f"field {field!r} not expected for kind {kind}")

    note = record.get("note")
    if kind == "unanswerable":
        if note is not None or record.get("evidence") or record.get("also_ok"):
            flag("unanswerable needs note null, evidence [] and also_ok []")
    else:
        if not isinstance(note, str) or not (root / note).is_file():
            flag(f"note not found: {note!r}")
            return
        if not record["evidence"]:
            flag("no evidence")
        text, owner, headings = parse(root / note)
        heading_names = {h for _, h in headings}
        wanted = record.get("heading", "")
        if wanted and wanted not in heading_names:
            flag(f"heading {wanted!r} is not a heading of {note}")
        for evidence in record["evidence"]:
            needle = squash(evidence)
            at = text.find(needle) if needle else -1
            if at < 0:
                flag(f"evidence not in {note}: {evidence!r}")
                continue
            places = []
            while at >= 0:
                places.append(heading_at(owner[at], headings))
                at = text.find(needle, at + 1)
            if wanted not in places:
                flag(f"evidence {evidence[:50]!r} sits under {places}, not {wanted!r}")
    for other in record.get("also_ok", []):
        if not (root / other).is_file():
            flag(f"also_ok not found: {other!r}")
        if other == note:
            flag("also_ok repeats note")

    if "active" in EXTRA.get(kind, ()):
        active = record.get("active")
        if not isinstance(active, str) or not (root / active).is_file():
            flag(f"active note not found: {active!r}")
        elif kind == "selection":
            selection = squash(record.get("selection") or "")
            if not selection:
                flag("empty selection")
            elif selection not in parse(root / active)[0]:
                flag("selection is not verbatim in the active note")
    if kind == "followup":
        history = record.get("history")
        if not isinstance(history, list) or len(history) < 2:
            flag("history needs at least one user and one assistant turn")
        else:
            roles = [turn.get("role") for turn in history]
            expected = ["user", "assistant"] * (len(history) // 2)
            if roles != expected or not all(str(t.get("content", "")).strip() for t in history):
                flag(f"history must alternate user/assistant with content, got {roles}")


def main(argv: list[str]) -> int:
    files = [Path(a) for a in argv] or [HERE / "answers.dev.jsonl", HERE / "answers.heldout.jsonl"]
    problems: list[str] = []
    total_kinds: Counter[str] = Counter()
    total_vaults: Counter[str] = Counter()
    seen: dict[str, str] = {}
    per_file: dict[str, Counter[str]] = {}
    for path in files:
        kinds: Counter[str] = Counter()
        vaults: Counter[str] = Counter()
        raw = path.read_bytes()
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as error:
            problems.append(f"{path.name}: not UTF-8: {error}")
            continue
        if b"\\u" in raw:
            problems.append(f"{path.name}: contains \\u escapes (write with ensure_ascii=False)")
        for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
            where = f"{path.name}:{number}"
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                problems.append(f"{where}: invalid JSON: {error}")
                continue
            if not isinstance(record, dict):
                problems.append(f"{where}: not an object")
                continue
            check(record, where, problems)
            key = str(record.get("q", "")).strip().lower()
            if key in seen and record.get("kind") != "followup":
                problems.append(f"{where}: duplicate question (also {seen[key]})")
            seen.setdefault(key, where)
            kinds[record.get("kind", "?")] += 1
            vaults[record.get("vault", "?")] += 1
        per_file[path.name] = kinds
        total_kinds += kinds
        total_vaults += vaults
        print(f"{path.name}: {sum(kinds.values())} questions")
        print("  kinds: " + ", ".join(f"{k} {kinds[k]}" for k in KINDS))
        print("  vaults: " + ", ".join(f"{v} {n}" for v, n in sorted(vaults.items())))
    print(f"total: {sum(total_kinds.values())} questions")
    print("  kinds: " + ", ".join(f"{k} {total_kinds[k]}" for k in KINDS))
    print("  vaults: " + ", ".join(f"{v} {n}" for v, n in sorted(total_vaults.items())))
    for vault, count in total_vaults.items():
        if count < MIN_PER_VAULT:
            problems.append(f"vault {vault} has only {count} questions (< {MIN_PER_VAULT})")
    if len(per_file) == 2:
        a, b = per_file.values()
        if a != b:
            problems.append(f"kind mix differs between files: {dict(a)} vs {dict(b)}")
    for problem in problems:
        print("FLAG", problem)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
