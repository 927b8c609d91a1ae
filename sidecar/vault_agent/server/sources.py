"""Handlers of the document API: sources other than the vault, written by clients.

They are registered in `routes.ROUTES` with the others (same auth, limits and error shape).
Path parameters are checked first: the reserved `vault` source is refused (403) whatever the
body, a malformed name or id is a 422. Writes embed in a worker thread and answer when the
documents are searchable; see `vault_agent.index.documents.store` for what is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from typing import TypeVar

from aiohttp import web

from vault_agent.index.documents.models import (
    DocumentChanges,
    DocumentError,
    DocumentLimitError,
    ReservedSourceError,
    check_document_id,
    check_source,
)
from vault_agent.index.documents.store import Documents
from vault_agent.server.bodies import json_response, read_body, read_query
from vault_agent.server.errors import ApiError
from vault_agent.server.keys import INDEX
from vault_agent.server.source_schemas import (
    DeleteDocumentResponse,
    DeleteSourceResponse,
    DocumentListQuery,
    DocumentListResponse,
    DocumentsRequest,
    SourcesResponse,
)

T = TypeVar("T")


async def list_sources(request: web.Request) -> web.Response:
    """Every source with its document and chunk counts, embedding model and times; the vault
    (managed by the indexer) comes first."""
    index = request.app[INDEX].require()
    sources = await asyncio.to_thread(index.documents.sources)
    return json_response(SourcesResponse(vault_id=str(index.settings.vault_id), sources=sources))


async def replace_documents(request: web.Request) -> web.Response:
    """Make the source hold exactly these documents (full replace): the others are deleted,
    unchanged ones are not embedded again."""
    source = _source(request)
    body = await read_body(request, DocumentsRequest)
    documents = _documents(request)
    return json_response(await _run(documents.replace, source, body.documents))


async def add_documents(request: web.Request) -> web.Response:
    """Add documents, replacing those with the same id; the source's other documents stay."""
    source = _source(request)
    body = await read_body(request, DocumentsRequest)
    documents = _documents(request)
    return json_response(await _run(documents.upsert, source, body.documents))


async def list_documents(request: web.Request) -> web.Response:
    """A page of the source's documents, by id, without their text (an unknown source has
    none)."""
    source = _source(request)
    query = read_query(request, DocumentListQuery)
    found = await _run(_documents(request).list_documents, source)
    page = found[query.offset : query.offset + query.limit]
    answer = DocumentListResponse(
        source=source, total=len(found), offset=query.offset, documents=page
    )
    return json_response(answer)


async def get_document(request: web.Request) -> web.Response:
    """One document, its text rebuilt from its chunks."""
    source, doc_id = _document_path(request)
    found = await _run(_documents(request).get, source, doc_id)
    if found is None:
        raise _not_found(source, doc_id)
    return json_response(found)


async def patch_document(request: web.Request) -> web.Response:
    """Change some fields of a document; a new text or title is embedded again."""
    source, doc_id = _document_path(request)
    changes = await read_body(request, DocumentChanges)
    found = await _run(_documents(request).patch, source, doc_id, changes)
    if found is None:
        raise _not_found(source, doc_id)
    return json_response(found)


async def delete_document(request: web.Request) -> web.Response:
    """Delete a document; idempotent: `deleted` says whether there was one."""
    source, doc_id = _document_path(request)
    chunks = await _run(_documents(request).delete, source, doc_id)
    return json_response(
        DeleteDocumentResponse(source=source, id=doc_id, deleted=chunks > 0, chunks=chunks)
    )


async def delete_source(request: web.Request) -> web.Response:
    """Delete a whole source and its documents; idempotent."""
    source = _source(request)
    count, chunks = await _run(_documents(request).delete_source, source)
    answer = DeleteSourceResponse(source=source, deleted=count > 0, documents=count, chunks=chunks)
    return json_response(answer)


def _documents(request: web.Request) -> Documents:
    return request.app[INDEX].require().documents


def _source(request: web.Request) -> str:
    source = request.match_info["source"]
    with _refusals():
        check_source(source)
    return source


def _document_path(request: web.Request) -> tuple[str, str]:
    source = _source(request)
    doc_id = request.match_info["doc_id"]
    with _refusals():
        check_document_id(doc_id)
    return source, doc_id


async def _run(function: Callable[..., T], *args: object) -> T:
    """`function` in a worker thread (the store and the embedder block); refusals as errors."""
    with _refusals():
        return await asyncio.to_thread(function, *args)


@contextlib.contextmanager
def _refusals() -> Iterator[None]:
    """Turns the document store's refusals into API errors."""
    try:
        yield
    except ReservedSourceError as error:
        raise ApiError(403, error.code, str(error)) from None
    except DocumentLimitError as error:
        raise ApiError(413, error.code, str(error)) from None
    except DocumentError as error:
        raise ApiError(422, error.code, str(error)) from None


def _not_found(source: str, doc_id: str) -> ApiError:
    return ApiError(404, "document_not_found", f"no document {doc_id!r} in the source {source!r}")
