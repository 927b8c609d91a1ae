"""The plugin<->sidecar contract (`vault_agent.server.contract`): one JSON Schema generated from
the pydantic models, checked in for the plugin's generated TypeScript types."""

from __future__ import annotations

from typing import Any, get_args

from conftest import REPO
from vault_agent.agent import events
from vault_agent.server.contract import EVENTS_NAME, build_contract, contract_json
from vault_agent.server.routes import ROUTES

CHECKED_IN = REPO / "plugin" / "src" / "generated" / "contract.schema.json"


def definitions() -> dict[str, Any]:
    defs: dict[str, Any] = build_contract()["$defs"]
    return defs


def test_checked_in_schema_matches_the_models() -> None:
    assert CHECKED_IN.read_text(encoding="utf-8") == contract_json(), (
        "plugin/src/generated/contract.schema.json is stale: run `npm run contract`"
    )


def test_every_route_body_query_and_answer_is_in_the_contract() -> None:
    defs = definitions()
    for route in ROUTES:
        for model in (route.body, route.query, route.response):
            if model is not None:
                assert model.__name__ in defs, f"{route.method} {route.path}: {model.__name__}"
    assert "ErrorResponse" in defs


def test_each_event_is_named_and_the_union_discriminates_by_event() -> None:
    defs = definitions()
    union = defs[EVENTS_NAME]
    assert union["discriminator"]["propertyName"] == "event"
    union_type = get_args(events.AgentEvent)[0]  # Annotated[A | B | ..., Field(...)]
    names = {event.__name__ for event in get_args(union_type)}
    assert {ref["$ref"].rsplit("/", 1)[-1] for ref in union["oneOf"]} == names
    assert names <= defs.keys()


def test_answers_require_every_field_and_requests_only_those_without_default() -> None:
    defs = definitions()
    # NoteRef.source has a default, but the sidecar always sends it: required in an answer.
    assert set(defs["NoteRef"]["required"]) == {"file", "title", "heading", "source", "url"}
    # AgentRequest.profile has a default: a client may leave it out.
    assert defs["AgentRequest"]["required"] == ["question"]
    assert defs["SearchRequest"]["required"] == ["query"]


def test_fields_carry_no_titles() -> None:
    """A titled field would become a named type of its own in the generated TypeScript."""
    for name, schema in definitions().items():
        for field, field_schema in schema.get("properties", {}).items():
            assert "title" not in field_schema, f"{name}.{field}"
