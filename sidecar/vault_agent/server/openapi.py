"""The OpenAPI 3.1 document of the API, generated from the route table and the pydantic models.

Nothing is written twice: paths and methods come from `routes.ROUTES`, bodies and answers from
the models' JSON schemas (OpenAPI 3.1 uses JSON Schema 2020-12, which pydantic emits), and each
operation lists the error statuses its kind of route can give, all in the one error shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from http import HTTPStatus
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import JsonSchemaMode

from vault_agent import __version__
from vault_agent.agent.events import AgentEvent
from vault_agent.server.errors import ErrorResponse
from vault_agent.server.routes import Route

REF = "#/components/schemas/{model}"
_PARAMETER = re.compile(r"\{(?P<name>\w+)(?::[^}]*)?\}")
_EVENTS_KEY = "AgentEvent"

DESCRIPTION = """\
The local API of the Vault Agent sidecar, for the Obsidian plugin. It listens on 127.0.0.1.

Every route but `GET /v1/health` needs `Authorization: Bearer <token>`; `vault-agent serve`
prints where the token is. Requests whose `Host` is not 127.0.0.1/localhost/[::1], or whose
`Origin` is not Obsidian's (`app://obsidian.md`, `capacitor://localhost`), are refused (403).
Every failure answers `{"error": {"code": ..., "message": ...}}`."""

ASK_EVENTS = """\
Server-Sent Events; each message's `event:` line names it and its `data:` line is its JSON \
(schema `AgentEvent`): `status`, `tool_call`, `tool_result`, `delta` any number of times, then \
exactly one `done` (the checked answer and its sources) or one `error`."""


def build_openapi(routes: Iterable[Route]) -> dict[str, Any]:
    """The OpenAPI 3.1 document for `routes`."""
    routes = list(routes)
    refs, schemas = _schemas(routes)
    event_names = sorted(schemas[_EVENTS_KEY]["discriminator"]["mapping"])
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        path = _PARAMETER.sub(r"{\g<name>}", route.path)
        paths.setdefault(path, {})[route.method.lower()] = _operation(route, refs, event_names)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Vault Agent sidecar",
            "version": __version__,
            "description": DESCRIPTION,
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }


def error_statuses(route: Route) -> list[int]:
    """Every error status `route` can answer, in the one error shape."""
    statuses = {403, 500, *route.errors}  # 403: foreign Host or Origin
    if not route.public:
        statuses.add(401)
    if route.body is not None:
        statuses |= {400, 408, 413, 415, 422}
    if route.query is not None:
        statuses.add(422)
    if route.needs_index:
        statuses.add(503)
    return sorted(statuses)


def _operation(
    route: Route, refs: dict[tuple[str, JsonSchemaMode], Any], event_names: list[str]
) -> dict[str, Any]:
    handler_doc = (route.handler.__doc__ or "").strip()
    operation: dict[str, Any] = {
        "operationId": route.handler.__name__,
        "summary": route.summary,
        "description": handler_doc,
        "responses": _responses(route, refs, event_names),
    }
    if route.public:
        operation["security"] = []
    declared = route.params.model_json_schema()["properties"] if route.params else {}
    parameters = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": _path_schema(declared.get(name)),
        }
        for name in _PARAMETER.findall(route.path)
    ]
    if route.query is not None:
        query_schema = route.query.model_json_schema()
        parameters += [
            {"name": name, "in": "query", "required": False, "schema": schema}
            for name, schema in query_schema["properties"].items()
        ]
    if parameters:
        operation["parameters"] = parameters
    if route.body is not None:
        body_schema = route.body.model_json_schema()
        operation["requestBody"] = {
            "required": bool(body_schema.get("required") or body_schema.get("minProperties")),
            "content": {"application/json": {"schema": refs[(route.body.__name__, "validation")]}},
        }
    return operation


def _path_schema(declared: dict[str, Any] | None) -> dict[str, Any]:
    """A path parameter's schema: the declared one (without pydantic's title), else any
    non-empty string."""
    if declared is None:
        return {"type": "string", "minLength": 1}
    return {key: value for key, value in declared.items() if key != "title"}


def _responses(
    route: Route, refs: dict[tuple[str, JsonSchemaMode], Any], event_names: list[str]
) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for status in route.statuses:
        if route.stream:
            content = {"text/event-stream": {"schema": _event_schema(refs, event_names)}}
            description = ASK_EVENTS
        else:
            schema = (
                refs[(route.response.__name__, "serialization")]
                if route.response is not None
                else {"type": "object"}
            )
            content = {"application/json": {"schema": schema}}
            description = HTTPStatus(status).phrase
        responses[str(status)] = {"description": description, "content": content}
    error = {"application/json": {"schema": refs[(ErrorResponse.__name__, "serialization")]}}
    for status in error_statuses(route):
        responses[str(status)] = {"description": HTTPStatus(status).phrase, "content": error}
    return responses


def _event_schema(
    refs: dict[tuple[str, JsonSchemaMode], Any], event_names: list[str]
) -> dict[str, Any]:
    """One Server-Sent Event: its name and its JSON data. (OpenAPI 3.2 would call this the
    stream's `itemSchema`; before 3.2 a stream's `schema` describes each event.)"""
    return {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": {"enum": event_names},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": refs[(_EVENTS_KEY, "serialization")],
            },
        },
    }


def _schemas(
    routes: list[Route],
) -> tuple[dict[tuple[str, JsonSchemaMode], Any], dict[str, Any]]:
    """References to every body, answer and event schema, and the definitions they point to."""
    inputs: dict[tuple[str, JsonSchemaMode], TypeAdapter[Any]] = {
        (ErrorResponse.__name__, "serialization"): TypeAdapter(ErrorResponse),
        (_EVENTS_KEY, "serialization"): TypeAdapter(AgentEvent),
    }
    models: list[tuple[type[BaseModel] | None, JsonSchemaMode]] = []
    for route in routes:
        models += [(route.body, "validation"), (route.response, "serialization")]
    for model, mode in models:
        if model is not None:
            inputs[(model.__name__, mode)] = TypeAdapter(model)
    refs, definitions = TypeAdapter.json_schemas(
        [(key, mode, adapter) for (key, mode), adapter in inputs.items()], ref_template=REF
    )
    schemas = dict(definitions.get("$defs", {}))
    # The event union is no model of its own: give it a name, so clients can refer to it.
    schemas[_EVENTS_KEY] = refs[(_EVENTS_KEY, "serialization")]
    refs[(_EVENTS_KEY, "serialization")] = {"$ref": REF.format(model=_EVENTS_KEY)}
    return refs, schemas
