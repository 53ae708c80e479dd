"""Fixtures that run a real llama-server: the binary built from the pinned sources (or the
cached one) and the tiny model made by tools/tinymodel.py. Only 127.0.0.1 is reached."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.engines import llama_server  # noqa: E402

# The engine cache is the user's, read before the suite's autouse fixture points
# XDG_CACHE_HOME at a temporary folder for skillcheck's own cache.
_USER_XDG_CACHE = os.environ.get("XDG_CACHE_HOME")
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A llama-server process, started with ``args``, stopped on exit; ``url`` once healthy."""

    def __init__(self, binary: Path, args: Sequence[str], port: int, log: Path) -> None:
        self.argv = [str(binary), *args]
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                self.argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        try:
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log_tail(self, n: int = 25) -> str:
        lines = self.log.read_text(errors="replace").splitlines()
        return "\n".join(lines[-n:])

    def wait_healthy(self) -> None:
        """Until ``/health`` answers 200; fails with the server's log when it exits or
        does not become healthy in time."""
        assert self.proc is not None
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            code = self.proc.poll()
            if code is not None:
                pytest.fail(
                    f"llama-server exited with {code} at start-up:\n"
                    f"{' '.join(self.argv)}\n{self.log_tail()}",
                    pytrace=False,
                )
            try:
                if httpx.get(self.url + "/health", timeout=2.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        pytest.fail(
            f"llama-server not healthy after {START_TIMEOUT:.0f} s:\n{self.log_tail()}",
            pytrace=False,
        )

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="session")
def llama_server_bin() -> Path:
    """The pinned llama-server, built on first use (minutes) and cached per user; skipped
    with the reason when it cannot be built here (no cmake or compiler, no sdist), unless
    SKILLCHECK_REQUIRE_LLAMA_SERVER=1."""
    with pytest.MonkeyPatch.context() as mp:
        if _USER_XDG_CACHE is None:
            mp.delenv("XDG_CACHE_HOME", raising=False)
        else:
            mp.setenv("XDG_CACHE_HOME", _USER_XDG_CACHE)
        try:
            return llama_server.ensure(fetch=False)
        except llama_server.BuildFailed as exc:
            pytest.fail(f"llama-server build failed: {exc}", pytrace=False)
        except llama_server.EngineUnavailable as exc:
            if os.environ.get("SKILLCHECK_REQUIRE_LLAMA_SERVER") == "1":
                pytest.fail(f"SKILLCHECK_REQUIRE_LLAMA_SERVER=1 but {exc}", pytrace=False)
            pytest.skip(
                f"llama-server unavailable: {exc} "
                "(set SKILLCHECK_REQUIRE_LLAMA_SERVER=1 to require it)"
            )


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("numpy", reason="numpy (test extra) writes the tiny model")
    pytest.importorskip("gguf", reason="gguf (test extra) writes the tiny model")
    from tools import tinymodel

    return tinymodel.make(tmp_path_factory.mktemp("tinymodel"), seed=0)


def start(binary: Path, model: Path, folder: Path, *extra: str) -> Server:
    """A llama-server on 127.0.0.1 and a free port with two threads and ``extra`` options; its
    log in ``folder``. Use it as a context manager."""
    port = free_port()
    args = ["-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-t", "2", *extra]
    return Server(binary, args, port, folder / f"server-{port}.log")


@pytest.fixture(scope="session")
def metrics_server(
    llama_server_bin: Path, tiny_gguf: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """One server with ``--metrics`` for the whole session."""
    extra = ("--metrics", "-c", "2048", "-np", "2", "-a", "tiny")
    folder = tmp_path_factory.mktemp("llama-server")
    with start(llama_server_bin, tiny_gguf, folder, *extra) as server:
        yield server
