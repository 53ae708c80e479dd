"""What the pages say llama-server b11312 does, checked on the real server with the tiny
model. Each test names the page line it checks; when one fails, fix the page against the
source (or the test, if the page is right)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.conftest import Server, start

KEY = "integration-test-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
SLOTS_LINE = re.compile(r"n_slots = (\d+), n_ctx_slot = (\d+), kv_unified = '(\w+)'")


@pytest.fixture(scope="module")
def keyed_server(
    llama_server_bin: Path, tiny_gguf: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """A server with a key file and a default output length of 4 tokens."""
    folder = tmp_path_factory.mktemp("claims")
    (folder / "keys").write_text(KEY + "\n")
    extra = ("--api-key-file", str(folder / "keys"), "-n", "4", "-c", "2048", "-np", "2")
    with start(llama_server_bin, tiny_gguf, folder, *extra) as server:
        yield server


def _slots(server: Server) -> tuple[int, int, bool]:
    # llama.cpp logs from a worker thread: the line can reach the file after /health is up
    deadline = time.monotonic() + 10
    while not (m := SLOTS_LINE.search(server.log.read_text(errors="replace"))):
        assert time.monotonic() < deadline, server.log_tail()
        time.sleep(0.1)
    return int(m.group(1)), int(m.group(2)), m.group(3) == "true"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        # edge-cpu-optimization.md:136: "-1 = auto: 4 slots, kv_unified = true"
        (("-c", "8192"), (4, 8192, True)),
        # :136-137: an explicit -np turns the unified pool off; each slot gets c / np
        (("-c", "8192", "-np", "4"), (4, 2048, False)),
        # template-gguf.md:80: with an explicit -np, -kvu keeps one pool of -c tokens
        (("-c", "8192", "-np", "4", "-kvu"), (4, 8192, True)),
    ],
    ids=["auto", "np4", "np4-kvu"],
)
def test_slots_and_unified_kv(
    extra: tuple[str, ...],
    expected: tuple[int, int, bool],
    llama_server_bin: Path,
    tiny_gguf: Path,
    tmp_path: Path,
) -> None:
    with start(llama_server_bin, tiny_gguf, tmp_path, *extra) as server:
        assert _slots(server) == expected


def test_quantized_v_needs_flash_attention(
    llama_server_bin: Path, tiny_gguf: Path, tmp_path: Path
) -> None:
    """edge-cpu-optimization.md:140-141: quantized V needs flash attention; -fa auto (the
    default) gives it on CPU."""
    with start(llama_server_bin, tiny_gguf, tmp_path, "-c", "2048", "-ctv", "q8_0"):
        pass
    refused = start(llama_server_bin, tiny_gguf, tmp_path, "-ctv", "q8_0", "-fa", "off")
    with pytest.raises(pytest.fail.Exception, match="requires flash_attn"), refused:
        pass


def test_api_key_public_paths(keyed_server: Server) -> None:
    """security-and-tenancy.md:109: /health and /v1/health skip the key; the rest need it."""
    for path in ("/health", "/v1/health"):
        assert httpx.get(keyed_server.url + path, timeout=5).status_code == 200, path
    for path in ("/v1/models", "/metrics", "/props"):
        assert httpx.get(keyed_server.url + path, timeout=5).status_code == 401, path
    assert httpx.get(keyed_server.url + "/v1/models", headers=AUTH, timeout=5).status_code == 200


def test_n_predict_is_a_default_not_a_cap(keyed_server: Server) -> None:
    """engine-options-llama-cpp.md:69: -n is a default; a request's n_predict wins.
    (ignore_eos: the random weights could otherwise end a reply early.)"""
    url = keyed_server.url + "/completion"
    default = httpx.post(
        url, json={"prompt": "hello", "ignore_eos": True}, headers=AUTH, timeout=60
    ).json()
    asked = httpx.post(
        url, json={"prompt": "hello", "n_predict": 8, "ignore_eos": True}, headers=AUTH, timeout=60
    )
    assert default["tokens_predicted"] == 4
    assert asked.json()["tokens_predicted"] == 8


def _events(keyed_server: Server, body: dict[str, object]) -> tuple[httpx.Headers, list[str]]:
    url = keyed_server.url + "/v1/chat/completions"
    with httpx.stream("POST", url, json=body, headers=AUTH, timeout=60) as r:
        lines = [line for line in r.iter_lines() if line.startswith("data: ")]
        return r.headers, [line.removeprefix("data: ") for line in lines]


def test_stream_shape(keyed_server: Server) -> None:
    """streaming-patterns.md (stream table, pitfalls): a role chunk with content null first,
    the finish_reason in a chunk of its own, X-Accel-Buffering: no, then [DONE]. The first
    token is forced to "h" (token 104) so that it is a whole character."""
    body = {
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 3,
        "stream": True,
        "ignore_eos": True,
        "logit_bias": {"104": 100},
    }
    headers, events = _events(keyed_server, body)
    assert headers["x-accel-buffering"] == "no"
    assert events[-1] == "[DONE]", events
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": None}, events
    last = chunks[-1]["choices"][0]
    assert last["finish_reason"] == "length", events
    assert last["delta"] == {}, events


def test_no_role_chunk_when_the_first_token_splits_a_character(keyed_server: Server) -> None:
    """streaming-patterns.md ("Requiring a role chunk"): a first token that ends inside a
    UTF-8 character (byte 0xE2, token 226, the lead byte of U+2615) means no role chunk."""
    body = {
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 3,
        "stream": True,
        "ignore_eos": True,
        "logit_bias": {"226": 100},
    }
    _, events = _events(keyed_server, body)
    assert events[-1] == "[DONE]", events
    deltas = [json.loads(e)["choices"][0]["delta"] for e in events[:-1]]
    assert all("role" not in d for d in deltas), events


def test_client_disconnect_cancels_the_task(keyed_server: Server) -> None:
    """streaming-patterns.md:433-437: a warning 'cancel task, id_task = N' per task
    cancelled after the connection closed."""
    body = {
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 100000,
        "ignore_eos": True,
    }
    url = keyed_server.url + "/v1/chat/completions"
    with httpx.stream("POST", url, json={**body, "stream": True}, headers=AUTH, timeout=60) as r:
        for _ in zip(range(3), r.iter_lines(), strict=False):
            pass
    deadline = time.monotonic() + 20
    while "cancel task, id_task = " not in keyed_server.log.read_text(errors="replace"):
        assert time.monotonic() < deadline, keyed_server.log_tail()
        time.sleep(0.2)
