"""Serving the app on 127.0.0.1: what ``vault-agent serve`` runs, and what tests and benchmarks
use to get a real socket with the very same settings.

The address is fixed: the API is for the Obsidian on this machine, never the network.
``handler_cancellation`` is on, so a client that disconnects cancels its handler (an aborted
question stops the agent and its model call). Connections are accepted by
:class:`~vault_agent.server.protocol.ApiSite` (a cap on open connections, JSON errors for
requests aiohttp cannot parse). Request bodies are not decompressed by aiohttp:
:mod:`vault_agent.server.bodies` does it strictly, within the body limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable

from aiohttp import web

from vault_agent.config import Settings
from vault_agent.server.app import make_app
from vault_agent.server.keys import SETTINGS
from vault_agent.server.protocol import HOST, ApiSite

__all__ = ["HOST", "serve", "start_server"]
#: Open streams get this long to finish at shutdown before they are cancelled.
SHUTDOWN_TIMEOUT_S = 3.0


async def start_server(app: web.Application, port: int) -> tuple[web.AppRunner, int]:
    """Start `app` on 127.0.0.1:`port` (0: a free port); (runner, bound port).

    Runs the app's start-up (index, indexer, model). Raises OSError when the port is taken.
    """
    limits = app[SETTINGS].server
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=SHUTDOWN_TIMEOUT_S)
    await runner.setup()
    site = ApiSite(
        runner,
        port,
        limits.max_connections,
        access_log=None,
        # Bounds how long a connection may sit without a complete request (slowloris, idle
        # keep-alive): aiohttp's own default is an hour. Bodies have their own timeout.
        keepalive_timeout=limits.idle_timeout_s,
        # aiohttp would inflate a gzip body without a bound of its own, answer 500 to a corrupt
        # one and read a truncated one as empty: bodies.py decodes them instead.
        auto_decompress=False,
    )
    try:
        await site.start()
    except OSError:
        await runner.cleanup()
        raise
    bound_port: int = runner.addresses[0][1]
    return runner, bound_port


async def serve(settings: Settings, token: str, on_ready: Callable[[int], None]) -> None:
    """Serve `settings.vault` on 127.0.0.1:`settings.server.port` until SIGINT or SIGTERM,
    then shut down cleanly (model connections closed, store flushed and released).

    `on_ready` gets the bound port once the API answers."""
    runner, bound_port = await start_server(make_app(settings, token=token), settings.server.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    signals = (signal.SIGINT, signal.SIGTERM)
    for signum in signals:
        loop.add_signal_handler(signum, stop.set)
    try:
        on_ready(bound_port)
        await stop.wait()
    finally:
        for signum in signals:
            with contextlib.suppress(ValueError, RuntimeError):
                loop.remove_signal_handler(signum)
        await runner.cleanup()
