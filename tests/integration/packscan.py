"""What the pack gives for an engine, found as skillcheck's rules find it: the commands in
its shell blocks and the metric names on its pages."""

from __future__ import annotations

import re
from pathlib import Path

from skillcheck.document import parse
from skillcheck.engines.invocations import find_invocations
from skillcheck.rules.codeblocks import SHELLS, SKIP_ATTR

ROOT = Path(__file__).resolve().parents[2]


def pack_pages() -> list[Path]:
    pages = [ROOT / "SKILL.md", *(ROOT / "references").glob("*.md")]
    pages += (ROOT / "assets").rglob("*.md")
    return sorted(pages)


def where(page: Path, line: int) -> str:
    return f"{page.relative_to(ROOT).as_posix()}:{line}"


def pack_commands(engine: str) -> list[tuple[str, list[str]]]:
    """(``page:line``, arguments) of every command of ``engine`` (the names skillcheck's
    engine-flag rule uses: ``llama.cpp``, ``vllm``) in a shell block."""
    found = []
    for page in pack_pages():
        for fence in parse(page.read_text(encoding="utf-8")).fences:
            if fence.lang not in SHELLS or SKIP_ATTR in fence.attrs:
                continue
            for inv in find_invocations(fence.content):
                if inv.engine == engine:
                    line = fence.body_line + inv.line - 1
                    found.append((where(page, line), [t.text for t in inv.args]))
    return found


def pack_metric_names(prefix: str, extra: tuple[Path, ...] = ()) -> dict[str, str]:
    """Each metric name starting with ``prefix`` (``llamacpp:``, ``vllm:``) on the pages
    and in ``extra`` files -> the first ``page:line`` naming it."""
    pattern = re.compile(rf"\b{re.escape(prefix)}[a-z_][a-z0-9_]*")
    names: dict[str, str] = {}
    for page in [*pack_pages(), *sorted(extra)]:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for name in pattern.findall(line):
                names.setdefault(name, where(page, n))
    return dict(sorted(names.items()))
