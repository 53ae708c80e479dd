"""The calendar is read in one place (skillcheck.clock), once per configuration; tests pin it
with SKILLCHECK_TODAY (tests/conftest.py)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillcheck import clock
from skillcheck.cli import main
from skillcheck.config import ALLOWED_KEYS, Config, ConfigError, load_config
from skillcheck.runner import run

from .conftest import FIXED_TODAY, FIXTURES


def test_the_configuration_records_the_pinned_day() -> None:
    assert clock.today() == FIXED_TODAY
    assert Config().today == FIXED_TODAY
    assert load_config(FIXTURES / "pass" / "minimal", {"cache": False})[0].today == FIXED_TODAY


def test_today_is_not_a_setting(tmp_path: Path) -> None:
    assert "today" not in ALLOWED_KEYS
    (tmp_path / "pyproject.toml").write_text('[tool.skillcheck]\ntoday = "2020-01-01"\n')
    with pytest.raises(ConfigError, match="unknown key 'today'"):
        load_config(tmp_path)


def test_source_age_is_judged_against_the_configured_day() -> None:
    case = FIXTURES / "fail" / "source-stale"
    cfg, _ = load_config(case, {"cache": False})

    def stale_on(day: dt.date) -> list[str]:
        result = run([case], dataclasses.replace(cfg, today=day), case, exclude_base=case)
        return [d.message for d in result.diagnostics if d.code == "SC309"]

    assert stale_on(dt.date(2020, 1, 1)) == []
    assert stale_on(dt.date(2020, 12, 31)) == []  # 365 days: the fixture's limit
    assert stale_on(dt.date(2021, 1, 1)) == [
        "source 'src-2' was last checked 2020-01-01 (366 days ago)"
    ]


def test_without_the_variable_the_day_is_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(clock.ENV)
    before = dt.date.today()
    got = clock.today()
    assert got in (before, dt.date.today())


@pytest.mark.parametrize("value", ["yesterday", "2026-02-30", "20261202", "2026-12-02T00:00"])
def test_a_bad_day_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(clock.ENV, value)
    res = CliRunner().invoke(main, ["check", "--no-cache", str(FIXTURES / "pass" / "minimal")])
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert f"SKILLCHECK_TODAY={value!r} is not a date written YYYY-MM-DD" in res.output


def test_the_variable_sets_the_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(clock.ENV, "2021-01-01")
    res = CliRunner().invoke(main, ["check", "--no-cache", str(FIXTURES / "fail" / "source-stale")])
    assert "was last checked 2020-01-01 (366 days ago)" in res.output
