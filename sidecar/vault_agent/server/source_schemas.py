"""Bodies, answers and path parameters of the document API (`/v1/sources/...`).

A document itself (`Document`, `DocumentChanges`, `StoredDocument`) is defined by the library
(`vault_agent.index.documents.store`), which the CLI shares; the limits there are the API's.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from vault_agent.index.documents.models import (
    DOCUMENT_ID_PATTERN,
    MAX_DOCUMENTS_PER_REQUEST,
    SOURCE_PATTERN,
    Document,
    SourceInfo,
    StoredDocument,
)
from vault_agent.index.store.protocol import VAULT_SOURCE

MAX_LIST_LIMIT = 1_000


class SourcePath(BaseModel):
    """The source named in the path (documentation only: the handlers check it, with
    `check_source`, and say what is wrong)."""

    source: str = Field(
        json_schema_extra={"pattern": SOURCE_PATTERN, "not": {"const": VAULT_SOURCE}},
        description="A source name; 'vault' is reserved (403): the indexer owns it.",
    )


class DocumentPath(SourcePath):
    """The source and document named in the path."""

    doc_id: str = Field(json_schema_extra={"pattern": DOCUMENT_ID_PATTERN, "maxLength": 200})


class DocumentsRequest(BaseModel):
    """Documents to write into one source."""

    model_config = ConfigDict(extra="forbid")

    documents: list[Document] = Field(
        max_length=MAX_DOCUMENTS_PER_REQUEST,
        description=f"At most {MAX_DOCUMENTS_PER_REQUEST} per request (else 422).",
    )


class DocumentListQuery(BaseModel):
    """A page of a source's documents, by id."""

    model_config = ConfigDict(extra="forbid")

    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=100, ge=1, le=MAX_LIST_LIMIT)


class SourcesResponse(BaseModel):
    """Every source of this vault's index, the vault first."""

    vault_id: str = Field(
        description="Which vault this sidecar serves (uuid5 of its path): the CLI checks it "
        "before it sends a write."
    )
    sources: list[SourceInfo]


class DocumentListResponse(BaseModel):
    """A page of documents (without their text)."""

    source: str
    total: int
    offset: int
    documents: list[StoredDocument]


class DeleteDocumentResponse(BaseModel):
    """The outcome of deleting one document (deleting it again is no error)."""

    source: str
    id: str
    deleted: bool = Field(description="False when there was no such document.")
    chunks: int


class DeleteSourceResponse(BaseModel):
    """The outcome of deleting a whole source."""

    source: str
    deleted: bool = Field(description="False when the source held no document.")
    documents: int
    chunks: int
