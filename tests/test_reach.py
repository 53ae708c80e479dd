"""Reachability from SKILL.md (SC208, SC209) does not depend on the order files are visited
in: the same tree gives the same findings under every hash seed (trees with links, with
mentions and with unreachable roots), and a file's depth is its shortest path from SKILL.md,
where a script brings the files of its own folder at its own depth."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillcheck.config import load_config
from skillcheck.runner import run

from .conftest import FIXTURES

SEEDS = ("0", "1", "2", "3", "4", "5", "6", "7")


def _check_under_seed(case: Path, seed: str) -> tuple[int, str]:
    """Exit code and findings of ``skillcheck check`` in a fresh interpreter with that hash
    seed (the summary line, which holds the time taken, left out)."""
    res = subprocess.run(
        [sys.executable, "-m", "skillcheck", "check", "--no-cache", "."],
        cwd=case,
        env=dict(os.environ, PYTHONHASHSEED=seed),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode in (0, 1), res.stdout + res.stderr
    return res.returncode, "\n".join(res.stdout.splitlines()[:-1])


@pytest.mark.parametrize(
    "case",
    [
        FIXTURES / "pass" / "script-folder-depth",
        FIXTURES / "fail" / "deep-reference",
        FIXTURES / "pass" / "mentions",
        FIXTURES / "fail" / "mention-case",
        FIXTURES / "fail" / "orphan-roots",
    ],
    ids=lambda p: p.name,
)
def test_the_same_findings_under_every_hash_seed(case: Path) -> None:
    outputs = {seed: _check_under_seed(case, seed) for seed in SEEDS}
    assert len(set(outputs.values())) == 1, outputs


def test_a_script_folder_is_as_deep_as_the_script_whatever_the_seed() -> None:
    """The shape of a slide-deck skill: SKILL.md runs two scripts and links a guide that names
    their neighbours; through the scripts' folders every one is one level deep."""
    case = FIXTURES / "pass" / "script-folder-depth"
    for seed in SEEDS:
        assert _check_under_seed(case, seed) == (0, ""), seed


def _skill(root: Path, files: dict[str, str]) -> Path:
    skill = root / "deep"
    for rel, text in files.items():
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_text(text, encoding="utf-8")
    return skill


def _findings(skill: Path) -> list[str]:
    cfg, _ = load_config(skill, {"cache": False})
    result = run([skill], cfg, skill, exclude_base=skill)
    return [f"{d.path} {d.code} {d.message}" for d in result.diagnostics]


HEAD = "---\nname: deep\ndescription: Does a thing. Use when testing.\n---\n\n"


def test_a_file_brought_by_a_deep_script_names_the_script(tmp_path: Path) -> None:
    skill = _skill(
        tmp_path,
        {
            "SKILL.md": HEAD + "Read [the guide](references/guide.md).\n",
            "references/guide.md": "# Guide\n\nRun `scripts/tool/run.py`.\n",
            "scripts/tool/run.py": "",
            "scripts/tool/schema.json": "{}\n",
        },
    )
    assert _findings(skill) == [
        "scripts/tool/run.py SC209 scripts/tool/run.py is reached only through references/guide.md",
        "scripts/tool/schema.json SC209 scripts/tool/schema.json is reached only through "
        "scripts/tool/run.py",
    ]


def test_a_file_named_by_a_deep_page_and_by_skill_md_is_one_level_deep(tmp_path: Path) -> None:
    skill = _skill(
        tmp_path,
        {
            "SKILL.md": HEAD + "Read [the guide](references/guide.md); see [b](references/b.md).\n",
            "references/guide.md": "# Guide\n\nSee [b](b.md) and [c](c.md).\n",
            "references/b.md": "# B\n",
            "references/c.md": "# C\n",
        },
    )
    assert _findings(skill) == [
        "references/c.md SC209 references/c.md is reached only through references/guide.md"
    ]
