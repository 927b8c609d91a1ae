"""A bound on how much of an HTTP answer is read.

A server can send an answer that never ends (a model looping, a broken or hostile server
streaming one endless line or JSON body): data keeps arriving, so no read timeout fires. Both
the model providers (`llm/limits.py`, async clients) and the server embeddings
(`index/embed/remote.py`, a sync client) stop reading past a number of bytes, each with an
error of its own; neither may import the other, so the bound lives here. The Mistral SDK
talks through ``httpx2``, a fork of httpx with classes of its own: `bound_httpx2_body`.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterator

import httpx
import httpx2


def bound_body(response: httpx.Response, max_bytes: int, error: Callable[[], Exception]) -> None:
    """Make reading `response` (streamed, not read yet) raise `error()` once its body passes
    `max_bytes`: lines, JSON and error bodies alike. Call it from a response event hook."""
    response.stream = _BoundedStream(response.stream, max_bytes, error)


class _BoundedStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """`inner`, read as it is (sync or async), raising `error()` past `max_bytes`."""

    def __init__(
        self,
        inner: httpx.SyncByteStream | httpx.AsyncByteStream,
        max_bytes: int,
        error: Callable[[], Exception],
    ) -> None:
        self._inner, self._max_bytes, self._error = inner, max_bytes, error

    def __iter__(self) -> Iterator[bytes]:
        if not isinstance(self._inner, httpx.SyncByteStream):
            raise TypeError("an async response body read synchronously")
        read = 0
        for chunk in self._inner:
            read += len(chunk)
            if read > self._max_bytes:
                raise self._error()
            yield chunk

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if not isinstance(self._inner, httpx.AsyncByteStream):
            raise TypeError("a sync response body read asynchronously")
        async for chunk in _bounded(self._inner, self._max_bytes, self._error):
            yield chunk

    def close(self) -> None:
        if isinstance(self._inner, httpx.SyncByteStream):
            self._inner.close()

    async def aclose(self) -> None:
        if isinstance(self._inner, httpx.AsyncByteStream):
            await self._inner.aclose()


def bound_httpx2_body(
    response: httpx2.Response, max_bytes: int, error: Callable[[], Exception]
) -> None:
    """`bound_body` for an ``httpx2`` response (asynchronous, as the Mistral SDK reads it)."""
    if not isinstance(response.stream, httpx2.AsyncByteStream):
        raise TypeError("a sync httpx2 response: the Mistral SDK's client reads asynchronously")
    response.stream = _BoundedHttpx2Stream(response.stream, max_bytes, error)


class _BoundedHttpx2Stream(httpx2.AsyncByteStream):
    """`inner`, read as it is, raising `error()` past `max_bytes`."""

    def __init__(
        self, inner: httpx2.AsyncByteStream, max_bytes: int, error: Callable[[], Exception]
    ) -> None:
        self._inner, self._max_bytes, self._error = inner, max_bytes, error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in _bounded(self._inner, self._max_bytes, self._error):
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


async def _bounded(
    chunks: AsyncIterable[bytes], max_bytes: int, error: Callable[[], Exception]
) -> AsyncIterator[bytes]:
    """`chunks` as they come, raising `error()` once they pass `max_bytes` in all."""
    read = 0
    async for chunk in chunks:
        read += len(chunk)
        if read > max_bytes:
            raise error()
        yield chunk
