"""SC2xx: local links, heading anchors, pack paths in code, orphans."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from skillcheck.context import Context
from skillcheck.diagnostics import Diagnostic
from skillcheck.document import ParsedDoc
from skillcheck.hints import closest_name, closest_path
from skillcheck.linktargets import is_absolute, is_external, join, split_target
from skillcheck.mentions import strip_prefix
from skillcheck.reach import Mentions, metadata_files, metadata_targets, orphans
from skillcheck.registry import checker, declare

TEXT_FENCES = {"text", "txt", "plain", "plaintext", ""}
_PACK_PATH = re.compile(
    r"(?<![\w./=?&:@~$%-])((?:references|assets|data|scripts)/[\w.*/-]*[\w*/])(#[\w-]+)?"
)
_SKILL_COMMAND = re.compile(r"^/[\w.-]+:[\w.-]+$")  # /plugin:skill, a Claude Code command
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
    "warning",
    'A file under references/, assets/, data/ or scripts/ is not reachable from SKILL.md (an error with orphans = "error").',
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
declare(
    "SC212",
    "mention-case",
    "warning",
    "A file named in the text differs in case from the file on disk.",
)
declare(
    "SC213",
    "template-link",
    "warning",
    "A link or pack path in a fill-in template does not resolve.",
)
declare(
    "SC214",
    "link-root-relative",
    "warning",
    "A link in a page below the skill root resolves from the root, not from the page.",
)
declare(
    "SC215",
    "outside-skill-path",
    "warning",
    "A link or pack path names an existing file outside the skill (a sibling skill, the plugin or repository folder): it resolves only where that layout is installed.",
)

# (page, skill-relative file) pairs whose case problem a link rule reported: once is enough
CaseDone = set[tuple[str, str]]


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


_TEMPLATE_WORD = re.compile(r"(?i)\btemplate\b")


def is_template(rel: str, doc: ParsedDoc | None) -> bool:
    """A fill-in template: a Markdown file in an ``assets``, ``templates`` or ``template``
    folder whose name says "template", whose top-level heading calls it a template, or whose
    text has ``{{placeholder}}`` or ``[TODO`` fields. Its links may be meant for where the
    filled-in copy goes."""
    folders = rel.lower().split("/")[:-1]
    if doc is None or not {"assets", "templates", "template"} & set(folders):
        return False
    return (
        "template" in rel.rsplit("/", 1)[-1].lower()
        or doc.fill_in
        or any(h.level == 1 and _TEMPLATE_WORD.search(h.text) for h in doc.headings)
    )


def _missing(ctx: Context, rel: str, line: int, col: int, code: str) -> str | None:
    """The code for a path that does not resolve: None when the text presents it as an
    example (pack paths only, SC206 and SC207), SC213 in a fill-in template, else ``code``."""
    doc = ctx.docs.get(rel)
    if code != "SC201" and doc is not None and doc.is_example(line, col):
        return None
    return "SC213" if is_template(rel, doc) else code


@checker("SC2")
def check_links(ctx: Context) -> Iterator[Diagnostic]:
    skill = ctx.skill
    edges: dict[str, set[str]] = {rel: set() for rel in ctx.docs}
    files = set(skill.files)
    case_done: CaseDone = set()

    def reach(rel: str, target: str) -> None:
        if target in files or target == "":
            edges.setdefault(rel, set()).add(target)
        else:  # a directory: reaches every file below it
            prefix = target.rstrip("/") + "/"
            edges.setdefault(rel, set()).update(f for f in files if f.startswith(prefix))

    for rel, doc in ctx.docs.items():
        yield from _undefined_references(ctx, rel, doc)
        targets = [(lk.target, lk.line, lk.column) for lk in doc.links if lk.kind != "reference"]
        targets += [(d.target, d.line, d.column) for d in doc.definitions]
        for target, line, col in targets:
            yield from _check_target(ctx, rel, target.strip(), line, col, reach, case_done)
        yield from _code_paths(ctx, rel, doc, reach, case_done)
    yield from _mentions(ctx, reach, case_done)
    starts = metadata_files(ctx)
    for meta in starts:
        for target in metadata_targets(ctx, meta):
            reach(meta, target)
    yield from orphans(ctx, edges, starts)


def _mentions(
    ctx: Context, reach: Callable[[str, str], None], case_done: CaseDone
) -> Iterator[Diagnostic]:
    """Files each page names in its text (see :class:`skillcheck.reach.Mentions`) are reached;
    a name that differs from its file only in case is reported once a page (SC212), at its
    first mention, and reaches the file all the same."""
    names = Mentions(ctx)
    for rel in sorted(ctx.docs):
        doc = ctx.docs[rel]
        for text, line, col in doc.mentions:
            targets, case_fix, path = names.resolve(rel, text)
            for t in targets:
                reach(rel, t)
            if case_fix is None or (rel, case_fix) in case_done or case_fix == rel:
                continue
            reach(rel, case_fix)
            if doc.is_example(line, col) or case_fix == ctx.skill.skill_md:
                continue  # "SKILL.md" names the entry point, whichever case it is saved in
            case_done.add((rel, case_fix))
            yield ctx.diag(
                rel,
                line,
                col,
                "SC212",
                f"'{path}' differs in case from the file on disk",
                f"the file is '{case_fix}': case-sensitive file systems will not find '{path}'",
            )


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
    ctx: Context,
    rel: str,
    target: str,
    line: int,
    col: int,
    reach: Callable[[str, str], None],
    case_done: CaseDone,
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
                code = "SC213" if is_template(rel, ctx.docs.get(rel)) else "SC204"
                yield ctx.diag(
                    rel, line, col, code, f"no heading or id '{frag}' in this file", hint
                )
        return
    stripped = _skill_dir_prefix(ctx, rel, path)
    if stripped is not None:  # {baseDir}/references/x.md: from the skill root
        path, col = stripped[1], col + len(stripped[0])
        resolved = join("", path)
    elif _SKILL_COMMAND.match(path):  # [other skill](/plugin:skill): an invocation, not a file
        return
    elif is_absolute(path):
        yield ctx.diag(
            rel,
            line,
            col,
            "SC203",
            f"absolute path '{path}' does not travel with the skill",
            "use a path relative to this file",
        )
        return
    else:
        resolved = ctx.resolve(rel, path)
    if resolved is None:
        outside = _outside_file(ctx, posixpath.join(posixpath.dirname(rel), path))
        if outside is not None or is_template(rel, ctx.docs.get(rel)):
            yield ctx.diag(
                rel,
                line,
                col,
                "SC213" if outside is None else "SC215",
                f"'{path}' leaves the skill folder"
                + (" for a file of the folders around it" if outside else ""),
                "a skill is installed on its own: copy what it needs into it, or name the "
                "other skill or document instead of its path",
            )
            return
        yield ctx.diag(
            rel,
            line,
            col,
            "SC203",
            f"'{path}' leaves the skill folder",
            "a skill is installed on its own: link only to files inside it",
        )
        return
    yield from _check_local_file(ctx, rel, path, frag, resolved, line, col, reach, case_done)


def _outside_file(ctx: Context, path: str) -> str | None:
    """Where a path read from the skill root but leading out of it lands, when that is an
    existing file inside the folder skillcheck was run from (a sibling skill, the plugin or
    the repository around the skill); None otherwise."""
    root = ctx.skill.root
    target = Path(posixpath.normpath(posixpath.join(root.as_posix(), path)))
    try:
        shown = target.relative_to(ctx.cwd.resolve())
    except ValueError:
        return None
    return shown.as_posix() if ctx.outside_is_file(target) else None


def _in_ancestor(ctx: Context, path: str) -> str | None:
    """A pack path that is not in the skill but exists in exactly one sibling skill, or from a
    folder above the skill (a plugin root that holds scripts/ for its skills), up to the folder
    skillcheck was run from."""
    top = ctx.cwd.resolve()
    here = ctx.skill.root.parent
    siblings = [d for d in ctx.sibling_skills() if ctx.outside_is_file(d / path)]
    if len(siblings) == 1 and (siblings[0] == top or top in siblings[0].parents):
        return posixpath.relpath((siblings[0] / path).as_posix(), ctx.skill.root.as_posix())
    while here != here.parent and (here == top or top in here.parents):
        if ctx.outside_is_file(here / path):
            return posixpath.relpath((here / path).as_posix(), ctx.skill.root.as_posix())
        if here == top:
            break
        here = here.parent
    return None


def _skill_dir_prefix(ctx: Context, rel: str, path: str) -> tuple[str, str] | None:
    """(prefix, rest) when a link's path starts with a placeholder for the skill folder
    (``{baseDir}/``) and does not name a file as written (``skills/NAME/`` may be a real
    folder)."""
    stripped = strip_prefix(path, ctx.skill.root.name)
    if stripped is None or is_absolute(path):
        return stripped
    literal = ctx.resolve(rel, path)
    return None if literal and ctx.lookup(literal)[0] else stripped


def _from_root(ctx: Context, rel: str, path: str) -> str | None:
    """The file a link of a page below the root names when read from the skill root (agents
    often resolve that way), or None."""
    if "/" not in rel or path.startswith(("../", "/")):
        return None
    target = join("", path.split("#", 1)[0])
    return target if target and ctx.lookup(target)[0] else None


def _check_local_file(
    ctx: Context,
    rel: str,
    path: str,
    frag: str | None,
    resolved: str,
    line: int,
    col: int,
    reach: Callable[[str, str], None],
    case_done: CaseDone,
) -> Iterator[Diagnostic]:
    """A link's file inside the skill: exists with that case (SC201, SC202), is no symlink
    out (SC203), and has the heading its fragment names (SC205). Records the reach."""
    ok, case_fix = ctx.lookup(resolved)
    if not ok:
        if case_fix is not None:
            case_done.add((rel, case_fix))
            reach(rel, case_fix)
            fixed = posixpath.relpath(case_fix, posixpath.dirname(rel) or ".")
            yield ctx.diag(
                rel,
                line,
                col,
                "SC202",
                f"'{path}' differs in case from the file on disk",
                f"write '{fixed}': case-sensitive file systems and GitHub will not find it",
            )
        elif (from_root := _from_root(ctx, rel, path)) is not None:
            reach(rel, from_root)
            fixed = posixpath.relpath(from_root, posixpath.dirname(rel))
            yield ctx.diag(
                rel,
                line,
                col,
                "SC214",
                f"'{path}' is written from the skill root; from this page it does not exist",
                f"write '{fixed}': GitHub and Markdown viewers resolve links from the page",
            )
        else:
            code = _missing(ctx, rel, line, col, "SC201")
            if code is not None:
                yield ctx.diag(
                    rel, line, col, code, f"'{path}' does not exist", _suggest(ctx, resolved)
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
    ctx: Context, rel: str, doc: ParsedDoc, reach: Callable[[str, str], None], case_done: CaseDone
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
                        case_done,
                    )
        else:  # commands in other blocks (python scripts/x.py) still reach files
            for m in _PACK_PATH.finditer(fence.content):
                _mention(ctx, rel, m.group(1), reach)
            for m in _MODULE.finditer(fence.content):
                _mention(ctx, rel, m.group(1).replace(".", "/") + ".py", reach)
    for span in doc.code_spans:
        text, col = span.text.strip(), span.column
        quoted = text.strip("'\"")
        stripped = strip_prefix(quoted, ctx.skill.root.name)
        if stripped is not None and _SPAN_PATH.match(stripped[1]):  # "{baseDir}/scripts/x.py"
            col += text.find(quoted) + len(stripped[0])
            text = stripped[1]
        if _SPAN_PATH.match(text):
            p, _, frag = text.partition("#")
            yield from _check_pack_path(
                ctx, rel, p, "#" + frag if frag else None, span.line, col, "SC207", reach, case_done
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
    case_done: CaseDone,
) -> Iterator[Diagnostic]:
    assert callable(reach)
    path = path.rstrip(".,:;")
    where = "text block" if code == "SC206" else "code span"
    if "*" in path:
        matches = [f for f in ctx.skill.files if fnmatch.fnmatchcase(f, path)]
        missing = _missing(ctx, rel, line, col, code) if not matches else None
        if missing is not None:
            yield ctx.diag(
                rel,
                line,
                col,
                missing,
                f"'{path}' in a {where} matches no file",
                "fix the pattern or add the files",
            )
        for f in matches:
            reach(rel, f)
        return
    clean = path.rstrip("/")
    ok, case_fix = ctx.lookup(clean)
    if not ok:
        if case_fix:
            case_done.add((rel, case_fix))
            reach(rel, case_fix)
        missing = code if case_fix else _missing(ctx, rel, line, col, code)
        above = None if case_fix or missing is None else _in_ancestor(ctx, clean)
        if above is not None:
            yield ctx.diag(
                rel,
                line,
                col,
                "SC215",
                f"'{path}' in a {where} is not in the skill; it exists as {above}",
                "a skill is installed on its own: copy the file into the skill, or say which "
                "folder the path is read from",
            )
            return
        hint = (
            f"write '{case_fix}'" if case_fix else _suggest(ctx, clean)
        ) + " (pack paths are read from the skill root)"
        if missing is not None:
            yield ctx.diag(rel, line, col, missing, f"'{path}' in a {where} does not exist", hint)
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
