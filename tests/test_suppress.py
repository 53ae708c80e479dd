"""Suppressions: the lines a ``skillcheck: ignore`` comment covers (from the Markdown it sits
in), and what silencing does to a run: exit codes, --strict, --select, FILE arguments, the
caches and per-file-ignores globs. The fixtures ``pass/suppressions`` and
``fail/suppressions`` hold the findings themselves."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillcheck.cli import main
from skillcheck.config import load_config
from skillcheck.document import parse
from skillcheck.runner import run


def scopes(text: str) -> list[tuple[str, list[str], int, int]]:
    return [(s.kind, s.words, s.first, s.last) for s in parse(text).suppressions]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # alone on its line: the paragraph that starts on the next line, all of it
        ("<!-- skillcheck: ignore SC201 -->\na\nb\n\nc\n", [("ignore", ["SC201"], 2, 3)]),
        # a list, whole (markdown-it's map of a list ends after its blank line)
        ("<!-- skillcheck: ignore SC201 -->\n- a\n- b\n- c\n", [("ignore", ["SC201"], 2, 4)]),
        # a table
        (
            "<!-- skillcheck: ignore SC201 -->\n| a |\n| - |\n| 1 |\n\nx\n",
            [("ignore", ["SC201"], 2, 4)],
        ),
        # a fence, from its opening line to its closing one
        (
            "<!-- skillcheck: ignore SC601 -->\n```python\nx(\n```\n",
            [("ignore", ["SC601"], 2, 4)],
        ),
        # a comment over several lines: the block after its last line
        ("<!--\nskillcheck: ignore SC2\n-->\n# H\n", [("ignore", ["SC2"], 4, 4)]),
        # a blank line after it: just that line, so nothing
        ("<!-- skillcheck: ignore SC201 -->\n\na\n", [("ignore", ["SC201"], 2, 2)]),
        # comments stacked between it and the block are passed over
        (
            "<!-- skillcheck: ignore SC201 -->\n<!-- skillcheck: ignore SC207 -->\n"
            "<!-- a note -->\n- a\n",
            [("ignore", ["SC201"], 4, 4), ("ignore", ["SC207"], 4, 4)],
        ),
        # sharing its line with text: that line only
        ("a\nb <!-- skillcheck: ignore SC201 -->\nc\n", [("ignore", ["SC201"], 2, 2)]),
        # inside a list item: the block below it in the item
        (
            "- a\n\n  <!-- skillcheck: ignore SC201 -->\n  b\n  c\n- d\n",
            [("ignore", ["SC201"], 4, 5)],
        ),
        # names and prefixes, commas and spaces; the whole file
        (
            "x\n\n<!-- skillcheck: ignore-file broken-link,SC6  SC207 -->\n",
            [("ignore-file", ["broken-link", "SC6", "SC207"], 0, 0)],
        ),
        # malformed ones are kept, to be reported
        ("<!-- skillcheck: ignored SC201 -->\n", [("", ["SC201"], 2, 2)]),
        ("<!-- skillcheck: ignore -->\n", [("", [], 2, 2)]),
        # not suppressions: in a code block, a code span, another tool's comment
        ("```md\n<!-- skillcheck: ignore SC201 -->\n```\n", []),
        ("`<!-- skillcheck: ignore SC201 -->`\n", []),
        ("<!-- skillcheck-skip: SC201 -->\n<!-- expect: SC201 1:1 error x -->\n", []),
    ],
)
def test_the_lines_a_comment_covers(
    text: str, expected: list[tuple[str, list[str], int, int]]
) -> None:
    assert scopes(text) == expected


def _skill(root: Path, body: str, name: str = "demo") -> Path:
    skill = root / name
    (skill / "references").mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Suppressions. Use in tests.\n---\n\n{body}",
        encoding="utf-8",
    )
    return skill


def invoke(*args: str, cwd: Path) -> tuple[int, str]:
    old = os.getcwd()
    try:
        os.chdir(cwd)
        res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
    return res.exit_code, res.stdout


def _codes(out: str) -> list[str]:
    return [line.split(": ")[1].split()[0] for line in out.splitlines() if ": SC" in line]


def test_a_silenced_error_does_not_fail_the_run(tmp_path: Path) -> None:
    _skill(tmp_path, "<!-- skillcheck: ignore SC201 -->\n[x](references/missing.md)\n")
    code, out = invoke("check", "--no-cache", "--strict", "demo", cwd=tmp_path)
    assert (code, _codes(out)) == (0, [])
    assert out.startswith("0 errors, 0 warnings")


def test_an_unused_suppression_is_a_warning_that_strict_fails(tmp_path: Path) -> None:
    _skill(tmp_path, "<!-- skillcheck: ignore SC201 -->\nNo link here.\n")
    code, out = invoke("check", "--no-cache", "demo", cwd=tmp_path)
    assert (code, _codes(out)) == (0, ["SC001"])
    assert out.splitlines()[:2] == [
        "demo/SKILL.md:6:1: SC001 (warning) unused suppression: no finding of SC201 on line 7",
        "  hint: remove 'SC201' from the comment (the whole comment when it names nothing else)",
    ]
    code, out = invoke("check", "--no-cache", "--strict", "demo", cwd=tmp_path)
    assert (code, _codes(out)) == (1, ["SC001"])
    code, out = invoke("check", "--no-cache", "--strict", "--ignore", "SC001", "demo", cwd=tmp_path)
    assert (code, _codes(out)) == (0, [])


def test_only_codes_the_run_could_emit_are_judged(tmp_path: Path) -> None:
    """A suppression of a code that --select leaves out, or of a probe code in `check`, is not
    called unused: the run could not have found it."""
    _skill(
        tmp_path,
        "<!-- skillcheck: ignore SC601 -->\nText.\n\n<!-- skillcheck: ignore url-moved -->\nT.\n",
    )
    code, out = invoke("check", "--no-cache", "--select", "SC0,SC2", "demo", cwd=tmp_path)
    assert (code, _codes(out)) == (0, [])
    code, out = invoke("check", "--no-cache", "demo", cwd=tmp_path)
    assert (code, _codes(out)) == (0, ["SC001"])
    assert "SC601" in out and "url-moved" not in out


def test_a_file_argument_judges_only_that_files_comments(tmp_path: Path) -> None:
    skill = _skill(
        tmp_path, "[p](references/p.md)\n\n<!-- skillcheck: ignore SC201 -->\nNothing.\n"
    )
    (skill / "references" / "p.md").write_text(
        "# P\n\n<!-- skillcheck: ignore SC207 -->\nNothing.\n", encoding="utf-8"
    )
    code, out = invoke("check", "--no-cache", "demo/references/p.md", cwd=tmp_path)
    assert (code, [line.split(": ")[0] for line in out.splitlines() if ": SC" in line]) == (
        0,
        ["demo/references/p.md:3:1"],
    )


def test_changing_a_comment_changes_the_result_with_the_caches_on(tmp_path: Path) -> None:
    """Parse cache and result memo: the findings are filtered after them, from the file's
    parse, so an edited comment is seen on the next run."""
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.skillcheck]\ncache-dir = {str(tmp_path / "cache")!r}\nsnippets = "strict"\n',
        encoding="utf-8",
    )
    block = "```python\nx(\n```\n"
    skill = _skill(tmp_path, "<!-- skillcheck: ignore SC601 -->\n" + block)
    cfg, _ = load_config(tmp_path)
    assert cfg.cache

    def found() -> list[str]:
        result = run([skill], cfg, tmp_path, exclude_base=tmp_path)
        return [f"{d.code} {d.line}" for d in result.diagnostics]

    assert found() == [] and found() == []
    assert any((tmp_path / "cache").glob("parse-v*.pickle"))
    _skill(tmp_path, "<!-- skillcheck: ignore SC605 -->\n" + block)
    assert found() == ["SC001 6", "SC601 8"]
    _skill(tmp_path, "<!-- skillcheck: ignore SC601 -->\n" + block)
    assert found() == []


def test_per_file_ignores_globs_start_at_the_configuration_folder(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    for name in ("a", "b"):
        skill = _skill(skills, "[p](references/p.md)\n", name)
        (skill / "references" / "p.md").write_text("# P\n\n[x](gone.md)\n", encoding="utf-8")

    def found(table: str) -> list[str]:
        (tmp_path / "pyproject.toml").write_text(
            f"[tool.skillcheck]\nper-file-ignores = {table}\n", encoding="utf-8"
        )
        _, out = invoke("check", "--no-cache", "skills", cwd=tmp_path)
        return [line.split(": ")[0] for line in out.splitlines() if ": SC" in line]

    both = ["skills/a/references/p.md:3:5", "skills/b/references/p.md:3:5"]
    assert found('{ "references/p.md" = ["SC201"] }') == both  # not relative to a skill
    assert found('{ "skills/a/references/p.md" = ["SC201"] }') == both[1:]
    assert found('{ "skills/*/references/*.md" = ["SC2"] }') == []  # '*' crosses '/' too
    assert found('{ "skills/b" = ["broken-link"] }') == both[:1]  # a folder: what it holds
    assert found('{ "skills/b" = ["SC6"] }') == both  # a code that has no finding there


def test_per_file_ignores_silences_findings_in_a_json_file(tmp_path: Path) -> None:
    skill = _skill(tmp_path, "Registry: `data/sources.json`.\n")
    (skill / "data").mkdir()
    (skill / "data" / "sources.json").write_text('{"sources": [1,]}', encoding="utf-8")
    code, out = invoke("check", "--no-cache", "demo", cwd=tmp_path)
    assert (code, _codes(out)) == (1, ["SC301"])
    (tmp_path / "pyproject.toml").write_text(
        '[tool.skillcheck]\nper-file-ignores = { "demo/data/sources.json" = ["SC3"] }\n',
        encoding="utf-8",
    )
    code, out = invoke("check", "--no-cache", "demo", cwd=tmp_path)
    assert (code, _codes(out)) == (0, [])
