"""How `vault-agent sources` reaches a vault's sources: the index opened directly, or the
running sidecar holding it (see `sources.py`, which declares the commands); and the documents
of a .jsonl file, in batches the API takes."""

from __future__ import annotations

import contextlib
import hmac
import secrets
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Protocol

import httpx
import typer
from pydantic import ValidationError

from vault_agent.cli.common import errors, load_settings
from vault_agent.config import Settings
from vault_agent.index.documents.models import (
    MAX_DOCUMENT_BYTES,
    MAX_DOCUMENTS_PER_REQUEST,
    Document,
    DocumentError,
    SourceInfo,
    WriteReport,
)
from vault_agent.index.embed.errors import EmbeddingError
from vault_agent.index.store.errors import StoreError, StoreLockedError
from vault_agent.index.vault_index import VaultIndex
from vault_agent.local_http import direct_if_local
from vault_agent.server.security import health_proof
from vault_agent.server.source_schemas import DeleteSourceResponse, SourcesResponse
from vault_agent.validation import where

#: Seconds a sidecar may take to answer one batch (it embeds the documents first).
REQUEST_TIMEOUT_S = 600.0
#: A batch's body stays this far under the sidecar's body limit.
BODY_SHARE = 0.8
#: The longest line of a .jsonl file read as one document: its text is at most
#: `MAX_DOCUMENT_BYTES` of UTF-8, which JSON's escapes make up to six times
#: longer, with room for its other fields.
MAX_LINE_CHARS = 6 * MAX_DOCUMENT_BYTES + 100_000


class SourcesError(Exception):
    """A failure the user can act on; the message says how."""


class SourcesAccess(Protocol):
    """The index's sources, opened directly or through the running sidecar."""

    how: str
    """Said to the user: which of the two it is."""
    max_body_bytes: int | None
    """The largest request body, through a sidecar (None: no request is sent)."""

    def sources(self) -> list[SourceInfo]:
        """Every source, the vault first."""
        ...

    def add(self, source: str, documents: Sequence[Document]) -> WriteReport:
        """Add or update documents (one batch at most `MAX_DOCUMENTS_PER_REQUEST`)."""
        ...

    def remove(self, source: str) -> tuple[int, int]:
        """Delete a source: (documents, chunks) deleted."""
        ...

    def close(self) -> None:
        """Release the index or the connection."""
        ...


def read_documents(file: Path) -> list[Document]:
    """The documents of a .jsonl file, read a line at a time; `SourcesError` names the first
    bad line (a line too long to be one document among them: `/dev/zero` has no end)."""
    documents = []
    try:
        with file.open(encoding="utf-8") as lines:
            for number, line in enumerate(iter(lambda: lines.readline(MAX_LINE_CHARS + 1), "")):
                if len(line) > MAX_LINE_CHARS and not line.endswith("\n"):
                    raise SourcesError(
                        f"{file}, line {number + 1}: over {MAX_LINE_CHARS:,} characters, "
                        "more than one document can be"
                    )
                if line.strip():
                    documents.append(_document(file, number + 1, line))
    except (OSError, UnicodeDecodeError) as error:
        raise SourcesError(f"can't read {file}: {error}") from error
    if not documents:
        raise SourcesError(f"{file} holds no document (one JSON object per line)")
    return documents


def _document(file: Path, number: int, line: str) -> Document:
    try:
        return Document.model_validate_json(line, strict=True)
    except ValidationError as error:
        problem = error.errors(include_url=False, include_input=False)[0]
        field = where(problem, "")
        prefix = f"{field}: " if field else ""
        raise SourcesError(f"{file}, line {number}: {prefix}{problem['msg']}") from error


def batches(documents: Sequence[Document], access: SourcesAccess) -> Iterator[list[Document]]:
    """Runs of documents within the per-request count and (through a sidecar) body size."""
    limit = access.max_body_bytes
    batch: list[Document] = []
    size = 0
    for document in documents:
        length = len(document.model_dump_json().encode())
        full = len(batch) == MAX_DOCUMENTS_PER_REQUEST
        if batch and (full or (limit is not None and size + length > limit * BODY_SHARE)):
            yield batch
            batch, size = [], 0
        batch.append(document)
        size += length
    if batch:
        yield batch


class LocalSources:
    """The index opened by this process."""

    def __init__(self, settings: Settings) -> None:
        self.index = VaultIndex(settings)
        self.max_body_bytes: int | None = None
        where = settings.store.url or settings.edge_path
        self.how = f"No sidecar holds the index: opened it directly ({where})."

    def sources(self) -> list[SourceInfo]:
        return self.index.documents.sources()

    def add(self, source: str, documents: Sequence[Document]) -> WriteReport:
        return self.index.documents.upsert(source, documents)

    def remove(self, source: str) -> tuple[int, int]:
        return self.index.documents.delete_source(source)

    def close(self) -> None:
        self.index.close()


class SidecarSources:
    """The running sidecar's document API."""

    def __init__(self, settings: Settings, port: int) -> None:
        # Imported here: only this path needs the token file.
        from vault_agent.server.token import TokenError, resolve_token

        try:
            token = resolve_token(settings).value
        except (TokenError, OSError) as error:
            raise SourcesError(f"can't read the sidecar's token: {error}") from error
        self.base_url = f"http://127.0.0.1:{port}"
        self.max_body_bytes: int | None = settings.server.max_body_bytes
        # Straight to the port, never through a proxy the environment names: the token and
        # the documents are the user's.
        self.client = httpx.Client(
            base_url=self.base_url, timeout=REQUEST_TIMEOUT_S, **direct_if_local(self.base_url)
        )
        self.how = f"The running sidecar holds the index: sending this through {self.base_url}."
        try:
            self._prove(token)
            self.client.headers["Authorization"] = f"Bearer {token}"
            answer = self._json("GET", "/v1/sources")
        except BaseException:
            self.client.close()
            raise
        if answer.get("vault_id") != str(settings.vault_id):
            self.client.close()
            raise SourcesError(
                f"the sidecar on {self.base_url} serves another vault than "
                f"{settings.vault_root}; give the port of this vault's sidecar (--port)"
            )
        self._sources = SourcesResponse.model_validate(answer).sources

    def sources(self) -> list[SourceInfo]:
        return self._sources

    def add(self, source: str, documents: Sequence[Document]) -> WriteReport:
        body = {"documents": [d.model_dump(mode="json", exclude_unset=True) for d in documents]}
        answer = self._json("POST", f"/v1/sources/{source}/documents", body)
        return WriteReport.model_validate(answer)

    def remove(self, source: str) -> tuple[int, int]:
        answer = DeleteSourceResponse.model_validate(self._json("DELETE", f"/v1/sources/{source}"))
        return answer.documents, answer.chunks

    def close(self) -> None:
        self.client.close()

    def _prove(self, token: str) -> None:
        """Ask the program on the port to prove it holds `token` (`GET /v1/health` with a
        challenge, as the plugin does) before anything carries it: another program that took
        the port (the sidecar down, a wrong --port) gets neither the token nor the documents."""
        challenge = secrets.token_urlsafe(24)
        try:
            answer = self._json("GET", f"/v1/health?challenge={challenge}")
        except SourcesError as error:
            if isinstance(error.__cause__, httpx.HTTPError):
                raise  # nothing answers on the port: said as such
            answer = {}  # it answered, but not as the sidecar does
        proof = answer.get("proof")
        if not isinstance(proof, str) or not hmac.compare_digest(
            proof, health_proof(token, challenge)
        ):
            raise SourcesError(
                f"the program answering on {self.base_url} is not this vault's sidecar (it "
                "could not prove it holds the token); nothing was sent to it"
            )

    def _json(self, method: str, path: str, body: object = None) -> dict[str, object]:
        try:
            response = self.client.request(method, path, json=body)
        except httpx.HTTPError as error:
            raise SourcesError(
                f"the index is held by another process, and no sidecar answers on "
                f"{self.base_url} ({error}). Stop that process, or give the sidecar's --port."
            ) from error
        try:
            answer = response.json()
        except ValueError:
            answer = {}
        if response.status_code >= 400:
            detail = answer.get("error", {}) if isinstance(answer, dict) else {}
            message = detail.get("message") if isinstance(detail, dict) else None
            raise SourcesError(f"the sidecar refused ({response.status_code}): {message}")
        if not isinstance(answer, dict):
            raise SourcesError(f"the sidecar answered {method} {path} with no JSON object")
        return answer


@contextlib.contextmanager
def opened(vault: Path | None, port: int | None, quiet: bool = False) -> Iterator[SourcesAccess]:
    """The sources, opened directly or through the sidecar (said on stderr); a failure on the
    way exits 1 with its message."""
    settings = load_settings(vault)
    try:
        access = open_sources(settings, port)
    except (StoreError, EmbeddingError, FileNotFoundError, SourcesError) as error:
        errors.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from error
    try:
        if not quiet:
            errors.print(f"[dim]{access.how}[/dim]")
        yield access
    except (StoreError, EmbeddingError, SourcesError, DocumentError) as error:
        errors.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from error
    finally:
        access.close()


def open_sources(settings: Settings, port: int | None = None) -> SourcesAccess:
    """The index opened directly, or the running sidecar when it holds the index."""
    try:
        return LocalSources(settings)
    except StoreLockedError:
        return SidecarSources(settings, port or settings.server.port)
