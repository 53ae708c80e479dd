"""The load generator in assets/benchmarking/template-latency-throughput-test.md, extracted
with ``skillcheck extract`` and run against a fake OpenAI-compatible server on 127.0.0.1.

Timing tolerances are wide on purpose: the assertions separate "measured what the server
did" from "measured something else" (a chunk for a token, queueing for latency), not
milliseconds.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from skillcheck.extract import extract

from .fake_openai import Behaviour, FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "assets" / "benchmarking" / "template-latency-throughput-test.md"
STATS = ("mean", "p50", "p90", "p95", "p99")


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("extracted")
    results = extract(TEMPLATE.read_text(encoding="utf-8"), out)
    written = {r.name: r for r in results}
    assert "loadgen.py" in written, f"no loadgen.py block in {TEMPLATE.name}"
    assert written["loadgen.py"].problem is None, written["loadgen.py"].problem
    path = out / "loadgen.py"
    assert os.access(path, os.X_OK)  # the block starts with a shebang
    return path


@pytest.fixture(scope="module")
def loadgen(script: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("loadgen_under_test", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    srv = FakeOpenAI().start()
    yield srv
    srv.stop()


def run(
    script: Path, server: FakeOpenAI, tmp_path: Path, *args: str, expect_rc: int = 0
) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    out = tmp_path / f"result-{time.monotonic_ns()}.json"
    env = {
        k: v
        for k, v in os.environ.items()
        if k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "openai_api_key")
    }
    proc = subprocess.run(
        [
            sys.executable,
            str(script),
            "--base-url",
            server.base_url,
            "--model",
            "fake-model",
            "--json",
            str(out),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert proc.returncode == expect_rc, proc.stdout + proc.stderr
    return json.loads(out.read_text(encoding="utf-8")), proc


def near(value: float | None, target: float, tol: float) -> bool:
    return value is not None and abs(value - target) <= tol


def within(value: float | None, low: float, high: float) -> bool:
    return value is not None and low <= value <= high


# -- against the fake server -------------------------------------------------------------


def test_measures_what_the_server_does(script: Path, server: FakeOpenAI, tmp_path: Path) -> None:
    server.behaviour = Behaviour(ttft_s=0.2, chunk_interval_s=0.02, tokens=20)
    res, proc = run(
        script,
        server,
        tmp_path,
        "--concurrency",
        "4",
        "--num-requests",
        "8",
        "--input-tokens",
        "64",
        "--output-tokens",
        "20",
        "--slo-ttft-ms",
        "1000",
        "--slo-tpot-ms",
        "60",
    )
    for key in ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"):
        assert set(STATS) <= set(res[key]), key
        assert all(isinstance(res[key][s], float) for s in STATS), key
    for key in ("requests_per_s", "output_tokens_per_s", "completed", "failed", "goodput"):
        assert key in res, key
    assert (res["completed"], res["failed"]) == (8, 0)
    # The server's delays are floors: a loaded machine can only add to them, so each figure is
    # checked tightly from below and loosely from above (still far from the neighbouring quantity:
    # TTFT well under E2E, ITL well under TTFT).
    assert within(res["ttft_ms"]["p50"], 195, 350)
    assert within(res["itl_ms"]["mean"], 17, 35)
    assert within(res["tpot_ms"]["p50"], 17, 35)
    assert within(res["e2e_ms"]["p50"], 200 + 19 * 20 - 10, 200 + 19 * 20 + 250)
    assert res["output_tokens_from"] == ["usage"] and res["total_output_tokens"] == 160
    assert res["mean_prompt_tokens"] == 64  # the server's count, from usage
    # 4 streams, each 20 tokens per (0.2 + 19 x 0.02) s
    assert within(res["output_tokens_per_s"], 4 * 20 / 0.58 * 0.5, 4 * 20 / 0.58 * 1.1)
    assert near(res["output_tokens_per_s"], res["total_output_tokens"] / res["duration_s"], 1e-6)
    # every request met both SLOs, so goodput equals request throughput
    assert res["good_requests"] == 8
    assert near(res["goodput"], res["requests_per_s"], 1e-9)
    assert "TTFT" in proc.stdout and "Goodput (req/s)" in proc.stdout
    body = server.arrivals[0].body
    assert body["stream"] is True and body["max_tokens"] == 20
    assert body["stream_options"] == {"include_usage": True}
    assert "ignore_eos" not in body
    assert body["messages"][0]["role"] == "user"
    assert len(body["messages"][0]["content"].split()) == 64


@pytest.mark.parametrize(
    ("flags", "itl_from", "itl_ms", "tokens"),
    [
        ((), "usage-total", 40 * 9 / 19, 20),  # gaps spread over the tokens usage reports
        (("--per-chunk-usage",), "usage-per-chunk", 20, 20),
        (("--no-usage",), "chunks", 40, 10),  # the documented approximation: chunk = token
    ],
)
def test_chunks_carrying_several_tokens(
    script: Path,
    server: FakeOpenAI,
    tmp_path: Path,
    flags: tuple[str, ...],
    itl_from: str,
    itl_ms: float,
    tokens: int,
) -> None:
    server.behaviour = Behaviour(ttft_s=0.1, chunk_interval_s=0.04, tokens=20, tokens_per_chunk=2)
    res, _ = run(
        script,
        server,
        tmp_path,
        "--concurrency",
        "2",
        "--num-requests",
        "2",
        "--output-tokens",
        "20",
        "--input-tokens",
        "16",
        *flags,
    )
    assert res["completed"] == 2
    assert res["itl_from"] == [itl_from]
    assert within(res["itl_ms"]["mean"], itl_ms - 4, itl_ms + 12)
    assert res["mean_output_tokens"] == tokens
    # TPOT divides decode time by output tokens - 1, whatever the chunking
    assert within(res["tpot_ms"]["mean"], 9 * 40 / (tokens - 1) - 4, 9 * 40 / (tokens - 1) + 12)
    opts = server.arrivals[0].body.get("stream_options")
    if "--no-usage" in flags:
        assert opts is None
    elif "--per-chunk-usage" in flags:
        assert opts == {"include_usage": True, "continuous_usage_stats": True}


def test_open_loop_keeps_its_schedule_when_the_server_slows(
    script: Path, server: FakeOpenAI, tmp_path: Path
) -> None:
    # every request takes about 1 s; 40 Poisson arrivals at 20 req/s span about 2 s
    server.behaviour = Behaviour(ttft_s=0.9, chunk_interval_s=0.1, tokens=2)
    res, _ = run(
        script,
        server,
        tmp_path,
        "--request-rate",
        "20",
        "--num-requests",
        "40",
        "--output-tokens",
        "2",
        "--input-tokens",
        "16",
        "--seed",
        "3",
    )
    assert res["completed"] == 40
    times = sorted(a.at for a in server.arrivals)
    assert len(times) == 40
    span = times[-1] - times[0]
    # a generator that waited for answers would need about 40 s (or 40 / concurrency)
    assert 0.8 < span < 4.5, span
    assert server.max_in_flight >= 10
    assert res["max_in_flight"] >= 10
    assert near(res["offered_requests_per_s"], 20, 10)
    assert res["schedule_lag_ms"]["p99"] < 200
    assert within(res["ttft_ms"]["p50"], 890, 1200)


def test_closed_loop_caps_requests_in_flight(
    script: Path, server: FakeOpenAI, tmp_path: Path
) -> None:
    server.behaviour = Behaviour(ttft_s=0.1, chunk_interval_s=0.02, tokens=5)
    res, _ = run(
        script,
        server,
        tmp_path,
        "--concurrency",
        "3",
        "--num-requests",
        "12",
        "--output-tokens",
        "5",
        "--input-tokens",
        "16",
    )
    assert res["completed"] == 12
    assert server.max_in_flight == 3
    assert res["max_in_flight"] == 3
    assert len(server.arrivals) == 12


def test_failures_are_counted_not_fatal(script: Path, server: FakeOpenAI, tmp_path: Path) -> None:
    """HTTP 500s and a stalled stream become failed requests; the completions endpoint,
    ignore_eos, the API key and --plot without matplotlib work along the way."""
    server.behaviour = Behaviour(
        ttft_s=0.05, chunk_interval_s=0.01, tokens=4, fail_every=3, hang_every=5
    )
    plot = tmp_path / "latency.png"
    res, proc = run(
        script,
        server,
        tmp_path,
        "--endpoint",
        "/v1/completions",
        "--concurrency",
        "3",
        "--num-requests",
        "10",
        "--output-tokens",
        "4",
        "--input-tokens",
        "8",
        "--timeout",
        "1",
        "--ignore-eos",
        "--api-key",
        "sk-test",
        "--slo-ttft-ms",
        "1000",
        "--plot",
        str(plot),
    )
    # requests 3, 6, 9 fail with HTTP 500; 5 and 10 stall until the 1 s timeout
    assert (res["completed"], res["failed"]) == (5, 5)
    errors = {e["error"]: e["count"] for e in res["errors"]}
    assert errors.get("timeout after 1 s") == 2
    assert sum(c for e, c in errors.items() if e.startswith("HTTP 500")) == 3
    assert res["good_requests"] == 5 and res["slo_attainment"] == pytest.approx(0.5)
    first = server.arrivals[0]
    assert first.path == "/v1/completions" and first.body["ignore_eos"] is True
    assert isinstance(first.body["prompt"], str)
    assert first.headers.get("Authorization") == "Bearer sk-test"
    assert "sk-test" not in json.dumps(res)
    if importlib.util.find_spec("matplotlib") is None:
        assert "matplotlib is not installed" in proc.stderr and not plot.exists()
    else:
        assert plot.stat().st_size > 0


def test_all_failed_exits_1(script: Path, server: FakeOpenAI, tmp_path: Path) -> None:
    server.behaviour = Behaviour(fail_every=1)
    res, _ = run(
        script,
        server,
        tmp_path,
        "--concurrency",
        "2",
        "--num-requests",
        "4",
        "--slo-ttft-ms",
        "100",
        expect_rc=1,
    )
    assert (res["completed"], res["failed"]) == (0, 4)
    assert res["goodput"] == 0 and res["ttft_ms"]["p99"] is None


def test_command_line_errors(script: Path) -> None:
    def rc(*args: str) -> int:
        return subprocess.run(
            [sys.executable, str(script), *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).returncode

    base = ("--base-url", "http://127.0.0.1:9", "--model", "m", "--num-requests", "1")
    assert rc(*base) == 2  # neither --concurrency nor --request-rate
    assert rc(*base, "--concurrency", "1", "--request-rate", "1") == 2
    assert rc("--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--concurrency", "1") == 2
    assert rc(*base, "--request-rate", "0") == 2


# -- pure functions of the extracted module ------------------------------------------------


def test_goodput_counts_failed_requests_against_attainment(loadgen: ModuleType) -> None:
    R = loadgen.Result
    results = [
        R(0, ok=True, ttft_s=0.1, tpot_s=0.02, e2e_s=0.5, output_tokens=20),
        R(1, ok=True, ttft_s=0.3, tpot_s=0.02, e2e_s=0.7, output_tokens=20),  # slow TTFT
        R(2, ok=True, ttft_s=0.1, tpot_s=0.08, e2e_s=1.6, output_tokens=20),  # slow TPOT
        R(3, ok=True, ttft_s=0.1, tpot_s=None, e2e_s=0.1, output_tokens=1),  # 1 token
        R(4, ok=False, error="HTTP 500"),
    ]
    s = loadgen.summarise(results, 2.0, {"ttft": 200.0, "tpot": 50.0})
    assert s["good_requests"] == 2
    assert s["goodput"] == pytest.approx(1.0)
    assert s["slo_attainment"] == pytest.approx(0.4)
    assert s["requests_per_s"] == pytest.approx(2.0)
    assert "goodput" not in loadgen.summarise(results, 2.0, {})


def test_percentiles_match_linear_interpolation(loadgen: ModuleType) -> None:
    vals = [float(v) for v in range(1, 101)]
    assert loadgen.percentile(vals, 50) == pytest.approx(50.5)
    assert loadgen.percentile(vals, 99) == pytest.approx(99.01)
    assert loadgen.percentile([7.0], 90) == 7.0
    st = loadgen.stats_ms([0.001, 0.002, 0.003])
    assert st["mean"] == pytest.approx(2.0) and st["p50"] == pytest.approx(2.0)


def test_itl_is_per_token(loadgen: ModuleType) -> None:
    res = loadgen.Result(0)
    # chunks at 0.1, 0.14, 0.18 s carrying 1, 2, 2 tokens (per-chunk usage)
    loadgen.finish(res, [0.1, 0.14, 0.18], [1, 2, 2], 0.0, 5)
    assert res.itl_s == pytest.approx([0.02] * 4)
    assert res.ttft_s == pytest.approx(0.1) and res.e2e_s == pytest.approx(0.18)
    assert res.tpot_s == pytest.approx(0.08 / 4)
    res = loadgen.Result(1)
    loadgen.finish(res, [0.1, 0.14, 0.18], [None] * 3, 0.0, None)  # no usage at all
    assert res.output_tokens == 3 and res.itl_s == pytest.approx([0.04, 0.04])


def test_lengths_and_arrivals(loadgen: ModuleType) -> None:
    rng = random.Random(1)
    assert {loadgen.sample_length(rng, 100, "fixed", 0.5) for _ in range(50)} == {100}
    uni = [loadgen.sample_length(rng, 100, "uniform", 0.5) for _ in range(2000)]
    assert min(uni) >= 50 and max(uni) <= 150 and abs(sum(uni) / 2000 - 100) < 5
    exp = [loadgen.sample_length(rng, 100, "exponential", 0.5) for _ in range(4000)]
    assert min(exp) >= 1 and abs(sum(exp) / 4000 - 100) < 10
    assert len(loadgen.make_prompt(rng, 37).split()) == 37
    a = loadgen.poisson_arrivals(10.0, 3000, random.Random(5))
    assert a == loadgen.poisson_arrivals(10.0, 3000, random.Random(5))
    gaps = [y - x for x, y in itertools.pairwise(a)]
    assert a[0] == 0.0 and abs(sum(gaps) / len(gaps) - 0.1) < 0.01


def test_a_reused_connection_closed_unanswered_is_sent_again(
    script: Path, server: FakeOpenAI, tmp_path: Path
) -> None:
    """llama-server sometimes closes a pooled keep-alive connection without answering the
    next request on it; the request never reaches the engine, so loadgen sends it once more
    and counts it in ``resent`` instead of failing it."""
    server.behaviour = Behaviour(ttft_s=0.01, chunk_interval_s=0.005, tokens=3, drop_every=4)
    res, proc = run(
        script,
        server,
        tmp_path,
        "--concurrency",
        "1",
        "--num-requests",
        "6",
        "--output-tokens",
        "3",
    )
    # arrival 4 is dropped and sent again as arrival 5; six answered in seven arrivals
    assert (res["completed"], res["failed"], res["resent"]) == (6, 0, 1), res["errors"]
    assert len(server.arrivals) == 7
    assert "resent x1" in proc.stdout
