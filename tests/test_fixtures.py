"""Data-driven: every folder under fixtures/pass is clean; every folder under fixtures/fail
yields exactly the diagnostics written in it, each with its place, code, severity and message.

Two ways to write an expectation, both exact:

- in a Markdown file, about that file, anywhere in it (usually just above the line meant):
  ``<!-- expect: SC201 6:5 error 'references/missing.md' does not exist -->``
- in a file named ``EXPECT`` at the top of the case, one diagnostic a line, about any file
  (the path as reported, relative to the case; ``.`` is the case itself):
  ``references/bin.md:1:4 SC222 error binary data (NUL byte at byte offset 3)``
  Blank lines and lines starting with ``#`` are ignored.

Lines and columns are 1-based (``0`` is refused); a finding about a whole file, or a folder, is
at ``1:1``. The rest of the line is the message, compared exactly; ``{root}`` in it stands for
the repository's absolute path (some messages name a symlink's resolved target). Use EXPECT when
the expectation cannot sit in the file it is about (not Markdown, not UTF-8, over the size cap)
or when its text would change what it describes (a URL in a comment is a URL the checker sees; a
budget counts the comment).
The expectations are written from the file and the rule's specification, not copied from the
checker's output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from skillcheck.config import load_config
from skillcheck.runner import run

from .conftest import FIXTURES, ROOT

_COMMENT = re.compile(r"<!--\s*expect:(.*?)-->", re.DOTALL)
_IN_MD = re.compile(r"^(SC\d{3}) ([1-9]\d*):([1-9]\d*) (error|warning) (\S.*)$")
_IN_EXPECT = re.compile(r"^(.+?):([1-9]\d*):([1-9]\d*) (SC\d{3}) (error|warning) (\S.*)$")


@dataclass(frozen=True, order=True)
class Expected:
    path: str
    line: int
    column: int
    code: str
    severity: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column} {self.code} {self.severity} {self.message}"


def _cases(kind: str) -> list[Path]:
    return sorted(p for p in (FIXTURES / kind).iterdir() if p.is_dir())


def _message(text: str) -> str:
    return text.replace("{root}", ROOT.as_posix())


def expectations(case: Path) -> list[Expected]:
    """Every expectation written in ``case``; a malformed one fails the test."""
    out: list[Expected] = []
    for p in sorted(case.rglob("*")):
        if p.is_symlink() or not p.is_file():
            continue
        rel = p.relative_to(case).as_posix()
        if rel == "EXPECT":
            for n, raw in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                m = _IN_EXPECT.match(line)
                if m is None:
                    pytest.fail(
                        f"{case.name}/EXPECT:{n}: not 'path:line:col CODE severity "
                        f"message': {line!r}"
                    )
                out.append(Expected(m[1], int(m[2]), int(m[3]), m[4], m[5], _message(m[6])))
        elif p.suffix == ".md":
            try:
                text = p.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            for c in _COMMENT.finditer(text):
                body = " ".join(c.group(1).split())
                m = _IN_MD.match(body)
                if m is None:
                    pytest.fail(
                        f"{case.name}/{rel}: not '<!-- expect: CODE line:col severity "
                        f"message -->': {c.group(0)!r}"
                    )
                out.append(Expected(rel, int(m[2]), int(m[3]), m[1], m[4], _message(m[5])))
    return sorted(out)


def check(case: Path) -> list[Expected]:
    cfg, _ = load_config(case, {"cache": False})
    result = run([case], cfg, case, exclude_base=case)
    return sorted(
        Expected(d.path, d.line, d.column, d.code, d.severity.value, d.message)
        for d in result.diagnostics
    )


@pytest.mark.parametrize("case", _cases("pass"), ids=lambda p: p.name)
def test_pass_fixture(case: Path) -> None:
    assert expectations(case) == [], "a pass fixture declares no diagnostic"
    assert [str(d) for d in check(case)] == []


@pytest.mark.parametrize("case", _cases("fail"), ids=lambda p: p.name)
def test_fail_fixture(case: Path) -> None:
    expected = expectations(case)
    assert expected, f"{case.name} declares no expected diagnostic"
    assert [str(d) for d in check(case)] == [str(e) for e in expected]


def test_expectations_are_read_from_both_places(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text(
        "x\n<!-- expect: SC201 6:5 error 'a b' does not exist -->\n"
        "<!-- expect:\n     SC204 7:1 warning wrapped   over lines -->\n",
        encoding="utf-8",
    )
    (tmp_path / "EXPECT").write_text(
        "# comment\n\nreferences/a b.md:1:1 SC208 error under {root}\n", encoding="utf-8"
    )
    assert [str(e) for e in expectations(tmp_path)] == [
        "SKILL.md:6:5 SC201 error 'a b' does not exist",
        "SKILL.md:7:1 SC204 warning wrapped over lines",
        f"references/a b.md:1:1 SC208 error under {ROOT.as_posix()}",
    ]


@pytest.mark.parametrize(
    "written",
    [
        "<!-- expect: SC201 -->",  # no place, severity or message
        "<!-- expect: SC201 6:5 error -->",  # no message
        "<!-- expect: SC201 6 error msg -->",  # no column
        "<!-- expect: SC201 6:5 fatal msg -->",  # no such severity
    ],
)
def test_a_malformed_expectation_fails(tmp_path: Path, written: str) -> None:
    (tmp_path / "SKILL.md").write_text(written + "\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match="not '<!-- expect"):
        expectations(tmp_path)


def test_a_malformed_expect_line_fails(tmp_path: Path) -> None:
    (tmp_path / "EXPECT").write_text("SC201\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match="EXPECT:1"):
        expectations(tmp_path)
