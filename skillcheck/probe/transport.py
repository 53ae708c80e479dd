"""The httpx transport of the probe: an httpcore connection pool whose network backend is
:class:`~skillcheck.probe.safety.GuardedBackend`, so that every connection (the first request,
each redirect hop, a kept-alive one reused) goes through the address check.

httpx's own transport builds its pool inside and offers no way to give it a network backend;
this one builds the pool itself and speaks to httpx and httpcore through their public API only:
``httpx.AsyncBaseTransport``, ``httpx.AsyncByteStream`` and ``httpcore.AsyncConnectionPool``.
The errors of httpcore become the httpx errors of the same name, as in httpx's transport, so
that the client sees the same exceptions whichever transport it is given.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterable, AsyncIterator, Iterator

import httpcore
import httpx

# most specific first: the first class an error is an instance of names its httpx error
_ERRORS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
)


@contextlib.contextmanager
def httpx_errors() -> Iterator[None]:
    """Raise an httpcore error as its httpx counterpart (the cause kept); others unchanged,
    such as the backend's ``Refused`` and ``DNSError``."""
    try:
        yield
    except Exception as exc:
        for source, target in _ERRORS:
            if isinstance(exc, source):
                raise target(str(exc)) from exc
        raise


class _Body(httpx.AsyncByteStream):
    """A response body read from httpcore, its errors raised as httpx's."""

    def __init__(self, stream: AsyncIterable[bytes]) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with httpx_errors():
            async for chunk in self._stream:
                yield chunk

    async def aclose(self) -> None:
        close = getattr(self._stream, "aclose", None)
        if close is not None:
            with httpx_errors():
                await close()


class PoolTransport(httpx.AsyncBaseTransport):
    """An httpx transport over an httpcore connection pool the caller builds."""

    def __init__(self, pool: httpcore.AsyncConnectionPool) -> None:
        self.pool = pool

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
            ),
            headers=request.headers.raw,
            content=_request_body(request),
            extensions=request.extensions,
        )
        with httpx_errors():
            response = await self.pool.handle_async_request(core)
        if not isinstance(response.stream, AsyncIterable):  # pragma: no cover - an async pool
            raise TypeError("the connection pool returned a synchronous body")
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_Body(response.stream),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.pool.aclose()


def _request_body(request: httpx.Request) -> AsyncIterable[bytes]:
    stream = request.stream
    if not isinstance(stream, AsyncIterable):  # pragma: no cover - an AsyncClient's request
        raise TypeError("an httpx.AsyncClient request has an asynchronous body")
    return stream
