"""The command line: formats (exact output), exit codes, configuration, bad input."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillcheck.cli import main

from .conftest import FIXTURES, ROOT

CASE = FIXTURES / "fail" / "link-broken"


def invoke(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    runner = CliRunner()
    old = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        res = runner.invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
    return res.exit_code, res.stdout, res.stderr


def _strip_time(s: str) -> str:
    return re.sub(r"in \d+\.\d\ds", "in X.XXs", s)


def test_text_format_exact() -> None:
    code, out, _ = invoke("check", "--no-cache", ".", cwd=CASE)
    assert code == 1
    assert _strip_time(out) == (
        "SKILL.md:6:5: SC201 'references/missing.md' does not exist\n"
        "  hint: check the path: it is resolved relative to the file that holds the link\n"
        "1 error, 0 warnings in 1 skill (1 Markdown file) in X.XXs\n"
    )


def test_json_format_exact() -> None:
    code, out, _ = invoke("check", "--no-cache", "--format", "json", ".", cwd=CASE)
    assert code == 1
    data = json.loads(out)
    assert data["diagnostics"] == [
        {
            "path": "SKILL.md",
            "line": 6,
            "column": 5,
            "code": "SC201",
            "severity": "error",
            "message": "'references/missing.md' does not exist",
            "hint": "check the path: it is resolved relative to the file that holds the link",
        }
    ]
    assert set(data["summary"]) == {"errors", "warnings", "skills", "files", "elapsed_seconds"}
    assert (data["summary"]["errors"], data["summary"]["warnings"]) == (1, 0)


def test_github_format_exact() -> None:
    code, out, err = invoke("check", "--no-cache", "--format", "github", ".", cwd=CASE)
    assert code == 1
    assert out == (
        "::error file=SKILL.md,line=6,col=5,title=SC201::'references/missing.md' does not "
        "exist (hint: check the path: it is resolved relative to the file that holds the "
        "link)\n"
    )
    assert "1 error" in err


def test_sarif_format() -> None:
    code, out, _ = invoke("check", "--no-cache", "--format", "sarif", ".", cwd=CASE)
    assert code == 1
    data = json.loads(out)
    assert data["version"] == "2.1.0"
    run = data["runs"][0]
    assert run["tool"]["driver"]["rules"][0]["id"] == "SC201"
    res = run["results"][0]
    assert res["ruleId"] == "SC201" and res["level"] == "error"
    assert res["locations"][0]["physicalLocation"]["region"] == {"startLine": 6, "startColumn": 5}


def test_warnings_exit_zero_unless_strict() -> None:
    case = FIXTURES / "fail" / "desc-angle"
    assert invoke("check", "--no-cache", str(case))[0] == 0
    assert invoke("check", "--no-cache", "--strict", str(case))[0] == 1


def test_select_and_ignore() -> None:
    assert invoke("check", "--no-cache", "--ignore", "SC2", ".", cwd=CASE)[0] == 0
    assert invoke("check", "--no-cache", "--select", "SC1", ".", cwd=CASE)[0] == 0
    assert invoke("check", "--no-cache", "--select", "SC201", ".", cwd=CASE)[0] == 1


def test_unknown_config_key_is_usage_error(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "pass" / "minimal", tmp_path / "minimal")
    (tmp_path / "minimal" / "pyproject.toml").write_text("[tool.skillcheck]\nstrictt = true\n")
    code, _, err = invoke("check", str(tmp_path / "minimal"))
    assert code == 2
    assert "unknown key 'strictt'" in err and "allowed keys:" in err and "strict" in err


def test_bad_config_type_is_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.skillcheck]\nmax-skill-lines = 'x'\n")
    shutil.copytree(FIXTURES / "pass" / "minimal", tmp_path / "minimal")
    code, _, err = invoke("check", str(tmp_path / "minimal"))
    assert code == 2 and "max-skill-lines" in err


def test_broken_pyproject_is_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.skillcheck\n")
    shutil.copytree(FIXTURES / "pass" / "minimal", tmp_path / "minimal")
    assert invoke("check", str(tmp_path / "minimal"))[0] == 2


def test_cli_overrides_file(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "fail" / "desc-angle", tmp_path / "desc-angle")
    (tmp_path / "pyproject.toml").write_text("[tool.skillcheck]\nstrict = true\n")
    assert invoke("check", "--no-cache", str(tmp_path / "desc-angle"))[0] == 1
    assert invoke("check", "--no-cache", "--no-strict", str(tmp_path / "desc-angle"))[0] == 0


def test_missing_path_is_usage_error() -> None:
    assert invoke("check", "/no/such/path")[0] == 2


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(FIXTURES / "pass" / "full", tmp_path / "full")
    import builtins

    real_open = builtins.open

    def fake_open(file: object, *args: object, **kwargs: object) -> object:
        if str(file).endswith("guide.md"):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", fake_open)
    code, out, _ = invoke("check", "--no-cache", str(tmp_path / "full"))
    assert code == 1 and "SC220" in out and "Traceback" not in out


def test_repo_root_skill_name_may_differ_from_folder(tmp_path: Path) -> None:
    root = tmp_path / "checkout-under-any-name"
    shutil.copytree(FIXTURES / "pass" / "minimal", root)
    assert "SC113" in invoke("check", "--no-cache", str(root))[1]
    (root / ".git").mkdir()
    code, out, _ = invoke("check", "--no-cache", str(root))
    assert code == 0, out


def test_many_skills_in_one_tree(tmp_path: Path) -> None:
    # a copy, away from this repository's pyproject.toml: the tree is read with the defaults,
    # as each case's own configuration (snippets = "lenient") would have it
    tree = tmp_path / "pass"
    shutil.copytree(FIXTURES / "pass", tree, symlinks=True)
    code, out, _ = invoke("check", "--no-cache", str(tree))
    assert code == 0, out
    assert f"in {len([p for p in (FIXTURES / 'pass').iterdir() if p.is_dir()])} skills" in out


def test_parse_cache_round_trip(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "pass" / "full", tmp_path / "full")
    first = invoke("check", str(tmp_path / "full"))
    second = invoke("check", str(tmp_path / "full"))
    assert first[0] == second[0] == 0
    cache_files = list(Path(os.environ["XDG_CACHE_HOME"]).rglob("parse-v*.pickle"))
    assert cache_files
    # a changed file is parsed again, not served stale from the cache
    guide = tmp_path / "full" / "references" / "guide.md"
    guide.write_text(guide.read_text().replace("## Knobs and defaults", "## Knobs"))
    code, out, _ = invoke("check", str(tmp_path / "full"))
    assert code == 1 and "SC205" in out


def test_corrupt_cache_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shutil.copytree(FIXTURES / "pass" / "minimal", tmp_path / "minimal")
    assert invoke("check", str(tmp_path / "minimal"))[0] == 0
    (real,) = (tmp_path / "cache").rglob("parse-v*-*.pickle")  # the file the run reads
    real.write_bytes(b"not a pickle")
    code, out, err = invoke("check", str(tmp_path / "minimal"))
    assert code == 0 and "Traceback" not in out + err
    assert f"ignoring the unreadable cache file {real}" in err


def test_rules_table_in_readme_matches_registry() -> None:
    code, out, _ = invoke("rules", "--format", "markdown")
    assert code == 0
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert out.strip() in readme, "README rule table is stale: paste `skillcheck rules -f markdown`"


def test_rules_json_lists_every_code() -> None:
    code, out, _ = invoke("rules", "--format", "json")
    codes = [r["code"] for r in json.loads(out)]
    assert code == 0 and codes == sorted(codes) and "SC101" in codes and "SC503" in codes


def test_the_pack_itself_is_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clean as of the day its sources were last checked: SC309 (source age) depends on the
    date, so the date is pinned to the newest 'checked' of data/sources.json, not today."""
    import datetime as dt
    from types import SimpleNamespace

    import skillcheck.rules.sources as sources_rules

    sources = json.loads((ROOT / "data" / "sources.json").read_text(encoding="utf-8"))
    newest = max(dt.date.fromisoformat(s["checked"]) for s in sources["sources"])
    asked: list[int] = []

    class Pinned(dt.date):
        @classmethod
        def today(cls) -> Pinned:
            asked.append(1)
            return cls(newest.year, newest.month, newest.day)

    from dataclasses import fields

    from skillcheck.config import Config

    # the day comes from SKILLCHECK_TODAY through Config.today where the configuration carries
    # it, else from the date module of the SC309 rule
    monkeypatch.setenv("SKILLCHECK_TODAY", newest.isoformat())
    carried = "today" in {f.name for f in fields(Config)}
    if not carried:
        monkeypatch.setattr(sources_rules, "dt", SimpleNamespace(date=Pinned))
    code, out, _ = invoke("check", "--no-cache", "--strict", str(ROOT))
    assert code == 0, out
    assert carried or asked, "SC309 no longer reads the date here: pin it where it now comes from"


def test_python_dash_m() -> None:
    import subprocess
    import sys

    res = subprocess.run(
        [sys.executable, "-m", "skillcheck", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 0 and "skillcheck" in res.stdout


def test_memo_serves_the_same_findings(tmp_path: Path) -> None:
    for case in ("code-python", "code-json", "sources-schema"):
        shutil.copytree(FIXTURES / "fail" / case, tmp_path / case)
        cold = invoke("check", "--strict", "--format", "json", str(tmp_path / case))
        warm = invoke("check", "--strict", "--format", "json", str(tmp_path / case))
        strip = [json.loads(r[1])["diagnostics"] for r in (cold, warm)]
        assert cold[0] == warm[0] == 1 and strip[0] == strip[1] and strip[0]


def test_cache_with_foreign_values_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pickle

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shutil.copytree(FIXTURES / "pass" / "full", tmp_path / "full")
    assert invoke("check", str(tmp_path / "full"))[0] == 0  # writes the cache files
    files = list((tmp_path / "cache").rglob("*.pickle"))
    assert files
    for f in files:
        data = pickle.loads(f.read_bytes())
        f.write_bytes(pickle.dumps({k: "not a parsed document" for k in data}))
    code, out, _ = invoke("check", str(tmp_path / "full"))
    assert code == 0 and "Traceback" not in out


def test_extract_unreadable_or_binary_file_is_a_usage_error(tmp_path: Path) -> None:
    page = tmp_path / "t.md"
    page.write_bytes(b"\xff\xfe not utf-8")
    code, _, err = invoke("extract", str(page), "-o", str(tmp_path / "out"))
    assert code == 2 and "cannot read" in err


def test_sarif_uris_are_percent_encoded(tmp_path: Path) -> None:
    """RFC 3986: a space, '#', '%' and non-ASCII letters (as UTF-8) are escaped; a path outside
    the current folder becomes a file: URI. The driver names the project's home page."""
    skill = tmp_path / "my skill dé#%"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: demo\ndescription: Demo. Use in tests.\n---\n\n[x](gone.md)\n",
        encoding="utf-8",
    )
    code, out, _ = invoke("check", "--no-cache", "-f", "sarif", "--select", "SC201", cwd=tmp_path)
    assert code == 1
    run = json.loads(out)["runs"][0]
    assert run["tool"]["driver"]["informationUri"] == "https://github.com/OWNER/REPOSITORY"
    (res,) = run["results"]
    uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "my%20skill%20d%C3%A9%23%25/SKILL.md"
    code, out, _ = invoke("check", "--no-cache", "-f", "sarif", "--select", "SC201", str(skill))
    (res,) = json.loads(out)["runs"][0]["results"]
    uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == skill.joinpath("SKILL.md").as_uri()
    assert uri.startswith("file:///") and uri.endswith("/my%20skill%20d%C3%A9%23%25/SKILL.md")


def test_f_is_short_for_format_in_every_command() -> None:
    import click

    with_format = {}
    for name, command in main.commands.items():
        for param in command.params:
            if isinstance(param, click.Option) and "--format" in param.opts:
                with_format[name] = param.opts
    assert sorted(with_format) == ["check", "probe", "rules"]
    assert all("-f" in opts for opts in with_format.values())
    code, out, _ = invoke("check", "--no-cache", "-f", "json", ".", cwd=CASE)
    assert code == 1 and json.loads(out)["summary"]["errors"] == 1


def test_a_whole_file_finding_is_at_1_1_in_every_format() -> None:
    """An empty file (SC225) is a finding about the whole file: line 1, column 1 everywhere,
    so that SARIF's region is valid (startLine >= 1) and annotations land on the file."""
    case = FIXTURES / "fail" / "empty-file"
    _, out, _ = invoke("check", "--no-cache", "--select", "SC225", ".", cwd=case)
    assert out.startswith("references/empty.md:1:1: SC225 (warning) file is empty\n")
    _, out, _ = invoke("check", "--no-cache", "--select", "SC225", "-f", "json", ".", cwd=case)
    (d,) = json.loads(out)["diagnostics"]
    assert (d["path"], d["line"], d["column"]) == ("references/empty.md", 1, 1)
    _, out, _ = invoke("check", "--no-cache", "--select", "SC225", "-f", "github", ".", cwd=case)
    assert out.startswith("::warning file=references/empty.md,line=1,col=1,title=SC225::")
    _, out, _ = invoke("check", "--no-cache", "--select", "SC225", "-f", "sarif", ".", cwd=case)
    (res,) = json.loads(out)["runs"][0]["results"]
    region = res["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 1, "startColumn": 1}


def test_no_skill_is_reported_at_1_1(tmp_path: Path) -> None:
    code, out, _ = invoke("check", "--no-cache", "-f", "sarif", ".", cwd=tmp_path)
    assert code == 1
    for res in json.loads(out)["runs"][0]["results"]:
        region = res["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
