"""Runs the offline rules over every skill under the given paths."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from skillcheck import resultmemo
from skillcheck.config import Config
from skillcheck.context import Context, outside_still_holds
from skillcheck.datatables import SkillData, load_skill_data
from skillcheck.diagnostics import Diagnostic, Severity
from skillcheck.discover import (
    Skill,
    active_excludes,
    collect_files,
    display_path,
    enclosing_skill,
    find_skills,
    read_markdown,
)
from skillcheck.document import ParsedDoc, parse
from skillcheck.registry import (
    INTERNAL_ERROR,
    Checker,
    active_checkers,
    diagnostic,
    load_builtin_rules,
    selected,
)

PARALLEL_MIN = 400


@dataclass
class Result:
    diagnostics: list[Diagnostic]
    skills: int
    files: int
    elapsed: float

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.WARNING)


def _parse_many(texts: list[str]) -> list[ParsedDoc]:
    return [parse(t) for t in texts]


T = TypeVar("T")
R = TypeVar("R")


def fork_map(fn: Callable[[T], R], parts: list[T], workers: int) -> list[R] | None:
    """``fn`` over ``parts`` on forked worker processes (they share the parent's memory, so
    only the results are copied back); None where fork is not available."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - platforms without fork
        return None
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        return list(pool.map(fn, parts))


def _ranges(n_items: int, workers: int) -> list[tuple[int, int]]:
    step = (n_items + workers - 1) // workers
    return [(a, min(a + step, n_items)) for a in range(0, n_items, step)]


def parse_all(items: list[tuple[str, str]], jobs: int) -> dict[str, ParsedDoc]:
    """Parse (key, text) pairs, on several processes when there are many."""
    workers = min(jobs or (os.cpu_count() or 1), 8)
    if workers > 1 and len(items) >= PARALLEL_MIN:
        chunks = [items[a:b] for a, b in _ranges(len(items), workers)]
        results = fork_map(_parse_many, [[t for _, t in c] for c in chunks], workers)
        if results is not None:
            return {
                key: doc
                for chunk, docs in zip(chunks, results, strict=True)
                for (key, _), doc in zip(chunk, docs, strict=True)
            }
    return {key: parse(text) for key, text in items}


def _balanced(weights: list[int], parts: int) -> list[tuple[int, int]]:
    """Contiguous ranges of about equal total weight (a skill's weight: its files), at most
    ``parts`` of them: a large skill is a range of its own instead of doubling one worker's
    share."""
    total, acc, start = sum(weights), 0, 0
    out: list[tuple[int, int]] = []
    for i, w in enumerate(weights):
        acc += w
        if len(out) < parts - 1 and acc * parts >= total * (len(out) + 1):
            out.append((start, i + 1))
            start = i + 1
    if start < len(weights):
        out.append((start, len(weights)))
    return out


PARALLEL_SKILLS = 64
_FORK_STATE: tuple[Loaded, Config, Path, list[tuple[str, Checker]]] | None = None
Taken = tuple[dict[str, Any], set[str]]  # a worker's memo entries and the keys it read


def _check_range(bounds: tuple[int, int]) -> tuple[list[Diagnostic], Taken]:
    assert _FORK_STATE is not None
    loaded, config, cwd, checkers = _FORK_STATE
    found: list[Diagnostic] = []
    memo = resultmemo.for_config(config)
    for i in range(*bounds):
        skill = loaded.skills[i]
        key = _skill_key(loaded, i, config, cwd, checkers) if memo is not None else None
        hit = memo.get(key) if memo is not None and key is not None else None
        if hit is not None and _usable(hit):
            found += _in_focus(skill, hit[0])
            continue
        ctx = Context(config=config, cwd=cwd, skill=skill, docs=loaded.docs[i], data=loaded.data[i])
        out: list[Diagnostic] = []
        for family, fn in checkers:
            try:
                out.extend(fn(ctx))
            except Exception as exc:  # a bug: reported as an error, the other checkers go on
                out.append(
                    diagnostic(
                        skill.display(skill.skill_md or "SKILL.md"),
                        0,
                        0,
                        INTERNAL_ERROR,
                        f"internal error: the {family}xx checker {fn.__module__}.{fn.__name__} "
                        f"raised {type(exc).__name__}: {exc}"[:300],
                        "a bug in skillcheck: please report it with the skill that triggers it",
                    )
                )
        if memo is not None and key is not None and all(d.code != INTERNAL_ERROR for d in out):
            memo.put(key, (out, dict(ctx.outside)))
        found += _in_focus(skill, out)
    return found, resultmemo.taken(memo)


def _usable(hit: Any) -> bool:
    """A memoised result of a whole skill that this version wrote, whose view of the world
    outside the skill still holds (a foreign or corrupt value is ignored)."""
    return (
        isinstance(hit, tuple)
        and len(hit) == 2
        and isinstance(hit[0], list)
        and all(isinstance(d, Diagnostic) for d in hit[0])
        and isinstance(hit[1], dict)
        and outside_still_holds(hit[1])
    )


def _skill_key(
    loaded: Loaded, i: int, config: Config, cwd: Path, checkers: list[tuple[str, Checker]]
) -> str | None:
    """The memo key of a skill's findings: everything they depend on inside the skill (each
    Markdown file's content, the other files' size and time, the folders and symlinks), the
    configuration, where it is shown from, the rules and the engine manifests. What the rules
    see outside the skill is checked when the entry is read (``outside_still_holds``)."""
    from skillcheck import __version__
    from skillcheck.rules.engineflags import _manifests_fingerprint

    if loaded.keys is None:
        return None
    skill = loaded.skills[i]
    others = []
    for rel in skill.files:
        if rel in loaded.keys[i]:
            continue
        try:
            st = os.lstat(skill.root / rel)
        except OSError:
            return None
        link = os.readlink(skill.root / rel) if rel in skill.symlinks else ""
        others.append((rel, st.st_size, st.st_mtime_ns, link))
    parts = [
        __version__,
        repr(config),
        cwd.as_posix(),
        skill.root.as_posix(),
        skill.display_root,
        skill.skill_md,
        sorted(loaded.keys[i].items()),
        sorted(others),
        sorted(skill.dirs),
        sorted(skill.symlinks),
        [f"{fn.__module__}.{fn.__name__}" for _, fn in checkers],
        _manifests_fingerprint(),
    ]
    return resultmemo.key("skill", repr(parts))


def _check_all(loaded: Loaded, config: Config, cwd: Path) -> list[Diagnostic]:
    """Run every checker that may emit a selected code on every skill; with many skills, on
    one process per core (forked, so the parsed files are shared, not copied; each worker
    sends back its findings and its memo entries)."""
    global _FORK_STATE
    _FORK_STATE = (loaded, config, cwd, active_checkers(config.select, config.ignore))
    memo = resultmemo.open_for_run(config, loaded.scope)
    try:
        workers = min(config.jobs or (os.cpu_count() or 1), 8)
        parts = None
        if workers > 1 and len(loaded.skills) >= PARALLEL_SKILLS:
            weights = [len(s.files) + 1 for s in loaded.skills]
            parts = fork_map(_check_range, _balanced(weights, workers * 4), workers)
            for _, (fresh, used) in parts or ():
                resultmemo.merge(memo, fresh, used)
        if parts is None:
            parts = [_check_range((0, len(loaded.skills)))]
        return [d for found, _ in parts for d in found]
    finally:
        _FORK_STATE = None
        resultmemo.close_run(memo)


@dataclass
class Loaded:
    """The skills found under the paths, each with its Markdown files parsed and its data
    files validated."""

    skills: list[Skill]
    docs: list[dict[str, ParsedDoc]]  # per skill: relative path -> parsed file
    problems: list[Diagnostic]  # from discovery (no skill, unreadable folder)
    files: int
    data: list[SkillData]  # per skill: its sources.json and data tables, validated
    scope: str = "all"  # names the checked tree (its skill roots) for the caches
    base: Path | None = None  # the configuration's folder: per-file-ignores globs start there
    # per skill: relative path -> content key of each Markdown file read (for the result memo)
    keys: list[dict[str, str]] | None = None


def _find_all(
    paths: Iterable[Path], config: Config, cwd: Path, base: Path
) -> tuple[list[Skill], list[Diagnostic]]:
    """Every skill under ``paths``, each once, and the problems of finding them. A file
    stands for the skill around it (the nearest SKILL.md at or above it): the rules read that
    whole skill, and the findings reported are those about the files named (``Skill.focus``);
    a skill named by a folder too is reported whole. A file in no skill is passed over, unless
    no path leads to a skill at all (SC101)."""
    diagnostics: list[Diagnostic] = []
    skills: dict[Path, Skill] = {}
    outside: list[Path] = []
    for p in paths:
        excludes = active_excludes(config.exclude, p, base)
        named: str | None = None
        if p.is_file():
            root = enclosing_skill(p, cwd)
            if root is None:
                outside.append(p)
                continue
            found = [s for s in find_skills(root, excludes, cwd, base)[0] if s.root == root]
            named = Path(os.path.abspath(p)).relative_to(root).as_posix()
        else:
            found, problems = find_skills(p, excludes, cwd, base)
            diagnostics.extend(problems)
        for s in found:
            if s.root not in skills:
                s.excludes = excludes
                s.focus = set() if named is not None else None
                skills[s.root] = s
            kept = skills[s.root]
            if named is None:
                kept.focus = None
            elif kept.focus is not None:
                kept.focus.add(named)
    if not skills:
        diagnostics += [
            diagnostic(
                display_path(Path(os.path.abspath(p)), cwd),
                0,
                0,
                "SC101",
                "no SKILL.md in this file's folder or any folder above it",
                "a skill is a folder with a SKILL.md file at its top",
            )
            for p in outside
        ]
    return list(skills.values()), diagnostics


def _in_focus(skill: Skill, found: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The findings about the files ``skill.focus`` names (all of them when it is None; an
    internal error always)."""
    if skill.focus is None:
        return list(found)
    shown = {skill.display(rel) for rel in skill.focus}
    return [d for d in found if d.path in shown or d.code == INTERNAL_ERROR]


def load_skills(
    paths: Iterable[Path], config: Config, cwd: Path, exclude_base: Path | None = None
) -> Loaded:
    """Find every skill under ``paths``; parse each of its Markdown files, and read and validate
    its data files, once (through the parse cache). Problems with single files go to
    ``skill.problems``. Shared by ``check``, ``pack`` and ``probe``."""
    from skillcheck.parsecache import ParseCache, content_key, default_dir

    base = Path(os.path.abspath(exclude_base or cwd))
    skills, diagnostics = _find_all(paths, config, cwd, base)
    roots = {s.root for s in skills}
    for s in skills:
        collect_files(s, roots - {s.root}, s.excludes, base)

    cache: ParseCache | None = None
    scope = content_key("\n".join(sorted(s.root.as_posix() for s in skills)).encode())
    if config.cache:
        cache = ParseCache(Path(config.cache_dir) if config.cache_dir else default_dir(), scope)
    pending: list[tuple[str, str]] = []
    placement: list[tuple[int, str, str]] = []
    docs_by_skill: list[dict[str, ParsedDoc]] = [{} for _ in skills]
    keys_by_skill: list[dict[str, str]] = [{} for _ in skills]
    files = 0
    for i, s in enumerate(skills):
        for rel in s.markdown:
            files += 1
            rr = read_markdown(s.root / rel, s.display(rel), config.max_file_bytes)
            if rr.problem is not None:
                s.problems.append(rr.problem)
                continue
            assert rr.text is not None and rr.data is not None
            if not rr.text.strip():
                s.problems.append(
                    diagnostic(
                        s.display(rel),
                        0,
                        0,
                        "SC225",
                        "file is empty",
                        "write the page",
                    )
                )
            key = content_key(rr.data)
            keys_by_skill[i][rel] = key
            doc = cache.get(key) if cache is not None else None
            if not isinstance(doc, ParsedDoc):  # a cache written by something else
                doc = None
            if doc is not None:
                docs_by_skill[i][rel] = doc
            else:
                pending.append((key, rr.text))
                placement.append((i, rel, key))
    if pending:
        unique = list({k: t for k, t in pending}.items())
        parsed = parse_all(unique, config.jobs)
        for i, rel, key in placement:
            docs_by_skill[i][rel] = parsed[key]
            if cache is not None:
                cache.put(key, parsed[key])
    data = [load_skill_data(s.root, s.files, cache) for s in skills]
    if cache is not None:
        cache.save()
    return Loaded(skills, docs_by_skill, diagnostics, files, data, scope, base, keys_by_skill)


def run(
    paths: Iterable[Path], config: Config, cwd: Path, exclude_base: Path | None = None
) -> Result:
    started = time.perf_counter()
    return check_loaded(load_skills(paths, config, cwd, exclude_base), config, cwd, started)


def _unsuppressed(found: list[Diagnostic], loaded: Loaded, config: Config) -> list[Diagnostic]:
    """The findings no suppression comment or per-file-ignores entry silences, with the
    suppressions' own findings (SC001, SC002) as far as they are selected. Applied here, once,
    after every checker, so that every reporter sees the final list; never memoised (it
    depends on the comments, which a file's parse carries)."""
    from skillcheck import suppress

    def judged(code: str) -> bool:  # the codes this run could emit: no probe codes
        return not code.startswith("SC4") and selected(code, config.select, config.ignore)

    kept, own, _ = suppress.apply(found, loaded.skills, loaded.docs, config, loaded.base, judged)
    return kept + [d for d in own if selected(d.code, config.select, config.ignore)]


def check_loaded(loaded: Loaded, config: Config, cwd: Path, started: float | None = None) -> Result:
    """Run every offline rule on skills already loaded (``run`` is ``load_skills`` then this)."""
    if started is None:
        started = time.perf_counter()
    load_builtin_rules()
    skills, files = loaded.skills, loaded.files
    diagnostics = list(loaded.problems)
    for s in skills:
        diagnostics.extend(_in_focus(s, s.problems))
    diagnostics.extend(_check_all(loaded, config, cwd))
    diagnostics = [
        d
        for d in diagnostics
        if d.code == INTERNAL_ERROR or selected(d.code, config.select, config.ignore)
    ]
    diagnostics = _unsuppressed(diagnostics, loaded, config)
    diagnostics = sorted(
        set(diagnostics), key=lambda d: (d.path, d.line, d.column, d.code, d.message)
    )
    return Result(diagnostics, len(skills), files, time.perf_counter() - started)
