"""Which folders are searched for skills: hidden ones are (a collection's ``.curated`` and
``.system``, a project's ``.claude/skills``), version control, dependencies, virtual
environments, tool caches and build output are not, and ``exclude`` still leaves out what
it names."""

from __future__ import annotations

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
