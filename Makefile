# Two entry points for a fresh machine: `make demo` (the main job) and `make test` (everything).
# Both install what they need: uv from PyPI, then the locked Python environment.
UV_VERSION := 0.13.9
UV := python3 -m uv
VAULT := examples/vault
QUESTION := When did I last feed the sourdough starter?

.PHONY: setup demo test lint test-python bench bench-scale bench-compare plugin-setup lint-plugin test-plugin test-e2e check-contract release

setup:
	python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore "uv==$(UV_VERSION)"
	$(UV) sync --frozen --quiet

demo: setup
	$(UV) run vault-agent index --vault $(VAULT)
	$(UV) run vault-agent ask "$(QUESTION)" --vault $(VAULT) --verbose

lint: setup check-contract
	$(UV) run ruff check .
	$(UV) run ruff format --check .
	$(UV) run mypy
	$(UV) run lint-imports

test-python: setup
	$(UV) run pytest

test: lint test-python lint-plugin test-plugin test-e2e

bench: setup
	$(UV) run python -m bench.core
	$(UV) run python -m bench.multilingual
	$(UV) run python -m bench.agent_loop
	$(UV) run python -m bench.server
	$(UV) run python -m bench.load
	$(UV) run python -m bench.cli

# 25 to 35 minutes at the default sizes (1k, 10k and 50k notes): see docs/performance.md.
bench-scale: setup
	$(UV) run python -m bench.scale

bench-compare: setup
	$(UV) run --group compare python -m bench.compare

# The Obsidian plugin (TypeScript, at the repository root: package.json, plugin/).
# npm ci runs again only when package-lock.json changes; Chromium (Debian's, for the browser
# tests) is installed when missing, with sudo only when not root.
node_modules/.installed: package-lock.json package.json
	npm ci --no-audit --no-fund
	touch $@

plugin-setup: node_modules/.installed
	@if [ ! -x /usr/bin/chromium ]; then \
		if [ "$$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; \
	fi

lint-plugin: plugin-setup check-contract
	npx tsc --noEmit
	npx eslint --max-warnings 0 .

# The plugin's TypeScript types are generated from the sidecar's pydantic models (through one
# JSON Schema, both checked in under plugin/src/generated): fail when they drift apart.
check-contract: setup node_modules/.installed
	node plugin/scripts/contract.mjs --check

test-plugin: plugin-setup
	npx vitest run

# Release assets: the plugin as the community directory takes it (main.js, manifest.json and
# styles.css, attached to a GitHub release named after the manifest's version) and the sidecar's
# wheel and sdist (uv tool install / pipx install).
RELEASE := dist/release

release: setup node_modules/.installed
	rm -rf $(RELEASE)
	npm run build
	mkdir -p $(RELEASE)/plugin
	cp main.js manifest.json styles.css $(RELEASE)/plugin/
	$(UV) build --quiet --out-dir $(RELEASE)/sidecar
	@ls -1 $(RELEASE)/plugin $(RELEASE)/sidecar

test-e2e: setup plugin-setup
	npm run build
	npx vitest run --config plugin/e2e/vitest.config.ts
