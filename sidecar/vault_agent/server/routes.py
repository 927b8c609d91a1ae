"""Every route of the API, registered in one place (`ROUTES`), and the small handlers.

The table also feeds the OpenAPI document and the auth middleware (which routes are public),
so a route cannot exist without being documented and protected. `POST /v1/ask` lives in
`ask.py`. Store calls block, so handlers run them in worker threads.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import PurePosixPath

from aiohttp import web
from aiohttp.typedefs import Handler
from pydantic import BaseModel

from vault_agent import __version__
from vault_agent.agent.request import (
    AgentRequest,
)
from vault_agent.index.documents.models import (
    DocumentChanges,
    StoredDocument,
    WriteReport,
)
from vault_agent.index.note_text import rebuild_markdown
from vault_agent.index.search.related import related_notes
from vault_agent.index.store.protocol import ChunkPayload, SearchFilter, Store
from vault_agent.server.ask import ask
from vault_agent.server.bodies import json_response, read_body, read_query
from vault_agent.server.errors import ApiError
from vault_agent.server.index_service import SyncCancelledError
from vault_agent.server.keys import INDEX, INDEXER, OPENAPI, PUBLIC_ROUTES, TOKEN
from vault_agent.server.schemas import (
    HealthQuery,
    HealthResponse,
    IndexCounts,
    IndexQuery,
    IndexResponse,
    IndexState,
    NoteResponse,
    RelatedRequest,
    RelatedResponse,
    SearchRequest,
    SearchResponse,
    SyncRequest,
    SyncResponse,
)
from vault_agent.server.security import expect_continue, health_proof
from vault_agent.server.source_schemas import (
    DeleteDocumentResponse,
    DeleteSourceResponse,
    DocumentListQuery,
    DocumentListResponse,
    DocumentPath,
    DocumentsRequest,
    SourcePath,
    SourcesResponse,
)
from vault_agent.server.sources import (
    add_documents,
    delete_document,
    delete_source,
    get_document,
    list_documents,
    list_sources,
    patch_document,
    replace_documents,
)
from vault_agent.vault.files import PathOutsideVaultError, resolve_in_vault


@dataclass(frozen=True)
class Route:
    """One route: how it is served and how it is documented."""

    method: str
    path: str
    """aiohttp pattern; a ``{name:regex}`` parameter is ``{name}`` in the OpenAPI document."""
    handler: Handler
    summary: str
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    """Query-string parameters, one field each (documented as `in: query`)."""
    params: type[BaseModel] | None = None
    """Schemas of the path parameters, one field each (else: any non-empty string)."""
    response: type[BaseModel] | None = None
    statuses: tuple[int, ...] = (200,)
    """Success statuses."""
    public: bool = False
    """Served without a token (health only)."""
    needs_index: bool = True
    """Answers 503 while the index is unavailable."""
    stream: bool = False
    """Answers with Server-Sent Events (the agent's events) instead of JSON."""
    errors: tuple[int, ...] = ()
    """Error statuses of its own, beyond those every route of its kind has."""


async def health(request: web.Request) -> web.Response:
    """Liveness, without a token: the plugin polls it to know the sidecar is up. With a
    `challenge`, the answer proves this server holds the token (`health_proof`), so a client
    can tell it from another program on the port before it sends the token."""
    query = read_query(request, HealthQuery)
    ready = request.app[INDEX].index is not None
    proof = None if query.challenge is None else health_proof(request.app[TOKEN], query.challenge)
    return json_response(
        HealthResponse(
            status="ok" if ready else "degraded",
            version=__version__,
            index="ready" if ready else "unavailable",
            proof=proof,
        )
    )


async def search(request: web.Request) -> web.Response:
    """Hybrid search; the best chunk of each note, ranked."""
    body = await read_body(request, SearchRequest)
    index = request.app[INDEX].require()
    hits = await asyncio.to_thread(
        index.searcher.search, body.query, body.search_filter(), body.limit, body.mode
    )
    return json_response(SearchResponse(hits=hits))


async def index_status(request: web.Request) -> web.Response:
    """State, progress, counts and per-file status of the index. `files=problems` lists only
    skipped and failed files, `files=none` none (what a status bar polls on a big vault)."""
    query = read_query(request, IndexQuery)
    holder, indexer = request.app[INDEX], request.app[INDEXER]
    index = holder.index
    if index is None:
        empty = IndexCounts(files=0, indexed=0, skipped=0, failed=0, chunks=0)
        answer = IndexResponse(
            state="unavailable",
            error=holder.error,
            progress=indexer.progress(),
            counts=empty,
            last_sync=None,
            files=[],
        )
        return json_response(answer)
    chunks = await asyncio.to_thread(index.store.count)
    files = index.indexer.file_status()
    progress = index.indexer.progress
    counts = IndexCounts(
        files=len(files),
        indexed=sum(status.state == "indexed" for status in files),
        skipped=sum(status.state == "skipped" for status in files),
        failed=sum(status.state == "failed" for status in files),
        chunks=chunks,
    )
    state: IndexState = "idle"
    if progress.state in ("scanning", "indexing"):
        state = "syncing"
    elif progress.state == "error":
        state = "error"
    elif indexer.watching:
        state = "watching"
    answer = IndexResponse(
        state=state,
        error=progress.last_error or indexer.last_error,
        progress=progress,
        counts=counts,
        last_sync=indexer.last_report,
        files=query.select(files),
        models=index.models,
    )
    return json_response(answer)


async def sync(request: web.Request) -> web.Response:
    """Rescan the vault now: 202 at once, or 200 with the report when `wait` is true."""
    body = await read_body(request, SyncRequest)
    request.app[INDEX].require()
    indexer = request.app[INDEXER]
    task, joined = indexer.request_sync()
    if not body.wait:
        return json_response(
            SyncResponse(joined=joined, report=None, progress=indexer.progress()), status=202
        )
    try:
        # Shielded: a client that hangs up stops waiting, not the sync.
        report = await asyncio.shield(task)
    except SyncCancelledError as error:
        raise ApiError(503, "shutting_down", str(error)) from None
    return json_response(SyncResponse(joined=joined, report=report, progress=indexer.progress()))


async def note(request: web.Request) -> web.Response:
    """One note rebuilt from its indexed chunks. Paths leaving the vault are refused (400);
    nothing is read from disk, so only indexed notes can ever come back."""
    index = request.app[INDEX].require()
    path = request.match_info["path"].replace("\\", "/")
    try:
        resolve_in_vault(index.settings.vault_root, path)
    except PathOutsideVaultError as error:
        raise ApiError(400, "path_outside_vault", str(error)) from None
    candidates = [path] if path.lower().endswith(".md") else [path, f"{path}.md"]
    for file in candidates:
        chunks = await asyncio.to_thread(_chunks_of, index.store, file)
        if chunks:
            return json_response(_note(file, chunks))
    raise ApiError(404, "note_not_found", f"no indexed note {path!r}")


async def related(request: web.Request) -> web.Response:
    """The notes closest in meaning to `file` (from its stored chunk vectors), best first;
    notes it links to or that link to it are marked. 404 while the note is not indexed."""
    body = await read_body(request, RelatedRequest)
    index = request.app[INDEX].require()
    file = body.file.replace("\\", "/")
    try:
        resolve_in_vault(index.settings.vault_root, file)
    except PathOutsideVaultError as error:
        raise ApiError(400, "path_outside_vault", str(error)) from None
    graph = index.graph
    notes = await asyncio.to_thread(
        related_notes, index.store, file, body.limit, graph.outgoing(file), graph.backlinks(file)
    )
    if notes is None:
        raise ApiError(404, "note_not_found", f"no indexed note {body.file!r} (not indexed yet?)")
    return json_response(RelatedResponse(file=file, notes=notes))


async def openapi(request: web.Request) -> web.Response:
    """This API's OpenAPI 3.1 document."""
    return web.json_response(request.app[OPENAPI])


ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/v1/health",
        health,
        "Is the sidecar up? (With a challenge: proof that it holds the token.)",
        query=HealthQuery,
        response=HealthResponse,
        public=True,
        needs_index=False,
    ),
    Route(
        "POST",
        "/v1/ask",
        ask,
        "Ask a question; the answer streams as events",
        body=AgentRequest,
        stream=True,
    ),
    Route(
        "POST",
        "/v1/search",
        search,
        "Search the notes",
        body=SearchRequest,
        response=SearchResponse,
    ),
    Route(
        "GET",
        "/v1/index",
        index_status,
        "Index state, progress and per-file status",
        query=IndexQuery,
        response=IndexResponse,
        needs_index=False,
    ),
    Route(
        "POST",
        "/v1/index/sync",
        sync,
        "Rescan the vault now",
        body=SyncRequest,
        response=SyncResponse,
        statuses=(200, 202),
    ),
    Route(
        "GET",
        "/v1/notes/{path:.+}",
        note,
        "A note, rebuilt from its indexed chunks",
        response=NoteResponse,
        errors=(400, 404),
    ),
    Route(
        "POST",
        "/v1/related",
        related,
        "The notes closest in meaning to a note",
        body=RelatedRequest,
        response=RelatedResponse,
        errors=(400, 404),
    ),
    Route(
        "GET",
        "/v1/sources",
        list_sources,
        "Every source of the index, with counts",
        response=SourcesResponse,
    ),
    Route(
        "PUT",
        "/v1/sources/{source}/documents",
        replace_documents,
        "Replace a source's documents",
        body=DocumentsRequest,
        params=SourcePath,
        response=WriteReport,
        errors=(404,),
    ),
    Route(
        "POST",
        "/v1/sources/{source}/documents",
        add_documents,
        "Add or update documents of a source",
        body=DocumentsRequest,
        params=SourcePath,
        response=WriteReport,
        errors=(404,),
    ),
    Route(
        "GET",
        "/v1/sources/{source}/documents",
        list_documents,
        "A source's documents",
        query=DocumentListQuery,
        params=SourcePath,
        response=DocumentListResponse,
        errors=(404,),
    ),
    Route(
        "GET",
        "/v1/sources/{source}/documents/{doc_id}",
        get_document,
        "One document",
        params=DocumentPath,
        response=StoredDocument,
        errors=(404, 422),
    ),
    Route(
        "PATCH",
        "/v1/sources/{source}/documents/{doc_id}",
        patch_document,
        "Change a document",
        body=DocumentChanges,
        params=DocumentPath,
        response=StoredDocument,
        errors=(404,),
    ),
    Route(
        "DELETE",
        "/v1/sources/{source}/documents/{doc_id}",
        delete_document,
        "Delete a document",
        params=DocumentPath,
        response=DeleteDocumentResponse,
        errors=(404, 422),
    ),
    Route(
        "DELETE",
        "/v1/sources/{source}",
        delete_source,
        "Delete a whole source",
        params=SourcePath,
        response=DeleteSourceResponse,
        errors=(404, 422),
    ),
    Route(
        "GET",
        "/v1/openapi.json",
        openapi,
        "This OpenAPI document",
        needs_index=False,
    ),
)


def setup_routes(app: web.Application, routes: tuple[Route, ...] = ROUTES) -> None:
    """Register `routes` and remember which of them are public (for the auth middleware).

    A public GET route (health) answers HEAD too, as aiohttp's `add_get` makes it, without a
    token either. Every route leaves an `Expect` other than 100-continue to the middlewares
    (`expect_continue`)."""
    public: list[web.AbstractRoute] = []
    for route in routes:
        if route.method == "GET":
            get = app.router.add_get(
                route.path, route.handler, allow_head=route.public, expect_handler=expect_continue
            )
            registered = [r for r in get.resource or [] if r.method in ("GET", "HEAD")]
        else:
            registered = [
                app.router.add_route(
                    route.method, route.path, route.handler, expect_handler=expect_continue
                )
            ]
        if route.public:
            public += registered
    app[PUBLIC_ROUTES] = frozenset(public)


def _chunks_of(store: Store, file: str) -> list[ChunkPayload]:
    return sorted(store.scroll(SearchFilter(files=[file])), key=lambda chunk: chunk.chunk_index)


def _note(file: str, chunks: list[ChunkPayload]) -> NoteResponse:
    first = chunks[0]
    return NoteResponse(
        file=file,
        title=first.title or PurePosixPath(file).stem,
        markdown=rebuild_markdown(chunks),
        headings=list(dict.fromkeys(chunk.heading for chunk in chunks if chunk.heading)),
        tags=first.tags,
        type=first.type,
        date=first.date,
        aliases=first.aliases,
        links=first.links,
        chunks=len(chunks),
        mtime=first.mtime,
    )
