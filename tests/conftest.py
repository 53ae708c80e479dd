from __future__ import annotations

import contextlib
import datetime
import inspect
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click.testing
import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _separate_stderr_on_click_8_1() -> None:
    """The tests read ``CliRunner().invoke(...).stderr``, as click 8.2 and later capture it:
    apart, with ``output`` holding both streams. Click 8.1 (the lowest release pyproject.toml
    allows) mixes stderr into stdout unless told not to, then gives ``output`` as stdout alone
    and never flushes the stderr it captured (what ``sys.stderr.write`` left in the buffer is
    lost). On 8.1 the runner is given 8.2's behaviour. Remove this when the bound becomes
    click>=8.2."""
    base = click.testing.CliRunner
    if "mix_stderr" not in inspect.signature(base.__init__).parameters:
        return

    class Result(click.testing.Result):
        @property
        def output(self) -> str:
            return self.stdout + (self.stderr if self.stderr_bytes is not None else "")

    class CliRunner(base):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("mix_stderr", False)
            super().__init__(*args, **kwargs)

        @contextlib.contextmanager
        def isolation(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
            with super().isolation(*args, **kwargs) as streams:
                sys.stderr.reconfigure(write_through=True)
                yield streams

        def invoke(self, *args: Any, **kwargs: Any) -> click.testing.Result:
            result = super().invoke(*args, **kwargs)
            result.__class__ = Result
            return result

    click.testing.CliRunner = CliRunner


_separate_stderr_on_click_8_1()

_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else address
    if (
        isinstance(host, str)
        and host not in ("127.0.0.1", "localhost", "::1")
        and not host.startswith("127.")
        and self.family in (socket.AF_INET, socket.AF_INET6)
    ):
        raise ConnectionRefusedError(f"tests may only reach loopback, not {host!r}")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)
    yield


@pytest.fixture(autouse=True)
def _private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))


FIXED_TODAY = datetime.date(2026, 12, 2)


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs on the same day, in this process and in the skillcheck processes it
    starts: no outcome depends on the calendar."""
    monkeypatch.setenv("SKILLCHECK_TODAY", FIXED_TODAY.isoformat())
