"""The parse cache and the memo are read back (a second run parses and validates nothing it
has seen), a corrupt cache file of the real name is ignored with a warning and rewritten, and a
checker that raises is reported as SC000, not hidden and not a traceback."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import skillcheck.datatables as datatables
import skillcheck.resultmemo as memo_mod
import skillcheck.rules.codeblocks as codeblocks_mod
import skillcheck.runner as engine_mod
from skillcheck.config import Config
from skillcheck.document import ParsedDoc
from skillcheck.parsecache import ParseCache, PickleStore
from skillcheck.runner import run

from .conftest import FIXTURES
from .test_cli import _strip_time, invoke


@pytest.fixture
def cache_dir(tmp_path: Path) -> Iterator[Path]:
    d = tmp_path / "cache"
    yield d
    memo_mod._ACTIVE = None  # the next test starts like a new process


def _config(cache_dir: Path) -> Config:
    return Config(cache=True, cache_dir=str(cache_dir))


def _new_process() -> None:
    """What the start of the next process does to the memo (each run writes its own)."""
    memo_mod._ACTIVE = None


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def _skill(tmp_path: Path, case: str = "full") -> Path:
    shutil.copytree(FIXTURES / "pass" / case, tmp_path / case)
    return tmp_path / case


def _strict(skill: Path) -> Path:
    """The fixture as the repository reads it: its code blocks run as written."""
    (skill / "pyproject.toml").write_text('[tool.skillcheck]\nsnippets = "strict"\n', "utf-8")
    return skill


def test_second_run_parses_nothing(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill = _skill(tmp_path)
    parsed = _counting(monkeypatch, engine_mod, "parse_all")
    cold = run([skill], _config(cache_dir), tmp_path)
    assert len(parsed) == 1
    files = list(cache_dir.glob("parse-v*-*.pickle"))
    assert len(files) == 1
    warm = run([skill], _config(cache_dir), tmp_path)
    assert len(parsed) == 1, "the second run parsed again: the parse cache was not read"
    assert warm.diagnostics == cold.diagnostics and warm.files == cold.files
    # a changed file is parsed again, alone
    guide = skill / "references" / "guide.md"
    guide.write_text(guide.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    seen: list[list[tuple[str, str]]] = []
    real = engine_mod.parse_all
    monkeypatch.setattr(
        engine_mod, "parse_all", lambda items, jobs: seen.append(items) or real(items, jobs)
    )
    run([skill], _config(cache_dir), tmp_path)
    assert len(seen) == 1 and len(seen[0]) == 1 and seen[0][0][1].endswith("More.\n")


def test_no_cache_reads_and_writes_nothing(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill = _skill(tmp_path)
    parsed = _counting(monkeypatch, engine_mod, "parse_all")
    for _ in range(2):
        run([skill], Config(cache=False, cache_dir=str(cache_dir)), tmp_path)
    assert len(parsed) == 2 and not cache_dir.exists()


def test_memo_is_read_by_the_next_run(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trees = []
    for case in ("sources-schema", "code-python"):
        shutil.copytree(FIXTURES / "fail" / case, tmp_path / case)
        trees.append(_strict(tmp_path / case))
    registry = _counting(monkeypatch, datatables, "load_registry")
    compiled: list[int] = []
    lang, real = codeblocks_mod.CHECKS["python"]
    monkeypatch.setitem(
        codeblocks_mod.CHECKS, "python", (lang, lambda fence: compiled.append(1) or real(fence))
    )
    cold = run(trees, dataclasses.replace(_config(cache_dir), snippets="strict"), tmp_path)
    assert registry and compiled
    _new_process()
    assert len(list(cache_dir.glob("memo-v*-*.pickle"))) == 1  # one per checked tree
    registry.clear()
    compiled.clear()
    warm = run(trees, dataclasses.replace(_config(cache_dir), snippets="strict"), tmp_path)
    assert registry == [], "sources.json was validated again: the memo was not read"
    assert compiled == [], "the Python blocks were compiled again: the memo was not read"
    assert warm.diagnostics == cold.diagnostics
    assert any(d.code == "SC601" for d in warm.diagnostics)


@pytest.mark.parametrize(
    "content", [b"not a pickle", b"", pickle.dumps(["a", "list"]), b"\x80\x05\x95garbage"]
)
def test_corrupt_cache_files_are_ignored_with_a_warning(
    tmp_path: Path, content: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    shutil.copytree(FIXTURES / "fail" / "code-python", tmp_path / "code-python")
    skill = _strict(tmp_path / "code-python")
    first = invoke("check", str(skill))  # writes the parse cache and the memo
    assert first[0] == 1 and "SC601" in first[1]
    _new_process()
    names = sorted((tmp_path / "xdg").rglob("*.pickle"))
    assert {p.name.split("-v")[0] for p in names} == {"parse", "memo"}
    for p in names:
        p.write_bytes(content)
    code, out, err = invoke("check", str(skill))
    _new_process()
    assert (code, _strip_time(out)) == (first[0], _strip_time(first[1])), err
    assert "Traceback" not in out + err
    for p in names:
        assert (
            f"ignoring the cache file {p}" in err
            or f"ignoring the unreadable cache file {p}" in err
        )
        data = pickle.loads(p.read_bytes())  # rewritten whole
        assert isinstance(data, dict) and data
        if p.name.startswith("parse"):
            assert all(isinstance(v, ParsedDoc) for v in data.values())


def test_store_warns_once_and_starts_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.pickle"
    PickleStore(path)
    assert capsys.readouterr().err == ""  # a missing file is no problem
    path.write_bytes(b"\x00junk")
    store = PickleStore(path)
    assert store.data == {}
    assert capsys.readouterr().err.count("warning: ignoring the unreadable cache file") == 1
    store.put("k", 1)
    store.save()
    assert PickleStore(path).data == {"k": 1}
    assert capsys.readouterr().err == ""


def test_parse_cache_is_scoped_by_tree(tmp_path: Path) -> None:
    a = ParseCache(tmp_path, "a" * 32)
    b = ParseCache(tmp_path, "b" * 32)
    assert a.path != b.path and a.path.parent == b.path.parent == tmp_path


def test_a_crashing_checker_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillcheck.registry import CHECKERS, load_builtin_rules

    load_builtin_rules()

    def broken(ctx: object) -> Iterator[object]:
        raise RuntimeError("boom")
        yield  # pragma: no cover

    monkeypatch.setattr("skillcheck.registry.CHECKERS", [("SC1", broken), *CHECKERS])
    skill = _skill(tmp_path, "minimal")
    code, out, err = invoke(
        "check", "--no-cache", "--format", "json", "--select", "SC1", str(skill)
    )
    assert code == 1, out + err
    (diag,) = json.loads(out)["diagnostics"]
    assert diag["code"] == "SC000" and diag["severity"] == "error"
    assert "RuntimeError: boom" in diag["message"] and "broken" in diag["message"]
    assert diag["path"].endswith("SKILL.md")
    # the other checkers still ran: a real finding is reported beside it
    (skill / "SKILL.md").write_text((skill / "SKILL.md").read_text() + "[x](gone.md)\n")
    code, out, _ = invoke("check", "--no-cache", "--format", "json", str(skill))
    assert sorted(d["code"] for d in json.loads(out)["diagnostics"]) == ["SC000", "SC201"]


def test_environment_cache_location_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    invoke("check", str(_skill(tmp_path, "minimal")))
    memo_mod._ACTIVE = None
    assert list((tmp_path / "xdg").rglob("parse-v*-*.pickle"))
    assert os.environ["XDG_CACHE_HOME"] == str(tmp_path / "xdg")


def test_memo_is_saved_when_the_process_ends(tmp_path: Path) -> None:
    import subprocess
    import sys

    _strict(shutil.copytree(FIXTURES / "fail" / "code-python", tmp_path / "code-python"))
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    res = subprocess.run(
        [sys.executable, "-m", "skillcheck", "check", "code-python"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode == 1 and "SC601" in res.stdout, res.stdout + res.stderr
    (memo,) = (tmp_path / "xdg").rglob("memo-v*-*.pickle")
    entries = pickle.loads(memo.read_bytes())
    assert any(k.startswith("block-python:") for k in entries)
