"""Connections to the servers the settings name: one on this machine is dialled directly, never
through a proxy; and what a message may show of their URLs.

httpx, like curl, sends a request through the proxy that ``HTTP_PROXY``, ``HTTPS_PROXY`` or
``ALL_PROXY`` names (on macOS and Windows, the system's proxy too), loopback addresses
included unless ``NO_PROXY`` lists them. A local Ollama, LM Studio or Qdrant would then hand
every question, note and passage to the proxy, on another machine, while the user was told
nothing leaves this one. So the clients of the model providers (`llm/`), the embedding servers
(`index/embed/remote.py`) and the Qdrant server (`index/store/server.py`) are made with
:func:`direct_if_local`: a loopback URL's host is mounted on a direct connection, whatever proxy
the environment names, and a remote one keeps it (a company network may need its proxy to reach
a model's API). The rest of the environment still counts (``SSL_CERT_FILE``).

A configured URL may carry a secret: a password (``https://user:pass@gateway``), a token as the
user name, a key in the query (``?api-key=...``). Errors name the server they could not reach,
and go to the client and the log: they name it by :func:`shown_url`, and what a library logs
of it loses what :func:`url_secrets` finds (`server/redaction.py`).
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import SplitResult, parse_qsl, unquote, urlsplit, urlunsplit


def _split(url: str) -> SplitResult:
    """`url`'s parts, a bare ``host:port`` (as `OLLAMA_HOST` often holds) read as http."""
    return urlsplit(url if "://" in url else f"http://{url}")


def is_loopback(url: str) -> bool:
    """True when `url`'s host is this machine: ``localhost`` (or a name under it), an address
    of 127.0.0.0/8 or ``::1`` (IPv4-mapped too), or the unspecified address (``0.0.0.0``,
    ``::``: what `OLLAMA_HOST` often holds, and what connects to this machine)."""
    try:
        host = _split(url).hostname
    except ValueError:
        return False
    if not host:
        return False
    host = host.rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def direct_if_local(url: str) -> dict[str, Any]:
    """Keyword arguments for an ``httpx`` client of `url`: when it is on this machine, its host
    mounted on the client's own transport (no proxy; a more specific pattern than any proxy
    the environment mounts, so it wins), none otherwise."""
    if not is_loopback(url):
        return {}
    host = _split(url).hostname or ""
    return {"mounts": {f"all://{f'[{host}]' if ':' in host else host}": None}}


def shown_url(url: str) -> str:
    """`url` as a message may show it: its user part, query and fragment replaced by ``***``,
    which may hold a secret; the scheme, host, port and path kept, which say where it is."""
    try:
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
    except ValueError:
        return "(a URL that could not be read)"
    netloc = f"***@{host}" if "@" in parts.netloc else host
    query = "***" if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, "***" if parts.fragment else ""))


#: A query value this long may be a key; shorter ones (``format=json``) are left in logs.
MIN_SECRET_CHARS = 8


def url_secrets(url: str | None) -> list[str]:
    """The parts of `url` that may be secret: its user name and password, and its query
    values of `MIN_SECRET_CHARS` or more, as written and decoded."""
    if not url:
        return []
    try:
        parts = _split(url)
        values = [value for _, value in parse_qsl(parts.query)]
        userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    except ValueError:
        return []
    found = [*userinfo.split(":", 1), *(v for v in values if len(v) >= MIN_SECRET_CHARS)]
    return [form for part in found if part for form in dict.fromkeys((part, unquote(part)))]
