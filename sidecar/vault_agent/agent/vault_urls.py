"""Which URLs an answer may load, and which it may link to, decided the way a browser reads them.

A URL is judged after WHATWG URL parsing (the ada parser, what browsers implement): tabs and
newlines inside it are dropped, backslashes count as slashes for web schemes, ``https:/x`` and
``http:x`` have a host, ``HTTPS://`` is ``https://``. Spellings never matter, the parsed URL does.

- A **vault resource** may load (an image, a video...): a relative path (an attachment beside the
  notes, or ``#fragment``, ``?query``, ``/absolute/path``: all on the page's own origin), or an
  ``app:`` URL, the scheme Obsidian serves vault files on, whose path names no other machine.
  Nothing with another scheme (https:, data:, blob:, file:, javascript:...) and nothing
  protocol-relative (``//host``) loads.
- A **safe link** may stay a clickable link: a vault resource, or an ``http:``/``https:`` page.
  A click is the user's choice, not an automatic load; other schemes (``javascript:``,
  ``obsidian:``, which can run commands of other plugins, ``file:``, ``data:``...) are not.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

import ada_url

#: Relative URLs are resolved against pages on this host, which is never a real one. A relative
#: path stays on it; anything naming a host of its own (//host, \\host, https:host) leaves it.
_BASE_HOST = "vault.invalid"
#: Two schemes: the URL standard reads ``https:x`` as a relative path on an ``https:`` page (and
#: ``http:x`` on an ``http:`` one) but as ``https://x/`` anywhere else, Obsidian's ``app:`` page
#: included. Only a URL relative on both is relative everywhere.
_BASES = (f"https://{_BASE_HOST}/vault/", f"http://{_BASE_HOST}/vault/")
RESOURCE_SCHEMES = frozenset({"app:"})
LINK_SCHEMES = frozenset({"http:", "https:"})
#: What renderers trim from a URL's ends before the URL parser sees it: markdown-it trims any
#: Unicode space and a byte-order mark (JavaScript's ``trim``), the URL standard only ASCII
#: spaces and controls. Judged untrimmed, ``\u3000https://host/x.png`` is a relative path.
_RENDERER_TRIMS = re.compile(r"^[\s\ufeff]+|[\s\ufeff]+$")


def is_vault_resource(url: str) -> bool:
    """True when loading ``url`` (as an image, media, frame or style) stays on this machine."""
    url = _as_rendered(url)
    absolute = _scheme(url)
    if absolute is not None:
        return absolute in RESOURCE_SCHEMES and _names_no_other_machine(url)
    return _stays_relative(url)


def is_safe_link(url: str) -> bool:
    """True when ``url`` may stay a clickable link: a vault resource or a web page."""
    url = _as_rendered(url)
    absolute = _scheme(url)
    if absolute is not None:
        resource = absolute in RESOURCE_SCHEMES and _names_no_other_machine(url)
        return resource or absolute in LINK_SCHEMES
    return _stays_relative(url)


def is_web_link(url: str) -> bool:
    """True when ``url`` is an ``http:``/``https:`` page: the only link an answer keeps once
    its citations are checked (a note is cited as a wikilink, which the check verifies)."""
    return _scheme(_as_rendered(url)) in LINK_SCHEMES


def _as_rendered(url: str) -> str:
    """``url`` as a renderer reads it: without the spaces it trims from its ends."""
    return _RENDERER_TRIMS.sub("", url)


def _names_no_other_machine(url: str) -> bool:
    """Obsidian serves a vault file at ``app://<id>/<its absolute path>``; a path naming
    another machine (``//host/share``, or with backslashes: a network share on Windows) would
    be fetched from it."""
    path = unquote(str(ada_url.parse_url(url, attributes=("pathname",))["pathname"]))
    return not path.startswith("//") and "\\" not in path


def _scheme(url: str) -> str | None:
    """The scheme (``"https:"``) of ``url`` parsed on its own, or None when it has none (or
    is no valid URL by itself)."""
    if not ada_url.check_url(url):
        return None
    return str(ada_url.parse_url(url, attributes=("protocol",))["protocol"]).lower()


def _stays_relative(url: str) -> bool:
    """True when ``url`` resolved against a page stays on that page's scheme and host."""
    for base in _BASES:
        try:
            resolved = ada_url.parse_url(
                ada_url.join_url(base, url), attributes=("protocol", "host")
            )
        except ValueError:
            return False
        if not base.startswith(str(resolved["protocol"])) or resolved["host"] != _BASE_HOST:
            return False
    return True
