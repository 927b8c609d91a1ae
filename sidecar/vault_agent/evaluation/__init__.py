"""Retrieval evaluation: `vault-agent eval` over a BEIR dataset or a question file on a vault.

Everything here drives the product's own path (indexer, store, searcher); nothing in it is used
when answering a user. `cache` keeps dense vectors on disk so re-runs only re-embed changed text.
"""
