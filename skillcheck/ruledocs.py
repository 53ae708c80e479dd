"""The explanation of each rule (``skillcheck rules CODE``): why it matters, an example that
fails, and the fix, read from the packaged ``ruledocs.toml``."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FRONT_MATTER = "---\nname: demo\ndescription: Serving notes. Use when tuning a server.\n---\n\n"
SKILL_FOLDER = "demo"
_FILE_MARK = re.compile(r"^==> (.+) <==$", re.MULTILINE)


@dataclass(frozen=True)
class RuleDoc:
    why: str
    example: str
    fix: str
    fixed: str
    bare: bool = False  # the example's files are written exactly as given
    folder: str = SKILL_FOLDER  # the failing example's skill folder
    also: tuple[str, ...] = ()  # codes the failing example cannot help reporting too


@cache
def load() -> dict[str, RuleDoc]:
    """Every rule's explanation, by code."""
    text = resources.files("skillcheck").joinpath("ruledocs.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    return {
        code: RuleDoc(
            why=entry["why"].strip(),
            example=entry["example"].strip("\n"),
            fix=entry["fix"].strip(),
            fixed=entry["fixed"].strip("\n"),
            bare=bool(entry.get("bare", False)),
            folder=entry.get("folder", SKILL_FOLDER),
            also=tuple(entry.get("also", ())),
        )
        for code, entry in sorted(data.items())
    }


def example_files(example: str, bare: bool = False, name: str = SKILL_FOLDER) -> dict[str, str]:
    """The files an example stands for, by path in the skill folder: the text is SKILL.md's
    body unless lines ``==> path <==`` name the files; SKILL.md gets a valid front matter
    (with ``name``) unless it starts with '---' or ``bare`` is set."""
    marks = list(_FILE_MARK.finditer(example))
    if not marks:
        files = {"SKILL.md": example.strip("\n") + "\n"}
    else:
        if example[: marks[0].start()].strip():
            raise ValueError(f"text before the first '==> path <==' line: {example[:40]!r}")
        files = {}
        for m, nxt in zip(marks, [*marks[1:], None], strict=True):
            body = example[m.end() : nxt.start() if nxt else len(example)]
            body = body.removeprefix("\n").rstrip("\n")
            files[m.group(1)] = body + "\n" if body else ""
    for rel, text in files.items():
        if rel.casefold() == "skill.md" and not bare and not text.startswith("---"):
            files[rel] = FRONT_MATTER.replace(SKILL_FOLDER, name, 1) + text
    return files
