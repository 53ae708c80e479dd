"""Fixtures for the probe tests: a real threaded HTTP server on 127.0.0.1, and helpers that
write a skill linking to it and probe it."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from skillcheck.config import Config
from skillcheck.probe.runner import ProbeResult, run

from .server import InFlight, ProbeServer


@pytest.fixture(scope="session")
def _session_server() -> Iterator[ProbeServer]:
    srv = ProbeServer().start()
    yield srv
    srv.stop()


@pytest.fixture
def server(_session_server: ProbeServer) -> ProbeServer:
    """The shared server, with its request log cleared."""
    _session_server.reset()
    return _session_server


@pytest.fixture
def server_factory() -> Iterator[Callable[..., ProbeServer]]:
    """Fresh servers (own port, own counters), stopped after the test."""
    made: list[ProbeServer] = []

    def make(tracker: InFlight | None = None) -> ProbeServer:
        srv = ProbeServer(tracker).start()
        made.append(srv)
        return srv

    yield make
    for srv in made:
        srv.stop()


def write_skill(
    root: Path, links: list[str], sources: list[str] | None = None, extra: str = ""
) -> Path:
    """A skill 'demo' under ``root`` whose SKILL.md links to each URL (one per line, from
    line 8), with a data/sources.json listing ``sources``."""
    d = root / "demo"
    d.mkdir(parents=True, exist_ok=True)
    body = [
        "---",
        "name: demo",
        "description: Demo skill for the probe tests.",
        "---",
        "",
        "# Demo",
        "",
    ]
    body += [f"- [link {i}]({u})" for i, u in enumerate(links)]
    (d / "SKILL.md").write_text("\n".join(body) + "\n" + extra, encoding="utf-8")
    if sources is not None:
        (d / "data").mkdir(exist_ok=True)
        entries = [{"id": f"s{i}", "title": f"S{i}", "url": u} for i, u in enumerate(sources)]
        (d / "data" / "sources.json").write_text(
            json.dumps({"sources": entries}, indent=2), encoding="utf-8"
        )
    return d


def config(tmp_path: Path, **overrides: Any) -> Config:
    """Test defaults: loopback allowed, nothing allowlisted, small timeouts, a private cache
    directory, the cache off unless asked."""
    base: dict[str, Any] = {
        "url_allowlist": (),
        "allow_private": True,
        "timeout": 2.0,
        "retries": 2,
        "cache": False,
        "cache_dir": str(tmp_path / "cache"),
    }
    base.update(overrides)
    return dataclasses.replace(Config(), **base)


def probe(
    tmp_path: Path,
    links: list[str],
    sources: list[str] | None = None,
    backoff_base: float = 0.05,
    **overrides: Any,
) -> ProbeResult:
    skill = write_skill(tmp_path / "skills", links, sources)
    return run([skill], config(tmp_path, **overrides), tmp_path, backoff_base=backoff_base)


def codes(pr: ProbeResult) -> list[str]:
    return [d.code for d in pr.result.diagnostics]
