"""What a chunk embeds: the words a reader of the note sees (`vault/reading_text.py`)."""

from __future__ import annotations

import pytest

from vault_agent.vault.reading_text import reading_text


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        ("Plain words stay.", "Plain words stay."),
        ("See [the docs](https://example.com/docs) now", "See the docs now"),
        ("![badge](https://img.shields.io/x.svg) after", "after"),
        (
            "An embed ![[diagram.png]] and a link [[Notes/Garden|the garden]]",
            "An embed and a link the garden",
        ),
        ("A bare [[Projects/Kyoto Trip]] link", "A bare Kyoto Trip link"),
        ("Hidden %%not this%% but this", "Hidden but this"),
        ("Code `app.vault.getFiles()` stays", "Code app.vault.getFiles() stays"),
        (
            "```js\n// %% not a comment %%\nconsole.log(1)\n```",
            "// %% not a comment %%\nconsole.log(1)",
        ),
        ("<div class='x'>Hello <b>there</b></div>", "Hello there"),
        ("Go to https://github.com/a/b or www.example.org today", "Go to or today"),
        ("<https://auto.link/x> gone", "gone"),
        ("Fish &amp; chips", "Fish & chips"),
        ("# Title\n\nBody", "Title\nBody"),
        ("| a | b |\n|---|---|\n| 1 | [x](http://y) |", "a | b\n1 | x"),
        ("- one\n- two [link](https://x.y)", "- one\n- two link"),
        ("<script>alert(1)</script>\n\nAfter", "After"),
        # Marked sections Python's parser asserts on: read as the text a browser shows.
        ("<div><![[Diagram]]</div>", "<![[Diagram]]"),
        ("<div>Before <![x]> after</div>", "Before <![x]> after"),
        ("<div><![CDATA[x]]> kept</div>", "kept"),
    ],
)
def test_reading_text(markdown: str, expected: str) -> None:
    assert reading_text(markdown) == expected


def test_a_run_of_brackets_reads_in_linear_time() -> None:
    # The parser's link labels are bounded (vault/markdown.py): a hostile note can't stall.
    text = "[" * 50_000 + "x"
    assert reading_text(text).endswith("x")
