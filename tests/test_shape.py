"""The package's shape: no module over 600 lines, no function over 80 lines.

Measured on the installed package's sources (skillcheck/); the maintainer tools
under tools/ and the tests are held to the function limit only where noted.
Run ``python tests/test_shape.py`` to print the longest modules and functions.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "skillcheck"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def module_lines() -> dict[str, int]:
    """Lines of each module of the package, by path relative to the repository."""
    return {
        p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def function_lines(folder: Path) -> dict[str, int]:
    """Lines of each function (decorators excluded, nested ones counted on their own),
    as ``path:line name``."""
    out: dict[str, int] = {}
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                end = node.end_lineno or node.lineno
                where = f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {node.name}"
                out[where] = end - node.lineno + 1
    return out


def test_no_module_of_the_package_is_over_600_lines() -> None:
    over = {p: n for p, n in module_lines().items() if n > MAX_MODULE_LINES}
    assert over == {}


def test_no_function_of_the_package_is_over_80_lines() -> None:
    over = {f: n for f, n in function_lines(PACKAGE).items() if n > MAX_FUNCTION_LINES}
    assert over == {}


def test_no_function_of_the_manifest_generator_is_over_80_lines() -> None:
    tools = ROOT / "tools"
    over = {f: n for f, n in function_lines(tools).items() if n > MAX_FUNCTION_LINES}
    assert over == {}


def _report(top: int = 12) -> None:
    modules = sorted(module_lines().items(), key=lambda kv: -kv[1])
    functions = sorted(function_lines(PACKAGE).items(), key=lambda kv: -kv[1])
    print(
        f"modules over {MAX_MODULE_LINES} lines: "
        f"{sum(n > MAX_MODULE_LINES for _, n in modules)}; longest:"
    )
    for path, n in modules[:top]:
        print(f"  {n:5d}  {path}")
    print(
        f"functions over {MAX_FUNCTION_LINES} lines: "
        f"{sum(n > MAX_FUNCTION_LINES for _, n in functions)}; longest:"
    )
    for where, n in functions[:top]:
        print(f"  {n:5d}  {where}")


if __name__ == "__main__":
    _report(int(sys.argv[1]) if len(sys.argv) > 1 else 12)
