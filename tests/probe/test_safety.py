"""The address guard with the real resolver: names on this machine (localhost, from the hosts
file; no query leaves it), a resolver that hangs (the lookup times out, the run goes on), a
resolver that fails (permanent or temporary), and the backend's other entry points."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpcore
import pytest

from skillcheck.probe.safety import (
    DNSError,
    GuardedBackend,
    Refused,
    literal_refusal,
    refusal,
    system_resolver,
)

from .server import ProbeServer


@pytest.fixture
def hanging_resolver(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """``socket.getaddrinfo`` blocks (as a resolver with an unreachable server does) until the
    test ends; the names asked are recorded."""
    release = threading.Event()
    asked: list[str] = []

    def blocking(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        asked.append(host)
        release.wait(30)
        raise socket.gaierror(socket.EAI_AGAIN, "released")

    monkeypatch.setattr(socket, "getaddrinfo", blocking)
    yield asked
    release.set()


def test_localhost_resolves_to_loopback() -> None:
    addrs = asyncio.run(system_resolver("localhost", 80))
    assert addrs and all(refusal(a) == "a loopback address" for a in addrs)
    assert len(addrs) == len(set(addrs))  # one entry per address, not per socket type


def test_the_guard_refuses_localhost_by_name() -> None:
    async def go() -> None:
        await GuardedBackend(allow_private=False).connect_tcp("localhost", 9, timeout=5)

    with pytest.raises(Refused) as err:
        asyncio.run(go())
    assert err.value.host == "localhost" and err.value.reason == "a loopback address"


def test_the_guard_connects_to_localhost_when_private_is_allowed(server: ProbeServer) -> None:
    port = int(server.url("/").rsplit(":", 1)[1].split("/", 1)[0])

    async def go() -> bytes:
        backend = GuardedBackend(allow_private=True)
        stream = await backend.connect_tcp("localhost", port, timeout=5)
        try:
            await stream.write(b"HEAD /ok HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            return await stream.read(200, timeout=5)
        finally:
            await stream.aclose()

    assert asyncio.run(go()).startswith(b"HTTP/1.")
    assert server.requests() == [("HEAD", "/ok")]


def test_a_hanging_resolver_times_out(hanging_resolver: list[str]) -> None:
    async def go() -> None:
        await GuardedBackend(allow_private=False).connect_tcp("hangs.example", 443, timeout=0.2)

    with pytest.raises(httpcore.ConnectTimeout, match=r"DNS lookup of hangs\.example timed out"):
        asyncio.run(go())  # returns although the lookup thread still hangs
    assert hanging_resolver == ["hangs.example"]


def test_a_hanging_lookup_is_shared_not_repeated(hanging_resolver: list[str]) -> None:
    async def go() -> list[BaseException | None]:
        backend = GuardedBackend(allow_private=False)
        tries = [backend.connect_tcp("hangs.example", 443, timeout=0.2) for _ in range(3)]
        results = await asyncio.gather(*tries, return_exceptions=True)
        return [r if isinstance(r, BaseException) else None for r in results]

    outcomes = asyncio.run(go())
    assert all(isinstance(o, httpcore.ConnectTimeout) for o in outcomes)
    assert hanging_resolver == ["hangs.example"]  # three connections, one lookup


@pytest.mark.parametrize(
    ("errno", "temporary"),
    [
        (socket.EAI_NONAME, False),
        (socket.EAI_AGAIN, True),
    ],
)
def test_resolver_failures(monkeypatch: pytest.MonkeyPatch, errno: int, temporary: bool) -> None:
    asked: list[str] = []

    def failing(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        asked.append(host)
        raise socket.gaierror(errno, "no such name" if not temporary else "try again")

    monkeypatch.setattr(socket, "getaddrinfo", failing)

    async def go() -> list[DNSError]:
        backend = GuardedBackend(allow_private=False)
        errors = []
        for _ in range(2):
            with pytest.raises(DNSError) as err:
                await backend.addresses("nowhere.example", 443)
            errors.append(err.value)
        return errors

    errors = asyncio.run(go())
    assert all(e.temporary is temporary and e.host == "nowhere.example" for e in errors)
    assert "DNS lookup of nowhere.example failed" in str(errors[0])
    # a temporary failure is asked again on the next try; a missing name is not
    assert len(asked) == (2 if temporary else 1)


def test_a_name_the_codec_rejects_is_a_dns_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def bad_label(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        raise UnicodeError("label too long")

    monkeypatch.setattr(socket, "getaddrinfo", bad_label)
    with pytest.raises(DNSError) as err:
        asyncio.run(system_resolver("x" * 70 + ".example", 443))
    assert err.value.temporary is False and "label too long" in str(err.value)


def test_literal_addresses_skip_the_resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: pytest.fail("resolved"))
    backend = GuardedBackend(allow_private=False)
    assert asyncio.run(backend.addresses("127.0.0.1", 80)) == ["127.0.0.1"]
    assert asyncio.run(backend.addresses("[::1]", 80)) == ["[::1]"]


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("not-an-address", "not an IP address"),
        ("169.254.169.254", "a cloud metadata address"),
        ("::ffff:10.0.0.1", "a private address"),  # IPv4-mapped
        ("2002:c0a8:0101::1", "a private address"),  # 6to4 of 192.168.1.1
        ("fe80::1%eth0", "a link-local address"),  # with a zone
        ("192.0.2.1", "not a public address"),  # documentation
        ("93.184.215.14", None),
    ],
)
def test_refusal(address: str, why: str | None) -> None:
    assert refusal(address) == why


def test_literal_refusal_ignores_names() -> None:
    assert literal_refusal("localhost") is None
    assert literal_refusal("[::1]") == "a loopback address"


def test_unix_sockets_are_refused_and_sleep_is_delegated() -> None:
    async def go() -> None:
        backend = GuardedBackend(allow_private=True)
        await backend.sleep(0)
        with pytest.raises(httpcore.ConnectError, match="unix sockets are not probed"):
            await backend.connect_unix_socket("/tmp/x.sock")

    asyncio.run(go())
