"""A Qdrant server for tests, reached over real HTTP, and a TCP proxy that fails on demand.

No Qdrant server binary can be installed here, so `FakeQdrant` answers the REST calls
`ServerStore` makes (collections, payload indexes, upsert, delete, set payload, scroll, count,
query) by handing each request, parsed into qdrant-client's own REST models, to
`QdrantClient(":memory:")`, the client's in-process implementation of the server. The sidecar
thus runs its real server code path: qdrant-client, httpx, a socket.

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
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import BaseModel, TypeAdapter
from qdrant_client import QdrantClient
from qdrant_client.http import models as m

_POINTS_SELECTOR: TypeAdapter[Any] = TypeAdapter(m.PointsSelector)
_INSERT: TypeAdapter[Any] = TypeAdapter(m.PointInsertOperations)


class FakeQdrant:
    """Qdrant's REST API (the part `ServerStore` uses) over an in-memory qdrant-client."""

    def __init__(self) -> None:
        self.client = QdrantClient(":memory:")
        self.lock = threading.Lock()  # the in-memory client is not thread-safe
        self.requests = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,))
        self._thread.daemon = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeQdrant:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self.client.close()

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
                    return client.get_collection(name)
                case "PUT", "index":
                    index = m.CreateFieldIndex.model_validate(body)
                    return client.create_payload_index(name, index.field_name, index.field_schema)
                case "PUT", "points":
                    insert = _INSERT.validate_python(body)
                    return client.upsert(name, points=insert.points)
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
        raise LookupError(f"{method} {path}")


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return value


def _handler(qdrant: FakeQdrant) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a real server

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                result = qdrant.answer(self.command, self.path, json.loads(raw) if raw else {})
                status, body = 200, {"result": _jsonable(result), "status": "ok", "time": 0.0}
            except LookupError as error:
                status, body = 404, {"status": {"error": f"Not found: {error}"}, "time": 0.0}
            except Exception as error:  # what a server says about a request it can't do
                status, body = 400, {"status": {"error": repr(error)}, "time": 0.0}
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
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
