"""The calendar is read in one place (skillcheck.clock), once per configuration."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest

from skillcheck import clock
from skillcheck.config import ALLOWED_KEYS, Config, ConfigError, load
from skillcheck.engine import run

from .conftest import FIXED_TODAY, FIXTURES


def test_the_configuration_records_the_pinned_day() -> None:
    assert clock.today() == FIXED_TODAY
    assert Config().today == FIXED_TODAY
    assert load(FIXTURES / "pass" / "minimal", {"cache": False})[0].today == FIXED_TODAY


def test_today_is_not_a_setting(tmp_path: Path) -> None:
    assert "today" not in ALLOWED_KEYS
    (tmp_path / "pyproject.toml").write_text('[tool.skillcheck]\ntoday = "2020-01-01"\n')
    with pytest.raises(ConfigError, match="unknown key 'today'"):
        load(tmp_path)


def test_source_age_is_judged_against_the_configured_day() -> None:
    case = FIXTURES / "fail" / "source-stale"
    cfg, _ = load(case, {"cache": False})

    def stale_on(day: dt.date) -> list[str]:
        result = run([case], dataclasses.replace(cfg, today=day), case, exclude_base=case)
        return [d.message for d in result.diagnostics if d.code == "SC309"]

    assert stale_on(dt.date(2020, 1, 1)) == []
    assert stale_on(dt.date(2020, 12, 31)) == []  # 365 days: the fixture's limit
    assert stale_on(dt.date(2021, 1, 1)) == [
        "source 'src-2' was last checked 2020-01-01 (366 days ago)"]
