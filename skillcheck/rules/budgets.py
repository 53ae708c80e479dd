"""SC5xx: budgets. SKILL.md is loaded whole on every activation; long references need a map."""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillcheck.context import Context
from skillcheck.diagnostics import Diagnostic
from skillcheck.registry import checker, declare

declare("SC501", "skill-md-lines", "warning", "The SKILL.md body is over max-skill-lines (500).")
declare(
    "SC502",
    "skill-md-tokens",
    "warning",
    "The SKILL.md body is over max-skill-tokens (5000, estimated).",
)
declare(
    "SC503",
    "reference-no-toc",
    "warning",
    "A reference over toc-threshold-lines (300) has no table of contents.",
)

_TOC_HEADING = re.compile(r"\b(contents|table of contents|toc|on this page)\b", re.IGNORECASE)


def estimate_tokens(chars: int, words: int) -> int:
    """A tokenizer-free estimate: the larger of chars/4 and words*4/3."""
    return max(chars // 4, (words * 4) // 3)


@checker("SC5")
def check_budgets(ctx: Context) -> Iterator[Diagnostic]:
    cfg = ctx.config
    rel = ctx.skill.skill_md
    if rel is not None and rel in ctx.docs:
        doc = ctx.docs[rel]
        body_lines = doc.line_count - doc.frontmatter_end
        if body_lines > cfg.max_skill_lines:
            yield ctx.diag(
                rel,
                doc.frontmatter_end + 1,
                1,
                "SC501",
                f"SKILL.md body has {body_lines} lines (budget {cfg.max_skill_lines})",
                "move detail into references/ and link it",
            )
        tokens = estimate_tokens(doc.body_chars, doc.body_words)
        if tokens > cfg.max_skill_tokens:
            yield ctx.diag(
                rel,
                doc.frontmatter_end + 1,
                1,
                "SC502",
                f"SKILL.md body is about {tokens:,} tokens (budget "
                f"{cfg.max_skill_tokens:,}; estimated from {doc.body_chars:,} "
                f"characters and {doc.body_words:,} words)",
                "every token is paid on each activation: move detail to references/",
            )
    for rel, doc in ctx.docs.items():
        if not rel.startswith("references/") or doc.line_count <= cfg.toc_threshold_lines:
            continue
        if any(_TOC_HEADING.search(h.text) for h in doc.headings):
            continue
        own = [
            lk
            for lk in doc.links
            if lk.kind == "inline"
            and lk.target.startswith("#")
            and lk.line <= max(60, doc.line_count // 4)
        ]
        if len(own) >= 3:
            continue
        yield ctx.diag(
            rel,
            1,
            1,
            "SC503",
            f"{doc.line_count} lines and no table of contents",
            "add a list of links to the page's sections near the top",
        )
