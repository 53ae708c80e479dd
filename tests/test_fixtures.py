"""Data-driven: every folder under fixtures/pass is clean; every folder under fixtures/fail
yields exactly the codes written in it (``<!-- expect: SC201 -->`` lines or an EXPECT file)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from skillcheck.config import load
from skillcheck.engine import run

from .conftest import FIXTURES

EXPECT = re.compile(r"<!--\s*expect:\s*([A-Z0-9, ]+?)\s*-->")


def _cases(kind: str) -> list[Path]:
    return sorted(p for p in (FIXTURES / kind).iterdir() if p.is_dir())


def expected_codes(case: Path) -> Counter[str]:
    codes: Counter[str] = Counter()
    for p in case.rglob("*"):
        if p.is_symlink() or not p.is_file():
            continue
        if p.name == "EXPECT":
            codes.update(line.strip() for line in p.read_text().splitlines() if line.strip())
        elif p.suffix == ".md":
            try:
                text = p.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            for m in EXPECT.finditer(text):
                codes.update(c.strip() for c in m.group(1).split(",") if c.strip())
    return codes


def check(case: Path) -> Counter[str]:
    cfg, _ = load(case, {"cache": False})
    result = run([case], cfg, case, exclude_base=case)
    return Counter(d.code for d in result.diagnostics)


@pytest.mark.parametrize("case", _cases("pass"), ids=lambda p: p.name)
def test_pass_fixture(case: Path) -> None:
    assert check(case) == Counter()


@pytest.mark.parametrize("case", _cases("fail"), ids=lambda p: p.name)
def test_fail_fixture(case: Path) -> None:
    expected = expected_codes(case)
    assert expected, f"{case.name} declares no expected code"
    assert check(case) == expected
