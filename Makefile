# Two entry points for a fresh machine: `make demo` (the main job) and `make test` (everything).
# Both install what they need: uv from PyPI, then the locked Python environment.
UV_VERSION := 0.13.9
UV := python3 -m uv
VAULT := examples/vault
QUESTION := When did I last feed the sourdough starter?

.PHONY: setup demo test lint test-python bench

setup:
	python3 -m pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"
	$(UV) sync --frozen --quiet

demo: setup
	$(UV) run vault-agent index --vault $(VAULT)
	$(UV) run vault-agent search "$(QUESTION)" --vault $(VAULT) --limit 5

lint: setup
	$(UV) run ruff check .
	$(UV) run ruff format --check .
	$(UV) run mypy

test-python: setup
	$(UV) run pytest

test: lint test-python

bench: setup
	$(UV) run python -m bench.core
