"""Connections to the servers the settings name: one on this machine is dialled directly, never
through a proxy.

httpx, like curl, sends a request through the proxy that ``HTTP_PROXY``, ``HTTPS_PROXY`` or
``ALL_PROXY`` names (on macOS and Windows, the system's proxy too), loopback addresses
included unless ``NO_PROXY`` lists them. A local Ollama, LM Studio or Qdrant would then hand
every question, note and passage to the proxy, on another machine, while the user was told
nothing leaves this one. So the clients of the model providers (`llm/`), the embedding servers
(`index/embed/remote.py`) and the Qdrant server (`index/store/server.py`) are made with
:func:`direct_if_local`: a loopback URL ignores the environment's proxy settings, a remote one
keeps them (a company network may need its proxy to reach a model's API).
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit


def is_loopback(url: str) -> bool:
    """True when `url`'s host is this machine: ``localhost`` (or a name under it), an address
    of 127.0.0.0/8 or ``::1`` (IPv4-mapped too), or the unspecified address (``0.0.0.0``,
    ``::``: what `OLLAMA_HOST` often holds, and what connects to this machine)."""
    try:
        host = urlsplit(url if "://" in url else f"http://{url}").hostname
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
    """Keyword arguments for an ``httpx`` client of `url`: ``trust_env=False`` (no proxy from
    the environment) when it is on this machine, none otherwise."""
    return {"trust_env": False} if is_loopback(url) else {}
