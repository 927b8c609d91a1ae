"""``POST /v1/ask``: one question in, the agent's events out as Server-Sent Events.

Each event is one SSE message: ``event:`` its name (status, tool_call, tool_result, delta, done,
error), ``data:`` its JSON (see `vault_agent.agent.events`). Failures before the stream starts
(bad body, index unavailable) are ordinary JSON errors; once it has started they arrive as an
``error`` event, the last of the stream.

A client that disconnects or aborts cancels this handler (the server runs with
``handler_cancellation``); the cancellation reaches the agent loop, which closes the model's
HTTP stream on its way out, so the model stops generating too. A client may also be gone
before the cancellation arrives: then writing fails, as the stream starts (its headers), while
it streams or at its last event. Either way that is the client's doing, logged at INFO, never
a server error.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator

from aiohttp import web
from aiohttp_sse import EventSourceResponse

from vault_agent.agent.events import AgentEvent, ErrorEvent
from vault_agent.agent.loop import (
    run_agent,
)
from vault_agent.agent.reader import ToolsContext
from vault_agent.agent.request import (
    AgentRequest,
)
from vault_agent.config import Settings
from vault_agent.llm.errors import (
    ModelError,
    ModelUnavailableError,
)
from vault_agent.server.bodies import read_body
from vault_agent.server.keys import INDEX, MODELS, SETTINGS
from vault_agent.server.model_service import ModelService
from vault_agent.server.redaction import redact

log = logging.getLogger(__name__)
#: The stream's last event when one of the agent's events can't be written as JSON: a client
#: must always get a final event, never a stream that stops.
UNSENDABLE = "the sidecar could not send the answer's next event; its log has the details"


async def ask(request: web.Request) -> web.StreamResponse:
    """Answer a question about the vault, streaming the agent's events."""
    body = await read_body(request, AgentRequest)
    context = ToolsContext.from_index(request.app[INDEX].require())
    events = _events(body, request.app[MODELS], context, request.app[SETTINGS])
    stream = EventSourceResponse(allow_all_methods=True)
    try:
        # aclosing: if the client goes away while we wait on a send, the agent's generator is
        # closed now (cancelling its model call), not whenever the garbage collector gets to it.
        async with contextlib.aclosing(events):
            await stream.prepare(request)  # sends the headers: the client may be gone already
            async with stream:
                await _send_all(events, stream)
    except ConnectionResetError:  # aiohttp's ClientConnectionResetError is one
        log.info("client closed the ask stream")
    except TimeoutError:  # a send the client never read (aiohttp-sse's send_timeout)
        log.info("client stopped reading the ask stream")
    # Returned even when unsent: aiohttp finishes a response whose client is gone quietly.
    return stream


async def _send_all(events: AsyncGenerator[AgentEvent, None], stream: EventSourceResponse) -> None:
    """Each event as one SSE message; one that can't be written ends the stream with an error."""
    async for event in events:
        try:
            # A provider's error body, or a model, may repeat the API key: the events hold
            # none of the secrets the server holds, as its log doesn't.
            data = redact(event.model_dump_json())
        except (ValueError, RecursionError):  # pydantic's serialisation errors too
            log.exception("an ask event could not be written")
            failed = ErrorEvent(code="internal", message=UNSENDABLE)
            await stream.send(failed.model_dump_json(), event=failed.event)
            return
        await stream.send(data, event=event.event)


async def _events(
    body: AgentRequest, models: ModelService, context: ToolsContext, settings: Settings
) -> AsyncGenerator[AgentEvent, None]:
    """The agent's events; any failure becomes a final ``error`` event, never a dropped
    stream."""
    try:
        async with models.model_for(body.profile) as model:
            async for event in run_agent(body, model, context, settings):
                yield event
    except ModelError as error:  # the model could not even be set up (e.g. a missing key)
        code = "model_unavailable" if isinstance(error, ModelUnavailableError) else "model_error"
        yield ErrorEvent(code=code, message=str(error))
    except Exception:
        log.exception("ask failed")
        yield ErrorEvent(
            code="internal", message="internal error in the sidecar; its log has the details"
        )
