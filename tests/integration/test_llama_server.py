"""The pack against a real llama-server: every ``llama-server`` command in its pages starts
with the tiny model and answers ``/health``; every ``llamacpp:`` metric the pages name is in
a real ``/metrics`` scrape after traffic. What cannot run here is listed, with the reason,
in llama_server_pack.json."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration import packscan
from tests.integration.conftest import ROOT, Server, free_port

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "llama_server_pack.json").read_text())
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_]+)\s*\}\}")


def pack_metric_names() -> dict[str, str]:
    return packscan.pack_metric_names("llamacpp:")


def _split(arg: str) -> tuple[str, str | None]:
    if arg.startswith("--") and "=" in arg:
        opt, _, value = arg.partition("=")
        return opt, value
    return arg, None


def substitute(args: list[str], model: Path, port: int, key_file: Path) -> list[str]:
    """The page's arguments with the tiny model, loopback, a free port and the values
    llama_server_pack.json gives; a placeholder it does not know fails the test."""
    fills = {"port": str(port), "api_key_file": str(key_file)}
    out: list[str] = []
    i = 0
    while i < len(args):
        opt, inline = _split(args[i])
        takes_next = inline is None and i + 1 < len(args)
        step = 2 if takes_next else 1
        if opt in DATA["model_options"]["options"]:
            if "-m" not in out:
                out += ["-m", str(model)]
        elif opt in DATA["drop"]:
            pass
        elif opt in DATA["replace"]:
            out += [opt, DATA["replace"][opt]["value"].format(**fills)]
        else:
            out.append(args[i])
            step = 1
        i += step
    if "-m" not in out:
        out += ["-m", str(model)]
    for opt in ("--host", "--port"):
        if opt not in out:
            out += [opt, DATA["replace"][opt]["value"].format(**fills)]
    return [_fill(a) for a in out]


def _fill(arg: str) -> str:
    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in DATA["placeholders"]:
            pytest.fail(f"placeholder {{{{{name}}}}} has no value in llama_server_pack.json")
        return str(DATA["placeholders"][name])

    filled = PLACEHOLDER.sub(one, arg)
    if "$" in filled:
        pytest.fail(f"shell expansion left in argument {arg!r}: give it a value in the data file")
    return filled


COMMANDS = packscan.pack_commands("llama.cpp")


def test_the_pack_has_llama_server_commands() -> None:
    assert len(COMMANDS) >= 5, COMMANDS  # a parser change that finds none fails here


def test_binary_is_the_manifests_build(llama_server_bin: Path) -> None:
    """The built server is the llama.cpp build and commit that skillcheck's manifest for the
    pack's llama.cpp version was generated from."""
    manifest = json.loads(
        (ROOT / "skillcheck" / "engines" / "manifests" / "llama.cpp-b11312.json").read_text()
    )
    meta = manifest["provenance"]
    out = subprocess.run(
        [str(llama_server_bin), "--version"], capture_output=True, text=True, timeout=30
    )
    build = meta["llama_cpp_build"].removeprefix("b")
    assert f"(build {build}, commit {meta['llama_cpp_commit'][:7]})" in out.stdout + out.stderr


def test_health(metrics_server: Server) -> None:
    r = httpx.get(metrics_server.url + "/health", timeout=5)
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}


@pytest.mark.parametrize(("where", "args"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_pack_command_starts(
    where: str, args: list[str], llama_server_bin: Path, tiny_gguf: Path, tmp_path: Path
) -> None:
    gpu = [a for a in args if _split(a)[0] in DATA["gpu_only"]]
    if gpu:
        pytest.skip(f"{where}: needs a GPU: {DATA['gpu_only'][_split(gpu[0])[0]]}")
    key_file = tmp_path / "keys"
    key_file.write_text("integration-test-key\n")
    port = free_port()
    argv = substitute(args, tiny_gguf, port, key_file)
    with Server(llama_server_bin, argv, port, tmp_path / "server.log") as server:
        assert httpx.get(server.url + "/health", timeout=5).status_code == 200


def _scrape(url: str) -> dict[str, float]:
    text = httpx.get(url + "/metrics", timeout=10).text
    values: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name.split("{", 1)[0]] = float(value)
    return values


def test_pack_metric_names_are_exported(metrics_server: Server) -> None:
    for i in range(3):
        r = httpx.post(
            metrics_server.url + "/completion",
            json={
                "prompt": "the quick brown fox jumps over the lazy dog",
                "n_predict": 8 + i,
                "ignore_eos": True,
            },
            timeout=60,
        )
        assert r.status_code == 200, r.text
    r = httpx.post(
        metrics_server.url + "/v1/chat/completions",
        json={"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 8},
        timeout=60,
    )
    assert r.status_code == 200, r.text
    scraped = _scrape(metrics_server.url)
    assert scraped.get("llamacpp:tokens_predicted_total", 0) >= 8 + 9 + 10, scraped
    # engine-options-llama-cpp.md: the metric that shows prompt-cache reuse
    assert scraped.get("llamacpp:prompt_tokens_cached_total", 0) > 0, scraped
    named = pack_metric_names()
    assert named, "no llamacpp: metric named in the pack"
    missing = {
        name: where
        for name, where in named.items()
        if name not in scraped and name not in DATA["metrics_not_exported"]
    }
    assert not missing, f"named in the pack, absent from a real /metrics scrape: {missing}"
