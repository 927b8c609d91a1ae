"""The document API's contract: what a client sends for a document of another source, what
comes back, and the rules a source name, an id, a url and a text must follow.

Every rule is checked here, before anything reaches the store (`store.py`), and each failure
is a `DocumentError` whose message says what is valid (the API's 400, or 413 for sizes).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
    model_validator,
)

from vault_agent.index.store.protocol import (
    VAULT_SOURCE,
)
from vault_agent.iso_dates import IsoDate, IsoDateTime

# Each pattern ends in "$(?!\n)": Python's "$" also matches before a final newline, and test
# generators (hypothesis, schemathesis) read the documented patterns with Python.
SOURCE_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$(?!\n)"
"""Source names: lower-case letters, digits, '-' and '_', at most 64 characters."""
DOCUMENT_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._~:@+=-]{0,199}$(?!\n)"
"""Document ids: at most 200 characters, no '/', '#', '|' or spaces (they go into URLs)."""
URL_PATTERN = r'^https?://[^\x00-\x20\x7f-\x9f<>"/][^\x00-\x20\x7f-\x9f<>"]*$(?!\n)'
"""Only web pages: a citation becomes a link the user clicks (no javascript:, file:...)."""

MAX_DOCUMENTS_PER_REQUEST = 100
MAX_DOCUMENT_BYTES = 1_000_000
"""A document's text, as UTF-8 (about 700 chunks, a minute of embedding on two cores)."""
MAX_METADATA_BYTES = 16_384
"""A document's metadata as JSON: it is stored with each of its chunks."""
MAX_TITLE_CHARS = 500
MAX_URL_CHARS = 2_048
MAX_TAGS = 50
MAX_TAG_CHARS = 100

# C0 controls but tab and newlines, and DEL: no meaning in markdown, and enough of them make
# parse_note take the text for a binary file.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
SOURCE = re.compile(SOURCE_PATTERN)
_DOCUMENT_ID = re.compile(DOCUMENT_ID_PATTERN)
_URL = re.compile(URL_PATTERN)
SEPARATOR = "://"
"""Between a document's source and its id in its `file`."""

Tag = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TAG_CHARS)]


class DocumentError(ValueError):
    """A request the document store refuses; `code` is the API's error code."""

    def __init__(self, message: str, code: str = "invalid_request") -> None:
        super().__init__(message)
        self.code = code


class ReservedSourceError(DocumentError):
    """The `vault` source belongs to the indexer."""


class DocumentLimitError(DocumentError):
    """Too many documents at once, or one too large (the API's 413)."""


def _bounded_metadata(value: dict[str, Any]) -> dict[str, Any]:
    try:  # NaN and infinities are no JSON, and the store can't keep them
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        raise ValueError("metadata holds NaN or an infinite number, which JSON can't") from None
    size = len(_utf8(text))
    if size > MAX_METADATA_BYTES:
        raise ValueError(
            f"metadata is {size:,} bytes as JSON, over the {MAX_METADATA_BYTES:,}-byte limit"
        )
    return value


Metadata = Annotated[dict[str, Any], AfterValidator(_bounded_metadata)]


def _valid_id(value: str) -> str:
    check_document_id(value)
    return value


def _web_url(value: str) -> str:
    if len(value) > MAX_URL_CHARS or not _URL.fullmatch(value):
        raise ValueError(
            f"a url must be a web address (http:// or https://, no spaces) of at most "
            f"{MAX_URL_CHARS:,} characters: answers turn it into a link"
        )
    return value


# Patterns are documented; the checks say in words what is valid.
DocumentId = Annotated[
    str,
    AfterValidator(_valid_id),
    WithJsonSchema({"type": "string", "pattern": DOCUMENT_ID_PATTERN, "maxLength": 200}),
]
WebUrl = Annotated[
    str,
    AfterValidator(_web_url),
    WithJsonSchema({"type": "string", "pattern": URL_PATTERN, "maxLength": MAX_URL_CHARS}),
]


class Document(BaseModel):
    """A document as a client sends it."""

    model_config = ConfigDict(extra="forbid")

    id: DocumentId = Field(
        description="Stable within its source; sending it again replaces the document."
    )
    # Its limit is in bytes, checked by `check_limits` (a 413, like an oversized body): a JSON
    # schema can only count characters.
    text: str = Field(
        min_length=1,
        description=f"Markdown, at most {MAX_DOCUMENT_BYTES:,} bytes as UTF-8 (else 413).",
    )
    title: str | None = Field(
        default=None, min_length=1, max_length=MAX_TITLE_CHARS, description="Default: the id."
    )
    url: WebUrl | None = Field(
        default=None,
        description="Its web page (http or https): answers cite the document by this link.",
    )
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    created: IsoDateTime | IsoDate | None = None
    metadata: Metadata = Field(
        default_factory=dict,
        description=f"Free JSON, at most {MAX_METADATA_BYTES:,} bytes; returned as sent.",
    )


class DocumentChanges(BaseModel):
    """A partial update: only the fields sent change (at least one). A new text or title is
    embedded again; the other fields only rewrite the stored payload."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"minProperties": 1})

    text: Annotated[
        str | None,
        WithJsonSchema({"type": "string", "minLength": 1}),
    ] = Field(default=None, min_length=1)
    title: str | None = Field(
        default=None, min_length=1, max_length=MAX_TITLE_CHARS, description="null: the id."
    )
    url: WebUrl | None = Field(default=None, description="null: none.")
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    created: IsoDateTime | IsoDate | None = None
    metadata: Metadata = Field(default_factory=dict, description="Replaces the metadata.")

    @model_validator(mode="after")
    def _something_to_change(self) -> DocumentChanges:
        if not self.model_fields_set:
            raise ValueError("give at least one of text, title, url, tags, created, metadata")
        if "text" in self.model_fields_set and self.text is None:
            raise ValueError("text can't be null; send the new text")
        return self


class StoredDocument(BaseModel):
    """A document as the index holds it."""

    id: str
    source: str
    file: str = Field(description='Its `file` in search hits and payloads: "<source>://<id>".')
    title: str
    url: str | None
    tags: list[str] = Field(description="As sent (search also matches the text's own #tags).")
    created: str | None
    metadata: dict[str, Any]
    chunks: int
    size: int = Field(description="Bytes of text, as UTF-8.")
    added: datetime
    updated: datetime
    text: str | None = Field(
        default=None, description="Rebuilt from the chunks (one document only, not in lists)."
    )


class SourceInfo(BaseModel):
    """One source of the index."""

    source: str
    managed_by: Literal["indexer", "api"] = Field(
        description="indexer: the vault itself (read-only here); api: the document API."
    )
    documents: int
    chunks: int
    embedding_model: str
    created: datetime | None = Field(description="When its oldest document was added.")
    updated: datetime | None = Field(description="When a document of it was last written.")


class WriteReport(BaseModel):
    """What a write did, by document id."""

    source: str
    added: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)
    deleted: list[str] = Field(default_factory=list)
    chunks_embedded: int = 0
    documents: int = Field(default=0, description="Documents in the source after the write.")


def document_file(source: str, doc_id: str) -> str:
    """The `file` of a document's chunks: ``"<source>://<id>"``."""
    return f"{source}{SEPARATOR}{doc_id}"


def is_document_file(file: str) -> bool:
    """True for a document's `file` (never true for a vault path)."""
    return SEPARATOR in file


def check_source(source: str) -> None:
    """Raise `DocumentError` for a malformed name, `ReservedSourceError` for ``vault``."""
    if source == VAULT_SOURCE:
        raise ReservedSourceError(
            "the source 'vault' is reserved: the vault's notes are indexed from its files "
            "(edit the notes, or POST /v1/index/sync), never through the document API",
            "reserved_source",
        )
    if not SOURCE.fullmatch(source):
        raise DocumentError(
            f"invalid source name {source[:80]!r}: use 1 to 64 lower-case letters, digits, "
            "'-' or '_', starting with a letter or digit",
            "invalid_source",
        )


def check_document_id(doc_id: str) -> None:
    """Raise `DocumentError` for a malformed document id."""
    if not _DOCUMENT_ID.fullmatch(doc_id):
        raise DocumentError(
            f"invalid document id {doc_id[:80]!r}: use 1 to 200 letters, digits or ._~:@+=- "
            "(no '/', '#', '|' or spaces), starting with a letter or digit",
            "invalid_document_id",
        )


def check_limits(documents: Sequence[Document]) -> None:
    """Raise `DocumentLimitError` (the API's 413) for too many documents or too large a text."""
    if len(documents) > MAX_DOCUMENTS_PER_REQUEST:
        raise DocumentLimitError(
            f"{len(documents)} documents in one request, over the limit of "
            f"{MAX_DOCUMENTS_PER_REQUEST}: send them in batches",
            "too_many_documents",
        )
    for document in documents:
        check_text_size(document.id, document.text)


def check_text_size(doc_id: str, text: str) -> None:
    """Raise `DocumentLimitError` for a text over `MAX_DOCUMENT_BYTES`."""
    size = len(_utf8(text))
    if size > MAX_DOCUMENT_BYTES:
        raise DocumentLimitError(
            f"document {doc_id!r} has {size:,} bytes of text, over the limit of "
            f"{MAX_DOCUMENT_BYTES:,} bytes per document: split it",
            "document_too_large",
        )


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "replace")  # a lone surrogate from JSON becomes "?"
