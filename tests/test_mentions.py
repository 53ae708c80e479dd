"""Placeholders for the skill folder (README's table) and the words that may name a file."""

from __future__ import annotations

import pytest

from skillcheck.document import parse
from skillcheck.mentions import SKILL_DIR_PREFIXES, scan_mentions, strip_prefix

WRITTEN = [  # every way README's table says a skill may write its own folder
    "{baseDir}/",
    "${CLAUDE_SKILL_DIR}/",
    "$CLAUDE_SKILL_DIR/",
    "${SKILL_DIR}/",
    "$SKILL_DIR/",
    "<path-to-skill>/",
    "<skill-dir>/",
    "<skill_dir>/",
    "<skill-path>/",
    "<skill-root>/",
    "~/.claude/skills/pdf/",
    ".claude/skills/pdf/",
    "skills/pdf/",
]


@pytest.mark.parametrize("prefix", WRITTEN)
def test_each_placeholder_stands_for_the_skill_root(prefix: str) -> None:
    assert strip_prefix(prefix + "scripts/fill.py", "pdf") == (prefix, "scripts/fill.py")


@pytest.mark.parametrize(
    "path",
    [
        "~/.claude/skills/docx/scripts/fill.py",  # another skill's folder
        "skills/docx/scripts/fill.py",
        "{rootDir}/scripts/fill.py",
        "$HOME/scripts/fill.py",
        "<path-to-repo>/scripts/fill.py",
        "scripts/fill.py",
    ],
)
def test_other_prefixes_are_not_the_skill_folder(path: str) -> None:
    assert strip_prefix(path, "pdf") is None


def test_every_row_of_the_table_is_written_in_the_readme() -> None:
    from .conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(SKILL_DIR_PREFIXES) == 7
    for prefix in WRITTEN:
        shown = prefix.replace("pdf", "NAME")
        assert f"`{shown}`" in readme, shown


def test_words_that_may_name_a_file() -> None:
    lines = [
        "Read FORMS.md, then **SKILL.md** and `python scripts/x.py:12`.",
        "See https://example.com/a/b.md and e.g. {baseDir}/references/a.md.",
        "Version 1.5 of archetype-*.md in data/",  # a number is no file name; a URL no path
    ]
    assert scan_mentions(lines, 0) == [
        ("FORMS.md", 1, 6),
        ("SKILL.md", 1, 23),  # without the emphasis around it
        ("scripts/x.py", 1, 46),  # without the line number after it
        ("e.g", 2, 36),  # (no file has that name: nothing is reached)
        ("{baseDir}/references/a.md", 2, 41),
        ("archetype-*.md", 3, 16),
        ("data/", 3, 34),
    ]


def test_a_decision_tree_is_no_folder_tree() -> None:
    doc = parse("```text\nsymptom\n├── slow ... references/a.md\n```\n")
    assert not doc.is_example(3, 14)
    doc = parse("```text\nmy-skill/\n├── references/a.md\n```\n")
    assert doc.is_example(3, 5)


def test_paths_inside_other_syntax_are_not_mentions() -> None:
    lines = [
        "Reference an asset as `%ASSETS/<ASSET_NAME>%` and fetch ?src=assets/a.png&x=b/c.",
        "Or run scripts/x.py.",
    ]
    assert scan_mentions(lines, 0) == [("scripts/x.py", 2, 8)]
