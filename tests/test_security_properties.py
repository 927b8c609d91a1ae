"""Hostile properties: what a note's frontmatter holds must read as its words, wherever a
property is shown as markdown (offline answers quote it, `get_note` shows it).

Obsidian shows a property as plain text. The index reads a value as the words a reader sees,
which decodes its escapes, entities and code spans, and a key may be any YAML string, line
breaks included: so an entity could become raw HTML, an escaped wikilink a citation, a key an
HTML block that swallows the rest of the answer (its citations and Sources list with it), a
bidi control reverse the citation after it. Each film note below holds one such property; the
sidecar answers offline over a real socket, and each answer is parsed as Obsidian reads
markdown (markdown-it with raw HTML, tables, wikilinks and `$math$`).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin

from fake_llm import FakeTurn
from server_support import api_settings, ask_events, fake_llm_settings, observed_fake, serve_api
from vault_agent.index.embed.bm25 import Bm25Encoder
from vault_agent.index.embed.minilm import MiniLmEmbedder
from vault_agent.index.vault_index import VaultIndex
from vault_agent.vault.markdown import obsidian_syntax

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: film -> (its one property as YAML, its body, the question, words the quote must show)
FILMS: dict[str, tuple[str, str, str, str]] = {
    "Arrival": (
        'director: "Denis Villeneuve &lt;textarea&gt; directed it"',
        "A 2016 science fiction film about linguists and aliens.",
        "Who directed Arrival?",
        "Denis Villeneuve <textarea> directed it",
    ),
    "Dune": (
        'composer: "Hans `<img src=http://127.0.0.1:9/score.png>` Zimmer"',
        "A 2021 film about a desert planet and spice.",
        "Who was the composer of Dune?",
        "Hans <img src=http://127.0.0.1:9/score.png> Zimmer",
    ),
    "Sicario": (
        r"writer: 'Taylor Sheridan \[\[Passwords\]\] wrote it'",
        "A 2015 thriller about the border.",
        "Who was the writer of Sicario?",
        "Taylor Sheridan [[Passwords]] wrote it",
    ),
    "Enemy": (
        'producer: "Niv Fichman ` $x$ produced it"',
        "A 2013 film about a man and his double.",
        "Who was the producer of Enemy?",
        "Niv Fichman ` $x$ produced it",
    ),
    "Prisoners": (
        '"cast\\n\\n<textarea>": "Hugh Jackman, Jake Gyllenhaal"',
        "A 2013 film about two missing girls.",
        "Who was in the cast of Prisoners?",
        "cast <textarea>: Hugh Jackman, Jake Gyllenhaal",
    ),
    "Incendies": (
        '"editor\\u202e": "Monique Dartonne"',
        "A 2010 film about twins and their mother.",
        "Who was the editor of Incendies?",
        "editor: Monique Dartonne",
    ),
}


@pytest.fixture(scope="module")
def films(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLmEmbedder, sparse: Bm25Encoder
) -> Iterator[VaultIndex]:
    root = tmp_path_factory.mktemp("properties")
    vault = root / "vault"
    (vault / "Films").mkdir(parents=True)
    for film, (prop, body, _, _) in FILMS.items():
        note = f"---\n{prop}\n---\n# {film}\n\n{body}\n"
        (vault / "Films" / f"{film}.md").write_text(note, encoding="utf-8")
    # A real note a forged citation could point at.
    (vault / "Passwords.md").write_text("# Passwords\n\nNot for answers.\n", encoding="utf-8")
    with VaultIndex(api_settings(vault, root), embedder=embedder, sparse=sparse) as index:
        index.indexer.sync()
        yield index
    shutil.rmtree(root, ignore_errors=True)


def parsed(markdown: str) -> list[Token]:
    """`markdown` as Obsidian reads it (raw HTML, tables, wikilinks, `$math$`), inline tokens
    flattened."""
    parser = MarkdownIt("commonmark", {"html": True}).enable(["table"])
    dollarmath_plugin(parser, allow_labels=False, allow_space=False, allow_digits=False)
    parser = obsidian_syntax(parser)
    flat: list[Token] = []
    for token in parser.parse(markdown):
        flat.append(token)
        flat.extend(token.children or [])
    return flat


def shown_text(tokens: list[Token]) -> str:
    """The words a reader sees."""
    kinds = ("text", "text_special", "code_inline")
    return "".join(t.content if t.type in kinds else " " for t in tokens if not t.children)


@pytest.mark.parametrize("film", list(FILMS))
async def test_an_offline_answer_quotes_a_property_as_its_words(
    films: VaultIndex, tmp_path: Path, film: str
) -> None:
    _, _, question, words = FILMS[film]
    settings = api_settings(films.settings.vault_root, tmp_path)
    async with serve_api(settings, vault_index=films) as api:
        events = await ask_events(api, {"question": question})
    name, done = events[-1]
    assert name == "done", done
    answer = done["answer"]
    # Nothing a property holds was live markup: nothing to remove, nothing forged.
    assert done["removed_images"] == [] and done["removed_citations"] == [], answer
    assert [source["file"] for source in done["sources"]] == [f"Films/{film}.md"], answer
    tokens = parsed(answer)
    live = ("html_block", "html_inline", "image", "math_inline", "math_block")
    assert not [t for t in tokens if t.type in live], answer
    links = {t.content for t in tokens if t.type == "wikilink"}
    assert links == {f"Films/{film}"}, answer
    assert tokens[-1].type == "bullet_list_close"  # the Sources list still ends the answer
    assert words in " ".join(shown_text(tokens).split()), answer
    assert "\u202e" not in answer


async def test_get_note_shows_each_property_on_one_line_inside_its_block(
    films: VaultIndex, tmp_path: Path
) -> None:
    script = [
        FakeTurn.tool_calls([("get_note", {"path": f"Films/{film}"}) for film in FILMS]),
        FakeTurn.text("Read them all: [[Films/Arrival]]."),
    ]
    async with observed_fake(script) as fake:
        settings = api_settings(
            films.settings.vault_root, tmp_path, llm=fake_llm_settings(fake.base_url)
        )
        async with serve_api(settings, vault_index=films) as api:
            events = await ask_events(api, {"question": "Show me the film notes."})
    assert events[-1][0] == "done", events[-1]
    results: list[dict[str, Any]] = [m for m in fake.requests[1].messages if m["role"] == "tool"]
    assert len(results) == len(FILMS)
    for film, result in zip(FILMS, results, strict=True):
        content = result["content"].splitlines()
        note = content[content.index("---") + 1 :]  # the tool's header, then the note
        assert note[0] == "---" and note.index("---", 1) == 2, (film, note)  # one line each
        tokens = parsed(note[1])
        assert [t.type for t in tokens] == ["paragraph_open", "inline", "text", "paragraph_close"]
        assert "\u202e" not in result["content"]
