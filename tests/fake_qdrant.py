"""A Qdrant server for tests, reached over real HTTP, and a TCP proxy that fails on demand.

No Qdrant server binary can be installed here, so `FakeQdrant` answers the REST calls
`ServerStore` makes (collections, payload indexes, upsert, delete, set payload, scroll, count,
query) by handing each request, parsed into qdrant-client's own REST models, to
`QdrantClient(":memory:")`, the client's in-process implementation of the server. The sidecar
thus runs its real server code path: qdrant-client, httpx, a socket.

Like a real server it can require an API key (``api_key=``, and ``read_only_api_key=`` for a key
that may only read): a request without one, or with another, gets Qdrant's 401, a write with
the read-only key its 403. With ``tls=`` (see `make_certificates`, which runs the ``openssl``
command-line tool) it serves HTTPS instead of HTTP.

`FaultProxy` sits between the two and fails the ways a network and a server do:

- ``refuse()``: nothing listens any more and open connections are dropped (a server that went
  away); ``accept()`` listens again on the same port;
- ``mode = "slow"``: each answer waits ``delay_s`` (longer than the client's timeout);
- ``mode = "cut"``: the request reaches the server, but only half of the answer comes back
  before the connection closes (a server dying mid-request).

Both run in threads of their own: the store calls them from worker threads, and the test's
event loop stays free.
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter
from qdrant_client import QdrantClient
from qdrant_client.http import models as m

_POINTS_SELECTOR: TypeAdapter[Any] = TypeAdapter(m.PointsSelector)
_INSERT: TypeAdapter[Any] = TypeAdapter(m.PointInsertOperations)


@dataclass(frozen=True)
class Certificates:
    """PEM files made by `make_certificates`: a CA, and a server certificate it signed."""

    ca: Path
    ca_key: Path
    cert: Path
    key: Path


#: Extensions a strict verifier (Python 3.13's X509_STRICT) expects of a CA and a server.
_OPENSSL_CONFIG = """\
[req]
distinguished_name = dn
prompt = no
[dn]
CN = placeholder
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = {names}
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
"""


def make_certificates(
    folder: Path, hosts: Sequence[str] = ("127.0.0.1", "localhost"), ca: Certificates | None = None
) -> Certificates:
    """A server certificate for `hosts` (IP addresses or DNS names), signed by a CA made here
    too unless `ca` is given, with the ``openssl`` command-line tool (EC keys: fast)."""
    folder.mkdir(parents=True, exist_ok=True)
    names = ", ".join(f"IP:{h}" if h.replace(".", "").isdigit() else f"DNS:{h}" for h in hosts)
    config = folder / "openssl.cnf"
    config.write_text(_OPENSSL_CONFIG.format(names=names), encoding="utf-8")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=30)

    if ca is None:
        ca_pem, ca_key = folder / "ca.pem", folder / "ca.key"
        openssl(
            *("req", "-x509", "-new", "-config", str(config), "-extensions", "ca", *ec),
            *("-keyout", str(ca_key), "-out", str(ca_pem), "-days", "2"),
            *("-subj", "/CN=vault-agent test CA"),
        )
    else:
        ca_pem, ca_key = ca.ca, ca.ca_key
    key, csr, cert = folder / "server.key", folder / "server.csr", folder / "server.pem"
    openssl(
        *("req", "-new", "-config", str(config), *ec, "-keyout", str(key), "-out", str(csr)),
        *("-subj", f"/CN={hosts[0]}"),
    )
    openssl(
        *("x509", "-req", "-in", str(csr), "-CA", str(ca_pem), "-CAkey", str(ca_key)),
        *("-set_serial", str(time.time_ns()), "-days", "2", "-out", str(cert)),
        *("-extfile", str(config), "-extensions", "server"),
    )
    return Certificates(ca=ca_pem, ca_key=ca_key, cert=cert, key=key)


class FakeQdrant:
    """Qdrant's REST API (the part `ServerStore` uses) over an in-memory qdrant-client."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        read_only_api_key: str | None = None,
        tls: Certificates | None = None,
    ) -> None:
        self.client = QdrantClient(":memory:")
        self.lock = threading.Lock()  # the in-memory client is not thread-safe
        self.requests = 0
        #: Payload indexes created, per collection, as `GET /collections/{name}` reports them.
        self.payload_indexes: dict[str, dict[str, m.PayloadIndexInfo]] = {}
        self.api_key = api_key
        self.read_only_api_key = read_only_api_key
        #: Requests answered 401 or 403, and TLS handshakes that failed.
        self.refused = 0
        self.handshake_failures = 0
        self.tls = tls
        self._server = _Server(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls.cert, tls.key)
            self._server.ssl_context = context
            self._server.on_handshake_failure = self._handshake_failed
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,))
        self._thread.daemon = True

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def start(self) -> FakeQdrant:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self.client.close()

    def refusal(self, method: str, path: str, headers: Any) -> tuple[int, str] | None:
        """Qdrant's answer to a request its API keys do not allow, or None when allowed.

        Like Qdrant, the key comes in the ``api-key`` header or as a bearer token; a missing
        or unknown key is a 401 and a write with the read-only key a 403."""
        if self.api_key is None and self.read_only_api_key is None:
            return None
        bearer = headers.get("Authorization", "")
        key = headers.get("api-key") or (bearer[7:] if bearer.startswith("Bearer ") else None)
        if key is None:
            return 401, "Must provide an API key or an Authorization bearer token"
        if key == self.api_key:
            return None
        if key == self.read_only_api_key:
            rest = path.split("?")[0].strip("/").split("/", 2)[2:]
            reads = {
                "points",  # POST: retrieve points by id
                "points/scroll",
                "points/count",
                "points/query",
                "points/query/batch",
                "exists",
                "",
            }
            if method == "GET" or (method == "POST" and rest and rest[0] in reads):
                return None
            return 403, "Write access denied: this key is read-only"
        return 401, "Invalid API key or JWT"

    def _handshake_failed(self) -> None:
        with self.lock:
            self.handshake_failures += 1

    def answer(self, method: str, path: str, body: dict[str, Any]) -> Any:
        """The `result` of one REST call."""
        parts = path.split("?")[0].strip("/").split("/")
        if parts[0] != "collections" or len(parts) < 2:
            raise LookupError(path)
        name, rest = parts[1], "/".join(parts[2:])
        client = self.client
        with self.lock:
            self.requests += 1
            match method, rest:
                case "GET", "exists":
                    return {"exists": client.collection_exists(name)}
                case "PUT", "":
                    create = m.CreateCollection.model_validate(body)
                    return client.create_collection(
                        name,
                        vectors_config=create.vectors or {},
                        sparse_vectors_config=create.sparse_vectors,
                    )
                case "GET", "":
                    info = client.get_collection(name)
                    # The in-memory engine keeps no payload indexes; a server lists them.
                    info.payload_schema = dict(self.payload_indexes.get(name, {}))
                    return info
                case "PUT", "index":
                    index = m.CreateFieldIndex.model_validate(body)
                    result = client.create_payload_index(name, index.field_name, index.field_schema)
                    if isinstance(index.field_schema, m.PayloadSchemaType):
                        indexes = self.payload_indexes.setdefault(name, {})
                        indexes[index.field_name] = m.PayloadIndexInfo(
                            data_type=index.field_schema, points=0
                        )
                    return result
                case "PUT", "points":
                    insert = _INSERT.validate_python(body)
                    return client.upsert(name, points=insert.points)
                case "POST", "points":  # retrieve by id (PUT is the upsert)
                    request = m.PointRequest.model_validate(body)
                    return client.retrieve(
                        name,
                        request.ids,
                        with_payload=request.with_payload
                        if request.with_payload is not None
                        else True,
                        with_vectors=request.with_vector or False,
                    )
                case "POST", "points/delete":
                    return client.delete(
                        name, points_selector=_POINTS_SELECTOR.validate_python(body)
                    )
                case "POST", "points/payload":
                    update = m.SetPayload.model_validate(body)
                    selector = update.filter if update.filter is not None else update.points
                    return client.set_payload(name, update.payload, points=selector or [])
                case "POST", "points/scroll":
                    scroll = m.ScrollRequest.model_validate(body)
                    records, offset = client.scroll(
                        name,
                        scroll_filter=scroll.filter,
                        limit=scroll.limit or 10,
                        offset=scroll.offset,
                        with_payload=scroll.with_payload
                        if scroll.with_payload is not None
                        else True,
                        with_vectors=scroll.with_vector or False,
                    )
                    return {"points": records, "next_page_offset": offset}
                case "POST", "points/count":
                    count = m.CountRequest.model_validate(body)
                    return client.count(name, count_filter=count.filter, exact=bool(count.exact))
                case "POST", "points/query":
                    query = m.QueryRequest.model_validate(body)
                    return client.query_points(
                        name,
                        query=query.query,
                        using=query.using,
                        prefetch=query.prefetch,
                        query_filter=query.filter,
                        limit=query.limit or 10,
                        with_payload=query.with_payload if query.with_payload is not None else True,
                    )
                case "POST", "points/query/batch":
                    batch = m.QueryRequestBatch.model_validate(body)
                    return client.query_batch_points(name, batch.searches)
        raise LookupError(f"{method} {path}")


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return value


class _Server(ThreadingHTTPServer):
    """An HTTP server that speaks TLS when given a context. The handshake runs in the
    connection's own thread, so a client that rejects the certificate blocks nobody."""

    ssl_context: ssl.SSLContext | None = None
    on_handshake_failure: Callable[[], None] | None = None

    def finish_request(self, request: Any, client_address: Any) -> None:
        if self.ssl_context is None:
            super().finish_request(request, client_address)
            return
        try:
            tls = self.ssl_context.wrap_socket(request, server_side=True)
        except OSError:  # ssl.SSLError included: the client refused our certificate
            if self.on_handshake_failure is not None:
                self.on_handshake_failure()
            return
        with tls:
            super().finish_request(tls, client_address)


def _handler(qdrant: FakeQdrant) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a real server

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            refused = qdrant.refusal(self.command, self.path, self.headers)
            if refused is not None:
                with qdrant.lock:
                    qdrant.refused += 1
                # Qdrant answers auth failures in plain text, not in its JSON error shape.
                self._send(refused[0], "text/plain", refused[1].encode())
                return
            try:
                result = qdrant.answer(self.command, self.path, json.loads(raw) if raw else {})
                status, body = 200, {"result": _jsonable(result), "status": "ok", "time": 0.0}
            except LookupError as error:
                status, body = 404, {"status": {"error": f"Not found: {error}"}, "time": 0.0}
            except Exception as error:  # what a server says about a request it can't do
                status, body = 400, {"status": {"error": repr(error)}, "time": 0.0}
            self._send(status, "application/json", json.dumps(body).encode())

        def _send(self, status: int, content_type: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_PUT = do_POST = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


class FaultProxy:
    """A TCP proxy on 127.0.0.1 in front of `upstream_port`; see the module docstring."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.mode = "pass"
        self.delay_s = 0.0
        self.connections = 0
        self.port = 0
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def accept(self) -> FaultProxy:
        """Listen (again, on the same port once it has one)."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        listener.settimeout(0.05)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept_loop, args=(listener,), daemon=True).start()
        return self

    def refuse(self) -> None:
        """Stop listening and drop every open connection: connections are refused."""
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._lock:
            for conn in self._open:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()
            self._open.clear()

    def heal(self) -> None:
        """Back to a healthy, listening proxy."""
        self.mode, self.delay_s = "pass", 0.0
        if self._listener is None:
            self.accept()

    def close(self) -> None:
        self.refuse()

    def _accept_loop(self, listener: socket.socket) -> None:
        while self._listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=30)
        except OSError:
            client.close()
            return
        with self._lock:
            self._open.update((client, upstream))
        threading.Thread(target=self._pump, args=(client, upstream, None), daemon=True).start()
        self._pump(upstream, client, self._fault)

    def _fault(self, data: bytes, send: Callable[[bytes], None]) -> bool:
        """Forward an answer's bytes as the mode says; False ends the connection."""
        if self.mode == "slow":
            time.sleep(self.delay_s)
        if self.mode == "cut":
            send(data[: max(1, len(data) // 2)])
            return False
        send(data)
        return True

    def _pump(
        self,
        source: socket.socket,
        sink: socket.socket,
        fault: Callable[[bytes, Callable[[bytes], None]], bool] | None,
    ) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if fault is None:
                    sink.sendall(data)
                elif not fault(data, sink.sendall):
                    break
        except OSError:
            pass
        finally:
            for conn in (source, sink):
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()
                with self._lock:
                    self._open.discard(conn)


@contextlib.contextmanager
def qdrant_behind_proxy() -> Iterator[tuple[FakeQdrant, FaultProxy]]:
    """A running `FakeQdrant` and a listening `FaultProxy` in front of it."""
    qdrant = FakeQdrant().start()
    proxy = FaultProxy(qdrant.port).accept()
    try:
        yield qdrant, proxy
    finally:
        proxy.close()
        qdrant.close()
