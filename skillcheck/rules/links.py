"""SC2xx: local links, heading anchors, pack paths in code, orphans."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections import deque
from collections.abc import Callable, Iterator

from skillcheck.context import Context
from skillcheck.diagnostics import Diagnostic
from skillcheck.document import ParsedDoc
from skillcheck.hints import closest_name, closest_path
from skillcheck.linktargets import is_absolute, is_external, split_target
from skillcheck.registry import checker, declare

PACK_DIRS = ("references", "assets", "data", "scripts")
TEXT_FENCES = {"text", "txt", "plain", "plaintext", ""}
_PACK_PATH = re.compile(
    r"(?<![\w./-])((?:references|assets|data|scripts)/[\w.*/-]*[\w*/])(#[\w-]+)?"
)
_MODULE = re.compile(r"-m\s+(scripts(?:\.\w+)+)")
_SPAN_PATH = re.compile(r"^(?:references|assets|data|scripts)/[^\s<>{}$`]+$")

declare("SC201", "broken-link", "error", "A relative link points at a file that does not exist.")
declare("SC202", "link-case", "error", "A link's case differs from the file on disk.")
declare(
    "SC203", "link-escapes", "error", "A link leaves the skill folder ('..', absolute, or symlink)."
)
declare(
    "SC204", "missing-anchor", "error", "A '#fragment' names no heading or id in the same file."
)
declare(
    "SC205",
    "missing-anchor-other",
    "error",
    "'file.md#fragment' names no heading or id in that file.",
)
declare(
    "SC206",
    "text-block-path",
    "error",
    "A pack path in a text block (the decision tree) does not resolve.",
)
declare("SC207", "code-span-path", "error", "A pack path in an inline code span does not resolve.")
declare(
    "SC208",
    "orphan-file",
    "error",
    "A file under references/, assets/, data/ or scripts/ is not reachable from SKILL.md.",
)
declare(
    "SC209",
    "deep-reference",
    "warning",
    "A file is reachable only through another file, not from SKILL.md directly.",
)
declare(
    "SC210",
    "undefined-reference",
    "error",
    "A reference-style link uses a label with no definition.",
)
declare(
    "SC211",
    "undefined-footnote",
    "warning",
    "A footnote reference has no footnote definition in the same page.",
)


def _anchor_problem(ctx: Context, target_rel: str, frag: str) -> str | None:
    anchors = ctx.anchors(target_rel)
    if anchors is None or not frag:
        return None
    if frag in anchors:
        return None
    lowered = {a.lower(): a for a in anchors}
    if frag.lower() in lowered:
        return f"did you mean '#{lowered[frag.lower()]}'? anchors are case-sensitive"
    close = closest_name(frag, anchors, cutoff=0.6)
    return (
        f"did you mean '#{close}'?"
        if close
        else "headings in that file: "
        + ", ".join(sorted(anchors)[:5])
        + (" ..." if len(anchors) > 5 else "")
    )


def _is_md(rel: str) -> bool:
    return rel.lower().endswith((".md", ".markdown"))


@checker("SC2")
def check_links(ctx: Context) -> Iterator[Diagnostic]:
    skill = ctx.skill
    edges: dict[str, set[str]] = {rel: set() for rel in ctx.docs}
    files = set(skill.files)

    def reach(rel: str, target: str) -> None:
        if target in files or target == "":
            edges[rel].add(target)
        else:  # a directory: reaches every file below it
            prefix = target.rstrip("/") + "/"
            edges[rel].update(f for f in files if f.startswith(prefix))

    for rel, doc in ctx.docs.items():
        yield from _undefined_references(ctx, rel, doc)
        targets = [(lk.target, lk.line, lk.column) for lk in doc.links if lk.kind != "reference"]
        targets += [(d.target, d.line, d.column) for d in doc.definitions]
        for target, line, col in targets:
            yield from _check_target(ctx, rel, target.strip(), line, col, reach)
        yield from _code_paths(ctx, rel, doc, reach)

    yield from _orphans(ctx, edges)


def _undefined_references(ctx: Context, rel: str, doc: ParsedDoc) -> Iterator[Diagnostic]:
    """Reference-style links whose label has no definition in the page (SC210), and
    footnotes without one (SC211)."""
    defs = {d.label: d for d in doc.definitions}
    for lk in doc.links:
        if lk.kind == "reference" and lk.label not in defs:
            yield ctx.diag(
                rel,
                lk.line,
                lk.column,
                "SC210",
                f"reference link label '[{lk.label}]' has no definition",
                f"add a line '[{lk.label}]: URL' (e.g. in the Sources section)",
            )
    notes = {fn.label for fn in doc.footnotes if fn.kind == "footnote-definition"}
    for fn in doc.footnotes:
        if fn.kind == "footnote" and fn.label not in notes:
            yield ctx.diag(
                rel,
                fn.line,
                fn.column,
                "SC211",
                f"footnote '[^{fn.target}]' has no definition",
                f"add a line '[^{fn.target}]: text' (without one, GitHub shows '[^{fn.target}]' "
                "as plain text)",
            )


def _check_target(
    ctx: Context, rel: str, target: str, line: int, col: int, reach: Callable[[str, str], None]
) -> Iterator[Diagnostic]:
    """One local link target: a fragment of this page (SC204), or a path that stays inside
    the skill (SC203) and exists (see ``_check_local_file``)."""
    if not target or is_external(target):
        return
    path, frag = split_target(target)
    if not path:
        if frag is not None:
            hint = _anchor_problem(ctx, rel, frag)
            if hint is not None:
                yield ctx.diag(
                    rel, line, col, "SC204", f"no heading or id '{frag}' in this file", hint
                )
        return
    if is_absolute(path):
        yield ctx.diag(
            rel,
            line,
            col,
            "SC203",
            f"absolute path '{path}' does not travel with the skill",
            "use a path relative to this file",
        )
        return
    resolved = ctx.resolve(rel, path)
    if resolved is None:
        yield ctx.diag(
            rel,
            line,
            col,
            "SC203",
            f"'{path}' leaves the skill folder",
            "a skill is installed on its own: link only to files inside it",
        )
        return
    yield from _check_local_file(ctx, rel, path, frag, resolved, line, col, reach)


def _check_local_file(
    ctx: Context,
    rel: str,
    path: str,
    frag: str | None,
    resolved: str,
    line: int,
    col: int,
    reach: Callable[[str, str], None],
) -> Iterator[Diagnostic]:
    """A link's file inside the skill: exists with that case (SC201, SC202), is no symlink
    out (SC203), and has the heading its fragment names (SC205). Records the reach."""
    ok, case_fix = ctx.lookup(resolved)
    if not ok:
        if case_fix is not None:
            fixed = posixpath.relpath(case_fix, posixpath.dirname(rel) or ".")
            yield ctx.diag(
                rel,
                line,
                col,
                "SC202",
                f"'{path}' differs in case from the file on disk",
                f"write '{fixed}': case-sensitive file systems and GitHub will not find it",
            )
        else:
            yield ctx.diag(
                rel, line, col, "SC201", f"'{path}' does not exist", _suggest(ctx, resolved)
            )
        return
    if ctx.escapes_via_symlink(resolved):
        yield ctx.diag(
            rel,
            line,
            col,
            "SC203",
            f"'{path}' is a symlink that leaves the skill folder",
            "copy the file into the skill",
        )
        return
    reach(rel, resolved)
    if frag and _is_md(resolved):
        hint = _anchor_problem(ctx, resolved, frag)
        if hint is not None:
            yield ctx.diag(
                rel, line, col, "SC205", f"no heading or id '{frag}' in {resolved}", hint
            )


def _code_paths(
    ctx: Context, rel: str, doc: ParsedDoc, reach: Callable[[str, str], None]
) -> Iterator[Diagnostic]:
    """Pack paths written in text blocks and inline code, relative to the skill root."""
    for fence in doc.fences:
        if fence.lang in TEXT_FENCES:
            for i, text_line in enumerate(fence.content.split("\n")):
                for m in _PACK_PATH.finditer(text_line):
                    yield from _check_pack_path(
                        ctx,
                        rel,
                        m.group(1),
                        m.group(2),
                        fence.body_line + i,
                        m.start() + 1,
                        "SC206",
                        reach,
                    )
        else:  # commands in other blocks (python scripts/x.py) still reach files
            for m in _PACK_PATH.finditer(fence.content):
                _mention(ctx, rel, m.group(1), reach)
            for m in _MODULE.finditer(fence.content):
                _mention(ctx, rel, m.group(1).replace(".", "/") + ".py", reach)
    for span in doc.code_spans:
        text = span.text.strip()
        if _SPAN_PATH.match(text):
            p, _, frag = text.partition("#")
            yield from _check_pack_path(
                ctx, rel, p, "#" + frag if frag else None, span.line, span.column, "SC207", reach
            )
        else:
            for m in _PACK_PATH.finditer(text):
                _mention(ctx, rel, m.group(1), reach)


def _suggest(ctx: Context, resolved: str) -> str:
    close = closest_path(ctx.skill.files, resolved, cutoff=0.7)
    return (
        f"did you mean '{close}' (from the skill root)?"
        if close
        else "check the path: it is resolved relative to the file that holds the link"
    )


def _check_pack_path(
    ctx: Context,
    rel: str,
    path: str,
    frag: str | None,
    line: int,
    col: int,
    code: str,
    reach: object,
) -> Iterator[Diagnostic]:
    assert callable(reach)
    path = path.rstrip(".,:;")
    where = "text block" if code == "SC206" else "code span"
    if "*" in path:
        matches = [f for f in ctx.skill.files if fnmatch.fnmatchcase(f, path)]
        if not matches:
            yield ctx.diag(
                rel,
                line,
                col,
                code,
                f"'{path}' in a {where} matches no file",
                "fix the pattern or add the files",
            )
        for f in matches:
            reach(rel, f)
        return
    clean = path.rstrip("/")
    ok, case_fix = ctx.lookup(clean)
    if not ok:
        hint = (
            f"write '{case_fix}'" if case_fix else _suggest(ctx, clean)
        ) + " (pack paths are read from the skill root)"
        yield ctx.diag(rel, line, col, code, f"'{path}' in a {where} does not exist", hint)
        return
    reach(rel, clean)
    if frag and _is_md(clean):
        anchor_hint = _anchor_problem(ctx, clean, frag[1:])
        if anchor_hint is not None:
            yield ctx.diag(rel, line, col, code, f"no heading '{frag[1:]}' in {clean}", anchor_hint)


def _mention(ctx: Context, rel: str, path: str, reach: object) -> None:
    """A pack path named in a command or a code span: reaches it when it exists."""
    assert callable(reach)
    clean = path.rstrip(".,:;").rstrip("/")
    if "*" in clean:
        for f in ctx.skill.files:
            if fnmatch.fnmatchcase(f, clean):
                reach(rel, f)
        return
    if ctx.lookup(clean)[0]:
        reach(rel, clean)


def _is_script(rel: str) -> bool:
    return rel.startswith("scripts/") and not _is_md(rel)


def _depths(start: str, edges: dict[str, set[str]], files: list[str]) -> dict[str, int]:
    """Each reachable file's depth: the fewest links or mentions on a path from ``start``.
    A script brings the files of its own folder (its modules, its schemas) at its own depth,
    so an edge costs 0 or 1 and the walk is a 0-1 breadth-first search: a file whose depth
    drops is visited again, and the depths found are the shortest whatever order the edges
    come in (they are visited sorted all the same)."""
    by_folder: dict[str, list[str]] = {}
    depth: dict[str, int] = {start: 0}
    queue: deque[str] = deque([start])
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


def _orphans(ctx: Context, edges: dict[str, set[str]]) -> Iterator[Diagnostic]:
    """Files under the pack folders that SKILL.md does not reach (SC208), or reaches only
    two or more links away (SC209)."""
    start = ctx.skill.skill_md
    if start is None or start not in ctx.docs:
        return
    depth = _depths(start, edges, ctx.skill.files)
    for f in ctx.skill.files:
        top = f.split("/", 1)[0]
        if top not in PACK_DIRS or "/" not in f or f.endswith(".gitkeep"):
            continue
        d = depth.get(f)
        if d is None:
            yield ctx.diag(
                f,
                0,
                0,
                "SC208",
                f"{f} is not reachable from {start}",
                f"link it from {start} (or from a page {start} links), or delete it",
            )
        elif d >= 2:
            yield ctx.diag(
                f,
                0,
                0,
                "SC209",
                f"{f} is reached only through {_reached_through(f, edges, depth)}",
                f"link it from {start} too: keep references one level deep",
            )
