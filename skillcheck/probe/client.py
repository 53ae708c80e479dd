"""Requests: HEAD first, redirects followed by hand, retries with backoff, budgets.

For each URL: HEAD (GET when a fragment must be found, or on a host that mishandles HEAD), and
GET again after 403, 405 or 501. No body is read unless a fragment is looked for, and then only
until it is found or ``FRAGMENT_MAX_BYTES`` have been read: a response is always streamed and
closed. Each attempt (request, redirects, body reads) is cut at ``--timeout``, and the attempts
and backoff sleeps of one URL at ``URL_TIMEOUT_FACTOR`` times it: a URL that hangs costs one and
a half timeouts, not three. Redirects are followed by hand so that loops are seen, every hop is
checked against the private-address rule and the scheme rule, and a permanent redirect can be
reported. Timeouts,
connection errors, 429 and 5xx are retried with exponential backoff and jitter; ``Retry-After``
is honoured (seconds or an HTTP date), capped at ``max-retry-after``, shared by every URL of the
host, and charged both to that host and to the run's ``total-budget``. The errors of httpx map
to outcome classes (see :mod:`skillcheck.probe.codes`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import errno
import os
import random
import re
import socket
import ssl
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import TracebackType
from urllib.parse import SplitResult, unquote, urlsplit

import httpcore
import httpx

from skillcheck import __version__
from skillcheck.config import Config
from skillcheck.probe.collect import BadURL, Target, request_key
from skillcheck.probe.outcome import Outcome
from skillcheck.probe.safety import DNSError, GuardedBackend, Refused, Resolver, literal_refusal
from skillcheck.probe.transport import PoolTransport

USER_AGENT = f"skillcheck/{__version__} (link checker for Agent Skills folders)"
ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
REDIRECTS = frozenset({301, 302, 303, 307, 308})
PERMANENT = frozenset({301, 308})
HEAD_FALLBACK = frozenset({403, 405, 501})
BLOCKED = frozenset({401, 403, 429, 999})  # 999: LinkedIn's answer to robots
FRAGMENT_MAX_BYTES = 5 * 1024 * 1024
BACKOFF_BASE = 0.5  # seconds before the first retry (then doubled), times a jitter in [0.5, 1)
URL_TIMEOUT_FACTOR = 1.5  # the whole URL: attempts and backoff take at most this x --timeout
MIN_ATTEMPT = 0.1  # no retry with less than this x --timeout left for it
HOST_WAIT_FACTOR = 2.0  # a host may make the run wait max-retry-after times this, in all
GITHUB_HOSTS = frozenset({"github.com", "api.github.com"})
_GITHUB_LINE = re.compile(r"L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?")


def host_matches(host: str, patterns: Iterable[str]) -> bool:
    """``host`` (host[:port]) is one of ``patterns`` or a subdomain of one."""
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    name = name.lower().rstrip(".")
    return any(name == p.lower() or name.endswith("." + p.lower()) for p in patterns)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delay-seconds or HTTP-date)."""
    if value is None:
        return None
    v = value.strip()
    if v.isdigit():
        return float(v)
    try:
        when = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def skip_fragment(fragment: str, host: str) -> bool:
    """Fragments no HTML id answers: text fragments, client-side routes, GitHub line marks."""
    if not fragment or fragment.startswith((":~:", "/", "!")):
        return True
    return host_matches(host, ("github.com",)) and bool(_GITHUB_LINE.fullmatch(fragment))


def fragment_pattern(fragment: str) -> re.Pattern[bytes]:
    """``id``/``name`` attribute equal to the fragment (raw or percent-decoded; GitHub's
    ``user-content-`` prefix allowed; quotes optional or JSON-escaped)."""
    names = sorted({fragment, unquote(fragment)}, key=len, reverse=True)
    alts = b"|".join(re.escape(n.encode("utf-8")) for n in names)
    return re.compile(
        rb"(?<![\w-])(?i:id|name)\s*=\s*(?:\\?[\"'])?(?:user-content-)?(?:"
        + alts
        + rb")(?:\\?[\"']|(?=[\s>/]))"
    )


def classify(exc: BaseException) -> tuple[str, str]:
    """The cause of a transport error ("dns", "refused", "tls", "unreachable", "reset" or ""
    when unknown) and a short reason, from the deepest useful exception of its chain."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, DNSError):
            return "dns", str(cur)
        if isinstance(cur, ssl.SSLCertVerificationError):
            return "tls", f"TLS certificate error: {cur.verify_message or cur.reason}"
        if isinstance(cur, ssl.SSLError):
            return "tls", f"TLS error: {cur.reason or cur}"
        if isinstance(cur, ConnectionRefusedError) or (
            isinstance(cur, OSError) and cur.errno == errno.ECONNREFUSED
        ):
            return "refused", "connection refused"
        if isinstance(cur, socket.gaierror):
            return "dns", f"DNS lookup failed: {cur.strerror or cur}"
        if isinstance(cur, OSError) and cur.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return "unreachable", "network is unreachable"
        if isinstance(cur, ConnectionResetError):
            return "reset", "connection reset by the server"
        cur = cur.__cause__ or cur.__context__
    if isinstance(exc, httpx.RemoteProtocolError):
        return "", f"the server broke the protocol: {exc}"
    text = str(exc).strip()
    return "", text or type(exc).__name__


def describe(exc: BaseException) -> str:
    """A short reason for a transport error (see :func:`classify`)."""
    return classify(exc)[1]


@dataclass
class HostState:
    sem: asyncio.Semaphore
    not_before: float = 0.0  # a Retry-After pauses every URL of the host until then
    waited: float = 0.0  # Retry-After time charged to this host
    head_refused: int = 0  # HEAD refused (403/405/501) where GET then worked
    head_ok: int = 0  # HEAD answered (not refused)
    requests: int = 0

    @property
    def use_get(self) -> bool:
        """The host refuses HEAD and has never answered one: skip HEAD for its other URLs.
        (A host that answers HEAD elsewhere refuses it on some routes only.)"""
        return self.head_refused > 0 and self.head_ok == 0


@dataclass
class _Attempt:
    """One attempt: a request and the redirects it leads to."""

    kind: str | None = None  # an error outcome class; None when a server answered
    detail: str = ""
    status: int | None = None
    reason: str = ""
    hops: list[tuple[int, str]] = field(default_factory=list)  # (status, next url)
    retry_after: float | None = None
    found: set[str] = field(default_factory=set)
    complete: bool = False  # the whole body was searched
    html: bool | None = None
    connect_failure: bool = False
    cause: str = ""  # of a connection error: see classify()
    retryable: bool = False
    requests: int = 0


class Prober:
    """Checks targets; use as ``async with Prober(config) as p: await p.check(target)``."""

    def __init__(
        self,
        config: Config,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        resolver: Resolver | None = None,
        backoff_base: float = BACKOFF_BASE,
        token: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.transport = transport
        self.resolver = resolver
        self.backoff_base = backoff_base
        self.token = token if token is not None else os.environ.get("GITHUB_TOKEN") or None
        self.clock = clock
        self.hosts: dict[str, HostState] = {}
        self.requests = 0
        self.deadline = 0.0

    async def __aenter__(self) -> Prober:
        cfg = self.config
        self.deadline = self.clock() + cfg.total_budget
        self._global = asyncio.Semaphore(cfg.concurrency)
        transport = self.transport or self._guarded_transport()
        self.client = httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(cfg.timeout),
            follow_redirects=False,
            trust_env=False,  # proxies from the environment would bypass the address check
            headers={"User-Agent": USER_AGENT, "Accept": ACCEPT},
        )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.client.aclose()

    def _guarded_transport(self) -> PoolTransport:
        # every connection of the pool goes through the address check (redirect hops and
        # kept-alive ones too): see skillcheck.probe.transport
        n = self.config.concurrency
        return PoolTransport(
            httpcore.AsyncConnectionPool(
                ssl_context=httpx.create_ssl_context(),
                max_connections=n,
                max_keepalive_connections=n,
                keepalive_expiry=5.0,
                network_backend=GuardedBackend(self.config.allow_private, self.resolver),
            )
        )

    def host(self, netloc: str) -> HostState:
        state = self.hosts.get(netloc)
        if state is None:
            state = self.hosts[netloc] = HostState(asyncio.Semaphore(self.config.per_host))
        return state

    def _over_budget(self, extra: float) -> bool:
        return self.config.total_budget > 0 and self.clock() + extra > self.deadline

    # -- one URL -------------------------------------------------------------------------
    async def check(self, target: Target) -> Outcome:
        if target.problem is not None:
            kind, detail = target.problem
            return Outcome(kind, detail)
        cfg = self.config
        host = self.host(target.host)
        frags: set[str] = set()
        if cfg.check_fragments:
            frags = {f for f in target.fragments if not skip_fragment(f, target.host)}
        head_unfriendly = host_matches(target.host, cfg.head_unfriendly_hosts)
        method = "GET" if frags or host.use_get or head_unfriendly else "HEAD"
        # the whole URL: its attempts and backoff sleeps (not Retry-After waits, not queueing)
        url_budget = cfg.timeout * URL_TIMEOUT_FACTOR
        spent = 0.0
        attempts = requests = retries = 0
        last: Outcome | None = None
        while True:
            att = _Attempt()
            async with host.sem:
                pause = host.not_before - self.clock()
                if pause > 0:
                    if self._over_budget(pause):
                        return self._out_of_time(last)
                    await asyncio.sleep(pause)
                if self._over_budget(0):
                    return self._out_of_time(last)
                if host.use_get:  # learnt while this URL waited for its turn
                    method = "GET"
                async with self._global:
                    started = self.clock()
                    await self._timed(
                        target.key, method, frags, att, min(cfg.timeout, url_budget - spent)
                    )
                    if att.kind is None and method == "HEAD" and att.status in HEAD_FALLBACK:
                        # GET again at once, in the same slot, so that the host's other URLs
                        # learn the outcome before they start
                        method = "GET"
                        requests += att.requests
                        att = _Attempt()
                        left = url_budget - spent - (self.clock() - started)
                        await self._timed(target.key, method, frags, att, min(cfg.timeout, left))
                        if att.status is not None and att.status < 400:
                            host.head_refused += 1
                    elif att.kind is None and method == "HEAD":
                        host.head_ok += 1
                    spent += self.clock() - started
            attempts += 1
            requests += att.requests
            last = self._outcome(att, frags)
            last.attempts, last.requests = attempts, requests
            retryable = att.retryable or (
                att.kind is None
                and att.status is not None
                and (att.status == 429 or (att.status >= 500 and att.status != 501))
            )
            if not retryable:
                return last
            left = url_budget - spent
            if retries >= cfg.retries or left < MIN_ATTEMPT * cfg.timeout:
                if attempts > 1:
                    last.detail += f", after {attempts} attempts"
                if retries < cfg.retries and last.kind != "timeout":
                    last.detail += f"; no time left to retry in the URL's {url_budget:g} s"
                return last
            retries += 1
            now = self.clock()
            if att.retry_after is not None and att.status is not None:
                if not self._pause_host(host, att.retry_after, now, last):
                    return last
            else:
                wait = min(
                    self.backoff_base * 2 ** (retries - 1) * random.uniform(0.5, 1.0), left / 2
                )
                if self._over_budget(wait):
                    last.detail += (
                        f"; the total time budget ({cfg.total_budget:g} s) does not allow a retry"
                    )
                    return last
                await asyncio.sleep(wait)
                spent += wait

    def _pause_host(self, host: HostState, wait: float, now: float, last: Outcome) -> bool:
        """Honour a Retry-After of ``wait`` seconds by pausing the whole host, so that every
        URL on it waits; False (with the reason added to ``last``) when the wait is refused."""
        cfg = self.config
        if wait > cfg.max_retry_after:
            last.detail += (
                f"; it asks to retry after {wait:.0f} s, over max-retry-after"
                f" ({cfg.max_retry_after:g} s)"
            )
            return False
        charge = max(0.0, now + wait - max(host.not_before, now))
        if host.waited + charge > cfg.max_retry_after * HOST_WAIT_FACTOR:
            last.detail += "; its host has used up its Retry-After allowance"
            return False
        if self._over_budget(wait):
            last.detail += (
                f"; the total time budget ({cfg.total_budget:g} s) does not allow the wait"
            )
            return False
        host.not_before = max(host.not_before, now + wait)
        host.waited += charge
        return True

    def _out_of_time(self, last: Outcome | None) -> Outcome:
        total = f"the total time budget ({self.config.total_budget:g} s, total-budget)"
        if last is None:
            return Outcome("not-checked", f"{total} ran out before it was checked")
        last.detail += f"; {total} ran out before a retry"
        return last

    def _outcome(self, att: _Attempt, frags: set[str]) -> Outcome:
        if att.kind is not None:
            return Outcome(
                att.kind, att.detail, connect_failure=att.connect_failure, cause=att.cause
            )
        status = att.status
        assert status is not None
        desc = f"HTTP {status}" + (f" {att.reason}" if att.reason else "")
        if att.hops:
            desc += f" at {att.hops[-1][1]}"
        if status < 400:
            permanent: list[tuple[int, str]] = []
            for hop in att.hops:
                if hop[0] not in PERMANENT:
                    break
                permanent.append(hop)
            missing = sorted(frags - att.found) if frags and att.html and att.complete else []
            if permanent:  # the link should name where the permanent redirects lead
                kind, desc, location = "redirected", str(permanent[0][0]), permanent[-1][1]
            else:
                kind, location = "ok", None
            return Outcome(
                kind,
                desc,
                status,
                location,
                missing_fragments=missing,
                fragments_found=sorted(att.found),
                html=att.html,
            )
        if status == 429:
            return Outcome("blocked", desc + " (rate limited)", status)
        if status in BLOCKED:
            return Outcome("blocked", desc, status)
        if status >= 500:
            return Outcome("server-error", desc, status)
        return Outcome("broken", desc, status)

    async def _timed(
        self, url: str, method: str, frags: set[str], att: _Attempt, limit: float
    ) -> None:
        """One attempt, cut at ``limit`` as a whole (connect, redirects and body reads)."""
        limit = max(limit, 0.001)
        try:
            await asyncio.wait_for(self._attempt(url, method, frags, att, limit), limit)
        except asyncio.TimeoutError:
            if att.kind is None and att.status is not None:
                att.complete = False  # it answered; only the body search ran out of time
                return
            att.kind, att.retryable = "timeout", True
            att.detail = f"no answer within {self._limit(limit)}"

    def _limit(self, limit: float) -> str:
        """Which limit cut an attempt short, with its figure: the per-attempt --timeout, or
        what was left of the whole URL's budget (URL_TIMEOUT_FACTOR x --timeout)."""
        timeout = self.config.timeout
        if limit >= timeout:
            return f"{timeout:g} s (--timeout)"
        return (
            f"{limit:.3g} s (the rest of the URL's budget, {URL_TIMEOUT_FACTOR:g} x --timeout"
            f" = {timeout * URL_TIMEOUT_FACTOR:g} s)"
        )

    def _auth(self, parts: SplitResult) -> dict[str, str]:
        if (
            self.token
            and parts.scheme == "https"
            and (parts.hostname or "").lower() in GITHUB_HOSTS
        ):
            return {"Authorization": f"Bearer {self.token}"}
        return {}

    async def _attempt(
        self, url: str, method: str, frags: set[str], att: _Attempt, limit: float
    ) -> None:
        cfg = self.config
        chain = [url]
        for _ in range(cfg.max_redirects + 1):
            parts = urlsplit(url)
            via = f" (redirected from {chain[0]})" if len(chain) > 1 else ""
            why = None if cfg.allow_private else literal_refusal(parts.hostname or "")
            if why is not None:
                att.kind, att.detail = "private", f"{parts.hostname} is {why}{via}"
                return
            try:
                request = self.client.build_request(
                    method, url, headers=self._auth(parts), timeout=httpx.Timeout(limit)
                )
            except httpx.InvalidURL as exc:
                att.kind, att.detail = "invalid", f"{exc}{via}"
                return
            att.requests += 1
            self.requests += 1
            self.host(parts.netloc.lower()).requests += 1
            try:
                response = await self.client.send(request, stream=True)
            except Refused as exc:
                att.kind, att.detail = "private", f"{exc}{via}"
                return
            except DNSError as exc:
                att.kind, att.detail, att.cause = "connection-error", f"{exc}{via}", "dns"
                att.connect_failure, att.retryable = True, exc.temporary
                return
            except httpx.TimeoutException as exc:
                att.kind, att.retryable = "timeout", True
                what = "no connection" if isinstance(exc, httpx.ConnectTimeout) else "no answer"
                att.detail = f"{what} within {self._limit(limit)}{via}"
                return
            except httpx.ConnectError as exc:
                att.cause, reason = classify(exc)
                att.kind, att.detail = "connection-error", f"{reason}{via}"
                att.connect_failure, att.retryable = True, True
                return
            except (httpx.TransportError, httpx.DecodingError) as exc:
                att.cause, reason = classify(exc)
                att.kind, att.detail = "connection-error", f"{reason}{via}"
                att.retryable = isinstance(exc, (httpx.NetworkError, httpx.RemoteProtocolError))
                return
            try:
                status = response.status_code
                location = response.headers.get("location")
                if status in REDIRECTS and location:
                    try:
                        nxt, _, _ = request_key(str(response.url.join(location)))
                    except (BadURL, httpx.InvalidURL) as exc:
                        kind = exc.kind if isinstance(exc, BadURL) else "invalid"
                        att.kind, att.detail = kind, f"redirects to {location}: {exc}"
                        return
                    att.hops.append((status, nxt))
                    if nxt in chain:
                        att.kind = "redirect-loop"
                        att.detail = "redirects loop: " + " -> ".join([*chain, nxt][-6:])
                        return
                    chain.append(nxt)
                    url = nxt
                    continue
                att.status, att.reason = status, response.reason_phrase
                att.retry_after = parse_retry_after(response.headers.get("retry-after"))
                if frags and method == "GET" and 200 <= status < 300:
                    att.html = "html" in response.headers.get("content-type", "").lower()
                    if att.html:
                        await self._scan(response, frags, att)
                return
            finally:
                await response.aclose()
        att.kind = "redirect-loop"
        att.detail = f"more than {cfg.max_redirects} redirects (max-redirects)"

    @staticmethod
    async def _scan(response: httpx.Response, frags: set[str], att: _Attempt) -> None:
        """Read the body until every fragment is found or FRAGMENT_MAX_BYTES are read."""
        patterns = {f: fragment_pattern(f) for f in frags}
        keep = 96 + 4 * max(len(f) for f in frags)
        tail = b""
        total = 0
        try:
            async for chunk in response.aiter_bytes():
                total += len(chunk)
                buf = tail + chunk
                for frag, pattern in patterns.items():
                    if frag not in att.found and pattern.search(buf):
                        att.found.add(frag)
                if len(att.found) == len(patterns):
                    att.complete = True
                    return
                if total >= FRAGMENT_MAX_BYTES:
                    return
                tail = buf[-keep:]
        except httpx.HTTPError:
            return  # an answer was given; whether the fragment is there stays unknown
        att.complete = True
