"""`ServerStore`: the scale-out `Store`, a Qdrant server or cluster reached with qdrant-client.

`ServerStore.connect` holds everything a real server needs (URL with http/https, API key,
a custom CA certificate for TLS, timeout, REST rather than gRPC). Tests hand the same class
`QdrantClient(":memory:")`, the client's in-process implementation of the server API, so both
paths run the same code below; tests/test_qdrant_server_config.py runs `connect` over real
sockets (HTTPS, API keys). Deployment: docs/qdrant-server.md.
Network and server failures surface as `StoreUnavailableError` naming the URL.
"""

from __future__ import annotations

import logging
import math
import ssl
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import httpx
from qdrant_client import QdrantClient
from qdrant_client import models as m
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from vault_agent.index.store.conditions import AnyOf, Condition, IntAtLeast, IntEquals, NoneOf
from vault_agent.index.store.errors import StoreError, StoreUnavailableError
from vault_agent.index.store.protocol import (
    DATETIME_FIELDS,
    DENSE_DIM,
    DENSE_VECTOR,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    SPARSE_VECTOR,
    EmbeddedChunk,
    Scored,
    SparseVector,
    StoredHit,
    VectorQuery,
    dense_vector_name,
)
from vault_agent.index.store.qdrant import QdrantStore, stored_hits
from vault_agent.local_http import direct_if_local, shown_url

log = logging.getLogger(__name__)

#: Points per upsert request: 256 points of 384 floats plus bodies stay well under the
#: server's 32 MB request limit.
UPSERT_BATCH = 256

_INDEX_TYPES = (
    [(k, m.PayloadSchemaType.KEYWORD) for k in KEYWORD_FIELDS]
    + [(k, m.PayloadSchemaType.INTEGER) for k in INTEGER_FIELDS]
    + [(k, m.PayloadSchemaType.DATETIME) for k in DATETIME_FIELDS]
)


class ServerStore(QdrantStore[m.Filter]):
    """A `Store` on the collection `collection` of the Qdrant behind `client`.

    The collection is created (vectors and payload indexes) when missing. `url` only labels
    error messages; `connect` fills it in."""

    upsert_batch = UPSERT_BATCH

    def __init__(
        self,
        client: QdrantClient,
        collection: str,
        *,
        url: str | None = None,
        dim: int = DENSE_DIM,
        replace_other_model: bool = False,
    ) -> None:
        self.client = client
        self.collection = collection
        self.url = shown_url(url) if url else "the in-process Qdrant"
        """The server, as messages name it (no password or query)."""
        self.dim = dim
        self.dense = dense_vector_name(dim)
        self._closed = False
        self._ensure_collection(replace_other_model)

    @classmethod
    def connect(
        cls,
        url: str,
        api_key: str | None,
        collection: str,
        timeout_s: float = 10.0,
        *,
        ca_cert: Path | None = None,
        dim: int = DENSE_DIM,
        replace_other_model: bool = False,
    ) -> ServerStore:
        """Connect to the server at `url` (e.g. "https://xyz.cloud.qdrant.io:6333") and open
        or create `collection`. Without a port in the URL the client uses Qdrant's 6333.

        `ca_cert` is a PEM file of the CA certificate(s) that signed an https server's
        certificate (a self-signed or company CA); it replaces the public CAs for this
        connection. Without it, httpx's defaults apply (certifi's CAs, or the file named by
        `SSL_CERT_FILE`)."""
        scheme = url.split("://", 1)[0].lower() if "://" in url else ""
        if scheme not in ("http", "https"):
            # Without a scheme qdrant-client guesses one (https only when there is an API
            # key), which makes the same URL mean two things.
            raise StoreError(
                f"invalid Qdrant URL {shown_url(url)!r}: it must start with http:// or https:// "
                "(e.g. http://localhost:6333)"
            )
        tls: dict[str, Any] = {}
        if ca_cert is not None:
            if scheme != "https":
                raise StoreError(
                    f"store.ca_cert is set but the Qdrant URL {shown_url(url)} is plain http: "
                    "use https:// (or unset store.ca_cert)"
                )
            # qdrant-client hands unknown keyword arguments to httpx.Client; httpx 0.28 takes
            # an SSLContext for `verify` (a path there is deprecated).
            tls["verify"] = _ca_context(ca_cert)
        try:
            client = QdrantClient(
                url=url,
                api_key=api_key,
                # The client takes whole seconds.
                timeout=max(1, math.ceil(timeout_s)),
                # REST works through every proxy and load balancer; gRPC needs its own port.
                prefer_grpc=False,
                # Its version check runs in a background thread and only warns; the first
                # real request below reports an unreachable server properly.
                check_compatibility=False,
                # A local Qdrant is dialled directly, whatever proxy the environment names.
                **direct_if_local(url),
                **tls,
            )
        except ValueError as exc:  # bad scheme, url plus host, ...
            raise StoreError(f"invalid Qdrant URL {shown_url(url)!r}: {exc}") from exc
        try:
            return cls(
                client, collection, url=url, dim=dim, replace_other_model=replace_other_model
            )
        except BaseException:
            client.close()
            raise

    # -- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        """Close the client's connections (idempotent)."""
        if not self._closed:
            self._closed = True
            self.client.close()

    def __enter__(self) -> ServerStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the engine's primitives (see QdrantStore) ------------------------------------------

    def _upsert(self, chunks: Sequence[EmbeddedChunk]) -> None:
        points = [_point(c, self.dense) for c in chunks]
        with self._requests():  # wait: the points are applied before this returns
            self.client.upsert(self.collection, points=points, wait=True)

    def _delete(self, flt: m.Filter) -> None:
        with self._requests():
            self.client.delete(self.collection, m.FilterSelector(filter=flt), wait=True)

    def _set_payload(self, flt: m.Filter, values: dict[str, Any]) -> None:
        with self._requests():
            self.client.set_payload(self.collection, values, points=flt, wait=True)

    def _search(
        self, queries: Sequence[VectorQuery], flt: m.Filter | None
    ) -> list[list[StoredHit]]:
        responses = self._query_batch(queries, flt, with_payload=True)
        return stored_hits(
            ((p.id, p.score, p.payload) for p in response.points) for response in responses
        )

    def _scored(self, queries: Sequence[VectorQuery], flt: m.Filter | None) -> list[list[Scored]]:
        responses = self._query_batch(queries, flt, with_payload=False)
        return [[(str(p.id), p.score) for p in response.points] for response in responses]

    def _query_batch(
        self, queries: Sequence[VectorQuery], flt: m.Filter | None, with_payload: bool
    ) -> list[m.QueryResponse]:
        requests = [
            m.QueryRequest(
                query=_vector(query),
                using=SPARSE_VECTOR if query.is_sparse else self.dense,
                filter=flt,
                limit=query.limit,
                with_payload=with_payload,
            )
            for query in queries
        ]
        with self._requests():
            return self.client.query_batch_points(self.collection, requests)

    def _retrieve(self, ids: list[str]) -> list[tuple[Any, dict[str, Any]]]:
        with self._requests():
            records = self.client.retrieve(
                self.collection, ids, with_payload=True, with_vectors=False
            )
        return [(record.id, record.payload or {}) for record in records]

    def _scroll_page(
        self, flt: m.Filter | None, keys: list[str] | None, limit: int, offset: Any
    ) -> tuple[list[dict[str, Any]], Any]:
        selector = True if keys is None else m.PayloadSelectorInclude(include=keys)
        with self._requests():
            records, next_offset = self.client.scroll(
                self.collection,
                scroll_filter=flt,
                limit=limit,
                offset=offset,
                with_payload=selector,
                with_vectors=False,
            )
        return [record.payload or {} for record in records], next_offset

    def _dense_page(
        self, flt: m.Filter, keys: list[str], limit: int, offset: Any
    ) -> tuple[list[tuple[dict[str, Any], list[float]]], Any]:
        with self._requests():
            records, next_offset = self.client.scroll(
                self.collection,
                scroll_filter=flt,
                limit=limit,
                offset=offset,
                with_payload=m.PayloadSelectorInclude(include=keys),
                with_vectors=[self.dense],
            )
        page = [(record.payload or {}, _dense_of(record.vector, self.dense)) for record in records]
        return [(payload, vector) for payload, vector in page if vector is not None], next_offset

    def _count(self, flt: m.Filter | None) -> int:
        with self._requests():
            return self.client.count(self.collection, count_filter=flt, exact=True).count

    def _condition(self, condition: Condition) -> tuple[bool, m.Condition]:
        if isinstance(condition, AnyOf | NoneOf):
            match = m.FieldCondition(key=condition.key, match=m.MatchAny(any=condition.values))
            return isinstance(condition, AnyOf), match
        if isinstance(condition, IntEquals):
            value = m.MatchValue(value=condition.value)
            return True, m.FieldCondition(key=condition.key, match=value)
        if isinstance(condition, IntAtLeast):
            return True, m.FieldCondition(key=condition.key, range=m.Range(gte=condition.value))
        span = m.DatetimeRange(gte=condition.gte, lt=condition.lt)
        return True, m.FieldCondition(key=condition.key, range=span)

    def _combine(self, must: list[Any], must_not: list[Any]) -> m.Filter:
        return m.Filter(must=must or None, must_not=must_not or None)

    # -- internals --------------------------------------------------------------------------

    @contextmanager
    def _requests(self) -> Iterator[None]:
        """Translate transport and server failures into errors that name the URL."""
        if self._closed:
            raise StoreError(f"the connection to Qdrant at {self.url} is closed")
        try:
            yield
        except UnexpectedResponse as exc:
            raise _response_error(self.url, exc) from exc
        except ResponseHandlingException as exc:
            # qdrant-client wraps the httpx failure (refused, DNS, TLS, timeout) in `source`.
            raise StoreUnavailableError(
                f"Qdrant at {self.url} is unreachable: {_reason(exc.source)}"
            ) from exc
        except (httpx.TransportError, ConnectionError) as exc:
            raise StoreUnavailableError(
                f"Qdrant at {self.url} is unreachable: {_reason(exc)}"
            ) from exc

    def _ensure_collection(self, replace_other_model: bool) -> None:
        """Create the collection and its payload indexes, or check an existing one's vectors.
        With `replace_other_model`, a collection of ours made for another embedding model is
        deleted and made again (its vectors must all be redone anyway)."""
        with self._requests():
            if replace_other_model and self.client.collection_exists(self.collection):
                info = self.client.get_collection(self.collection)
                if _ours_for_another_model(info, self.dense, self.dim):
                    log.warning(
                        "the collection %s holds another embedding model's vectors: rebuilt",
                        self.collection,
                    )
                    self.client.delete_collection(self.collection)
            if not self.client.collection_exists(self.collection):
                try:
                    self.client.create_collection(
                        self.collection,
                        vectors_config={
                            self.dense: m.VectorParams(size=self.dim, distance=m.Distance.COSINE)
                        },
                        sparse_vectors_config={
                            SPARSE_VECTOR: m.SparseVectorParams(modifier=m.Modifier.IDF)
                        },
                    )
                except UnexpectedResponse as exc:
                    # Another sidecar created it between our check and our create: fine.
                    if exc.status_code != 409:
                        raise
            info = self.client.get_collection(self.collection)
        self._check_vectors(info)
        missing = [(k, t) for k, t in _INDEX_TYPES if k not in (info.payload_schema or {})]
        with self._requests(), warnings.catch_warnings():
            # The in-process client keeps no payload indexes and warns about each one; a real
            # server needs them for fast filters, so they are always requested.
            warnings.filterwarnings("ignore", message="Payload indexes have no effect")
            for key, schema in missing:
                self.client.create_payload_index(self.collection, key, schema, wait=True)

    def _check_vectors(self, info: m.CollectionInfo) -> None:
        """Refuse a collection whose vectors were made for another embedding model."""
        vectors = info.config.params.vectors
        dense = vectors.get(self.dense) if isinstance(vectors, dict) else None
        sparse = (info.config.params.sparse_vectors or {}).get(SPARSE_VECTOR)
        if (
            dense is None
            or dense.size != self.dim
            or dense.distance != m.Distance.COSINE
            or sparse is None
        ):
            raise StoreError(
                f"the collection {self.collection!r} at {self.url} was not made by vault-agent "
                f"for this embedding model (it needs a {self.dim}-d cosine vector "
                f"{self.dense!r} and a sparse vector {SPARSE_VECTOR!r}). Set store.collection "
                "to another name, or delete it."
            )


def _response_error(url: str, exc: UnexpectedResponse) -> StoreError:
    """A refused request: auth and server-side failures mean the store is unavailable."""
    status = exc.status_code
    if status == 401:
        return StoreUnavailableError(
            f"Qdrant at {url} refused the request ({_short(exc)}): check the API key "
            "(store.api_key or QDRANT_API_KEY)."
        )
    if status == 403:
        # Qdrant's answer to a read-only key (or a JWT without the rights) asked to write.
        return StoreUnavailableError(
            f"Qdrant at {url} refused the request ({_short(exc)}): check the API key "
            "(store.api_key or QDRANT_API_KEY); indexing needs a read-write key."
        )
    if status is None or status >= 500 or status == 429:
        return StoreUnavailableError(f"Qdrant at {url} is unavailable: {_short(exc)}")
    return StoreError(f"Qdrant at {url} rejected the request: {_short(exc)}")


def _short(exc: UnexpectedResponse) -> str:
    detail = exc.content[:200].decode("utf-8", "replace")
    return f"{exc.status_code} {exc.reason_phrase} {detail}".strip()


def _reason(exc: BaseException) -> str:
    """The failure's own words, plus what to do when it is a TLS problem."""
    return (str(exc) or type(exc).__name__) + _tls_hint(exc)


def _tls_hint(exc: BaseException) -> str:
    """Advice for the TLS failures a configuration causes. httpx keeps the `ssl` error as the
    cause (or context) of its own, so the chain is walked."""
    seen: BaseException | None = exc
    for _ in range(10):  # a chain is short; the bound guards against cycles
        if seen is None:
            return ""
        if isinstance(seen, ssl.SSLCertVerificationError):
            if seen.verify_code in _NAME_MISMATCH:
                return (
                    ". The server's TLS certificate was issued for another host name or "
                    "address: use one it names in store.url"
                )
            return (
                ". The server's TLS certificate is not trusted: set store.ca_cert to the "
                "PEM file of the CA that signed it"
            )
        if isinstance(seen, ssl.SSLError) and "WRONG_VERSION_NUMBER" in str(seen):
            return ". The server does not speak TLS: use http:// in store.url"
        seen = seen.__cause__ or seen.__context__
    return ""


#: OpenSSL's verify codes for a certificate that does not name the host connected to
#: (X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH).
_NAME_MISMATCH = (62, 64)


def _ca_context(ca_cert: Path) -> ssl.SSLContext:
    """A client TLS context trusting only the CA certificate(s) in the PEM file `ca_cert`."""
    path = ca_cert.expanduser()
    if path.is_dir():
        raise StoreError(
            f"store.ca_cert must be a PEM file of CA certificates, not a folder: {path}"
        )
    try:
        return ssl.create_default_context(cafile=str(path))
    except (OSError, ValueError) as exc:  # missing file, unreadable, no certificate in it
        raise StoreError(f"cannot use store.ca_cert {path}: {exc}") from exc


def _ours_for_another_model(info: m.CollectionInfo, dense: str, dim: int) -> bool:
    """True for a collection vault-agent made (a BM25 vector and one dense vector of ours)
    whose dense vector is another model's: never a collection someone else made."""
    vectors = info.config.params.vectors
    sparse = (info.config.params.sparse_vectors or {}).get(SPARSE_VECTOR)
    if sparse is None or not isinstance(vectors, dict) or len(vectors) != 1:
        return False
    ((name, params),) = vectors.items()
    ours = name == DENSE_VECTOR or name.startswith("dense-")
    return ours and (name != dense or params.size != dim)


def _point(chunk: EmbeddedChunk, dense: str) -> m.PointStruct:
    return m.PointStruct(
        id=chunk.id,
        vector={
            dense: chunk.dense,
            SPARSE_VECTOR: m.SparseVector(indices=chunk.sparse.indices, values=chunk.sparse.values),
        },
        payload=chunk.payload.model_dump(),
    )


def _vector(query: VectorQuery) -> list[float] | m.SparseVector:
    if isinstance(query.vector, SparseVector):
        return m.SparseVector(indices=query.vector.indices, values=query.vector.values)
    return list(query.vector)


def _dense_of(vectors: object, dense: str) -> list[float] | None:
    """The dense vector of a scrolled record's named vectors (None when it has none)."""
    if isinstance(vectors, dict) and isinstance(vectors.get(dense), list):
        return cast(list[float], vectors[dense])
    return None
