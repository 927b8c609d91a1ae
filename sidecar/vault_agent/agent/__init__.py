"""The agent: a question in, events out, ending in an answer whose every citation is checked.

- ``loop``: :func:`~vault_agent.agent.loop.run_agent` and its request (``AgentRequest``);
- ``events``: what a client sees (docs/events.md);
- ``tools``: the read-only tools the model calls; ``reader``: reading notes back from the index;
  ``passages``: how search results are written for the model (and read by the extractive
  profile);
- ``prompts``: the system prompt and the context block (active note and neighbourhood);
- ``citations``: the citation check and our Sources list.
"""
