"""Reachability from SKILL.md (SC208, SC209): which files the skill's text reaches, and how
deep.

A page reaches a file when it links it, names its pack path in code, or mentions it anywhere
in its text (:class:`Mentions`): a path from the page's folder or the skill root, a path behind
a placeholder for the skill folder (``{baseDir}/``, see
:data:`skillcheck.mentions.SKILL_DIR_PREFIXES`), or a bare file name that sits next to the page
or is the only file of that name in the skill. Client metadata files (YAML and JSON files in
the skill's top folder and in ``agents/``, such as ``agents/openai.yaml``) are read by the
client, as SKILL.md is, and reach the files their string values name.
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from skillcheck.context import Context
from skillcheck.diagnostics import Diagnostic, Severity
from skillcheck.linktargets import join
from skillcheck.mentions import strip_prefix

PACK_DIRS = ("references", "assets", "data", "scripts")
# client metadata files, read by an agent client beside SKILL.md: YAML and JSON files in the
# skill's top folder and in agents/ (agents/openai.yaml)
METADATA_FOLDERS = ("", "agents/")
METADATA_SUFFIXES = (".yaml", ".yml", ".json")
METADATA_MAX_BYTES = 100_000

Reach = Callable[[str, str], None]


def is_md(rel: str) -> bool:
    return rel.lower().endswith((".md", ".markdown"))


def _is_script(rel: str) -> bool:
    return rel.startswith("scripts/") and not is_md(rel)


@dataclass
class Mentions:
    """Resolves the words of a page that may name a file (``ParsedDoc.mentions``). A folder
    counts below the top level only: ``assets/fonts/`` reaches the files in it, a bare
    ``assets/`` (a kind of file, not a place) reaches none."""

    ctx: Context
    by_name: dict[str, list[str]] = field(default_factory=dict)
    by_lower: dict[str, list[str]] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)
    # (folder of the page, word) -> what the word names: the same word in the same folder
    # names the same files, so it is resolved once
    _done: dict[tuple[str, str], tuple[list[str], str | None, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.files = set(self.ctx.skill.files)
        self.skill_name = self.ctx.skill.root.name
        for f in self.ctx.skill.files:
            base = f.rsplit("/", 1)[-1]
            self.by_name.setdefault(base, []).append(f)
            self.by_lower.setdefault(base.lower(), []).append(f)

    def resolve(self, rel: str, text: str) -> tuple[list[str], str | None, str]:
        """(files or folders the word names, the on-disk spelling when only its case differs,
        the path as read). Nothing named is ([], None, path)."""
        key = (posixpath.dirname(rel), text)
        got = self._done.get(key)
        if got is None:
            got = self._done[key] = self._resolve(key[0], text)
        return got

    def _resolve(self, folder: str, text: str) -> tuple[list[str], str | None, str]:
        stripped = strip_prefix(text, self.skill_name)
        path = (stripped[1] if stripped else text).split("#", 1)[0]
        if not path.rstrip("/"):
            return [], None, path
        bases = [""] if stripped else [folder, ""]
        if "*" in path:
            return self._glob(bases, path), None, path
        case_fix = None
        for base in bases:
            joined = join(base, path.rstrip("/"))
            if not joined:
                continue
            ok, fix = self.ctx.lookup(joined)
            if ok and (joined in self.files or "/" in joined):  # not a bare "assets/"
                return [joined], None, path
            case_fix = case_fix or fix
        if "/" in path or case_fix:
            return [], case_fix, path
        same = self.by_name.get(path, [])
        if len(same) == 1:
            return same, None, path
        folded = self.by_lower.get(path.lower(), [])
        return [], (folded[0] if len(folded) == 1 and not same else None), path

    def _glob(self, bases: list[str], path: str) -> list[str]:
        files = self.ctx.skill.files
        if "/" not in path:  # a bare pattern: file names anywhere in the skill
            return [f for f in files if fnmatch.fnmatchcase(f.rsplit("/", 1)[-1], path)]
        for base in bases:
            joined = join(base, path.rstrip("/"))
            if joined:
                hits = [f for f in files if fnmatch.fnmatchcase(f, joined)]
                if hits:
                    return hits
        return []


def metadata_files(ctx: Context) -> list[str]:
    return [
        f
        for f in ctx.skill.files
        if f.endswith(METADATA_SUFFIXES) and f[: f.rfind("/") + 1] in METADATA_FOLDERS
    ]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def metadata_targets(ctx: Context, rel: str) -> list[str]:
    """The files a client metadata file names: its string values that are paths of files in
    the skill (from the skill root, or from the metadata file's folder). A file that cannot be
    read or parsed names none (other rules judge it)."""
    from skillcheck.safeyaml import load_yaml_stream

    try:
        raw = (ctx.skill.root / rel).read_bytes()[:METADATA_MAX_BYTES]
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    values: list[Any]
    if rel.endswith(".json"):
        try:
            values = [json.loads(text)]
        except (ValueError, RecursionError):
            return []
    else:
        values, _ = load_yaml_stream(text)
    out = []
    for s in _strings(values):
        s = s.strip()
        if not s or len(s) > 300 or s.startswith(("/", "#")) or "://" in s:
            continue
        stripped = strip_prefix(s, ctx.skill.root.name)
        for base in ("",) if stripped else ("", posixpath.dirname(rel)):
            joined = join(base, stripped[1] if stripped else s)
            if joined and ctx.lookup(joined)[0] and joined in ctx.skill.files:
                out.append(joined)
                break
    return sorted(set(out))


def depths(starts: list[str], edges: dict[str, set[str]], files: list[str]) -> dict[str, int]:
    """Each reachable file's depth: the fewest links or mentions on a path from one of
    ``starts`` (SKILL.md and the client metadata files, at depth 0).
    A script brings the files of its own folder (its modules, its schemas) at its own depth,
    so an edge costs 0 or 1 and the walk is a 0-1 breadth-first search: a file whose depth
    drops is visited again, and the depths found are the shortest whatever order the edges
    come in (they are visited sorted all the same)."""
    by_folder: dict[str, list[str]] = {}
    depth: dict[str, int] = {s: 0 for s in starts}
    queue: deque[str] = deque(sorted(starts))
    while queue:
        cur = queue.popleft()
        steps = [(nxt, 1) for nxt in sorted(edges.get(cur, ()))]
        if _is_script(cur):
            folder = cur.rsplit("/", 1)[0] + "/"
            if folder not in by_folder:
                by_folder[folder] = sorted(f for f in files if f.startswith(folder))
            steps = [(nxt, 0) for nxt in by_folder[folder]] + steps
        for nxt, cost in steps:
            d = depth[cur] + cost
            if nxt not in depth or d < depth[nxt]:
                depth[nxt] = d
                if cost:
                    queue.append(nxt)
                else:
                    queue.appendleft(nxt)
    return depth


def _reached_through(f: str, edges: dict[str, set[str]], depth: dict[str, int]) -> str:
    """The file a deep file is reached through: the first page (by name) one level up that
    names it, else a script at its depth whose folder holds it (one a page names first)."""

    def named_by(g: str) -> list[str]:
        return sorted(src for src, dst in edges.items() if g in dst and depth.get(src) == d - 1)

    d = depth[f]
    pages = named_by(f)
    if pages:
        return pages[0]
    scripts = sorted(
        (not named_by(s), s)
        for s, sd in depth.items()
        if sd == d and s != f and _is_script(s) and f.startswith(s.rsplit("/", 1)[0] + "/")
    )
    return scripts[0][1] if scripts else "another file"


def _unreachable_roots(
    lost: list[str], edges: dict[str, set[str]], files: list[str]
) -> list[tuple[str, int]]:
    """The unreachable files to report, each with how many other unreachable files only it
    (or another root) leads to: those that no other unreachable file names, then, for a
    cycle that none of them leads into, its first file by name."""
    lost_set = set(lost)
    below = {f: {g for g in depths([f], edges, files) if g in lost_set and g != f} for f in lost}
    named = {g for f in lost for g in below[f]}
    roots = [f for f in lost if f not in named]
    covered: set[str] = set(roots)
    for r in roots:
        covered |= below[r]
    for f in lost:  # cycles no root leads into, taken in name order
        if f not in covered:
            roots.append(f)
            covered |= {f} | below[f]
    return sorted((r, len(below[r])) for r in roots)


def orphans(ctx: Context, edges: dict[str, set[str]], starts: list[str]) -> Iterator[Diagnostic]:
    """Files under the pack folders that SKILL.md does not reach (SC208: the unreachable
    roots, each with the count of the files behind it), or reaches only two or more links
    away (SC209)."""
    start = ctx.skill.skill_md
    if start is None or start not in ctx.docs:
        return
    files = ctx.skill.files
    depth = depths([start, *starts], edges, files)
    lost: list[str] = []
    for f in files:
        top = f.split("/", 1)[0]
        if top not in PACK_DIRS or "/" not in f or f.endswith(".gitkeep"):
            continue
        d = depth.get(f)
        if d is None:
            lost.append(f)
        elif d >= 2:
            yield ctx.diag(
                f,
                0,
                0,
                "SC209",
                f"{f} is reached only through {_reached_through(f, edges, depth)}",
                f"link it from {start} too: keep references one level deep",
            )
    severity = Severity(ctx.config.orphans)
    for f, n in _unreachable_roots(lost, edges, files):
        what = f"{f} and the {n} file{'s' if n != 1 else ''} it links are" if n else f"{f} is"
        found = ctx.diag(
            f,
            0,
            0,
            "SC208",
            f"{what} not reachable from {start}",
            f"link it from {start} or from a page {start} links",
        )
        yield found if found.severity == severity else replace(found, severity=severity)
