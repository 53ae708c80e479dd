"""The engine build says what is missing instead of failing with a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.engines import llama_server


def test_missing_toolchain_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sdist = tmp_path / "llama_cpp_python-0.3.36.tar.gz"
    sdist.write_bytes(b"")
    assert llama_server.main(["--sdist", str(sdist)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("llama-server: cannot build llama-server: not found on PATH: cmake")
    assert "Traceback" not in err
    with pytest.raises(llama_server.EngineUnavailable) as info:
        llama_server.ensure(sdist)
    assert not isinstance(info.value, llama_server.BuildFailed)


def test_no_sdist_and_no_fetch_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(llama_server.EngineUnavailable, match="--fetch-only"):
        llama_server.ensure(fetch=False)


def test_an_sdist_other_than_the_manifests_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sdist = tmp_path / "llama_cpp_python-0.3.36.tar.gz"
    sdist.write_bytes(b"not the release")
    monkeypatch.setattr(llama_server, "missing_tools", list)
    with pytest.raises(llama_server.EngineUnavailable, match="sha256"):
        llama_server.build(sdist)
