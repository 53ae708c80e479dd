"""What a rule sees: the configuration, one skill, its parsed files and data files, and path
helpers."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from skillcheck.config import Config
from skillcheck.datatables import SkillData
from skillcheck.diagnostics import Diagnostic
from skillcheck.discover import Skill
from skillcheck.document import ParsedDoc
from skillcheck.linktargets import join
from skillcheck.registry import diagnostic

MAX_TEXT = 300


def _clip(text: str) -> str:
    """Messages quote user input; a pathological input must not make a huge report."""
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


@dataclass
class Context:
    config: Config
    cwd: Path
    skill: Skill
    docs: dict[str, ParsedDoc]
    data: SkillData = field(default_factory=SkillData)  # sources.json and tables, validated
    _listing: dict[str, set[str] | None] = field(default_factory=dict)
    _anchors: dict[str, set[str]] = field(default_factory=dict)
    _resolved: dict[tuple[str, str], str | None] = field(default_factory=dict)
    _looked: dict[str, tuple[bool, str | None]] = field(default_factory=dict)
    # what the rules looked at outside the skill, with what they saw: a memoised result of the
    # whole skill is reused only while each of these still holds (see runner)
    outside: dict[str, object] = field(default_factory=dict)

    def anchors(self, rel: str) -> set[str] | None:
        """Heading slugs and explicit ids of a parsed Markdown file (None if not parsed)."""
        got = self._anchors.get(rel)
        if got is None:
            doc = self.docs.get(rel)
            if doc is None:
                return None
            got = self._anchors[rel] = doc.anchors
        return got

    def diag(
        self,
        rel: str,
        line: int,
        column: int,
        code: str,
        message: str,
        hint: str = "",
        url: str | None = None,
    ) -> Diagnostic:
        """A finding in file ``rel`` of this skill, at its rule's declared severity."""
        return diagnostic(
            self.skill.display(rel), line, column, code, _clip(message), _clip(hint), url
        )

    # -- paths -------------------------------------------------------------------------
    def _names_in(self, rel_dir: str) -> set[str] | None:
        if rel_dir not in self._listing:
            try:
                self._listing[rel_dir] = set(os.listdir(self.skill.root / rel_dir))
            except OSError:
                self._listing[rel_dir] = None
        return self._listing[rel_dir]

    def resolve(self, from_rel: str, target: str) -> str | None:
        """Join a relative link target to the file it is written in; None when it leaves the
        skill. The result is a normalised posix path relative to the skill root ('' = root)."""
        base = posixpath.dirname(from_rel)
        key = (base, target)
        if key in self._resolved:
            return self._resolved[key]
        out = self._resolved[key] = join(base, target)
        return out

    def lookup(self, rel: str) -> tuple[bool, str | None]:
        """(exists with exact case, the on-disk spelling when only the case differs)."""
        got = self._looked.get(rel)
        if got is None:
            got = self._looked[rel] = self._lookup(rel)
        return got

    def _lookup(self, rel: str) -> tuple[bool, str | None]:
        if rel == "":
            return True, None
        parts = rel.split("/")
        cur = ""
        fixed: list[str] = []
        case_differs = False
        for part in parts:
            names = self._names_in(cur)
            if names is None:
                return False, None
            if part in names:
                fixed.append(part)
            else:
                lowered = {n.lower(): n for n in names}
                if part.lower() in lowered:
                    case_differs = True
                    fixed.append(lowered[part.lower()])
                else:
                    return False, None
            cur = "/".join(fixed)
        if case_differs:
            return False, "/".join(fixed)
        return True, None

    def escapes_via_symlink(self, rel: str) -> bool:
        links = self.skill.symlinks
        if not links:
            return False
        parts = rel.split("/")
        if not any("/".join(parts[:i]) in links for i in range(1, len(parts) + 1)):
            return False
        try:
            (self.skill.root / rel).resolve().relative_to(self.skill.root)
        except (ValueError, OSError, RuntimeError):
            return True
        return False

    # -- outside the skill ------------------------------------------------------------
    def outside_is_file(self, path: Path) -> bool:
        """Whether ``path`` (outside the skill) is a file; recorded in ``outside``."""
        key = "file:" + path.as_posix()
        got = self.outside.get(key)
        if got is None:
            got = self.outside[key] = path.is_file()
        return bool(got)

    def sibling_skills(self) -> list[Path]:
        """The other skill folders beside this one (folders with a SKILL.md); recorded."""
        key = "skills:" + self.skill.root.parent.as_posix()
        got = self.outside.get(key)
        if got is None:
            got = self.outside[key] = tuple(sibling_skill_names(self.skill.root.parent))
        assert isinstance(got, tuple)
        return [self.skill.root.parent / name for name in got if name != self.skill.root.name]


def sibling_skill_names(parent: Path) -> list[str]:
    """The folders under ``parent`` that hold a SKILL.md, sorted."""
    try:
        entries = sorted(parent.iterdir())
    except OSError:
        return []
    return [d.name for d in entries if d.is_dir() and (d / "SKILL.md").is_file()]


def outside_still_holds(seen: dict[str, object]) -> bool:
    """Whether everything a memoised result saw outside its skill is still so."""
    for key, value in seen.items():
        kind, _, where = key.partition(":")
        now: object = (
            Path(where).is_file() if kind == "file" else tuple(sibling_skill_names(Path(where)))
        )
        if now != value:
            return False
    return True
