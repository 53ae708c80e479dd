"""The pack's load generator (assets/benchmarking/template-latency-throughput-test.md)
against a real llama-server: its token counts are the engine's, and its TTFTs cover the
prompt time the engine reports. llama-server exports totals, not latency histograms, so
TTFT is compared with ``llamacpp:prompt_seconds_total``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from skillcheck.extract import extract
from tests.integration.conftest import ROOT, Server, start

TEMPLATE = ROOT / "assets" / "benchmarking" / "template-latency-throughput-test.md"
N, OUT = 6, 8


@pytest.fixture(scope="module")
def fresh_server(
    llama_server_bin: Path, tiny_gguf: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """A server of its own, so that its counters hold this module's traffic only."""
    extra = ("--metrics", "-c", "4096", "-np", "2", "-a", "tiny")
    folder = tmp_path_factory.mktemp("loadgen-server")
    with start(llama_server_bin, tiny_gguf, folder, *extra) as server:
        yield server


def _counters(url: str) -> dict[str, float]:
    values = {}
    for line in httpx.get(url + "/metrics", timeout=10).text.splitlines():
        if line.startswith("llamacpp:"):
            name, _, value = line.partition(" ")
            values[name] = float(value)
    return values


def test_loadgen_counts_what_the_engine_counts(fresh_server: Server, tmp_path: Path) -> None:
    written = {r.name: r for r in extract(TEMPLATE.read_text(encoding="utf-8"), tmp_path)}
    assert "loadgen.py" in written
    out = tmp_path / "result.json"
    argv = [sys.executable, str(tmp_path / "loadgen.py"), "--base-url", fresh_server.url]
    argv += ["--model", "tiny", "--num-requests", str(N), "--concurrency", "2"]
    argv += ["--input-tokens", "32", "--output-tokens", str(OUT), "--ignore-eos"]
    proc = subprocess.run(
        [*argv, "--json", str(out)], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    res = json.loads(out.read_text())
    engine = _counters(fresh_server.url)
    assert (res["completed"], res["failed"]) == (N, 0), res["errors"]
    assert res["output_tokens_from"] == ["usage"]
    assert res["total_output_tokens"] == N * OUT == engine["llamacpp:tokens_predicted_total"]
    prompt = sum(r["prompt_tokens"] for r in res["requests"])
    seen = engine["llamacpp:prompt_tokens_total"] + engine["llamacpp:prompt_tokens_cached_total"]
    assert prompt == seen
    # each request's TTFT includes the prompt processing the engine timed for it
    ttft_s = sum(r["ttft_ms"] for r in res["requests"]) / 1000
    assert ttft_s >= engine["llamacpp:prompt_seconds_total"] * 0.95
