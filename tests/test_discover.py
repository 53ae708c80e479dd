"""Which folders are searched for skills: hidden ones are (a collection's ``.curated`` and
``.system``, a project's ``.claude/skills``), version control, dependencies, virtual
environments, tool caches and build output are not, and ``exclude`` still leaves out what
it names."""

from __future__ import annotations

import os
from pathlib import Path

from skillcheck.config import load_config
from skillcheck.discover import SKIP_DIRS, find_skills

SEARCHED = (
    "skills/.curated/gh-fix-ci",
    "skills/.system/skill-creator",
    ".claude/skills/deploy",
    ".github/skills/review",
    "skills/plain",
)
SKIPPED = tuple(
    f"{d}/inside"
    for d in (
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
    )
)


def _tree(root: Path, folders: tuple[str, ...]) -> None:
    for rel in folders:
        (root / rel).mkdir(parents=True)
        name = rel.rsplit("/", 1)[-1]
        (root / rel / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Does a thing. Use when testing.\n---\n",
            encoding="utf-8",
        )


def _found(root: Path, exclude: tuple[str, ...] = ()) -> list[str]:
    skills, problems = find_skills(root, exclude, root, root)
    assert problems == []
    return [s.root.relative_to(root).as_posix() for s in skills]


def test_hidden_folders_are_searched_and_tool_folders_are_not(tmp_path: Path) -> None:
    _tree(tmp_path, SEARCHED + SKIPPED)
    assert _found(tmp_path) == sorted(SEARCHED)


def test_every_skipped_folder_is_named_in_skip_dirs() -> None:
    assert {rel.split("/", 1)[0] for rel in SKIPPED} <= SKIP_DIRS
    assert not {".claude", ".github", ".curated", ".system"} & SKIP_DIRS


def test_exclude_leaves_out_a_hidden_folder(tmp_path: Path) -> None:
    _tree(tmp_path, SEARCHED)
    assert _found(tmp_path, ("skills/.curated", ".claude")) == sorted(
        set(SEARCHED) - {"skills/.curated/gh-fix-ci", ".claude/skills/deploy"}
    )


def test_a_hidden_skill_is_checked_from_the_command_line(tmp_path: Path) -> None:
    from skillcheck.runner import run

    _tree(tmp_path, ("skills/.curated/gh-fix-ci",))
    cfg, _ = load_config(tmp_path, {"cache": False})
    result = run([tmp_path], cfg, tmp_path, exclude_base=tmp_path)
    assert (result.skills, result.diagnostics) == (1, [])


# -- check FILE: the skill around the file, its findings narrowed to the file ---------------


def _copy(case: str, dest: Path) -> Path:
    import shutil

    from .conftest import FIXTURES

    return Path(shutil.copytree(FIXTURES / "fail" / case, dest / case))


def _report(paths: list[Path], cwd: Path) -> list[str]:
    from skillcheck.runner import run

    cfg, _ = load_config(paths[0], {"cache": False})
    result = run(paths, cfg, cwd, exclude_base=cwd)
    return [f"{d.path} {d.code}" for d in result.diagnostics]


def test_a_file_is_checked_with_its_whole_skill_and_reported_alone(tmp_path: Path) -> None:
    skill = _copy("deep-reference", tmp_path)
    refs = skill / "references"
    # b.md is two links deep: a rule that reads the whole skill, reported for b.md alone
    assert _report([refs / "b.md"], tmp_path) == ["deep-reference/references/b.md SC209"]
    assert _report([refs / "a.md"], tmp_path) == []
    assert _report([refs / "a.md", refs / "b.md"], tmp_path) == [
        "deep-reference/references/b.md SC209"
    ]


def test_a_link_in_the_named_file_is_checked_against_the_other_files(tmp_path: Path) -> None:
    skill = _copy("anchor-other", tmp_path)
    assert _report([skill / "SKILL.md"], tmp_path) == ["anchor-other/SKILL.md SC205"]
    assert _report([skill / "references" / "guide.md"], tmp_path) == []


def test_a_skill_named_as_a_folder_too_is_reported_whole(tmp_path: Path) -> None:
    skill = _copy("anchor-other", tmp_path)
    _tree(tmp_path, ("other",))
    # a finding about a file named by itself is reported: no description
    (tmp_path / "other" / "SKILL.md").write_text("---\nname: other\n---\n", encoding="utf-8")
    assert _report(
        [skill / "references" / "guide.md", skill, tmp_path / "other" / "SKILL.md"], tmp_path
    ) == [
        "anchor-other/SKILL.md SC205",
        "other/SKILL.md SC114",
    ]


def test_a_file_in_no_skill_is_passed_over_unless_nothing_is_found(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from skillcheck.cli import main

    skill = _copy("deep-reference", tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "notes.md").write_text("# Notes\n", encoding="utf-8")
    assert _report([tmp_path / "notes.md", skill / "references" / "b.md"], tmp_path) == [
        "deep-reference/references/b.md SC209"
    ]
    old = Path.cwd()
    try:
        os.chdir(tmp_path)
        res = CliRunner().invoke(main, ["check", "--no-cache", "notes.md"])
    finally:
        os.chdir(old)
    assert res.exit_code == 1, res.output
    expected = "notes.md:1:1: SC101 no SKILL.md in this file's folder or any folder above it"
    assert expected in res.output


def test_the_search_for_the_skill_stops_at_the_repository_root(tmp_path: Path) -> None:
    from skillcheck.discover import enclosing_skill

    _tree(tmp_path, ("outer",))
    page = tmp_path / "outer" / "repo" / "docs" / "page.md"
    page.parent.mkdir(parents=True)
    page.write_text("# Page\n", encoding="utf-8")
    assert enclosing_skill(page, tmp_path) == tmp_path / "outer"
    (tmp_path / "outer" / "repo" / ".git").mkdir()
    assert enclosing_skill(page, tmp_path) is None
    # outside a repository, not above the current folder when the file lies below it
    (tmp_path / "outer" / "repo" / ".git").rmdir()
    assert enclosing_skill(page, tmp_path / "outer" / "repo") is None
    assert enclosing_skill(page, tmp_path / "elsewhere") is None
