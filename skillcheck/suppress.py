"""Suppressions, applied once to a run's findings after every checker (see ``runner``):
``<!-- skillcheck: ignore CODES -->`` and ``<!-- skillcheck: ignore-file CODES -->`` comments
in Markdown (parsed with the file, :class:`skillcheck.document.Suppression`) and the
``per-file-ignores`` globs of the configuration.

A suppressed finding is dropped, so it counts toward nothing. A comment's code that silences
nothing is reported (SC001), as is a comment that is malformed or names no rule (SC002); both
are judged only for the files whose findings are reported, and only for codes the run could
have emitted (selected, and not a ``probe`` code in ``check``). The SC0xx codes are not
silenced by comments: ``ignore`` and ``per-file-ignores`` turn them off.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillcheck.config import Config, resolve_selector
from skillcheck.diagnostics import Diagnostic
from skillcheck.discover import Skill, _excluded
from skillcheck.document import ParsedDoc, Suppression
from skillcheck.registry import INVALID_SUPPRESSION, RULES, UNUSED_SUPPRESSION, diagnostic

FORM = "write <!-- skillcheck: ignore CODES --> or <!-- skillcheck: ignore-file CODES -->"


@dataclass
class _Word:
    written: str
    code: str | None  # the code or prefix it names; None when it names no rule
    why: str = ""  # why it names none
    used: bool = False


@dataclass
class _Comment:
    rel: str
    s: Suppression
    words: list[_Word] = field(default_factory=list)

    def covers(self, line: int) -> bool:
        return self.s.kind == "ignore-file" or self.s.first <= line <= self.s.last


def _word(written: str) -> _Word:
    code, why = resolve_selector(written)
    if code is not None and code.startswith("SC0"):
        return _Word(written, None, f"{code} findings cannot be silenced by a comment")
    return _Word(written, code, why)


@dataclass
class _File:
    skill: Skill
    rel: str
    comments: list[_Comment]
    ignored: tuple[str, ...]  # codes and prefixes per-file-ignores silence in it


def _ignored(path: Path, config: Config, base: Path | None) -> tuple[str, ...]:
    """The codes ``per-file-ignores`` silences in the file at ``path``: its globs are matched
    (as ``exclude``'s, with fnmatch, a folder standing for what it holds) against the path
    relative to the configuration's folder."""
    if not config.per_file_ignores or base is None:
        return ()
    rel = os.path.relpath(path, os.path.realpath(base)).replace(os.sep, "/")
    if rel.startswith("../"):
        return ()
    return tuple(
        c for pat, codes in config.per_file_ignores if _excluded(rel, (pat,)) for c in codes
    )


def _files(
    skills: Sequence[Skill], docs: Sequence[dict[str, ParsedDoc]], config: Config, base: Path | None
) -> dict[str, _File]:
    """Every file of the skills by its display path, with its comments and ignored codes."""
    out: dict[str, _File] = {}
    for skill, parsed in zip(skills, docs, strict=True):
        for rel in sorted({*skill.files, *parsed, *(skill.markdown)}):
            doc = parsed.get(rel)
            comments = [
                _Comment(rel, s, [_word(w) for w in s.words if s.kind])
                for s in (doc.suppressions if doc is not None else ())
            ]
            out[skill.display(rel)] = _File(
                skill, rel, comments, _ignored(skill.root / rel, config, base)
            )
    return out


def _silenced(d: Diagnostic, f: _File) -> bool:
    """Whether ``d`` is silenced in its file (marking every comment word that silences it)."""
    if any(d.code.startswith(c) for c in f.ignored):
        return True
    hit = False
    for c in f.comments:
        if d.code.startswith("SC0") or not c.covers(d.line):
            continue
        for w in c.words:
            if w.code is not None and d.code.startswith(w.code):
                w.used = hit = True
    return hit


def _where(s: Suppression) -> str:
    if s.kind == "ignore-file":
        return "in this file"
    if s.first == s.last:
        return f"on line {s.first}"
    return f"on lines {s.first}-{s.last}"


def _judge(f: _File, c: _Comment, judged: Callable[[str], bool]) -> Iterable[Diagnostic]:
    """SC002 for a malformed comment or a word naming no rule; SC001 for a word that could
    have silenced a finding of this run and silenced none."""
    path, s = f.skill.display(f.rel), c.s
    if s.problem:
        yield diagnostic(path, s.line, s.column, INVALID_SUPPRESSION, s.problem, FORM)
    for w in c.words:
        if w.code is None:
            msg = f"'{w.written}' in a skillcheck comment: {w.why.split('; ')[0]}"
            hint = w.why.split("; ", 1)[1] if "; " in w.why else "use ignore or per-file-ignores"
            yield diagnostic(path, s.line, s.column, INVALID_SUPPRESSION, msg, hint)
        elif not w.used and any(code.startswith(w.code) and judged(code) for code in RULES):
            named = w.code if w.written.upper() == w.code else f"{w.written} ({w.code})"
            yield diagnostic(
                path,
                s.line,
                s.column,
                UNUSED_SUPPRESSION,
                f"unused suppression: no finding of {named} {_where(s)}",
                f"remove '{w.written}' from the comment (the whole comment when it names "
                "nothing else)",
            )


def apply(
    found: Iterable[Diagnostic],
    skills: Sequence[Skill],
    docs: Sequence[dict[str, ParsedDoc]],
    config: Config,
    base: Path | None,
    judged: Callable[[str], bool] | None = None,
) -> tuple[list[Diagnostic], list[Diagnostic], int]:
    """The findings that no suppression silences, the suppressions' own findings, and how
    many were silenced. The comments of the files in focus are judged only with ``judged``
    (the codes the run could emit): SC001 and SC002, themselves subject to per-file-ignores."""
    files = _files(skills, docs, config, base)
    kept: list[Diagnostic] = []
    silenced = 0
    for d in found:
        f = files.get(d.path)
        if f is not None and d.code != "SC000" and _silenced(d, f):
            silenced += 1
        else:
            kept.append(d)
    own: list[Diagnostic] = []
    if judged is None:
        return kept, own, silenced
    for f in files.values():
        focus = f.skill.focus
        if focus is not None and f.rel not in focus:
            continue
        for c in f.comments:
            own += [
                d for d in _judge(f, c, judged) if not any(d.code.startswith(i) for i in f.ignored)
            ]
    return kept, own, silenced
