"""The pack's gateway (assets/serving/template-llm-api.md) in front of a real llama-server:
the gateway's upstream key opens the engine, a stream passes through event for event, a
client that leaves aborts the request inside the engine, and an oversize request never
reaches it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.conftest import Server, chat_events, run_gateway, start

CLIENT_KEY, UPSTREAM_KEY = "sk-client", "upstream-secret"
CLIENT = {"Authorization": f"Bearer {CLIENT_KEY}"}


@pytest.fixture(scope="module")
def engine(
    llama_server_bin: Path, tiny_gguf: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    extra = ("--metrics", "-c", "4096", "-np", "2", "-a", "tiny", "--api-key", UPSTREAM_KEY)
    folder = tmp_path_factory.mktemp("gateway-engine")
    with start(llama_server_bin, tiny_gguf, folder, *extra) as server:
        yield server


@pytest.fixture(scope="module")
def gateway_url(engine: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with run_gateway(engine.url, UPSTREAM_KEY, CLIENT_KEY, tmp_path_factory) as url:
        yield url


def test_stream_passes_through_unchanged(gateway_url: str, engine: Server) -> None:
    body = {
        "model": "tiny",
        "messages": [{"role": "user", "content": "hello there"}],
        "max_tokens": 8,
        "stream": True,
        "temperature": 0,
        "ignore_eos": True,
        "stream_options": {"include_usage": True},
    }
    direct = chat_events(engine.url, {"Authorization": f"Bearer {UPSTREAM_KEY}"}, body)
    through = chat_events(gateway_url, CLIENT, body)
    assert through == direct
    assert through[-1] == "[DONE]" and through[-2]["usage"]["completion_tokens"] == 8


def test_client_disconnect_aborts_inside_the_engine(gateway_url: str, engine: Server) -> None:
    before = engine.log.read_text(errors="replace").count("cancel task, id_task = ")
    body = {
        "model": "tiny",
        "messages": [{"role": "user", "content": "go on"}],
        "max_tokens": 100000,
        "stream": True,
        "ignore_eos": True,
    }
    url = gateway_url + "/v1/chat/completions"
    with httpx.stream("POST", url, json=body, headers=CLIENT, timeout=30) as r:
        for _ in zip(range(3), r.iter_lines(), strict=False):
            pass
    deadline = time.monotonic() + 20
    while engine.log.read_text(errors="replace").count("cancel task, id_task = ") <= before:
        assert time.monotonic() < deadline, engine.log_tail()
        time.sleep(0.2)


def test_auth_and_oversize_stop_at_the_gateway(gateway_url: str, engine: Server) -> None:
    def predicted() -> float:
        auth = {"Authorization": f"Bearer {UPSTREAM_KEY}"}
        for line in httpx.get(engine.url + "/metrics", headers=auth).text.splitlines():
            if line.startswith("llamacpp:tokens_predicted_total "):
                return float(line.split()[1])
        raise AssertionError("no llamacpp:tokens_predicted_total in /metrics")

    # settle: the aborted stream of another test may still be counted
    time.sleep(0.5)
    start = predicted()
    body = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
    url = gateway_url + "/v1/chat/completions"
    assert httpx.post(url, json=body).status_code == 401
    big = {**body, "messages": [{"role": "user", "content": "word " * 2000}]}
    r = httpx.post(url, json=big, headers=CLIENT)
    assert r.status_code == 400 and "at most 200" in r.json()["error"]["message"]
    assert predicted() == start
