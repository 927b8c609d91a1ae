"""A fake embedding server on 127.0.0.1 speaking Ollama's and OpenAI's wire formats.

``POST /api/embed`` answers as Ollama does (``{"model", "embeddings": [...]}``, unit vectors,
``{"error": "model ... not found, try pulling it first"}`` with 404 for an unknown model);
``POST /v1/embeddings`` as an OpenAI-compatible server does (``{"object": "list", "data":
[{"object": "embedding", "embedding", "index"}], "model", "usage"}``), with its items in
reverse order and vectors not normalised (both allowed by that API), and ``{"error":
{"message", "type"}}`` errors. Nothing of the client is mocked: tests drive the real
`RemoteEmbedder` over real sockets.

The vectors are hashed bags of words: each word (but the commonest) adds +-1 to one of `dim`
buckets chosen by its hash, so texts sharing words lie close together and a search finds the
note holding the question's words. Every request is recorded (``requests``, ``batches``).
Failures: ``fail_next(503, ...)`` answers the next requests with those statuses,
``fail_from(n, 503)`` answers every request after ``n`` more good ones with that status, and
``delay_s`` makes every answer late. A synchronous server in its own threads: the embedder
under test blocks.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np

MODEL = "bge-m3"
#: Words too common to say what a text is about (with every word under four letters).
STOP_WORDS = frozenset(
    {"about", "after", "before", "from", "have", "should", "that", "their", "there", "this"}
    | {"what", "when", "with"}
)


def bag_of_words(text: str, dim: int) -> np.ndarray:
    """The fake model: a signed, hashed count of the telling words of `text`, unit length."""
    vector = np.zeros(dim)
    for word in re.findall(r"\w+", text.lower()):
        if len(word) < 4 or word in STOP_WORDS:
            continue
        number = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
        vector[number % dim] += 1.0 if (number >> 32) & 1 else -1.0
    norm = np.linalg.norm(vector)
    if norm == 0:
        vector[0], norm = 1.0, 1.0
    return vector / norm


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]


class FakeEmbeddingServer:
    """Both wire formats on one port; see the module docstring."""

    def __init__(
        self, dim: int = 256, *, api_key: str | None = None, port: int = 0, model: str = MODEL
    ) -> None:
        self.dim = dim
        self.api_key = api_key
        self.models = {model}
        self.delay_s = 0.0
        self.requests: list[Recorded] = []
        self._scripted: deque[int] = deque()
        self._good_left: int | None = None
        self._failing_status = 503
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Its address, without a path (what `index.embedding_url` is set to)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def batches(self) -> list[list[str]]:
        """The texts of each embedding request received, in order."""
        return [list(request.body["input"]) for request in self.requests]

    def fail_next(self, *statuses: int) -> None:
        """Answer the next requests with these statuses, one each."""
        with self._lock:
            self._scripted.extend(statuses)

    def fail_from(self, good: int | None, status: int = 503) -> None:
        """After `good` more answers, answer every request with `status` (None: heal)."""
        with self._lock:
            self._good_left, self._failing_status = good, status

    def close(self) -> None:
        """Stop listening: connections are refused from now on."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> FakeEmbeddingServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def answer(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> _Answer:
        """What the server sends for one request."""
        with self._lock:
            self.requests.append(Recorded(path, body, headers))
            scripted = self._scripted.popleft() if self._scripted else None
            if scripted is None and self._good_left is not None:
                if self._good_left <= 0:
                    scripted = self._failing_status
                else:
                    self._good_left -= 1
        if self.delay_s:
            time.sleep(self.delay_s)
        openai = path == "/v1/embeddings"
        if scripted is not None:
            return _error(scripted, f"scripted failure {scripted}", openai)
        if path not in ("/api/embed", "/v1/embeddings"):
            return _Answer(404, {"error": "404 page not found"})
        if openai and self.api_key and headers.get("authorization") != f"Bearer {self.api_key}":
            return _error(401, "Incorrect API key provided", openai)
        model = body.get("model")
        if model not in self.models:
            message = f'model "{model}" not found, try pulling it first'
            return _error(404, message, openai)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = [bag_of_words(text, self.dim) for text in texts]
        if not openai:
            return _Answer(200, {"model": model, "embeddings": [v.tolist() for v in vectors]})
        data = [
            {"object": "embedding", "embedding": (3.0 * v).tolist(), "index": i}
            for i, v in enumerate(vectors)
        ]
        return _Answer(
            200,
            {
                "object": "list",
                "data": data[::-1],
                "model": model,
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            },
        )


@dataclass(frozen=True)
class _Answer:
    status: int
    body: dict[str, Any]
    headers: tuple[tuple[str, str], ...] = ()


def _error(status: int, message: str, openai: bool) -> _Answer:
    headers = (("Retry-After", "0"),) if status == 429 else ()
    if openai:
        return _Answer(status, {"error": {"message": message, "type": "server_error"}}, headers)
    return _Answer(status, {"error": message}, headers)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a request sleeping out `delay_s` does not hold up `close`
    fake: FakeEmbeddingServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        headers = {name.lower(): value for name, value in self.headers.items()}
        answer = self.server.fake.answer(self.path, body, headers)
        payload = json.dumps(answer.body).encode()
        try:
            self.send_response(answer.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in answer.headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
            pass

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: pytest shows what matters."""
