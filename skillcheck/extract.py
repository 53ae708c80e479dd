"""``skillcheck extract``: write the code blocks that name a file to a folder.

A block names its file with an info-string attribute: ```` ```python title="loadgen.py" ````
(``file=`` is accepted too). Paths that would leave the output folder are refused, and an
existing file is only replaced with ``--force``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from skillcheck.document import parse

NAME_ATTRS = ("title", "file")


@dataclass
class Extracted:
    name: str
    line: int
    path: Path | None
    problem: str | None = None


def named_blocks(text: str) -> list[tuple[str, int, str]]:
    """(name, opening line, content) of every fenced block that names a file."""
    out = []
    for fence in parse(text).fences:
        for attr in NAME_ATTRS:
            name = fence.attrs.get(attr, "").strip()
            if name:
                out.append((name, fence.line, fence.content))
                break
    return out


def safe_target(out_dir: Path, name: str) -> Path | None:
    """The path for ``name`` under ``out_dir``, or None when it would escape it."""
    p = PurePosixPath(name.replace("\\", "/"))
    if (
        p.is_absolute()
        or not p.parts
        or any(part in ("..", "") for part in p.parts)
        or (len(name) > 1 and name[1] == ":")
    ):
        return None
    target = (out_dir / Path(*p.parts)).resolve()
    try:
        target.relative_to(out_dir.resolve())
    except ValueError:
        return None
    return target


def extract(text: str, out_dir: Path, force: bool = False) -> list[Extracted]:
    results: list[Extracted] = []
    seen: set[Path] = set()
    for name, line, content in named_blocks(text):
        target = safe_target(out_dir, name)
        if target is None:
            results.append(Extracted(name, line, None, "path leaves the output folder"))
            continue
        if target in seen:
            results.append(Extracted(name, line, target, "another block names the same file"))
            continue
        seen.add(target)
        if target.exists() and not force:
            results.append(Extracted(name, line, target, "file exists (use --force to replace)"))
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_text(content, encoding="utf-8")
        os.replace(tmp, target)
        if content.startswith("#!"):
            target.chmod(target.stat().st_mode | 0o111)
        results.append(Extracted(name, line, target))
    return results
