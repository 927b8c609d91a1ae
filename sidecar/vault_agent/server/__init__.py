"""The sidecar's local HTTP API for the Obsidian plugin (aiohttp): `app.make_app` builds it,
`runner.serve` runs it on 127.0.0.1."""
