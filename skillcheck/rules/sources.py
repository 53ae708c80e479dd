"""SC3xx: data/sources.json and the citations that point into it.

These rules apply to a skill that has a ``data/sources.json``. The pack proper (SKILL.md and
the files under references/, assets/, data/ and scripts/) must register every external URL it
holds; a page cites a source with a reference-style link whose label is the source id and whose
definition (in the page's ``## Sources`` section) repeats the registered URL.

The data tables beside it (``data/gpus.json``, ``data/models.json``) are checked whenever they
are present and skillcheck ships their schema: JSON, schema, unique ids, and (with a registry)
that every id in an entry's ``sources`` is registered; those ids count as cited.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

from skillcheck.context import Context
from skillcheck.datatables import (
    SOURCES_REL,
    UNKNOWN_SOURCE,
    SourceRegistry,
    is_example_url,
    normalize_url,
)
from skillcheck.diagnostics import Diagnostic
from skillcheck.document import Link, ParsedDoc
from skillcheck.registry import checker, declare

PACK_DIRS = ("references/", "assets/", "data/", "scripts/")

declare(
    "SC301",
    "sources-invalid-json",
    "error",
    "data/sources.json is not valid JSON (or cannot be read).",
)
declare(
    "SC302",
    "sources-schema",
    "error",
    "An entry of data/sources.json breaks its JSON Schema (the JSON path and line are given).",
)
declare(
    "SC303", "sources-duplicate-id", "error", "Two entries share an id (or a JSON key repeats)."
)
declare("SC304", "sources-duplicate-url", "error", "Two entries share a URL (after normalising).")
declare(
    "SC305",
    "citation-unknown-id",
    "error",
    "A citation's label is not a source id in data/sources.json.",
)
declare(
    "SC306",
    "citation-url-mismatch",
    "error",
    "A citation's definition URL differs from the registered one.",
)
declare(
    "SC307",
    "url-unregistered",
    "error",
    "An external URL in the pack is not registered in data/sources.json.",
)
declare("SC308", "source-uncited", "warning", "A registered source is cited nowhere in the pack.")
declare(
    "SC309",
    "source-stale",
    "warning",
    "A source's 'checked' date is older than source-max-age-days (180).",
)
declare(
    "SC310",
    "citation-outside-sources",
    "warning",
    "A citation definition is not in the page's '## Sources' section.",
)
declare(
    "SC311",
    "data-invalid-json",
    "error",
    "A data table (data/gpus.json, data/models.json) is not valid JSON (or cannot be read).",
)
declare(
    "SC312",
    "data-schema",
    "error",
    "An entry of a data table breaks its JSON Schema (the JSON path and line are given).",
)
declare(
    "SC313",
    "data-duplicate-id",
    "error",
    "Two entries of a data table share an id (or a JSON key repeats).",
)
declare(
    "SC314",
    "data-unknown-source",
    "error",
    "A data table cites a source id that is not in data/sources.json.",
)


def _in_pack(rel: str, skill_md: str | None) -> bool:
    return rel == skill_md or rel.startswith(PACK_DIRS)


def _allowed(url: str, allow: tuple[str, ...]) -> bool:
    return is_example_url(url) or any(url.startswith(prefix) for prefix in allow)


def _external(url: str) -> bool:
    return url.startswith(("http://", "https://"))


@checker("SC3")
def check_sources(ctx: Context) -> Iterator[Diagnostic]:
    skill = ctx.skill
    tables = ctx.data.tables  # read and validated once, when the skill was loaded
    for table in tables:
        for p in table.problems:
            yield ctx.diag(table.rel, p.line, p.column, p.code, p.message, p.hint)
    reg = ctx.data.registry
    if reg is None:  # no data/sources.json
        return
    for p in reg.problems:
        yield ctx.diag(SOURCES_REL, p.line, p.column, p.code, p.message, p.hint)
    if not reg.loaded:
        return
    cited: set[str] = set()
    yield from _check_table_citations(ctx, reg, cited)
    for rel, doc in sorted(ctx.docs.items()):
        if not _in_pack(rel, skill.skill_md):
            continue
        seen: set[tuple[str, int]] = set()
        yield from _check_definitions(ctx, rel, doc, reg, cited, seen)
        yield from _check_urls(ctx, rel, doc, reg, cited, seen)
    yield from _check_entries(ctx, reg, cited)


def _check_table_citations(
    ctx: Context, reg: SourceRegistry, cited: set[str]
) -> Iterator[Diagnostic]:
    """Source ids cited by the data tables: registered (SC314); they count as cited."""
    for table in ctx.data.tables:
        for c in table.citations:
            if c.source_id in reg.entries:
                cited.add(c.source_id)
                continue
            yield ctx.diag(
                table.rel,
                c.line,
                c.column,
                UNKNOWN_SOURCE,
                f"{c.pointer}: '{c.source_id}' is not a source id in {SOURCES_REL}",
                "register the source there, or fix the id",
            )


def _check_definitions(
    ctx: Context,
    rel: str,
    doc: ParsedDoc,
    reg: SourceRegistry,
    cited: set[str],
    seen: set[tuple[str, int]],
) -> Iterator[Diagnostic]:
    """A page's link definitions to external URLs: the label is a source id (SC305), then
    the citation itself (SC306, SC310). Adds the sources cited and the (url, line) seen."""
    allow = ctx.config.url_allowlist
    sources_line = max(
        (h.line for h in doc.headings if h.text.strip().lower() == "sources"), default=None
    )
    for d in doc.definitions:
        url = d.target
        if not _external(url) or _allowed(url, allow):
            continue
        seen.add((url, d.line))
        label = d.label or ""
        entry = reg.entries.get(label)
        if entry is None:
            sid = reg.by_url.get(normalize_url(url))
            hint = (
                f"this URL is registered as '{sid}': use that label"
                if sid
                else "register the source in data/sources.json and use its id as the label"
            )
            yield ctx.diag(
                rel,
                d.line,
                d.column,
                "SC305",
                f"citation label '[{label}]' is not a source id",
                hint,
                url=url,
            )
            if sid:
                cited.add(sid)
            continue
        cited.add(label)
        yield from _check_citation(ctx, rel, d, label, entry, sources_line)


def _check_citation(
    ctx: Context,
    rel: str,
    d: Link,
    label: str,
    entry: dict[str, Any],
    sources_line: int | None,
) -> Iterator[Diagnostic]:
    """A definition whose label is a registered id: the registered URL (SC306), under the
    page's last '## Sources' heading (SC310)."""
    url = d.target
    if url != entry.get("url"):
        yield ctx.diag(
            rel,
            d.line,
            d.column,
            "SC306",
            f"'[{label}]' points at {url}, but data/sources.json has {entry.get('url')}",
            "use the registered URL exactly",
            url=url,
        )
    if sources_line is None or d.line < sources_line:
        yield ctx.diag(
            rel,
            d.line,
            d.column,
            "SC310",
            f"citation '[{label}]' is defined outside a '## Sources' section",
            "move the definition under '## Sources' at the end of the page",
        )


def _check_urls(
    ctx: Context,
    rel: str,
    doc: ParsedDoc,
    reg: SourceRegistry,
    cited: set[str],
    seen: set[tuple[str, int]],
) -> Iterator[Diagnostic]:
    """External URLs in a page's links and bare text, not already seen as a definition on
    the same line: each is registered (SC307); a registered one counts as cited."""
    allow = ctx.config.url_allowlist
    urls = [(lk.target, lk.line, lk.column) for lk in doc.links if _external(lk.target)]
    urls += doc.urls
    for url, line, col in urls:
        if (url, line) in seen or _allowed(url, allow):
            continue
        seen.add((url, line))
        sid = reg.by_url.get(normalize_url(url))
        if sid is not None:
            cited.add(sid)
            continue
        yield ctx.diag(
            rel,
            line,
            col,
            "SC307",
            f"{url} is not registered in data/sources.json",
            "add an entry for it (or add the prefix to url-allowlist if it is an example address)",
            url=url,
        )


def _check_entries(ctx: Context, reg: SourceRegistry, cited: set[str]) -> Iterator[Diagnostic]:
    """Every registered source: cited somewhere (SC308), checked recently enough (SC309)."""
    today = ctx.config.today
    max_age = ctx.config.source_max_age_days
    for sid, entry in sorted(reg.entries.items()):
        line, col = reg.lines.get(sid, 0), reg.columns.get(sid, 0)
        if sid not in cited:
            yield ctx.diag(
                SOURCES_REL,
                line,
                col,
                "SC308",
                f"source '{sid}' is cited nowhere",
                "cite it from a page or remove the entry",
            )
        checked = entry.get("checked")
        if isinstance(checked, str):
            try:
                age = (today - dt.date.fromisoformat(checked)).days
            except ValueError:
                continue  # the schema reports the format
            if age > max_age:
                yield ctx.diag(
                    SOURCES_REL,
                    line,
                    col,
                    "SC309",
                    f"source '{sid}' was last checked {checked} ({age} days ago)",
                    f"re-verify it and update 'checked' (limit: {max_age} days)",
                )
