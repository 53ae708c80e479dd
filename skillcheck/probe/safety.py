"""Refusing private addresses, at the one place every connection passes through.

A link checker run in CI fetches whatever a pull request adds; ``http://169.254.169.254/``
(cloud metadata) or an intranet name must not be fetched. The check is made on the addresses
a name resolves to (``getaddrinfo``, in a thread) and on literal IPs, inside the network
backend that opens every TCP connection: so redirects to a private address are caught too, and
the address checked is the address connected to (no second lookup for DNS rebinding to swap).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import threading
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpcore

# cloud metadata endpoints (most are link-local or private anyway; named for the message)
METADATA = {
    ipaddress.ip_address("169.254.169.254"),  # AWS, GCP, Azure, OpenStack, ...
    ipaddress.ip_address("169.254.170.2"),  # AWS ECS task metadata
    ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
    ipaddress.ip_address("fd00:ec2::254"),  # AWS over IPv6
}

# RFC 1918 and RFC 4193; other non-global ranges (documentation, benchmarking, reserved) are
# refused as "not a public address"
PRIVATE_NETS = tuple(
    ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
)

Resolver = Callable[[str, int], Awaitable[list[str]]]


class Refused(Exception):
    """A connection refused before it was made: the host resolves to a non-public address."""

    def __init__(self, host: str, address: str, reason: str) -> None:
        super().__init__(f"{host} resolves to {address}, {reason}")
        self.host, self.address, self.reason = host, address, reason


class DNSError(Exception):
    """The host name does not resolve. ``temporary`` when the resolver says to try again."""

    def __init__(self, host: str, message: str, temporary: bool) -> None:
        super().__init__(f"DNS lookup of {host} failed: {message}")
        self.host, self.temporary = host, temporary


def refusal(address: str) -> str | None:
    """Why ``address`` must not be contacted, or None when it is a public address."""
    try:
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(
            address.split("%", 1)[0]
        )
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is not None:
            ip = embedded
    if ip in METADATA:
        return "a cloud metadata address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if any(ip in net for net in PRIVATE_NETS):
        return "a private address"
    if ip.is_private or ip.is_multicast or ip.is_unspecified or ip.is_reserved or not ip.is_global:
        return "not a public address"
    return None


def literal_refusal(host: str) -> str | None:
    """For a host written as an IP address, why it is refused; None for names."""
    h = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        ipaddress.ip_address(h.split("%", 1)[0])
    except ValueError:
        return None
    return refusal(h)


def _getaddrinfo_in_thread(host: str, port: int) -> asyncio.Future[list[Any]]:
    """``getaddrinfo`` in a daemon thread of its own: a resolver that hangs can neither hold a
    pool worker that other lookups need nor delay the exit of the process (asyncio.run joins
    its default executor)."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[list[Any]] = loop.create_future()

    def settle(result: list[Any] | None, exc: BaseException | None) -> None:
        if fut.done():
            return
        if exc is not None:
            fut.set_exception(exc)
        else:
            fut.set_result(result or [])

    def work() -> None:
        try:
            result: list[Any] | None = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            exc: BaseException | None = None
        except Exception as e:  # handed to the awaiting coroutine
            result, exc = None, e
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, exc)

    threading.Thread(target=work, name=f"skillcheck-dns-{host}", daemon=True).start()
    return fut


async def system_resolver(host: str, port: int) -> list[str]:
    """Addresses of ``host`` from the system resolver, run in a thread."""
    try:
        infos = await _getaddrinfo_in_thread(host, port)
    except socket.gaierror as exc:
        temporary = exc.errno in (socket.EAI_AGAIN, getattr(socket, "EAI_SYSTEM", None))
        raise DNSError(host, exc.strerror or str(exc), temporary) from exc
    except UnicodeError as exc:  # a label the IDNA codec rejects
        raise DNSError(host, str(exc), False) from exc
    out: list[str] = []
    for *_, sockaddr in infos:
        addr = str(sockaddr[0])
        if addr not in out:
            out.append(addr)
    return out


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that resolves names itself, refuses non-public addresses
    (unless ``allow_private``), and connects to the checked address."""

    def __init__(
        self,
        allow_private: bool,
        resolver: Resolver | None = None,
        inner: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.allow_private = allow_private
        self.resolver = resolver or system_resolver
        self.inner = inner or httpcore.AnyIOBackend()
        self._lookups: dict[tuple[str, int], asyncio.Future[list[str]]] = {}

    async def addresses(self, host: str, port: int) -> list[str]:
        """Resolve once per (host, port) and run; concurrent callers share the lookup, and a
        name that does not exist is not asked again."""
        if _is_ip(host):
            return [host]
        key = (host, port)
        fut = self._lookups.get(key)
        if fut is None:
            fut = asyncio.ensure_future(self.resolver(host, port))
            fut.add_done_callback(self._settled)
            self._lookups[key] = fut
        try:
            return list(await asyncio.shield(fut))
        except DNSError as exc:
            if exc.temporary and self._lookups.get(key) is fut:
                del self._lookups[key]  # a temporary failure is asked again on a retry
            raise

    @staticmethod
    def _settled(fut: asyncio.Future[list[str]]) -> None:
        # the lookup is shared and may outlive the request that started it (a timeout):
        # fetch its exception so that asyncio does not log it as never retrieved
        if not fut.cancelled():
            fut.exception()

    def check(self, host: str, addresses: Iterable[str]) -> None:
        if self.allow_private:
            return
        for addr in addresses:
            why = refusal(addr)
            if why is not None:
                raise Refused(host, addr, why)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            addrs = await asyncio.wait_for(self.addresses(host, port), timeout)
        except asyncio.TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"DNS lookup of {host} timed out") from exc
        self.check(host, addrs)
        last: Exception | None = None
        for addr in addrs:
            try:
                return await self.inner.connect_tcp(
                    addr,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except httpcore.ConnectError as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not probed")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    return True
