"""skillcheck uses httpx and httpcore through their public API only: no import of a private
module (``httpx._transports``) or name (``from httpx import _x``), and, in every module that
imports either library, no private attribute read or written on an object other than the
module's own ``self``/``cls`` (``transport._pool = ...``). A private name may change in any
release, and the lowest-versions CI job would be the only one to see it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ..conftest import ROOT

LIBRARIES = ("httpx", "httpcore")
MODULES = sorted((ROOT / "skillcheck").rglob("*.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _imports(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, dotted name) of each module and name imported from httpx or httpcore."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return [(line, name) for line, name in out if name.split(".")[0] in LIBRARIES]


def private_uses(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(root).as_posix()
    imported = _imports(tree)
    found = [
        f"{where}:{line}: imports {name}"
        for line, name in imported
        if any(_private(part) for part in name.split("."))
    ]
    if not imported:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return sorted(found)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_private_httpx_or_httpcore_api(path: Path) -> None:
    assert private_uses(path) == []


def test_the_check_sees_what_it_looks_for(tmp_path: Path) -> None:
    path = tmp_path / "skillcheck" / "probe" / "example.py"
    path.parent.mkdir(parents=True)
    path.write_text(
        "import httpx\nfrom httpx._config import DEFAULT_LIMITS\n"
        "from httpcore import _api\nt = httpx.AsyncHTTPTransport()\n"
        "t._pool = None\nself._ok = t.__class__\n",
        encoding="utf-8",
    )
    where = "skillcheck/probe/example.py"
    assert private_uses(path, tmp_path) == [
        f"{where}:2: imports httpx._config.DEFAULT_LIMITS",
        f"{where}:3: imports httpcore._api",
        f"{where}:5: t._pool",
    ]
