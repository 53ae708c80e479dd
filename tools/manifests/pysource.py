"""An index of a Python source tree read with :mod:`ast`: modules, their names, imports."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.manifests.errors import GenerateError


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


@dataclass(frozen=True)
class Partial:
    """A list of which only some items are known statically."""

    items: tuple[Any, ...]


@dataclass(frozen=True)
class Known:
    """A list complete for the release, which plugins can extend at run time."""

    items: tuple[Any, ...]


@dataclass
class Sym:
    """A module-level name: a class, function, value or an imported name."""

    kind: str  # "class" | "func" | "value" | "import" | "module"
    node: ast.AST | None = None
    target: str = ""  # imported module
    attr: str = ""  # imported name ("" for `import x`)


class Module:
    def __init__(self, index: SourceIndex, name: str, path: Path) -> None:
        self.index = index
        self.name = name
        self.path = path
        self.text = path.read_text(encoding="utf-8")
        self.tree = ast.parse(self.text, filename=str(path))
        self.is_package = path.name == "__init__.py"
        self.symbols: dict[str, Sym] = {}
        self._collect(self.tree.body, locked=set())

    def absolute(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = self.name.split(".")
        base = parts if self.is_package else parts[:-1]
        base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        return ".".join([*base, node.module] if node.module else base)

    def _define(self, name: str, sym: Sym, locked: set[str], lock: bool) -> None:
        if name in locked:
            return
        self.symbols[name] = sym
        if lock:
            locked.add(name)

    def _collect(self, body: Sequence[ast.stmt], locked: set[str], lock: bool = False) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):
                # The TYPE_CHECKING branch carries the precise types.
                self._collect(stmt.body, locked, lock=lock or _is_type_checking(stmt.test))
                self._collect(stmt.orelse, locked, lock)
            elif isinstance(stmt, ast.Try):
                self._collect(stmt.body, locked, lock)
                for handler in stmt.handlers:
                    self._collect(handler.body, locked, lock)
            else:
                for name, sym in self._bindings(stmt):
                    self._define(name, sym, locked, lock)

    def _bindings(self, stmt: ast.stmt) -> Iterator[tuple[str, Sym]]:
        """The names one module-level statement defines."""
        if isinstance(stmt, ast.ClassDef):
            yield stmt.name, Sym("class", stmt)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield stmt.name, Sym("func", stmt)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    yield target.id, Sym("value", stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if stmt.value is not None:
                yield stmt.target.id, Sym("value", stmt.value)
        elif isinstance(stmt, ast.ImportFrom):
            module = self.absolute(stmt)
            for alias in stmt.names:
                yield alias.asname or alias.name, Sym("import", target=module, attr=alias.name)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                top = alias.name.split(".")[0]
                imported = alias.name if alias.asname else top
                yield alias.asname or top, Sym("module", target=imported)

    def resolve(self, name: str, depth: int = 0) -> tuple[Module, Sym] | None:
        """Follow imports to where ``name`` is defined (or the last known import)."""
        sym = self.symbols.get(name)
        if sym is None or depth > 12:
            return None
        if sym.kind == "import":
            target = self.index.module(sym.target)
            if target is not None:
                found = target.resolve(sym.attr, depth + 1)
                if found is not None:
                    return found
            sub = self.index.module(f"{sym.target}.{sym.attr}")
            if sub is not None:
                return sub, Sym("module", target=sub.name)
        return self, sym

    def resolve_expr(self, expr: ast.expr) -> tuple[Module, Sym] | None:
        """Resolve a Name or a dotted Attribute (``module.Name``)."""
        if isinstance(expr, ast.Name):
            return self.resolve(expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.resolve_expr(expr.value)
            if base is not None and base[1].kind == "module":
                mod = self.index.module(base[1].target)
                if mod is not None:
                    return mod.resolve(expr.attr)
            if base is not None and base[1].kind == "class":
                cls = base[1].node
                assert isinstance(cls, ast.ClassDef)
                for stmt in cls.body:
                    if isinstance(stmt, ast.ClassDef) and stmt.name == expr.attr:
                        return base[0], Sym("class", stmt)
        return None

    def function(self, name: str) -> ast.FunctionDef | None:
        sym = self.symbols.get(name)
        if sym is not None and isinstance(sym.node, ast.FunctionDef):
            return sym.node
        return None

    def class_def(self, name: str) -> ast.ClassDef | None:
        sym = self.symbols.get(name)
        if sym is not None and isinstance(sym.node, ast.ClassDef):
            return sym.node
        # The name may have been rebound after the class statement
        # (e.g. `ServerArgs = msgspec.defstruct(...)`).
        for stmt in self.tree.body:
            if isinstance(stmt, ast.ClassDef) and stmt.name == name:
                return stmt
        return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class SourceIndex:
    """Maps dotted module names to parsed files below one source root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._modules: dict[str, Module | None] = {}
        self.read: set[str] = set()
        # Files parsed only to render defaults are not listed in the provenance.
        self.quiet = 0

    @contextmanager
    def quietly(self) -> Iterator[None]:
        """Parse modules without listing them as files the options were read from."""
        self.quiet += 1
        try:
            yield
        finally:
            self.quiet -= 1

    def path_of(self, name: str) -> Path | None:
        base = self.root.joinpath(*name.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    def module(self, name: str) -> Module | None:
        if name not in self._modules:
            path = self.path_of(name) if name else None
            self._modules[name] = Module(self, name, path) if path else None
        found = self._modules[name]
        if found is not None and not self.quiet:
            self.read.add(found.path.relative_to(self.root).as_posix())
        return found

    def require(self, name: str) -> Module:
        mod = self.module(name)
        if mod is None:
            raise GenerateError(f"module {name} not found under {self.root}")
        return mod


def terminal_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Call):
        return terminal_name(expr.func)
    if isinstance(expr, ast.Subscript):
        return terminal_name(expr.value)
    return ""
