"""A YAML error is reported where PyYAML places its cause: the problem mark, or the opening
bracket or quote of a block that is never closed (PyYAML's context mark)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcheck.safeyaml import kind, load_frontmatter, load_yaml_stream

from .test_cli import invoke


@pytest.mark.parametrize(
    ("raw", "line", "column", "message"),
    [
        # the problem mark: the second ': ' (0-based line 1, column 21)
        ("name: x\ndescription: Use when: it breaks\n", 1, 21, "mapping values are not allowed"),
        # a character that starts no token, where it stands
        ("name: x\ndescription: `y`\n", 1, 13, "found character '`'"),
        # a sequence item inside a mapping: the problem mark, not the collection's start
        ("name: x\nmetadata:\n  - a\n  b: c\n", 3, 2, "expected <block end>, but found '?'"),
        # an unclosed bracket noticed on a later line: the bracket
        ("name: x\ndescription: [a\nlicense: MIT\n", 1, 13, "the flow sequence that starts"),
        # an unclosed brace noticed at the end: the brace
        ("name: x\nmetadata: {a: b", 1, 10, "the flow mapping that starts here"),
        # an unclosed quote noticed at the end: the quote
        ("name: x\ndescription: 'abc\nlicense: MIT\n", 1, 13, "the quoted scalar that starts"),
    ],
)
def test_front_matter_error_position(raw: str, line: int, column: int, message: str) -> None:
    _, _, problems = load_frontmatter(raw)
    assert [(code, line0, col0) for code, _, line0, col0 in problems] == [("SC104", line, column)]
    msg = problems[0][1]
    assert msg.startswith("invalid YAML: ") and message in msg


def test_valid_front_matter_has_no_error() -> None:
    assert load_frontmatter("name: x\ndescription: y\n")[2] == []


def test_unclosed_flow_on_one_line_in_a_stream() -> None:
    _, problems = load_yaml_stream("a: [1, 2\n")
    assert [(p[2], p[3]) for p in problems] == [(0, 3)]
    assert "the flow sequence that starts here is not closed" in problems[0][1]


def test_the_position_is_translated_to_the_file(tmp_path: Path) -> None:
    """Line 1 is the opening '---': YAML line 1 (0-based) is file line 3; columns are 1-based."""
    skill = tmp_path / "demo"
    skill.mkdir()
    text = "---\nname: demo\ndescription: Demo. Use when: x\n---\n# Demo\n"
    (skill / "SKILL.md").write_text(text, encoding="utf-8")
    code, out, _ = invoke("check", "--no-cache", "--select", "SC104", str(skill))
    assert code == 1
    assert out.startswith(f"{skill / 'SKILL.md'}:3:28: SC104 invalid YAML: mapping values")
    assert text.split("\n")[2][27] == ":"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1", "an integer"),
        ("1.5", "a number"),
        ("true", "a boolean"),
        ("null", "null"),
        ("[a]", "a list"),
        ("{a: b}", "a mapping"),
        ("2026-01-01", "a date"),
        ("2026-01-01 10:00:00", "a timestamp"),
        ("x", "a string"),
        ("!!binary aGk=", "binary data"),
        ("!!set {a}", "a set"),
    ],
)
def test_kind_names_a_value_in_yamls_words(text: str, words: str) -> None:
    value, _, problems = load_frontmatter(f"k: {text}\n")
    assert problems == []
    assert kind(value["k"]) == words
