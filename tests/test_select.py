"""``--select`` and ``--ignore`` (README: "Codes or prefixes, comma-separated or repeated"): a
prefix is a leading part of a code, so SC2 is every SC2xx and SC20 is SC201 to SC209 but not
SC210; a rule's name (broken-link) stands for its code; ignore wins over select; a prefix that
starts no rule is a usage error that suggests the closest codes or names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillcheck.registry import selected

from .test_cli import invoke

SKILL = """---
name: demo
description: Demo skill. Use when testing.
---

# Demo

- [gone](references/missing.md)
- [label][no-such-label]
"""


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    d = tmp_path / "not-demo"  # the name differs from the folder: SC113
    d.mkdir()
    (d / "SKILL.md").write_text(SKILL, encoding="utf-8")
    return d


def _codes(skill: Path, *options: str) -> list[str]:
    code, out, err = invoke("check", "--no-cache", "--format", "json", *options, str(skill))
    assert code in (0, 1), err
    return sorted({d["code"] for d in json.loads(out)["diagnostics"]})


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ((), ["SC113", "SC201", "SC210"]),
        (("--select", "SC2"), ["SC201", "SC210"]),
        (("--select", "SC20"), ["SC201"]),
        (("--select", "SC21"), ["SC210"]),
        (("--select", "SC201"), ["SC201"]),
        (("--select", "sc1"), ["SC113"]),
        (("--select", "SC113,SC210"), ["SC113", "SC210"]),
        (("--select", "SC113", "--select", " SC210 "), ["SC113", "SC210"]),
        (("--ignore", "SC20"), ["SC113", "SC210"]),
        (("--ignore", "SC2"), ["SC113"]),
        (("--select", "SC2", "--ignore", "SC201"), ["SC210"]),
        (("--select", "SC201", "--ignore", "SC2"), []),
        (("--ignore", "SC1,SC2"), []),
        (("--select", "broken-link"), ["SC201"]),
        (("--select", "Undefined-Reference,name-folder-mismatch"), ["SC113", "SC210"]),
        (("--ignore", "broken-link"), ["SC113", "SC210"]),
    ],
)
def test_prefixes(skill: Path, options: tuple[str, ...], expected: list[str]) -> None:
    assert _codes(skill, *options) == expected


@pytest.mark.parametrize("bad", ["SC9", "SC2x", "X1", "SC8", "2"])
def test_a_prefix_that_starts_no_rule_is_a_usage_error(skill: Path, bad: str) -> None:
    for option in ("--select", "--ignore"):
        code, _, err = invoke("check", "--no-cache", option, bad, str(skill))
        assert code == 2, err
        assert "select" in err or "ignore" in err


@pytest.mark.parametrize(
    ("bad", "hint"),
    [
        ("SC2011", "'SC2011' is not a rule code, prefix or name"),
        ("SC2011", "did you mean SC211 or SC201 or"),
        ("SC21O", "did you mean SC621 or SC221 or SC215?"),
        ("broken-links", "did you mean broken-link?"),
        ("orphan", "did you mean orphan-file?"),
        ("SC9", "no rule code starts with 'SC9'; did you mean SC409 or SC309 or SC209?"),
        ("X1", "`skillcheck rules` lists them"),
    ],
)
def test_an_unknown_selector_gets_a_suggestion(skill: Path, bad: str, hint: str) -> None:
    """A typo exits 2 and names the closest codes (for SC...) or rule names (otherwise)."""
    for option in ("--select", "--ignore"):
        code, out, err = invoke("check", "--no-cache", option, f"SC1,{bad}", str(skill))
        assert (code, out) == (2, ""), err
        assert hint in err and "Traceback" not in err


def test_an_unknown_selector_in_the_file_gets_a_suggestion(skill: Path) -> None:
    (skill.parent / "pyproject.toml").write_text(
        '[tool.skillcheck]\nselect = ["SC1"]\nignore = ["undefined-refernce"]\n',
        encoding="utf-8",
    )
    code, _, err = invoke("check", "--no-cache", str(skill))
    assert code == 2
    assert "'ignore': 'undefined-refernce' is not a rule code" in err
    assert "did you mean undefined-reference or" in err


def test_the_command_line_replaces_the_file(skill: Path) -> None:
    (skill.parent / "pyproject.toml").write_text(
        '[tool.skillcheck]\nselect = ["SC1"]\n', encoding="utf-8"
    )
    assert _codes(skill) == ["SC113"]
    assert _codes(skill, "--select", "SC21") == ["SC210"]


@pytest.mark.parametrize(
    ("code", "select", "ignore", "expected"),
    [
        ("SC201", (), (), True),
        ("SC201", ("SC2",), (), True),
        ("SC210", ("SC20",), (), False),
        ("SC209", ("SC20",), (), True),
        ("SC201", ("SC1", "SC20"), (), True),
        ("SC201", (), ("SC20",), False),
        ("SC210", (), ("SC20",), True),
        ("SC201", ("SC201",), ("SC2",), False),
    ],
)
def test_selected(
    code: str, select: tuple[str, ...], ignore: tuple[str, ...], expected: bool
) -> None:
    assert selected(code, select, ignore) is expected


FENCED = (
    SKILL
    + """
```bash
echo (
```
"""
)


def test_a_checker_whose_codes_are_all_deselected_does_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--select SC2 does not run the code-block checker (no `bash -n`), --ignore SC6 neither;
    a plain run does."""
    from skillcheck.registry import CHECKERS, load_builtin_rules
    from skillcheck.rules import codeblocks

    load_builtin_rules()
    calls: list[str] = []
    original = codeblocks.check_blocks

    def counting(ctx: object) -> object:
        calls.append("SC6")
        return original(ctx)  # type: ignore[arg-type]

    patched = [(f, counting if fn is original else fn) for f, fn in CHECKERS]
    assert patched != CHECKERS
    monkeypatch.setattr("skillcheck.registry.CHECKERS", patched)
    d = tmp_path / "demo"
    d.mkdir()
    (d / "SKILL.md").write_text(FENCED, encoding="utf-8")
    assert _codes(d, "--select", "SC2") == ["SC201", "SC210"]
    assert _codes(d, "--ignore", "SC6,SC1") == ["SC201", "SC210"]
    assert calls == []
    assert "SC605" in _codes(d)
    assert calls == ["SC6"]
