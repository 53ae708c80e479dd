"""SC62x: the engine flag index, ``data/engine-flags/<engine>.tsv``.

The index has one row per option of the pinned engine release (generated from the option
manifest by ``python -m tools.manifests index``) plus rows for options removed in the tracked
releases. Two columns are written by hand: ``meaning`` and ``covered_by``, the pack page section
that explains the option (``references/page.md#anchor``) or ``out-of-scope: REASON``. These
rules check that the index agrees with the manifest that skillcheck ships, and that every
``covered_by`` lands on a section that names the option.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillcheck.context import Context
from skillcheck.diagnostics import Diagnostic
from skillcheck.engines.flagindex import COLUMNS, INDEX_FILES, option_cells
from skillcheck.registry import checker, declare

INDEX_DIR = "data/engine-flags/"
ENGINE_FILES = {name: engine for engine, name in INDEX_FILES.items()}
OUT_OF_SCOPE = re.compile(r"out-of-scope: \S")
PAGE_ANCHOR = re.compile(r"(?P<page>[^#\s]+\.md)#(?P<anchor>[^#\s]+)")
REGENERATE = "regenerate the index: python -m tools.manifests index {engine}"

declare(
    "SC620",
    "flag-index-missing-row",
    "error",
    "An option of the pinned engine has no row in `data/engine-flags/<engine>.tsv` (one finding a file).",
)
declare(
    "SC621",
    "flag-index-unknown-row",
    "error",
    "A flag-index row names an option the pinned engine does not have and does not mark it removed.",
)
declare(
    "SC622",
    "flag-index-stale",
    "error",
    "A generated column of the flag index disagrees with the pinned manifest.",
)
declare(
    "SC623",
    "flag-index-unclassified",
    "error",
    "A flag-index row has neither a covering page section nor `out-of-scope: REASON`.",
)
declare("SC624", "flag-index-no-meaning", "warning", "A flag-index row has no one-line meaning.")
declare(
    "SC625",
    "flag-index-bad-cover",
    "error",
    "A `covered_by` page or heading does not exist, or that section does not name the option.",
)
declare(
    "SC626",
    "flag-index-malformed",
    "error",
    "A flag-index file is not the documented tab-separated table, or names no known engine.",
)


def _section_text(text: str, anchor: str, slugs: tuple[tuple[str, int, int], ...]) -> str | None:
    """The lines of the section whose heading has ``anchor``, up to the next heading of the
    same or a higher level; None when no heading has it."""
    lines = text.splitlines()
    for i, (slug, level, line) in enumerate(slugs):
        if slug != anchor:
            continue
        end = len(lines)
        for _slug, other_level, other_line in slugs[i + 1 :]:
            if other_level <= level:
                end = other_line - 1
                break
        return "\n".join(lines[line - 1 : end])
    return None


def _names(row: dict[str, str]) -> list[str]:
    aliases = [a.strip() for a in row.get("aliases", "").split(",") if a.strip()]
    return [row["option"], *aliases]


def _mentions(section: str, names: list[str]) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", section) for name in names)


def _check_cover(
    ctx: Context, rel: str, line: int, column: int, row: dict[str, str]
) -> Iterator[Diagnostic]:
    cover = row["covered_by"].strip()
    if OUT_OF_SCOPE.match(cover):
        return
    m = PAGE_ANCHOR.fullmatch(cover)
    if m is None:
        yield ctx.diag(
            rel,
            line,
            column,
            "SC623",
            f"{row['option']}: covered_by is {cover!r}",
            "write the section that explains it (references/page.md#anchor) "
            "or 'out-of-scope: REASON'",
        )
        return
    page, anchor = m["page"], m["anchor"]
    doc = ctx.docs.get(page)
    if doc is None:
        yield ctx.diag(
            rel, line, column, "SC625", f"{row['option']}: covered_by page {page} does not exist"
        )
        return
    slugs = tuple((h.slug, h.level, h.line) for h in doc.headings)
    try:
        text = (ctx.skill.root / page).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return  # the page's own problem is reported by SC220/SC221
    section = _section_text(text, anchor, slugs)
    if section is None:
        yield ctx.diag(
            rel, line, column, "SC625", f"{row['option']}: {page} has no heading #{anchor}"
        )
    elif not _mentions(section, _names(row)):
        yield ctx.diag(
            rel,
            line,
            column,
            "SC625",
            f"{row['option']}: section {page}#{anchor} does not name the option",
            "point covered_by at the section that explains it, or name it there",
        )


def _read(
    ctx: Context, rel: str
) -> tuple[list[tuple[int, dict[str, str]]] | None, list[Diagnostic]]:
    """The rows with their line numbers (None when the file cannot be read as the index)."""
    try:
        text = (ctx.skill.root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [ctx.diag(rel, 1, 1, "SC626", f"cannot read the flag index: {exc}")]
    lines = text.splitlines()
    header = tuple(lines[0].split("\t")) if lines else ()
    if header != COLUMNS:
        return None, [
            ctx.diag(
                rel,
                1,
                1,
                "SC626",
                "the header is not the documented columns",
                "columns: " + ", ".join(COLUMNS),
            )
        ]
    rows: list[tuple[int, dict[str, str]]] = []
    problems: list[Diagnostic] = []
    for n, raw in enumerate(lines[1:], start=2):
        cells = raw.split("\t")
        if len(cells) != len(COLUMNS):
            problems.append(
                ctx.diag(
                    rel,
                    n,
                    1,
                    "SC626",
                    f"row has {len(cells)} cells, not {len(COLUMNS)}",
                    "cells are separated by one tab and hold no tab",
                )
            )
            continue
        rows.append((n, dict(zip(COLUMNS, cells, strict=True))))
    return rows, problems


def _manifest_cells(engine: str, pinned: str | None) -> dict[str, dict[str, str]] | None:
    """Option name -> the cells the pinned manifest decides (config keys: no cells)."""
    from skillcheck.engines import ManifestError, load_manifest
    from skillcheck.engines.pins import match_version

    version = match_version(engine, pinned) if pinned else None
    try:
        manifest = load_manifest(engine, version)
    except (ManifestError, OSError, ValueError, KeyError):
        return None
    cells: dict[str, dict[str, str]] = {name: {} for name in manifest.config_keys or {}}
    for opt in sorted(manifest.options, key=lambda o: (o.name, o.commands or ())):
        cells.setdefault(opt.name, option_cells(opt))
    return cells


def _stale(row: dict[str, str], want: dict[str, str]) -> list[str]:
    """The generated columns of a row that differ from the manifest's."""
    out = []
    for column, value in want.items():
        have = row[column]
        if column == "status":
            have = have.partition(" -> ")[0]
        if have != value:
            out.append(f"{column} is {have!r}, the manifest says {value!r}")
    return out


def _cover_column(raw_line: str) -> int:
    return raw_line.rfind("\t") + 2


@checker("SC62")
def check_flag_index(ctx: Context) -> Iterator[Diagnostic]:
    for rel in sorted(f for f in ctx.skill.files if f.startswith(INDEX_DIR)):
        name = rel[len(INDEX_DIR) :]
        if "/" in name or not name.endswith(".tsv"):
            continue
        engine = ENGINE_FILES.get(name)
        if engine is None:
            yield ctx.diag(
                rel,
                1,
                1,
                "SC626",
                f"{name} names no engine skillcheck knows",
                "name the file " + ", ".join(sorted(ENGINE_FILES)),
            )
            continue
        rows, problems = _read(ctx, rel)
        yield from problems
        if rows is None:
            continue
        known = _manifest_cells(engine, ctx.config.pins().get(engine))
        seen: set[str] = set()
        lines = (ctx.skill.root / rel).read_text(encoding="utf-8").splitlines()
        for line, row in rows:
            option = row["option"]
            seen.add(option)
            if (
                known is not None
                and option not in known
                and not row["status"].startswith("removed")
            ):
                yield ctx.diag(
                    rel,
                    line,
                    1,
                    "SC621",
                    f"{option} is not an option of the pinned {engine}",
                    REGENERATE.format(engine=engine),
                )
            elif known is not None and option in known:
                for problem in _stale(row, known[option]):
                    yield ctx.diag(
                        rel,
                        line,
                        1,
                        "SC622",
                        f"{option}: {problem}",
                        REGENERATE.format(engine=engine),
                    )
            if not row["meaning"].strip():
                yield ctx.diag(rel, line, 1, "SC624", f"{option} has no meaning")
            if not row["covered_by"].strip():
                yield ctx.diag(
                    rel,
                    line,
                    _cover_column(lines[line - 1]),
                    "SC623",
                    f"{option} is neither covered by a page nor classified out of scope",
                    "add references/page.md#anchor or 'out-of-scope: REASON'",
                )
            else:
                yield from _check_cover(ctx, rel, line, _cover_column(lines[line - 1]), row)
        missing = sorted(set(known or {}) - seen)
        if missing:
            shown = ", ".join(missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            yield ctx.diag(
                rel,
                1,
                1,
                "SC620",
                f"{len(missing)} options of the pinned {engine} have no row: {shown}{more}",
                REGENERATE.format(engine=engine),
            )
