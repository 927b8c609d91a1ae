"""`python -m vault_agent.cli`."""

from vault_agent.cli.main import run

run()
