"""Dense embeddings from a server: a model served by Ollama or an OpenAI-compatible server.

Two wire formats, both one JSON request per batch of texts:

- Ollama: ``POST {host}/api/embed`` with ``{"model", "input": [texts]}`` answers
  ``{"embeddings": [[...], ...]}`` in input order; an error is ``{"error": "..."}``.
- OpenAI-compatible (LM Studio, llama.cpp server, vLLM, OpenAI): ``POST {base_url}/embeddings``
  with the same body answers ``{"data": [{"embedding": [...], "index": i}, ...]}``, whose order
  is not promised (sorted here by ``index``); an error is ``{"error": {"message": ...}}``.

Texts go `index.embed_batch_size` to a request. A refused connection, a dropped one, a 5xx or
a 429 is retried with exponential backoff and jitter (tenacity; a 429's ``Retry-After`` is
honoured); anything else, and a server that still fails, raises an `EmbeddingError` naming the
server, the model and what to check. A timeout is not retried: a server silent for
`index.embedding_timeout_s` is loading or overloaded, and asking again only adds to its queue.

The dimension is read from the answer to a probe at load, so the store opens with it before a
note is embedded, and an unreachable server is reported before a sync starts. Vectors are
L2-normalised here (Ollama normalises, other servers need not): the extractive answerer takes
dot products as cosines.

An answer is read up to `ANSWER_BYTES` plus `TEXT_BYTES` per text asked (a 4,096-dimension
vector is under 100 KB of JSON): a server whose answer never ends (data keeps arriving, so no
read timeout fires) raises an `EmbeddingError`, not retried, instead of holding the index's
opening or a sync forever while the answer fills memory.

Synchronous httpx: the indexer and the searcher call embedders from worker threads, and one
`httpx.Client` is safe to share between them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import httpx
import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ValidationError
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_random_exponential

from vault_agent.config import ServerModel, Settings
from vault_agent.http_body import bound_body
from vault_agent.http_errors import error_detail, parse_retry_after
from vault_agent.index.embed.endpoint import EmbeddingEndpoint, endpoint_for
from vault_agent.index.embed.errors import EmbeddingError
from vault_agent.index.embed.task_prefixes import TaskPrefixes, prefixes_for
from vault_agent.local_http import direct_if_local, shown_url
from vault_agent.validation import where
from vault_agent.vault.chunker import approximate_tokens

Vector = NDArray[np.float32]

#: Served models read up to thousands of tokens; chunks are kept as short as MiniLM's so a
#: passage's meaning is not averaged away (and every model sees the same chunks).
MAX_TOKENS = 256
#: Embedded once at load: its answer gives the dimension.
PROBE_TEXT = "How many dimensions do your vectors have?"
#: A 429 asking to wait longer than this is waited this long (the retries are bounded anyway).
MAX_RETRY_AFTER_S = 30.0
#: Characters of a server's error message quoted in ours.
DETAIL_CHARS = 300
#: An answer is read up to this many bytes, plus `TEXT_BYTES` per text of the batch.
ANSWER_BYTES = 1 << 20
TEXT_BYTES = 256 << 10

log = logging.getLogger(__name__)


class _OllamaAnswer(BaseModel):
    embeddings: list[list[float]]


class _OpenAIEmbedding(BaseModel):
    embedding: list[float]
    index: int


class _OpenAIAnswer(BaseModel):
    data: list[_OpenAIEmbedding]


class RemoteEmbedder:
    """An embedding model behind Ollama's or an OpenAI-compatible HTTP API."""

    max_tokens = MAX_TOKENS

    def __init__(
        self,
        endpoint: EmbeddingEndpoint,
        *,
        prefixes: TaskPrefixes | None = None,
        batch_size: int = 16,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        max_backoff_s: float = 8.0,
    ) -> None:
        """Connect and probe: raises `EmbeddingError` when the server can't embed."""
        self.endpoint = endpoint
        self.prefixes = prefixes or prefixes_for(endpoint.model)
        self.model_name = endpoint.model_name + self.prefixes.tag
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self._path = "api/embed" if endpoint.protocol == "ollama" else "embeddings"
        key = endpoint.api_key.get_secret_value() if endpoint.api_key else None
        try:
            self._client = httpx.Client(
                base_url=endpoint.url,
                headers={"Authorization": f"Bearer {key}"} if key else {},
                timeout=httpx.Timeout(timeout_s),
                # A local server is dialled directly, whatever proxy the environment names.
                **direct_if_local(endpoint.url),
                event_hooks={"response": [self._limit_answer]},
            )
        except httpx.InvalidURL as error:
            raise EmbeddingError(
                f"index.embedding_url {shown_url(endpoint.url)!r} is not a URL: {error}"
            ) from error
        self._backoff = wait_random_exponential(multiplier=backoff_s, max=max_backoff_s)
        self._retrying = Retrying(
            stop=stop_after_attempt(max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception(lambda error: getattr(error, "retryable", False)),
            reraise=True,
            before_sleep=_log_retry,
        )
        self.dim = 0  # the probe's answer is taken as it is; every later one must match it
        try:
            self.dim = len(self._embed_batch([PROBE_TEXT])[0])
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_settings(cls, served: ServerModel, settings: Settings) -> RemoteEmbedder:
        """`served` at the endpoint `settings` give it, with their batch size, timeout and
        retries."""
        index = settings.index
        return cls(
            endpoint_for(served, settings),
            prefixes=prefixes_for(
                served.model, index.embedding_query_prefix, index.embedding_document_prefix
            ),
            batch_size=index.embed_batch_size,
            timeout_s=index.embedding_timeout_s,
            max_retries=index.embedding_max_retries,
        )

    def count_tokens(self, text: str) -> int:
        """An estimate: the server's tokenizer is not at hand, and nothing is cut at a limit
        here (the server truncates what its model can't read)."""
        return approximate_tokens(text)

    def embed_documents(self, texts: Sequence[str]) -> list[Vector]:
        """Embed passages, in input order, `batch_size` texts per request."""
        written = [self.prefixes.document + text for text in texts]
        vectors: list[Vector] = []
        for start in range(0, len(written), self.batch_size):
            vectors += self._embed_batch(written[start : start + self.batch_size])
        return vectors

    def embed_query(self, text: str) -> Vector:
        """Embed one query, after the query prefix its model wants (`task_prefixes.py`)."""
        return self._embed_batch([self.prefixes.query + text])[0]

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def _embed_batch(self, texts: list[str]) -> list[Vector]:
        # A copy per call: tenacity keeps an attempt's state on the object, and the indexer
        # and the searcher embed from different threads.
        return self._retrying.copy()(self._request, texts)

    def _request(self, texts: list[str]) -> list[Vector]:
        """One attempt: the texts' unit vectors, or an `EmbeddingError` saying why not."""
        who = self.endpoint.who
        try:
            response = self._client.post(
                self._path, json={"model": self.endpoint.model, "input": texts}
            )
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            raise EmbeddingError(
                f"cannot reach {who}: {_reason(error)}; {self._running_hint()} and check "
                "index.embedding_url",
                retryable=True,
            ) from error
        except httpx.TimeoutException as error:
            raise EmbeddingError(
                f"{who} sent no answer within {self.timeout_s:g} s; it may still be loading "
                "the model, or it is overloaded: try again, or raise index.embedding_timeout_s"
            ) from error
        except httpx.UnsupportedProtocol as error:
            raise EmbeddingError(
                f"index.embedding_url {shown_url(self.endpoint.url)!r} must start with http:// or "
                "https://"
            ) from error
        except httpx.TransportError as error:  # the connection dropped mid-answer
            raise EmbeddingError(
                f"{who} closed the connection: {_reason(error)}", retryable=True
            ) from error
        if response.status_code != 200:
            raise self._status_error(response)
        return self._vectors(response.content, len(texts))

    def _vectors(self, content: bytes, count: int) -> list[Vector]:
        """The unit vectors of an answer, checked against what was asked."""
        who = self.endpoint.who
        try:
            if self.endpoint.protocol == "ollama":
                rows = _OllamaAnswer.model_validate_json(content).embeddings
            else:
                data = sorted(_OpenAIAnswer.model_validate_json(content).data, key=_index)
                if [item.index for item in data] != list(range(len(data))):
                    raise EmbeddingError(f"{who} answered with inconsistent indexes")
                rows = [item.embedding for item in data]
        except ValidationError as error:
            raise EmbeddingError(
                f"{who} did not answer with embeddings ({_first_problem(error)}): is "
                "index.embedding_url the server's address?"
            ) from error
        if len(rows) != count:
            raise EmbeddingError(f"{who} answered {len(rows)} vectors for {count} texts")
        sizes = {len(row) for row in rows}
        expected = self.dim or next(iter(sizes))
        if sizes != {expected} or expected == 0:
            raise EmbeddingError(
                f"{who} answered vectors of {sorted(sizes)} dimensions where {expected} were "
                "expected: did the model behind the name change? Restart to re-embed the vault."
            )
        matrix = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return list(matrix / np.where(norms > 0, norms, 1.0))

    def _limit_answer(self, response: httpx.Response) -> None:
        """Response hook (called before the body is read): reading it fails past the bound."""
        limit = ANSWER_BYTES + TEXT_BYTES * self.batch_size
        who = self.endpoint.who
        bound_body(
            response,
            limit,
            lambda: EmbeddingError(
                f"{who} answered more than {limit / 1e6:.1f} MB without finishing, so reading "
                "was stopped: is index.embedding_url an embedding server?"
            ),
        )

    def _status_error(self, response: httpx.Response) -> EmbeddingError:
        status, who, model = response.status_code, self.endpoint.who, self.endpoint.model
        # Ollama's ``error`` string or OpenAI's ``error.message``, else the body.
        detail = error_detail(response.text, DETAIL_CHARS, keys=("error",))
        said = f": {detail}" if detail else ""
        if status == 429:
            wait = parse_retry_after(response.headers.get("retry-after"))
            return EmbeddingError(
                f"{who} is rate-limiting requests (429){said}", retryable=True, retry_after=wait
            )
        if status >= 500:
            return EmbeddingError(f"{who} failed with HTTP {status}{said}", retryable=True)
        if status in (401, 403):
            return EmbeddingError(
                f"{who} refused the request (HTTP {status}){said}: check "
                "index.embedding_api_key (or OPENAI_API_KEY)"
            )
        if status == 404 and self.endpoint.protocol == "ollama":
            return EmbeddingError(
                f"{who} answered 404{said}: run `ollama pull {model}`, or check index.embedding_url"
            )
        if status == 404:
            return EmbeddingError(
                f"{who} answered 404{said}: check the model name and index.embedding_url "
                "(the server's base URL, e.g. http://127.0.0.1:1234/v1)"
            )
        return EmbeddingError(
            f"{who} rejected the request (HTTP {status}){said}: is {model} an embedding model?"
        )

    def _running_hint(self) -> str:
        if self.endpoint.protocol == "ollama":
            return "is Ollama running (`ollama serve`)?"
        return "is the server running, with its API server started?"

    def _wait(self, state: RetryCallState) -> float:
        """Seconds before the next attempt: a 429's Retry-After, else exponential backoff."""
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, EmbeddingError) and error.retry_after is not None:
            return min(error.retry_after, MAX_RETRY_AFTER_S)
        return float(self._backoff(state))


def _index(item: _OpenAIEmbedding) -> int:
    return item.index


def _log_retry(state: RetryCallState) -> None:
    error = state.outcome.exception() if state.outcome else None
    wait = state.next_action.sleep if state.next_action else 0.0
    log.warning("embedding failed (%s); retry %d in %.2f s", error, state.attempt_number, wait)


def _reason(error: httpx.TransportError) -> str:
    return str(error) or type(error).__name__


def _first_problem(error: ValidationError) -> str:
    problem = error.errors()[0]
    return f"{where(problem, 'the body')}: {problem['msg']}"
