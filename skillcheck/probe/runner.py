"""A probe run: collect the URLs, answer what the cache can, probe the rest, report.

Each diagnostic points at the first place (by path, line, column) where its URL is written and
says how many other places use it; in JSON it also carries the ``url``. When no URL that went to
the network got an answer (connection errors and timeouts only, at least one failing to connect,
on two hosts or more), the run reports one SC412 (the network is unreachable) instead of one
SC404 or SC403 per URL.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillcheck import suppress
from skillcheck.config import Config
from skillcheck.diagnostics import Diagnostic, Severity
from skillcheck.probe.codes import CLASSES, CODES
from skillcheck.probe.collect import Collected, Target, Use, collect
from skillcheck.probe.outcome import Outcome
from skillcheck.registry import RULES, load_builtin_rules, selected
from skillcheck.runner import Result

if TYPE_CHECKING:
    import httpx

    from skillcheck.probe.safety import Resolver

UNREACHABLE = ("connection-error", "timeout")  # the outcomes SC412 stands for

Progress = Callable[[int], AbstractContextManager[Callable[[int], None]]]

MESSAGES = {
    "broken": (
        "{url} is broken: {detail}",
        "fix or remove the link; if the page moved, link to its new address",
    ),
    "server-error": (
        "{url} answers with a server error: {detail}",
        "the site may be down for now; run again later, or replace the link",
    ),
    "timeout": (
        "{url} timed out: {detail}",
        "run again later; raise --timeout for a slow site, or replace the link",
    ),
    "connection-error": (
        "{url} cannot be reached: {detail}",
        "the connection failed: run again later, or replace the link",
    ),
    "blocked": (
        "{url} is blocked: {detail}",
        "bot protection or a rate limit: open it in a browser; list the host in "
        "blocked-hosts-error to make this an error",
    ),
    "redirected": (
        "{url} moved permanently ({detail}) to {location}",
        "update the link (and data/sources.json) to the new address",
    ),
    "redirect-loop": ("{url}: {detail}", "the server is misconfigured: replace the link"),
    "invalid": (
        "{url} is not a valid URL: {detail}",
        "escape spaces as %20 and check the host and port",
    ),
    "scheme": ("{url} is not probed: {detail}", "link to an http or https address"),
    "private": (
        "{url} is refused: {detail}",
        "readers cannot reach private addresses; use --allow-private for an intranet pack",
    ),
    "not-checked": (
        "{url} was not checked: {detail}",
        "raise total-budget in [tool.skillcheck], or run again",
    ),
}


# the hint of a connection error, by its cause (Outcome.cause, from the exception's type)
CONNECTION_HINTS = {
    "dns": "the name does not resolve: a site that is gone (replace the link), or a name "
    "only some networks know",
    "refused": "the host refused the connection: the server is down or the port is wrong; "
    "run again later, or replace the link",
    "tls": "the site's certificate or TLS setup is broken: link to a working address",
    "unreachable": "no route to the host: check this machine's network, then run again",
    "reset": "the server dropped the connection: run again later, or replace the link",
}


@dataclass
class HostStats:
    urls: int = 0
    cached: int = 0
    requests: int = 0
    problems: int = 0


@dataclass
class Summary:
    urls: int = 0  # distinct URLs (after normalising)
    uses: int = 0  # places they are written
    cached: int = 0  # answered from the cache
    skipped: int = 0  # places skipped: example addresses and url-allowlist
    skipped_private: int = 0  # of those, localhost and private addresses (--allow-private)
    requests: int = 0
    unreachable: bool = False
    outcomes: Counter[str] = field(default_factory=Counter)
    hosts: dict[str, HostStats] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "urls": self.urls,
            "uses": self.uses,
            "cached": self.cached,
            "skipped": self.skipped,
            "skipped_private": self.skipped_private,
            "requests": self.requests,
            "network_unreachable": self.unreachable,
            "outcomes": {k: self.outcomes[k] for k in CLASSES if self.outcomes[k]},
            "hosts": {h: vars(s).copy() for h, s in sorted(self.hosts.items())},
        }


@dataclass
class ProbeResult:
    result: Result
    summary: Summary
    outcomes: dict[str, Outcome]


@contextmanager
def _no_progress(total: int) -> Iterator[Callable[[int], None]]:
    yield lambda n: None


async def probe_all(
    targets: list[Target], config: Config, on_done: Callable[[int], None], **prober_args: Any
) -> tuple[dict[str, Outcome], int]:
    """Outcome of every target (at most ``concurrency`` requests in flight) and the number of
    requests sent."""
    from skillcheck.probe.client import Prober

    async with Prober(config, **prober_args) as prober:

        async def one(t: Target) -> tuple[str, Outcome]:
            outcome = await prober.check(t)
            on_done(1)
            return t.key, outcome

        pairs = await asyncio.gather(*(one(t) for t in targets))
    return dict(pairs), prober.requests


def _others(n: int) -> str:
    return f" (also used in {n} other place{'s' if n != 1 else ''})" if n > 0 else ""


def _severity(code: str, kind: str, host: str, config: Config) -> Severity:
    from skillcheck.probe.client import host_matches

    if kind == "blocked" and host_matches(host, config.blocked_hosts_error):
        return Severity.ERROR
    return RULES[code].severity


def _diag(
    use: Use, others: int, code: str, severity: Severity, message: str, hint: str
) -> Diagnostic:
    return Diagnostic(
        use.path, use.line, use.column, code, severity, message + _others(others), hint, use.url
    )


def diagnose(
    collected: Collected, outcomes: dict[str, Outcome], config: Config
) -> tuple[list[Diagnostic], bool]:
    """Diagnostics for every outcome but ok; True when the network looked unreachable."""
    out: list[Diagnostic] = []
    # URLs that went to the network; a refusal by the address check is not a network failure
    network = [
        (t, outcomes[k])
        for k, t in collected.targets.items()
        if k in outcomes
        and not outcomes[k].from_cache
        and outcomes[k].requests > 0
        and outcomes[k].kind != "private"
    ]
    hosts = {t.host for t, _ in network}
    connect = [(t, o) for t, o in network if o.connect_failure]
    unreachable = (
        len(network) >= 2
        and len(hosts) >= 2
        and bool(connect)
        and all(o.kind in UNREACHABLE for _, o in network)
    )
    if unreachable:
        where = collected.skills[0].display_root if collected.skills else "."
        first_error = min(connect, key=lambda p: p[0].first)[1].detail
        out.append(
            Diagnostic(
                where,
                0,
                0,
                "SC412",
                RULES["SC412"].severity,
                f"the network is unreachable: none of {len(network)} URLs on {len(hosts)} hosts "
                f"answered ({len(connect)} failed to connect; first error: {first_error})",
                "no URL was judged: check this machine's connection, DNS or proxy and run again",
            )
        )
    for key, t in collected.targets.items():
        o = outcomes.get(key)
        if o is None:
            continue
        uses = sorted(set(t.uses))
        first = uses[0]
        if o.kind != "ok" and not (unreachable and o.kind in UNREACHABLE):
            code = CODES[o.kind]
            template, hint = MESSAGES[o.kind]
            if o.kind == "connection-error":
                hint = CONNECTION_HINTS.get(o.cause, hint)
            msg = template.format(
                url=first.url, detail=o.detail, status=o.status, location=o.location
            )
            out.append(
                _diag(
                    first, len(uses) - 1, code, _severity(code, o.kind, t.host, config), msg, hint
                )
            )
        for frag in o.missing_fragments:
            fuses = sorted(set(t.fragments.get(frag, [])))
            if not fuses:
                continue
            out.append(
                _diag(
                    fuses[0],
                    len(fuses) - 1,
                    "SC411",
                    RULES["SC411"].severity,
                    f"{fuses[0].url}: the page has no id or name '{frag}'",
                    "link to an anchor the page has (look at the headings' ids), or "
                    "drop the fragment",
                )
            )
    return out, unreachable


def summarize(
    collected: Collected, outcomes: dict[str, Outcome], requests: int, unreachable: bool
) -> Summary:
    s = Summary(
        urls=len(collected.targets),
        skipped=collected.skipped,
        skipped_private=collected.skipped_private,
        requests=requests,
        unreachable=unreachable,
    )
    for key, t in collected.targets.items():
        o = outcomes.get(key)
        s.uses += len(t.uses)
        if o is None:
            continue
        s.outcomes[o.kind] += 1
        if o.missing_fragments:
            s.outcomes["fragment-missing"] += len(o.missing_fragments)
        hs = s.hosts.setdefault(t.host or "(none)", HostStats())
        hs.urls += 1
        hs.requests += o.requests
        hs.cached += o.from_cache
        hs.problems += o.kind != "ok" or bool(o.missing_fragments)
        s.cached += o.from_cache
    return s


def run(
    paths: list[Path],
    config: Config,
    cwd: Path,
    exclude_base: Path | None = None,
    *,
    progress: Progress | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    resolver: Resolver | None = None,
    backoff_base: float | None = None,
    token: str | None = None,
) -> ProbeResult:
    """Probe every external URL of the skills under ``paths``."""
    from skillcheck.probe.cache import ProbeCache, default_path

    started = time.perf_counter()
    load_builtin_rules()
    collected = collect(paths, config, cwd, exclude_base)
    cache: ProbeCache | None = None
    if config.cache:
        cache = ProbeCache(default_path(config.cache_dir), config.success_ttl_hours)
        cache.load()
    outcomes: dict[str, Outcome] = {}
    pending: list[Target] = []
    for key, t in collected.targets.items():
        hit = None
        if cache is not None and t.problem is None:
            frags = t.fragments if config.check_fragments else ()
            hit = cache.get(key, frags, config.allow_private)
        if hit is not None:
            outcomes[key] = hit
        else:
            pending.append(t)
    requests = 0
    if pending:
        args: dict[str, Any] = {"transport": transport, "resolver": resolver, "token": token}
        if backoff_base is not None:
            args["backoff_base"] = backoff_base
        with (progress or _no_progress)(len(pending)) as update:
            probed, requests = asyncio.run(probe_all(pending, config, update, **args))
        outcomes.update(probed)
    if cache is not None:
        for key, o in outcomes.items():
            if o.requests:
                cache.put(key, o, config.allow_private)
        cache.save()
    diagnostics, unreachable = diagnose(collected, outcomes, config)
    # suppression comments and per-file-ignores silence probe codes too; whether a comment
    # is used is judged by `check`, which sees every file (and never the probe codes)
    diagnostics, _, _ = suppress.apply(
        diagnostics, collected.skills, collected.docs, config, collected.base
    )
    diagnostics = [*collected.problems, *diagnostics]
    diagnostics = [d for d in diagnostics if selected(d.code, config.select, config.ignore)]
    diagnostics = sorted(
        set(diagnostics), key=lambda d: (d.path, d.line, d.column, d.code, d.message)
    )
    summary = summarize(collected, outcomes, requests, unreachable)
    result = Result(
        diagnostics, len(collected.skills), collected.files, time.perf_counter() - started
    )
    return ProbeResult(result, summary, outcomes)
