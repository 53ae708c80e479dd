"""Probe behaviour against a real threaded HTTP server on 127.0.0.1: outcomes, timing bounds
and the requests the server received."""

from __future__ import annotations

import socket
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from skillcheck.diagnostics import Severity
from skillcheck.probe.runner import CONNECTION_HINTS, run
from skillcheck.probe.safety import DNSError

from .conftest import codes, config, probe, write_skill
from .server import BIG, InFlight, ProbeServer


def test_ok_costs_one_head(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/ok")])
    assert codes(pr) == []
    assert server.requests() == [("HEAD", "/ok")]
    assert server.hits[0].headers["User-Agent"].startswith("skillcheck/")
    assert "http" not in server.hits[0].headers["User-Agent"]  # a URL-less description


def test_broken_404_and_410(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(
        tmp_path, [server.url("/status/404"), server.url("/status/410"), server.url("/status/400")]
    )
    assert codes(pr) == ["SC401", "SC401", "SC401"]
    assert all(d.severity is Severity.ERROR for d in pr.result.diagnostics)
    assert "HTTP 404 Not Found" in pr.result.diagnostics[0].message
    assert len(server.requests()) == 3  # a 4xx is not retried


def test_server_error_is_retried_then_reported(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/status/503")], retries=2)
    assert codes(pr) == ["SC402"]
    assert "after 3 attempts" in pr.result.diagnostics[0].message
    assert server.requests() == [("HEAD", "/status/503")] * 3


def test_flaky_recovers_on_retry(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/flaky/one")])
    assert codes(pr) == []
    assert server.requests() == [("HEAD", "/flaky/one")] * 2


def test_retry_after_seconds_is_waited(tmp_path: Path, server: ProbeServer) -> None:
    started = time.monotonic()
    pr = probe(tmp_path, [server.url("/ratelimit/sec/1")])
    elapsed = time.monotonic() - started
    assert codes(pr) == []
    first, second = server.hits
    assert second.at - first.at >= 0.95  # Retry-After: 1 honoured, not the 0.05 s backoff
    assert elapsed < 3


def test_retry_after_http_date_is_waited(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/ratelimit-date/date/2")])
    assert codes(pr) == []
    first, second = server.hits
    assert 0.9 <= second.at - first.at < 3.5  # an HTTP date has one-second resolution


def test_retry_after_shared_by_the_host(tmp_path: Path, server: ProbeServer) -> None:
    # one 429 pauses the host: no URL of the host is sent during the pause, not only the one
    # that was answered 429 (bounds: 0.9 s for a 1 s pause, far below it when not shared)
    urls = [server.url("/ratelimit/shared/1"), server.url("/slow/0"), server.url("/ok")]
    pr = probe(tmp_path, urls, per_host=1)
    assert codes(pr) == []
    assert sorted(p for _, p in server.requests()) == sorted(
        ["/ratelimit/shared/1", "/ratelimit/shared/1", "/slow/0", "/ok"]
    )
    (limited,) = [h for h in server.hits if h.path == "/ratelimit/shared/1"][:1]
    after = [h for h in server.hits if h.at > limited.at]
    others = [h for h in after if h.path != limited.path]
    assert others, "no other URL of the host was sent after the 429: nothing was tested"
    assert all(h.at - limited.at >= 0.9 for h in after), [
        (h.path, round(h.at - limited.at, 3)) for h in after
    ]


def test_retry_after_pauses_only_its_host(
    tmp_path: Path, server: ProbeServer, server_factory: Callable[..., ProbeServer]
) -> None:
    other = server_factory()
    pr = probe(
        tmp_path,
        [server.url("/ratelimit/own/1"), other.url("/ok"), other.url("/slow/0")],
        per_host=1,
    )
    assert codes(pr) == []
    (limited,) = [h for h in server.hits if h.path == "/ratelimit/own/1"][:1]
    # the other host's URLs went out while this host paused
    assert len(other.hits) == 2 and all(h.at - limited.at < 0.9 for h in other.hits)


def test_persistent_429_is_a_blocked_warning(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/always429/0")], retries=2)
    assert codes(pr) == ["SC405"]
    assert pr.result.diagnostics[0].severity is Severity.WARNING
    assert "rate limited" in pr.result.diagnostics[0].message
    assert len(server.requests()) == 3


def test_blocked_can_be_an_error_per_host(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/browser-only")], blocked_hosts_error=("127.0.0.1",))
    assert codes(pr) == ["SC405"]
    assert pr.result.diagnostics[0].severity is Severity.ERROR


def test_retry_after_over_the_cap_is_not_waited(tmp_path: Path, server: ProbeServer) -> None:
    started = time.monotonic()
    pr = probe(tmp_path, [server.url("/always429/3600")], max_retry_after=1.0)
    assert time.monotonic() - started < 1.0
    assert codes(pr) == ["SC405"]
    assert "over max-retry-after" in pr.result.diagnostics[0].message
    assert len(server.requests()) == 1


def test_redirect_chain_is_followed(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/redirect/3")])
    assert codes(pr) == []  # temporary redirects are fine
    assert [p for _, p in server.requests()] == [
        "/redirect/3",
        "/redirect/2",
        "/redirect/1",
        "/redirect/0",
    ]


def test_permanent_redirect_names_the_new_location(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(
        tmp_path, [server.url("/moved"), server.url("/moved308"), server.url("/moved-then-temp")]
    )
    assert codes(pr) == ["SC406", "SC406", "SC406"]
    msgs = [d.message for d in pr.result.diagnostics]
    assert msgs[0] == f"{server.url('/moved')} moved permanently (301) to {server.url('/ok')}"
    assert "(308)" in msgs[1]
    assert msgs[2].endswith(f"to {server.url('/temp')}")  # where the permanent part leads
    assert all(d.severity is Severity.WARNING for d in pr.result.diagnostics)


def test_permanent_redirect_to_a_404_is_broken(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/moved-to-404")])
    assert codes(pr) == ["SC401"]
    assert "/status/404" in pr.result.diagnostics[0].message


def test_redirect_loop_is_detected(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/loop/a")])
    assert codes(pr) == ["SC407"]
    assert "loop" in pr.result.diagnostics[0].message
    assert [p for _, p in server.requests()] == ["/loop/a", "/loop/b"]


def test_redirect_limit(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/redirect/9")], max_redirects=3)
    assert codes(pr) == ["SC407"]
    assert "more than 3 redirects" in pr.result.diagnostics[0].message
    assert len(server.requests()) == 4


def test_hang_is_cut_at_the_timeout(tmp_path: Path, server: ProbeServer) -> None:
    started = time.monotonic()
    pr = probe(tmp_path, [server.url("/hang")], timeout=0.5, retries=0)
    elapsed = time.monotonic() - started
    assert codes(pr) == ["SC403"]
    assert 0.45 <= elapsed < 1.5
    assert len(server.requests()) == 1
    # the limit that was hit, with its figure
    assert pr.result.diagnostics[0].message.endswith(
        "timed out: no answer within 0.5 s (--timeout)"
    )


def test_a_hanging_url_costs_one_and_a_half_timeouts(tmp_path: Path, server: ProbeServer) -> None:
    started = time.monotonic()
    pr = probe(tmp_path, [server.url("/hang")], timeout=0.5, retries=5)
    elapsed = time.monotonic() - started
    assert codes(pr) == ["SC403"]
    assert "after 2 attempts" in pr.result.diagnostics[0].message
    # the retry was cut by the URL's budget, not by --timeout: the message says so
    message = pr.result.diagnostics[0].message
    assert "(the rest of the URL's budget, 1.5 x --timeout = 0.75 s), after 2 attempts" in message
    assert "within 0.5 s" not in message
    assert len(server.requests()) == 2  # the retry gets what is left of 1.5 x 0.5 s
    assert 0.7 <= elapsed < 1.3


def test_head_answers_a_50_mb_page_without_its_body(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/big")])
    assert codes(pr) == []
    assert server.requests() == [("HEAD", "/big")]
    assert server.bytes_sent == 0


def test_get_of_a_50_mb_page_does_not_read_it(tmp_path: Path, server: ProbeServer) -> None:
    tracemalloc.start()
    try:
        pr = probe(tmp_path, [server.url("/big-nohead")])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert codes(pr) == []
    assert server.requests() == [("HEAD", "/big-nohead"), ("GET", "/big-nohead")]
    assert peak < 8 * 1024 * 1024
    # what the server could push into socket buffers before the close, not the 50 MB
    assert server.bytes_sent < BIG // 5


def test_head_not_allowed_falls_back_to_get_once_per_host(
    tmp_path: Path, server: ProbeServer
) -> None:
    pr = probe(tmp_path, [server.url("/nohead"), server.url("/nohead?second")], per_host=1)
    assert codes(pr) == []
    # the host refused HEAD once: its other URLs are asked with GET directly
    assert [m for m, _ in server.requests()] == ["HEAD", "GET", "GET"]


def test_a_host_that_answers_head_keeps_head(tmp_path: Path, server: ProbeServer) -> None:
    # one route refusing HEAD does not make the whole host a GET host
    pr = probe(
        tmp_path, [server.url("/ok"), server.url("/nohead"), server.url("/status/404")], per_host=1
    )
    assert codes(pr) == ["SC401"]
    assert server.requests() == [
        ("HEAD", "/ok"),
        ("HEAD", "/nohead"),
        ("GET", "/nohead"),
        ("HEAD", "/status/404"),
    ]


def test_head_unfriendly_hosts_get_straight_away(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/nohead")], head_unfriendly_hosts=("127.0.0.1",))
    assert codes(pr) == []
    assert server.requests() == [("GET", "/nohead")]


def test_403_for_non_browsers_is_blocked_not_broken(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/browser-only")])
    assert codes(pr) == ["SC405"]
    assert pr.result.errors == 0
    assert server.requests() == [("HEAD", "/browser-only"), ("GET", "/browser-only")]


def test_redirect_to_another_scheme(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/to-ftp")])
    assert codes(pr) == ["SC409"]
    assert "ftp://files.example.org/a" in pr.result.diagnostics[0].message


def test_example_addresses_are_not_fetched(tmp_path: Path, server: ProbeServer) -> None:
    links = [
        server.url("/ok"),
        "http://169.254.169.254/latest/meta-data/",
        f"http://localhost:{server.port}/ok",
        "http://10.1.2.3/",
        "http://[::1]/",
    ]
    pr = probe(tmp_path, links, allow_private=False)
    assert codes(pr) == [] and pr.summary.skipped == 5
    assert pr.summary.skipped_private == 5  # all of them would be probed with --allow-private
    assert server.requests() == []


def test_names_resolving_to_private_addresses_are_refused(
    tmp_path: Path, server: ProbeServer
) -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return {"intranet.corp": ["127.0.0.1"], "meta.corp": ["169.254.169.254"]}[host]

    skill = write_skill(
        tmp_path / "skills", [f"http://intranet.corp:{server.port}/ok", "http://meta.corp/latest/"]
    )
    pr = run([skill], config(tmp_path, allow_private=False), tmp_path, resolver=resolve)
    assert codes(pr) == ["SC410", "SC410"]
    msgs = [d.message for d in pr.result.diagnostics]
    assert "resolves to 127.0.0.1, a loopback address" in msgs[0]
    assert "resolves to 169.254.169.254, a cloud metadata address" in msgs[1]
    assert server.requests() == []
    # with --allow-private the same name is fetched, at the address that was checked
    pr = run([skill], config(tmp_path, allow_private=True, retries=0), tmp_path, resolver=resolve)
    assert server.requests() == [("HEAD", "/ok")]


def test_dedup_one_request_per_url(tmp_path: Path, server: ProbeServer) -> None:
    url = server.url("/status/404")
    links = [url, url + "#a", url.replace("http://", "HTTP://"), url + "#b"]
    pr = probe(tmp_path, links, sources=[url])
    assert server.requests() == [("HEAD", "/status/404")]
    [d] = pr.result.diagnostics
    assert (d.path, d.line, d.column) == ("skills/demo/SKILL.md", 8, 12)
    assert d.message.endswith("(also used in 4 other places)")
    assert d.url == url


def test_sources_json_urls_are_probed_at_their_line(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(
        tmp_path, [server.url("/ok")], sources=[server.url("/ok"), server.url("/status/410")]
    )
    [d] = pr.result.diagnostics
    assert d.code == "SC401" and d.path == "skills/demo/data/sources.json"
    text = (tmp_path / "skills/demo/data/sources.json").read_text().splitlines()
    assert server.url("/status/410") in text[d.line - 1]
    assert len(server.requests()) == 2


def test_fragments_checked_only_when_asked(tmp_path: Path, server: ProbeServer) -> None:
    links = [
        server.url("/page#install"),
        server.url("/page#legacy"),
        server.url("/page#late"),
        server.url("/page#nope"),
    ]
    pr = probe(tmp_path, links)
    assert codes(pr) == []
    assert server.requests() == [("HEAD", "/page")]
    server.reset()
    pr = probe(tmp_path / "again", links, check_fragments=True)
    assert codes(pr) == ["SC411"]
    [d] = pr.result.diagnostics
    assert d.line == 11 and "'nope'" in d.message
    assert server.requests() == [("GET", "/page")]  # one GET serves every fragment


def test_fragment_search_stops_once_found(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [server.url("/big.html#top")], check_fragments=True)
    assert codes(pr) == []
    assert server.requests() == [("GET", "/big.html")]
    assert server.bytes_sent < BIG // 5


def test_fragment_search_is_capped(tmp_path: Path, server: ProbeServer) -> None:
    # not found in the first bytes: unknown, so not reported, and the body is not all read
    pr = probe(tmp_path, [server.url("/big.html#bottom")], check_fragments=True)
    assert codes(pr) == []
    assert server.bytes_sent < BIG // 2


def test_per_host_concurrency(tmp_path: Path, server_factory: Callable[..., ProbeServer]) -> None:
    srv = server_factory()
    links = [srv.url(f"/slow/0.2?{i}") for i in range(8)]
    pr = probe(tmp_path, links, per_host=2, concurrency=32)
    assert codes(pr) == []
    assert srv.max_in_flight == 2


def test_global_concurrency(tmp_path: Path, server_factory: Callable[..., ProbeServer]) -> None:
    tracker = InFlight()
    servers = [server_factory(tracker) for _ in range(3)]
    links = [s.url(f"/slow/0.2?{i}") for s in servers for i in range(4)]
    pr = probe(tmp_path, links, per_host=4, concurrency=3)
    assert codes(pr) == []
    assert tracker.peak == 3  # across the three hosts


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port: int = s.getsockname()[1]
    s.close()
    return port


def test_one_dead_host_is_a_connection_error(tmp_path: Path, server: ProbeServer) -> None:
    pr = probe(tmp_path, [f"http://127.0.0.1:{_closed_port()}/x", server.url("/ok")], retries=1)
    assert codes(pr) == ["SC404"]
    [d] = pr.result.diagnostics
    assert "connection refused" in d.message
    # a refused connection is not a name that does not resolve
    assert d.hint == CONNECTION_HINTS["refused"] and "resolve" not in d.hint


def test_a_name_that_does_not_resolve_gets_the_dns_hint(tmp_path: Path) -> None:
    async def resolve(host: str, port: int) -> list[str]:
        raise DNSError(host, "Name or service not known", temporary=False)

    skill = write_skill(tmp_path / "skills", ["http://gone.dead-site.org/"])
    pr = run([skill], config(tmp_path, allow_private=False), tmp_path, resolver=resolve)
    [d] = pr.result.diagnostics
    assert d.code == "SC404" and "DNS lookup of gone.dead-site.org failed" in d.message
    assert d.hint == CONNECTION_HINTS["dns"] and "does not resolve" in d.hint


def test_unreachable_network_is_reported_once(tmp_path: Path) -> None:
    links = [f"http://127.0.0.1:{_closed_port()}/{i}" for i in range(4)]
    pr = probe(tmp_path, links, retries=1)
    assert codes(pr) == ["SC412"]
    [d] = pr.result.diagnostics
    assert "network is unreachable" in d.message and "4 URLs" in d.message
    assert pr.summary.unreachable


def test_total_budget_leaves_the_rest_unchecked(tmp_path: Path, server: ProbeServer) -> None:
    links = [server.url(f"/slow/0.3?{i}") for i in range(8)]
    started = time.monotonic()
    pr = probe(tmp_path, links, per_host=1, total_budget=1.0)
    assert time.monotonic() - started < 2.0
    assert "SC413" in codes(pr) and set(codes(pr)) == {"SC413"}
    assert "the total time budget (1 s, total-budget) ran out" in pr.result.diagnostics[0].message
    assert 2 <= len(server.requests()) <= 5
    assert pr.result.errors == 0  # not checked is a warning


def test_warm_cache_sends_no_request(tmp_path: Path, server: ProbeServer) -> None:
    links = [server.url("/ok"), server.url("/moved"), server.url("/status/404")]
    first = probe(tmp_path, links, cache=True)
    assert codes(first) == ["SC406", "SC401"] or codes(first) == ["SC401", "SC406"]
    sent = len(server.requests())
    server.reset()
    second = probe(tmp_path, links, cache=True)
    assert sorted(codes(second)) == sorted(codes(first))  # the moved warning is kept
    # the successes come from the cache; the failure is asked again
    assert server.requests() == [("HEAD", "/status/404")]
    assert second.summary.cached == 2 and sent == 4
    server.reset()
    probe(tmp_path, links, cache=False)  # --no-cache
    assert len(server.requests()) == sent


def test_cache_does_not_answer_new_fragments(tmp_path: Path, server: ProbeServer) -> None:
    probe(tmp_path, [server.url("/page#install")], cache=True, check_fragments=True)
    server.reset()
    pr = probe(
        tmp_path,
        [server.url("/page#install"), server.url("/page#nope")],
        cache=True,
        check_fragments=True,
    )
    assert codes(pr) == ["SC411"]
    assert server.requests() == [("GET", "/page")]
