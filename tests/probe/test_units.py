"""Pure unit tests: URL keys, extraction, Retry-After, address rules, fragment matching, the
cache, and client behaviour through ``httpx.MockTransport`` (no socket)."""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import json
import socket
import ssl
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpcore
import httpx
import pytest

from skillcheck.config import Config
from skillcheck.document import parse
from skillcheck.probe.cache import ProbeCache
from skillcheck.probe.client import (
    Prober,
    classify,
    describe,
    fragment_pattern,
    parse_retry_after,
    skip_fragment,
)
from skillcheck.probe.collect import BadURL, Target, Use, add_use, doc_urls, request_key
from skillcheck.probe.outcome import Outcome
from skillcheck.probe.safety import DNSError, GuardedBackend, Refused, refusal


@pytest.mark.parametrize(
    ("url", "key", "host", "fragment"),
    [
        (
            "https://Example.COM:443/a/?q=1#Frag",
            "https://example.com/a/?q=1",
            "example.com",
            "Frag",
        ),
        ("HTTP://x.org", "http://x.org/", "x.org", ""),
        ("http://x.org:8080/a", "http://x.org:8080/a", "x.org:8080", ""),
        ("//cdn.x.org/lib.js", "https://cdn.x.org/lib.js", "cdn.x.org", ""),
        ("http://[::1]:8080/x", "http://[::1]:8080/x", "[::1]:8080", ""),
        ("https://x.org/a/", "https://x.org/a/", "x.org", ""),  # the slash is kept
    ],
)
def test_request_key(url: str, key: str, host: str, fragment: str) -> None:
    assert request_key(url) == (key, host, fragment)


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("ftp://files.example.org/a", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("https://exa mple.com/", "invalid"),
        ("https://host:99999/", "invalid"),
        ("https:///path", "invalid"),
        ("http://[::1/", "invalid"),
        ("http://999.1.1.1/", "invalid"),
        ("https://a..b/", "invalid"),
        ("https://bad_host!/", "invalid"),
    ],
)
def test_request_key_rejects(url: str, kind: str) -> None:
    with pytest.raises(BadURL) as exc:
        request_key(url)
    assert exc.value.kind == kind


def test_doc_urls_finds_links_not_code() -> None:
    doc = parse(
        "# T\n"  # 1
        "See [a](https://a.example/x) and ![i](https://img.example/i.png).\n"  # 2
        "An autolink <https://auto.example/> and a bare https://bare.example/p.\n"  # 3
        '<a href="https://html.example/h">h</a>\n'  # 4
        "Code `https://span.example/` is not a link.\n"  # 5
        "```bash\ncurl https://fence.example/api\n```\n"  # 6-8
        "<!-- https://comment.example/ -->\n"  # 9
        "[w](https://en.wikipedia.org/wiki/Foo_(bar))\n"  # 10
        "[Relative](references/x.md) [mail](mailto:a@b.c)\n"  # 11
        "\n[ref]: https://def.example/d\n"  # 13
    )
    got = doc_urls(doc)
    assert [u for u, _, _ in got] == [
        "https://a.example/x",
        "https://img.example/i.png",
        "https://auto.example/",
        "https://bare.example/p",
        "https://html.example/h",
        "https://en.wikipedia.org/wiki/Foo_(bar)",
        "https://def.example/d",
    ]
    assert [ln for _, ln, _ in got] == [2, 2, 3, 3, 4, 10, 13]


def test_targets_group_uses_and_fragments() -> None:
    targets: dict[str, Target] = {}
    for i, url in enumerate(
        ["https://x.org/a#one", "HTTPS://X.ORG/a#two", "https://x.org/a", "ftp://x.org/f"]
    ):
        add_use(targets, Use("SKILL.md", i + 1, 1, url))
    t = targets["https://x.org/a"]
    assert len(t.uses) == 3 and set(t.fragments) == {"one", "two"} and t.problem is None
    assert targets["ftp://x.org/f"].problem is not None


def test_parse_retry_after() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = 1_700_000_000.0
    assert parse_retry_after("Tue, 14 Nov 2023 22:13:30 GMT", now) == pytest.approx(10.0)
    assert parse_retry_after("Tue, 14 Nov 2023 22:13:00 GMT", now) == 0.0  # in the past


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("169.254.169.254", "a cloud metadata address"),
        ("fd00:ec2::254", "a cloud metadata address"),
        ("100.100.100.200", "a cloud metadata address"),
        ("127.0.0.1", "a loopback address"),
        ("::1", "a loopback address"),
        ("::ffff:127.0.0.1", "a loopback address"),
        ("169.254.1.2", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("10.0.0.1", "a private address"),
        ("192.168.1.1", "a private address"),
        ("172.16.0.1", "a private address"),
        ("fc00::1", "a private address"),
        ("100.64.0.1", "not a public address"),
        ("0.0.0.0", "not a public address"),
        ("203.0.113.80", "not a public address"),  # documentation range
        ("224.0.0.1", "not a public address"),
        ("8.8.8.8", None),
        ("2606:4700:4700::1111", None),
    ],
)
def test_refusal(address: str, why: str | None) -> None:
    assert refusal(address) == why


@pytest.mark.parametrize(
    ("html", "fragment", "found"),
    [
        (b'<h2 id="install">', "install", True),
        (b"<h2 id='install'>", "install", True),
        (b"<h2 ID=install>", "install", True),
        (b'<a name="legacy"></a>', "legacy", True),
        (b'{"html":"<h2 id=\\"user-content-install\\">"}', "install", True),  # GitHub's JSON
        (b'<h2 id="user-content-install">', "install", True),
        (b'<h2 id="caf\xc3\xa9">', "caf%C3%A9", True),
        (b'<div data-id="install">', "install", False),
        (b'<h2 id="install-guide">', "install", False),
        (b"install", "install", False),
    ],
)
def test_fragment_pattern(html: bytes, fragment: str, found: bool) -> None:
    assert bool(fragment_pattern(fragment).search(html)) is found


def test_skip_fragment() -> None:
    assert skip_fragment(":~:text=hello", "x.org")
    assert skip_fragment("/route", "app.x.org")
    assert skip_fragment("L10-L20", "github.com")
    assert not skip_fragment("L10", "x.org")
    assert not skip_fragment("usage", "github.com")


def _chained(inner: BaseException) -> httpx.ConnectError:
    try:
        try:
            raise inner
        except BaseException as exc:
            raise httpcore.ConnectError(str(exc)) from exc
    except httpcore.ConnectError as exc:
        try:
            raise httpx.ConnectError(str(exc)) from exc
        except httpx.ConnectError as outer:
            return outer


@pytest.mark.parametrize(
    ("inner", "cause", "text"),
    [
        (ConnectionRefusedError(errno.ECONNREFUSED, "refused"), "refused", "connection refused"),
        (OSError(errno.ECONNREFUSED, "Connect call failed"), "refused", "connection refused"),
        (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), "dns", "DNS lookup"),
        (DNSError("gone.org", "Name or service not known", False), "dns", "DNS lookup of gone"),
        (OSError(errno.EHOSTUNREACH, "No route"), "unreachable", "network is unreachable"),
        (ConnectionResetError(errno.ECONNRESET, "reset"), "reset", "connection reset"),
        (ValueError("odd"), "", "odd"),
    ],
)
def test_classify_by_exception_type(inner: BaseException, cause: str, text: str) -> None:
    """The hint of a connection error follows its cause, found by type in the chain."""
    got = classify(_chained(inner))
    assert got[0] == cause and got[1].startswith(text)


def test_describe_tls_error() -> None:
    cause = ssl.SSLCertVerificationError(1, "certificate verify failed")
    cause.verify_message = "certificate has expired"
    try:
        try:
            raise cause
        except ssl.SSLError as exc:
            raise httpx.ConnectError("failed") from exc
    except httpx.ConnectError as exc:
        assert describe(exc) == "TLS certificate error: certificate has expired"


# -- the client through MockTransport --------------------------------------------------


def _cfg(**kw: Any) -> Config:
    base: dict[str, Any] = {"timeout": 1.0, "retries": 2, "allow_private": False}
    base.update(kw)
    return dataclasses.replace(Config(), **base)


def _check(handler: Callable[[httpx.Request], httpx.Response], url: str, **kw: Any) -> Outcome:
    token = kw.pop("token", "")

    async def go() -> Outcome:
        async with Prober(
            _cfg(**kw), transport=httpx.MockTransport(handler), token=token, backoff_base=0.01
        ) as p:
            targets: dict[str, Target] = {}
            add_use(targets, Use("SKILL.md", 1, 1, url))
            return await p.check(next(iter(targets.values())))

    return asyncio.run(go())


def test_redirect_to_a_metadata_address_is_refused() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(302, headers={"Location": "http://169.254.169.254/latest/"})

    o = _check(handler, "https://docs.example.org/page")
    assert o.kind == "private" and "cloud metadata" in o.detail and "redirected from" in o.detail
    assert seen == ["https://docs.example.org/page"]


def test_github_token_only_for_github_over_https() -> None:
    auth: list[tuple[str, str | None]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        auth.append((request.url.host, request.headers.get("Authorization")))
        if request.url.path == "/moved":
            return httpx.Response(302, headers={"Location": "https://elsewhere.example/x"})
        return httpx.Response(200)

    for url in (
        "https://github.com/o/r",
        "https://api.github.com/repos/o/r",
        "http://github.com/o/r",
        "https://example.org/",
        "https://github.com/moved",
    ):
        assert _check(handler, url, token="t0k").kind == "ok"
    assert auth == [
        ("github.com", "Bearer t0k"),
        ("api.github.com", "Bearer t0k"),
        ("github.com", None),
        ("example.org", None),
        ("github.com", "Bearer t0k"),
        ("elsewhere.example", None),
    ]


def test_connection_error_is_retried_with_backoff() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise httpx.ConnectError("connection reset")
        return httpx.Response(200)

    o = _check(handler, "https://x.example/")
    assert o.kind == "ok" and o.attempts == 2 and calls == 2


def test_unknown_name_is_not_retried() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        raise DNSError(request.url.host, "Name or service not known", temporary=False)

    o = _check(handler, "https://gone.example/")
    assert o.kind == "connection-error" and o.connect_failure and calls == 1
    assert "DNS lookup of gone.example failed" in o.detail


def test_scheme_and_invalid_need_no_request() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request expected")

    assert _check(handler, "ftp://x.example/f").kind == "scheme"
    assert _check(handler, "https://x.example:99999/").kind == "invalid"


# -- the guarded network backend ---------------------------------------------------------


class _FakeInner(httpcore.AsyncNetworkBackend):
    def __init__(self) -> None:
        self.connected: list[tuple[str, int]] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.AsyncNetworkStream:
        self.connected.append((host, port))
        raise httpcore.ConnectError("fake")


def _resolver(table: dict[str, list[str]]) -> Callable[[str, int], Any]:
    async def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise DNSError(host, "Name or service not known", temporary=False)
        return table[host]

    return resolve


def test_backend_refuses_names_that_resolve_to_private_addresses() -> None:
    inner = _FakeInner()
    backend = GuardedBackend(
        False,
        _resolver(
            {"intranet.example": ["8.8.8.8", "10.0.0.7"], "meta.example": ["169.254.169.254"]}
        ),
        inner,
    )

    async def go(host: str) -> None:
        await backend.connect_tcp(host, 80, timeout=1)

    with pytest.raises(Refused, match=r"10\.0\.0\.7, a private address"):
        asyncio.run(go("intranet.example"))  # one private address is enough
    with pytest.raises(Refused, match="metadata"):
        asyncio.run(go("meta.example"))
    with pytest.raises(Refused, match="loopback"):
        asyncio.run(go("::ffff:127.0.0.1"))
    assert inner.connected == []  # nothing was dialled


def test_backend_connects_to_the_checked_address() -> None:
    inner = _FakeInner()
    backend = GuardedBackend(False, _resolver({"pub.example": ["8.8.8.8", "8.8.4.4"]}), inner)
    with pytest.raises(httpcore.ConnectError):
        asyncio.run(backend.connect_tcp("pub.example", 443, timeout=1))
    assert inner.connected == [("8.8.8.8", 443), ("8.8.4.4", 443)]  # each address, in order


def test_backend_allow_private() -> None:
    inner = _FakeInner()
    backend = GuardedBackend(True, _resolver({"intranet.example": ["10.0.0.7"]}), inner)
    with pytest.raises(httpcore.ConnectError):
        asyncio.run(backend.connect_tcp("intranet.example", 80, timeout=1))
    assert inner.connected == [("10.0.0.7", 80)]


# -- the cache --------------------------------------------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_cache_ttl_and_failures(tmp_path: Path) -> None:
    clock = _Clock()
    path = tmp_path / "c" / "probe-v1.json"
    cache = ProbeCache(path, ttl_hours=1.0, clock=clock)
    cache.put("https://ok.example/", Outcome("ok", "HTTP 200 OK", 200, requests=1), False)
    cache.put("https://bad.example/", Outcome("broken", "HTTP 404", 404, requests=1), False)
    cache.save()
    assert list(tmp_path.joinpath("c").iterdir()) == [path]  # no temporary file left
    again = ProbeCache(path, ttl_hours=1.0, clock=clock)
    again.load()
    assert set(again.entries) == {"https://ok.example/"}  # failures are never stored
    clock.now += 3599
    assert again.get("https://ok.example/", (), False) is not None
    clock.now += 2
    assert again.get("https://ok.example/", (), False) is None


def test_cache_rules(tmp_path: Path) -> None:
    cache = ProbeCache(tmp_path / "p.json", ttl_hours=24.0)
    ok = Outcome("ok", "HTTP 200 OK", 200, requests=1, html=True, fragments_found=["a"])
    cache.put("https://x.example/", ok, allow_private=True)
    assert cache.get("https://x.example/", (), True) is not None
    assert cache.get("https://x.example/", (), False) is None  # obtained with --allow-private
    assert cache.get("https://x.example/", {"a"}, True) is not None
    assert cache.get("https://x.example/", {"a", "b"}, True) is None  # 'b' never seen


def test_corrupt_cache_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "probe-v1.json"
    path.write_text("{not json")
    cache = ProbeCache(path, ttl_hours=24.0)
    cache.load()
    assert cache.entries == {}
    cache.put("https://x.example/", Outcome("ok", requests=1), False)
    cache.save()
    assert json.loads(path.read_text())["version"] == 1


def test_check_never_imports_httpx() -> None:
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom skillcheck.cli import main\n"
        "r = CliRunner().invoke(main, ['rules'])\n"
        "assert r.exit_code == 0 and 'SC101' in r.output, r.output\n"
        "r = CliRunner().invoke(main, ['check', '--no-cache', sys.argv[1]])\n"
        "assert r.exit_code == 0 and '0 errors' in r.output, r.output\n"
        "assert 'httpx' not in sys.modules, 'check imported httpx'\n"
        "import skillcheck.probe.client\n"
        "assert 'httpx' in sys.modules  # the probe does import it: the check above can fail\n"
    )
    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "pass" / "minimal"
    res = subprocess.run(
        [sys.executable, "-c", code, str(fixture)], capture_output=True, text=True, check=False
    )
    assert res.returncode == 0, res.stderr
