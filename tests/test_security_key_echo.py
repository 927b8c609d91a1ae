"""The provider's API key never reaches a client through the answer's events. The provider's
side received it (in its Authorization header) and can send it back: in an error body (a
proxy, a hostile server; OpenAI itself quotes it, masked, in 401 messages) or in what the
model writes. The log was already redacted (server/redaction.py); an audit found the events
were not."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Literal

import pytest

from fake_llm import FakeLLMServer, FakeTurn
from server_support import ServedVault, api_settings, ask_events, serve_api
from vault_agent.config import LlmSettings
from vault_agent.server.redaction import redact

KEY = "sk-live-5e3f0a9c7b1d2e4f"
SCRIPTS = {
    "a 401 body quoting the key": [
        FakeTurn.error(401, body=json.dumps({"error": {"message": f"Incorrect API key: {KEY}"}}))
    ],
    "a 400 body quoting the header": [FakeTurn.error(400, body=f"bad header: Bearer {KEY}")],
    "an answer quoting the key": [FakeTurn.text(f"Your key is {KEY}.")],
    "a tool call carrying the key": [
        FakeTurn.tool_calls([("search_notes", {"query": KEY})]),
        FakeTurn.text("Nothing found."),
    ],
}


@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize("wire", ["openai", "mistral"])
@pytest.mark.parametrize("case", list(SCRIPTS))
async def test_the_providers_key_reaches_no_event(
    wire: Literal["openai", "mistral"], case: str, served_vault: ServedVault, tmp_path: Path
) -> None:
    fake = FakeLLMServer(wire, SCRIPTS[case])
    await fake.start()
    try:
        llm = LlmSettings(
            profile=wire,
            base_url=fake.base_url,
            api_key=KEY,
            model="m",
            max_retries=0,
            timeout_s=10,
        )
        settings = api_settings(served_vault.vault, tmp_path, llm=llm)
        async with serve_api(settings, vault_index=served_vault.index) as api:
            events = await ask_events(api, {"question": "What is my key?"})
    finally:
        await fake.close()
    assert KEY in fake.requests[0].headers.get("Authorization", "")  # the provider had it
    assert events[-1][0] in ("done", "error")
    assert not [name for name, data in events if KEY[3:11] in json.dumps(data)]


@pytest.mark.parametrize("text", ["a-" * 20_000, "-a" * 20_000, "a." * 20_000, "www." * 10_000])
def test_redacting_a_long_event_takes_linear_time(text: str) -> None:
    # Every event is redacted on the server's loop, a done event with its whole answer (up to
    # llm.max_answer_chars, 40,000): a URL's user part was sought from each word of a run.
    started = time.thread_time()
    assert redact(text + " https://user:pw@host/") == text + " https://[redacted]@host/"
    assert time.thread_time() - started < 0.5


def test_a_urls_user_part_is_redacted_whatever_comes_before_its_scheme() -> None:
    for before in ["", "see ", "1-", "a-b.", "(", "x+"]:
        assert redact(f"{before}git+ssh://user:pw@host") == f"{before}git+ssh://[redacted]@host"
