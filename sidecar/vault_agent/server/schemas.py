"""Request and response bodies of the HTTP API (the ask body and its events belong to the agent:
`vault_agent.agent.loop.AgentRequest`, `vault_agent.agent.events`).

Field bounds here are the API's limits: they turn into clear 422s and into the OpenAPI
document, so clients can read them instead of discovering them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from vault_agent.index.embed.choose import ModelChoice
from vault_agent.index.search.hits import SearchHit
from vault_agent.index.search.related import RelatedNote
from vault_agent.index.search.searcher import SearchMode
from vault_agent.index.store.protocol import SearchFilter
from vault_agent.index.sync.status import (
    FileStatus,
    IndexProgress,
    SyncReport,
)
from vault_agent.iso_dates import IsoDate

MAX_QUERY_CHARS = 1_000
MAX_LIMIT = 50
MAX_FILTER_VALUES = 50
MAX_FILTER_CHARS = 300

FilterValue = Annotated[str, StringConstraints(min_length=1, max_length=MAX_FILTER_CHARS)]


class HealthQuery(BaseModel):
    """A client's challenge: the answer proves the server holds the client's token."""

    model_config = ConfigDict(extra="forbid")

    challenge: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9_-]{16,128}$",
        description="16 to 128 random characters (letters, digits, - and _), new each time; "
        "the answer's `proof` is HMAC-SHA256(token, 'vault-agent-health:' + challenge).",
    )


class HealthResponse(BaseModel):
    """Is the sidecar up, and can it answer? (No secrets, no paths: it needs no token.)"""

    status: Literal["ok", "degraded"] = Field(
        description="degraded: up, but the index is unavailable (see GET /v1/index)."
    )
    version: str
    index: Literal["ready", "unavailable"]
    proof: str | None = Field(
        default=None,
        description="With a `challenge`: HMAC-SHA256 of 'vault-agent-health:' + challenge, "
        "keyed with the token, in lower-case hex. A client checks it before it sends the token: "
        "another program on the port cannot compute it.",
    )


class SearchRequest(BaseModel):
    """A hybrid (semantic + keyword) search with optional filters (AND across fields, OR
    within one)."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    tags: list[FilterValue] = Field(
        default_factory=list,
        max_length=MAX_FILTER_VALUES,
        description="Nested tags match their children: 'project' finds '#project/garden'.",
    )
    folders: list[FilterValue] = Field(default_factory=list, max_length=MAX_FILTER_VALUES)
    types: list[FilterValue] = Field(
        default_factory=list, max_length=MAX_FILTER_VALUES, description="Frontmatter `type`."
    )
    sources: list[FilterValue] = Field(
        default_factory=list,
        max_length=MAX_FILTER_VALUES,
        description='"vault" for the notes, or other sources of documents; default: all.',
    )
    date_from: IsoDate | None = Field(default=None, description="Daily notes from this date on.")
    date_to: IsoDate | None = Field(default=None, description="Daily notes up to this date.")
    open_tasks: bool = Field(
        default=False, description="Only passages holding a task still open (`- [ ] ...`)."
    )
    limit: int = Field(default=10, ge=1, le=MAX_LIMIT)
    mode: SearchMode = "hybrid"

    def search_filter(self) -> SearchFilter:
        """The store filter, normalised as the CLI does it."""
        return SearchFilter(
            tags=[tag.lstrip("#").lower() for tag in self.tags],
            folders=[folder.strip("/") for folder in self.folders],
            types=list(self.types),
            sources=list(self.sources),
            date_from=self.date_from,
            date_to=self.date_to,
            open_tasks=self.open_tasks,
        )


class SearchResponse(BaseModel):
    """Ranked hits, best first, one per note."""

    hits: list[SearchHit]


IndexState = Literal["unavailable", "syncing", "watching", "idle", "error"]


class IndexCounts(BaseModel):
    """Files by state after the last sync, and chunks in the store."""

    files: int
    indexed: int
    skipped: int
    failed: int
    chunks: int


class IndexQuery(BaseModel):
    """Which per-file statuses `GET /v1/index` lists."""

    model_config = ConfigDict(extra="forbid")

    files: Literal["all", "problems", "none"] = Field(
        default="all", description="all files, only skipped/failed ones, or none"
    )

    def select(self, statuses: list[FileStatus]) -> list[FileStatus]:
        """The statuses this query asks for."""
        if self.files == "none":
            return []
        if self.files == "problems":
            return [status for status in statuses if status.state != "indexed"]
        return statuses


class IndexResponse(BaseModel):
    """The index: its state, sync progress, counts, and why each file is (not) indexed."""

    state: IndexState
    error: str | None = Field(description="Why the index is unavailable or the last sync failed.")
    progress: IndexProgress
    counts: IndexCounts
    last_sync: SyncReport | None
    files: list[FileStatus]
    models: ModelChoice | None = Field(
        default=None,
        description="Which embeddings and keyword-search language read the vault, and why.",
    )


class SyncRequest(BaseModel):
    """Rescan the vault now."""

    model_config = ConfigDict(extra="forbid")

    wait: bool = Field(
        default=False, description="Answer when the sync is done (200) instead of at once (202)."
    )


class SyncResponse(BaseModel):
    """The sync that will cover this request, and the outcome when waited for."""

    joined: bool = Field(description="True when a sync not yet started already covered this.")
    report: SyncReport | None = Field(description="Set when `wait` was true.")
    progress: IndexProgress


class NoteResponse(BaseModel):
    """One indexed note, rebuilt from its chunks (what the agent reads)."""

    file: str
    title: str
    markdown: str
    headings: list[str]
    tags: list[str]
    type: str | None
    date: str | None
    aliases: list[str]
    links: list[str] = Field(description="Resolved outgoing link targets.")
    chunks: int
    mtime: float


class RelatedRequest(BaseModel):
    """The notes closest in meaning to one note."""

    model_config = ConfigDict(extra="forbid")

    file: str = Field(min_length=1, max_length=1_000, description="A vault path, e.g. a.md.")
    limit: int = Field(default=10, ge=1, le=MAX_LIMIT)


class RelatedResponse(BaseModel):
    """Notes like `file`, best first (never `file` itself), linked ones marked."""

    file: str
    notes: list[RelatedNote]
