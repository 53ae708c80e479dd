"""The package's import graph has no cycle at import time: no module imports, at its top level,
a module that imports it back (imports inside functions and under TYPE_CHECKING aside), and
every module imports on its own in a fresh set of modules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

PACKAGE = ROOT / "skillcheck"


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _top_level_imports(path: Path, name: str) -> set[str]:
    """skillcheck modules imported when ``name`` is imported (its module-level statements)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
                continue
            if isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(getattr(node, "orelse", []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
                continue
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(
                        package.split(".")[: len(package.split(".")) - node.level + 1]
                        + ([base] if base else [])
                    )
                found.add(base)
                found.update(f"{base}.{a.name}" for a in node.names)

    visit(tree.body)
    return {m for m in found if m in MODULES and m != name}


def test_no_import_cycle() -> None:
    explicit = {name: _top_level_imports(path, name) for name, path in MODULES.items()}
    graph = {name: set(deps) for name, deps in explicit.items()}
    for name in graph:  # importing a.b.c runs a/__init__ and a/b/__init__ first
        parts = name.split(".")
        parents = {".".join(parts[:i]) for i in range(1, len(parts))} - {name}
        # a package that imports its own submodule (to re-export it) is no cycle: the package
        # is in sys.modules before its __init__ runs; an explicit import back still counts
        graph[name] |= {p for p in parents if name not in explicit.get(p, set())}
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name)
    assert graph.get("skillcheck.runner")


def test_every_module_imports_alone() -> None:
    script = (
        "import importlib, sys\n"
        f"names = {sorted(MODULES)!r}\n"
        "bad = []\n"
        "for name in names:\n"
        "    for m in [m for m in sys.modules if m.split('.')[0] == 'skillcheck']:\n"
        "        del sys.modules[m]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        bad.append(f'{name}: {type(exc).__name__}: {exc}')\n"
        "print('\\n'.join(bad))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 0, res.stdout + res.stderr
