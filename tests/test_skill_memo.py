"""The memo of a whole skill's findings: a second run with nothing changed reuses them; a
change to a page, to another file of the skill, or to a file outside the skill that a rule
looked at (a sibling skill) is seen."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import skillcheck.resultmemo as memo_mod
from skillcheck.config import Config
from skillcheck.context import Context
from skillcheck.runner import run


@pytest.fixture
def config(tmp_path: Path) -> Iterator[Config]:
    yield Config(cache=True, cache_dir=str(tmp_path / "cache"))
    memo_mod._ACTIVE = None


def _tree(base: Path) -> Path:
    alpha = base / "tree" / "alpha"
    (alpha / "scripts").mkdir(parents=True)
    (alpha / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: Demo. Use when testing.\n---\n\n"
        "Run `scripts/run.py`; the shared page is [shared](../beta/shared.md).\n",
        encoding="utf-8",
    )
    (alpha / "scripts" / "run.py").write_text("print(1)\n", encoding="utf-8")
    return base / "tree"


def _codes(tree: Path, config: Config, counter: list[int]) -> list[tuple[str, str]]:
    result = run([tree], config, tree.parent, exclude_base=tree.parent)
    return [(d.code, d.message) for d in result.diagnostics]


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts how many times a skill's checkers really ran (a Context was made)."""
    made: list[int] = []
    real = Context.__init__

    def counting(self: Context, *args: object, **kwargs: object) -> None:
        made.append(1)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Context, "__init__", counting)
    return made


def test_unchanged_skill_is_not_checked_again(
    tmp_path: Path, config: Config, built: list[int]
) -> None:
    tree = _tree(tmp_path)
    first = _codes(tree, config, built)
    assert [c for c, _ in first] == ["SC203"]
    assert len(built) == 1
    assert _codes(tree, config, built) == first
    assert len(built) == 1, "the second run should reuse the memoised findings"


def test_changes_inside_the_skill_are_seen(
    tmp_path: Path, config: Config, built: list[int]
) -> None:
    tree = _tree(tmp_path)
    _codes(tree, config, built)
    os.remove(tree / "alpha" / "scripts" / "run.py")
    assert ("SC207", "'scripts/run.py' in a code span does not exist") in _codes(
        tree, config, built
    )
    assert len(built) == 2


def test_a_file_appearing_outside_the_skill_is_seen(
    tmp_path: Path, config: Config, built: list[int]
) -> None:
    tree = _tree(tmp_path)
    beta = tree / "beta"
    beta.mkdir()
    (beta / "SKILL.md").write_text(
        "---\nname: beta\ndescription: Demo. Use when testing.\n---\n\nNothing yet.\n",
        encoding="utf-8",
    )
    assert [c for c, _ in _codes(tree, config, built)] == ["SC203"]
    made = len(built)
    (beta / "shared.md").write_text("# Shared\n", encoding="utf-8")
    (beta / "SKILL.md").write_text(
        "---\nname: beta\ndescription: Demo. Use when testing.\n---\n\n[s](shared.md)\n",
        encoding="utf-8",
    )
    # alpha is unchanged (same skills, same files): only what its rules saw outside it moved,
    # so its memoised SC203 must give way to SC215
    assert [c for c, _ in _codes(tree, config, built)] == ["SC215"]
    assert len(built) == made + 2
