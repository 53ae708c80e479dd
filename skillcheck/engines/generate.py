"""Generate an engine-flag manifest from an engine's released source.

Usage::

    python -m skillcheck.engines.generate ENGINE VERSION [--source PATH]

``ENGINE`` is one of ``vllm``, ``sglang``, ``llama.cpp`` or ``tensorrt-llm``.
``VERSION`` is the release to pin (for ``llama.cpp``: the llama-cpp-python
release whose vendored llama.cpp is read). ``--source`` points at an unpacked
source tree, a wheel or an sdist; without it the release is fetched with
``pip download`` (TensorRT-LLM publishes no source on PyPI, so it needs
``--source``). The manifest is written to ``skillcheck/engines/manifests/``.

The engines are never imported: Python sources are read with :mod:`ast` and
llama.cpp's ``common/arg.cpp`` with a small C++ scanner, each following the
rules the engine's own parser applies.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillcheck import clock
from skillcheck.engines import (
    CHOICES_KNOWN,
    CHOICES_PARTIAL,
    CHOICES_STRICT,
    ConfigKey,
    Manifest,
    Option,
    ParserRules,
    Positional,
    dumps,
)

ENGINES = ("vllm", "sglang", "llama.cpp", "tensorrt-llm")
MANIFEST_DIR = Path(__file__).resolve().parent / "manifests"

_PIP_PACKAGES = {"vllm": "vllm", "sglang": "sglang", "llama.cpp": "llama-cpp-python"}


class GenerateError(Exception):
    """The source does not have the shape the generator expects."""


# ==========================================================================
# Python source index: modules, symbols, constants and type hints
# ==========================================================================


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

    def _absolute(self, node: ast.ImportFrom) -> str:
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
            if isinstance(stmt, ast.ClassDef):
                self._define(stmt.name, Sym("class", stmt), locked, lock)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._define(stmt.name, Sym("func", stmt), locked, lock)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        self._define(target.id, Sym("value", stmt.value), locked, lock)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if stmt.value is not None:
                    self._define(stmt.target.id, Sym("value", stmt.value), locked, lock)
            elif isinstance(stmt, ast.ImportFrom):
                module = self._absolute(stmt)
                for alias in stmt.names:
                    name = alias.asname or alias.name
                    self._define(name, Sym("import", target=module, attr=alias.name), locked, lock)
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    name = alias.asname or alias.name.split(".")[0]
                    imported = alias.name if alias.asname else alias.name.split(".")[0]
                    self._define(name, Sym("module", target=imported), locked, lock)
            elif isinstance(stmt, ast.If):
                if _is_type_checking(stmt.test):
                    # The TYPE_CHECKING branch carries the precise types.
                    self._collect(stmt.body, locked, lock=True)
                    self._collect(stmt.orelse, locked, lock)
                else:
                    self._collect(stmt.body, locked, lock)
                    self._collect(stmt.orelse, locked, lock)
            elif isinstance(stmt, ast.Try):
                self._collect(stmt.body, locked, lock)
                for handler in stmt.handlers:
                    self._collect(handler.body, locked, lock)

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
            if path:
                self.read.add(path.relative_to(self.root).as_posix())
        return self._modules[name]

    def require(self, name: str) -> Module:
        mod = self.module(name)
        if mod is None:
            raise GenerateError(f"module {name} not found under {self.root}")
        return mod


def _terminal_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Call):
        return _terminal_name(expr.func)
    if isinstance(expr, ast.Subscript):
        return _terminal_name(expr.value)
    return ""


# -------------------------------------------------------------- constants


def const_eval(expr: ast.expr | None, mod: Module, local: dict[str, Any] | None = None,
               depth: int = 0) -> Any:
    """Evaluate a constant expression statically; :data:`UNKNOWN` when it is not."""
    if expr is None or depth > 20:
        return UNKNOWN
    local = local or {}

    def ev(e: ast.expr) -> Any:
        return const_eval(e, mod, local, depth + 1)

    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        items = [ev(e) for e in expr.elts]
        if any(i is UNKNOWN for i in items):
            return UNKNOWN
        return items
    if isinstance(expr, ast.Dict):
        out: dict[Any, Any] = {}
        for k, v in zip(expr.keys, expr.values, strict=False):
            if k is None:
                return UNKNOWN
            out[ev(k)] = ev(v)
        return out
    if isinstance(expr, ast.Name):
        if expr.id in local:
            return local[expr.id]
        found = mod.resolve(expr.id)
        if found is not None and found[1].kind == "value" and isinstance(found[1].node, ast.expr):
            return const_eval(found[1].node, found[0], None, depth + 1)
        return UNKNOWN
    if isinstance(expr, ast.Attribute):
        found = mod.resolve_expr(expr)
        if found is not None and found[1].kind == "value" and isinstance(found[1].node, ast.expr):
            return const_eval(found[1].node, found[0], None, depth + 1)
        return UNKNOWN
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = ev(expr.left), ev(expr.right)
        return _concat(left, right)
    if isinstance(expr, ast.JoinedStr):
        parts: list[str] = []
        for value in expr.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            elif isinstance(value, ast.FormattedValue):
                inner = ev(value.value)
                if inner is UNKNOWN:
                    return UNKNOWN
                parts.append(str(inner))
            else:
                return UNKNOWN
        return "".join(parts)
    if isinstance(expr, ast.Call):
        return _const_call(expr, mod, local, depth)
    if isinstance(expr, ast.Subscript):
        # Literal[...] used as a value, e.g. get_args(Literal["a", "b"])
        return UNKNOWN
    return UNKNOWN


def _concat(left: Any, right: Any) -> Any:
    if isinstance(left, str) and isinstance(right, str):
        return left + right
    if isinstance(left, Known) or isinstance(right, Known):
        joined = _concat(list(left.items) if isinstance(left, Known) else left,
                         list(right.items) if isinstance(right, Known) else right)
        return Known(tuple(joined)) if isinstance(joined, list) else joined
    lpart = isinstance(left, Partial)
    rpart = isinstance(right, Partial)
    litems = list(left.items) if lpart else left
    ritems = list(right.items) if rpart else right
    if isinstance(litems, (list, tuple)) and isinstance(ritems, (list, tuple)):
        joined = [*litems, *ritems]
        return Partial(tuple(joined)) if (lpart or rpart) else joined
    if isinstance(litems, (list, tuple)) and right is UNKNOWN:
        return Partial(tuple(litems))
    if isinstance(ritems, (list, tuple)) and left is UNKNOWN:
        return Partial(tuple(ritems))
    return UNKNOWN


def _const_call(expr: ast.Call, mod: Module, local: dict[str, Any], depth: int) -> Any:
    func = expr.func
    name = _terminal_name(func)
    args = [const_eval(a, mod, local, depth + 1) for a in expr.args]
    if (isinstance(func, ast.Attribute) and not isinstance(func.value, (ast.Name,))) or (
        isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
        and func.value.id in local
    ):
        receiver = const_eval(func.value, mod, local, depth + 1)
        if isinstance(receiver, str):
            if func.attr == "replace" and len(args) == 2 and all(isinstance(a, str) for a in args):
                return receiver.replace(args[0], args[1])
            if func.attr == "lower" and not args:
                return receiver.lower()
            if func.attr == "upper" and not args:
                return receiver.upper()
        return UNKNOWN
    if name in ("list", "tuple", "sorted", "set", "frozenset") and len(args) == 1:
        value = args[0]
        if isinstance(value, (Partial, Known)):
            return value
        if isinstance(value, dict):
            value = list(value)
        if isinstance(value, (list, tuple, set)):
            items = list(value)
            return sorted(items, key=str) if name in ("sorted", "set", "frozenset") else items
        return UNKNOWN
    if name == "get_args" and len(expr.args) == 1:
        hints = type_hints(expr.args[0], mod)
        values = [v for h in hints if h.kind == "literal" for v in h.values]
        return values if values else UNKNOWN
    if isinstance(func, ast.Name) and not expr.args and not expr.keywords:
        found = mod.resolve(func.id)
        if found is not None and isinstance(found[1].node, ast.FunctionDef):
            return _function_return(found[1].node, found[0], depth)
    return UNKNOWN


def _function_return(fn: ast.FunctionDef, mod: Module, depth: int) -> Any:
    """The value of a parameterless function whose return is a constant expression."""
    local: dict[str, Any] = {}
    fallback: Any = UNKNOWN
    returns = sum(isinstance(n, ast.Return) for n in ast.walk(fn))
    for stmt in fn.body:
        if isinstance(stmt, ast.ImportFrom):
            target = mod.index.module(mod._absolute(stmt))
            for alias in stmt.names:
                if target is None:
                    continue
                found = target.resolve(alias.name)
                if found and found[1].kind == "value" and isinstance(found[1].node, ast.expr):
                    local[alias.asname or alias.name] = const_eval(found[1].node, found[0])
        elif isinstance(stmt, ast.Return):
            fallback = const_eval(stmt.value, mod, local, depth + 1)
    if returns > 1 and isinstance(fallback, list):
        # Other branches return a registry that plugins may have extended.
        return Known(tuple(fallback))
    return fallback


# ------------------------------------------------------------ type hints


@dataclass(frozen=True)
class TH:
    """One member of a (flattened) type hint."""

    kind: str
    values: tuple[Any, ...] = ()
    elems: tuple[tuple[TH, ...], ...] = ()
    ref: tuple[Module, ast.ClassDef] | None = field(default=None, compare=False)
    name: str = ""
    ellipsis: bool = False
    meta: tuple[ast.expr, ...] = field(default=(), compare=False)


_PRIMS = {
    "int": "int", "float": "float", "str": "str", "bool": "bool", "bytes": "str",
    "NonNegativeInt": "int", "PositiveInt": "int", "StrictInt": "int", "NonNegativeFloat": "float",
    "PositiveFloat": "float", "StrictStr": "str", "StrictBool": "bool",
}
_GENERIC_LIST = {"list", "List", "Sequence", "MutableSequence", "Iterable"}
_GENERIC_SET = {"set", "Set", "frozenset", "FrozenSet", "AbstractSet"}
_GENERIC_DICT = {"dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "OrderedDict"}


def type_hints(expr: ast.expr | None, mod: Module, depth: int = 0) -> tuple[TH, ...]:
    """Flatten a type annotation into its members (Optional, Union, Annotated unwrapped)."""
    if expr is None or depth > 25:
        return (TH("any"),)

    def th(e: ast.expr) -> tuple[TH, ...]:
        return type_hints(e, mod, depth + 1)

    if isinstance(expr, ast.Constant):
        if expr.value is None:
            return (TH("none"),)
        if isinstance(expr.value, str):
            try:
                return th(ast.parse(expr.value, mode="eval").body)
            except SyntaxError:
                return (TH("any"),)
        return (TH("any"),)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        return th(expr.left) + th(expr.right)
    if isinstance(expr, ast.Subscript):
        base = _terminal_name(expr.value)
        sl = expr.slice
        items = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        if base == "Literal":
            values: list[Any] = []
            for item in items:
                value = const_eval(item, mod)
                if value is not UNKNOWN and not isinstance(value, (list, dict)):
                    values.append(value)
                    continue
                # a nested Literal, possibly through an alias: Literal["auto", Other]
                values.extend(v for h in th(item) if h.kind == "literal" for v in h.values)
            return (TH("literal", values=tuple(values)),)
        if base == "Optional":
            return (*th(items[0]), TH("none"))
        if base == "Union":
            return tuple(h for item in items for h in th(item))
        if base == "Annotated":
            inner = th(items[0])
            return tuple(
                TH(h.kind, h.values, h.elems, h.ref, h.name, h.ellipsis, tuple(items[1:]))
                for h in inner
            )
        if base in ("ClassVar", "InitVar", "Final", "Required", "NotRequired"):
            inner = th(items[0])
            return tuple(TH("classvar" if base == "ClassVar" else h.kind, h.values, h.elems,
                            h.ref, h.name) for h in inner)
        if base in _GENERIC_LIST:
            return (TH("list", elems=(th(items[0]),)),)
        if base in _GENERIC_SET:
            return (TH("set", elems=(th(items[0]),)),)
        if base in ("tuple", "Tuple"):
            ell = any(isinstance(i, ast.Constant) and i.value is Ellipsis for i in items)
            elems = tuple(th(i) for i in items if not (
                isinstance(i, ast.Constant) and i.value is Ellipsis))
            return (TH("tuple", elems=elems, ellipsis=ell),)
        if base in _GENERIC_DICT:
            return (TH("dict"),)
        if base in ("type", "Type", "Callable"):
            return (TH("any", name=base),)
        return th(expr.value)
    name = _terminal_name(expr)
    if name in _PRIMS:
        return (TH(_PRIMS[name]),)
    if name in ("None", "NoneType"):
        return (TH("none"),)
    if name in _GENERIC_DICT:
        return (TH("dict"),)
    if name in _GENERIC_LIST:
        return (TH("list", elems=((TH("any"),),)),)
    if name in ("Any", "object"):
        return (TH("any", name=name),)
    if name in ("Path", "PurePath", "PathLike"):
        return (TH("str", name=name),)
    if name in ("Literal",):
        return (TH("any"),)
    found = mod.resolve_expr(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
    if found is None:
        return (TH("class", name=name),)
    fmod, sym = found
    if sym.kind == "class" and isinstance(sym.node, ast.ClassDef):
        return (classify_class(fmod, sym.node),)
    if sym.kind == "value" and isinstance(sym.node, ast.expr):
        return type_hints(sym.node, fmod, depth + 1)
    return (TH("class", name=name),)


_ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"}
_MODEL_BASES = {"BaseModel", "StrictBaseModel", "Struct"}


_BaseInfo = tuple[str, "Module", "ast.ClassDef | None"]


def _class_bases(mod: Module, cls: ast.ClassDef, depth: int = 0) -> Iterator[_BaseInfo]:
    """Every base class name, transitively, with its definition when it was found."""
    if depth > 15:
        return
    for base in cls.bases:
        name = _terminal_name(base)
        found = mod.resolve_expr(base) if isinstance(base, (ast.Name, ast.Attribute)) else None
        if found is not None and isinstance(found[1].node, ast.ClassDef):
            yield name, found[0], found[1].node
            yield from _class_bases(found[0], found[1].node, depth + 1)
        else:
            yield name, mod, None


def classify_class(mod: Module, cls: ast.ClassDef) -> TH:
    bases = {name for name, _, _ in _class_bases(mod, cls)}
    decorators = {_terminal_name(d) for d in cls.decorator_list}
    if bases & _ENUM_BASES or any("Enum" in b for b in bases):
        values = tuple(
            stmt.value.value
            for stmt in cls.body
            if isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Constant)
            and all(isinstance(t, ast.Name) and not t.id.startswith("_") for t in stmt.targets)
        )
        return TH("enum", values=values, ref=(mod, cls), name=cls.name)
    if "TypedDict" in bases:
        return TH("typeddict", ref=(mod, cls), name=cls.name)
    if decorators & {"dataclass", "config"}:
        return TH("dataclass", ref=(mod, cls), name=cls.name)
    if bases & _MODEL_BASES:
        return TH("model", ref=(mod, cls), name=cls.name)
    if bases & {"dict", "Dict"}:
        return TH("dict", name=cls.name)
    return TH("class", ref=(mod, cls), name=cls.name)


# -------------------------------------------------------- class fields


@dataclass
class FieldSpec:
    name: str
    annotation: ast.expr
    module: Module
    default: ast.expr | None
    kwargs: dict[str, ast.expr]
    doc: str | None
    init: bool = True


_FIELD_CALLS = {"field", "Field", "PydanticField"}


def class_fields(mod: Module, cls: ast.ClassDef, depth: int = 0) -> list[FieldSpec]:
    """Fields of a dataclass / pydantic model / msgspec struct, bases first."""
    fields: dict[str, FieldSpec] = {}
    if depth < 15:
        for base in cls.bases:
            found = mod.resolve_expr(base) if isinstance(base, (ast.Name, ast.Attribute)) else None
            if found is not None and isinstance(found[1].node, ast.ClassDef):
                for spec in class_fields(found[0], found[1].node, depth + 1):
                    fields[spec.name] = spec
    body = cls.body
    for i, stmt in enumerate(body):
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        if any(h.kind == "classvar" for h in type_hints(stmt.annotation, mod)):
            continue
        doc = None
        if i + 1 < len(body):
            nxt = body[i + 1]
            if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(
                nxt.value.value, str
            ):
                doc = nxt.value.value
        kwargs: dict[str, ast.expr] = {}
        init = True
        value = stmt.value
        if isinstance(value, ast.Call) and _terminal_name(value.func) in _FIELD_CALLS | {
            "PrivateAttr"
        }:
            if _terminal_name(value.func) == "PrivateAttr":
                continue
            kwargs = {k.arg: k.value for k in value.keywords if k.arg}
            init_expr = kwargs.get("init")
            if isinstance(init_expr, ast.Constant) and init_expr.value is False:
                init = False
        fields[stmt.target.id] = FieldSpec(
            stmt.target.id, stmt.annotation, mod, value, kwargs, doc, init
        )
    return list(fields.values())


def _deprecation_in_doc(doc: str | None) -> str | None:
    """A "Deprecated: ..." paragraph of a field docstring."""
    if not doc:
        return None
    for para in re.split(r"\n\s*\n", doc):
        text = " ".join(para.split())
        if re.match(r"(?i)\(?deprecated\b", text):
            return text
    return None


def _deprecation_in_help(text: Any) -> str | None:
    if not isinstance(text, str):
        return None
    flat = " ".join(text.split())
    if re.match(r"(?i)^\W*deprecated\b", flat) or re.match(
            r"(?i)^\W*-{1,2}[\w.-]+(\s+\(--[\w.-]+\))?\s+is deprecated\b", flat):
        return flat
    return None


# ==========================================================================
# argparse: semantic kwargs and the add_argument interpreter
# ==========================================================================


@dataclass
class Kw:
    """What an add_argument call means, independent of how it was spelled."""

    action: str = "store"  # store | flag | bool-optional | append | custom
    type: str = "str"
    nargs: str | int | None = None
    choices: Any = None  # list | Partial | None
    choices_kind: str | None = None
    json_keys: tuple[str, ...] | None = None
    deprecated: str | None = None
    removed: bool = False
    normalize: str | None = None

    def copy(self) -> Kw:
        return Kw(**self.__dict__)


def _choices_kind(values: Any, default: str = CHOICES_STRICT) -> tuple[Any, str | None]:
    if isinstance(values, Partial):
        return list(values.items), CHOICES_PARTIAL
    if isinstance(values, Known):
        return list(values.items), CHOICES_KNOWN
    if isinstance(values, (list, tuple, set)):
        return list(values), default
    return None, None


def _dataclass_keys(ref: tuple[Module, ast.ClassDef]) -> tuple[str, ...]:
    mod, cls = ref
    return tuple(
        sorted(f.name for f in class_fields(mod, cls) if f.init and not f.name.startswith("_"))
    )


def vllm_field_kw(spec: FieldSpec) -> Kw:
    """argparse kwargs of a vLLM config field, as ``_compute_kwargs`` derives them."""
    hints = type_hints(spec.annotation, spec.module)
    kinds = {h.kind for h in hints}
    kw = Kw()
    dataclass_th = next((h for h in hints if h.kind == "dataclass"), None)
    nonbuiltin = kinds & {"class", "enum", "typeddict", "model", "any", "dataclass"}
    if dataclass_th is not None and dataclass_th.ref is not None:
        kw.type = "json"
        kw.json_keys = _dataclass_keys(dataclass_th.ref)
    elif kinds == {"bool", "str", "none"}:
        kw.type, kw.nargs = "str", "?"
    elif "bool" in kinds:
        kw.action, kw.type = "bool-optional", "bool"
    elif "literal" in kinds:
        values = [v for h in hints if h.kind == "literal" for v in h.values]
        kw.type = type(values[0]).__name__ if values else "str"
        kw.choices = sorted(values, key=str)
        kw.choices_kind = CHOICES_KNOWN if "str" in kinds else CHOICES_STRICT
    elif kinds & {"tuple", "list", "set"}:
        coll = next(h for h in hints if h.kind in ("tuple", "list", "set"))
        elem = coll.elems[0] if coll.elems else (TH("any"),)
        elem_kinds = {h.kind for h in elem}
        literal_vals = [v for h in elem if h.kind == "literal" for v in h.values]
        if literal_vals:
            kw.choices, kw.choices_kind = sorted(literal_vals, key=str), CHOICES_STRICT
            kw.type = type(literal_vals[0]).__name__
        else:
            kw.type = next((k for k in ("int", "float", "str") if k in elem_kinds), "str")
        kw.nargs = len(coll.elems) if coll.kind == "tuple" and not coll.ellipsis else "+"
    elif "int" in kinds:
        kw.type = "int"
    elif "float" in kinds:
        kw.type = "float"
    elif "dict" in kinds and ("str" in kinds or nonbuiltin):
        kw.type = "json|str"
    elif "dict" in kinds:
        kw.type = "json"
    else:
        kw.type = "str"
    kw.deprecated = _deprecation_in_doc(spec.doc)
    return kw


@dataclass
class KwTable:
    """``get_kwargs(SomeConfig)``: one Kw per dataclass field."""

    module: Module
    cls: ast.ClassDef
    fields: dict[str, Kw] = field(default_factory=dict)

    @classmethod
    def of(cls, mod: Module, node: ast.ClassDef) -> KwTable:
        table = cls(mod, node)
        for spec in class_fields(mod, node):
            table.fields[spec.name] = vllm_field_kw(spec)
        return table


@dataclass
class RawOption:
    names: list[str]
    kw: Kw


def _action_class_nargs(mod: Module, expr: ast.expr) -> tuple[str, Any]:
    """(class name, default nargs) of a custom argparse Action class."""
    found = mod.resolve_expr(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
    name = _terminal_name(expr)
    if found is None or not isinstance(found[1].node, ast.ClassDef):
        return name, UNKNOWN
    for stmt in found[1].node.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
            args = stmt.args
            params = args.args[len(args.args) - len(args.defaults):]
            for param, default in zip(params, args.defaults, strict=False):
                if param.arg == "nargs":
                    return name, const_eval(default, found[0])
            for param, kwdefault in zip(args.kwonlyargs, args.kw_defaults, strict=False):
                if param.arg == "nargs" and kwdefault is not None:
                    return name, const_eval(kwdefault, found[0])
    return name, UNKNOWN


def apply_kwarg(kw: Kw, key: str, expr: ast.expr | None, mod: Module,
                local: dict[str, Any]) -> None:
    """Fold one add_argument keyword (or an override of it) into ``kw``."""
    if expr is None:  # deleted by `del kwargs["key"]`
        if key == "nargs":
            kw.nargs = None
        return
    if key == "action":
        value = const_eval(expr, mod, local)
        if value in ("store_true", "store_false", "store_const", "count", "help", "version"):
            kw.action, kw.nargs = "flag", 0
            if kw.type not in ("bool",):
                kw.type = "bool"
            return
        if value == "append":
            kw.action = "append"
            return
        if value in ("store", "extend"):
            kw.action = "store"
            return
        name = _terminal_name(expr)
        if name == "BooleanOptionalAction":
            kw.action, kw.type, kw.nargs = "bool-optional", "bool", 0
            return
        cls_name, nargs = _action_class_nargs(mod, expr)
        kw.action = "custom"
        if "Deprecated" in cls_name:
            kw.deprecated = kw.deprecated or "deprecated"
            if cls_name == "DeprecatedAction":
                kw.removed = True
        if nargs == 0:
            kw.nargs, kw.type = 0, "bool"
        elif nargs is not UNKNOWN:
            kw.nargs = nargs
        return
    if key == "type":
        name = _terminal_name(expr)
        text = ast.unparse(expr)
        if "json.loads" in text or name in ("json_list_type",):
            kw.type = "json" if kw.type != "json|str" else kw.type
        elif isinstance(expr, ast.Lambda):
            body = ast.unparse(expr.body)
            if ".lower()" in body and "replace('-', '_')" in body:
                kw.normalize = "lower,dash-to-underscore"
            elif ".lower()" in body:
                kw.normalize = "lower"
            if kw.type in ("json",):
                kw.type = "str"
        elif name in ("int", "human_readable_int", "human_readable_int_or_auto"):
            kw.type = "int"
        elif name == "float":
            kw.type = "float"
        elif name == "str" or name == "optional_type":
            inner = expr.args[0] if isinstance(expr, ast.Call) and expr.args else None
            if inner is not None and "json.loads" in ast.unparse(inner):
                kw.type = "json"
            elif inner is not None and _terminal_name(inner) in ("int", "float"):
                kw.type = _terminal_name(inner)
            elif kw.type in ("json", "json|str") or kw.type not in ("int", "float"):
                kw.type = "str"
        return
    if key == "choices":
        values = const_eval(expr, mod, local)
        choices, kind = _choices_kind(values)
        if choices is None:
            kw.choices, kw.choices_kind = None, None
            return
        if kind == CHOICES_STRICT and _is_registry(expr, mod, local):
            kind = CHOICES_KNOWN
        kw.choices, kw.choices_kind = [c for c in choices if c is not None], kind
        return
    if key == "nargs":
        value = const_eval(expr, mod, local)
        if value is not UNKNOWN:
            kw.nargs = value
            if value != 0 and kw.type == "bool":
                kw.type = "str"
        return
    if key == "help":
        message = _deprecation_in_help(const_eval(expr, mod, local))
        if message:
            kw.deprecated = message
        return
    if key == "deprecated":
        if const_eval(expr, mod, local) is True:
            kw.deprecated = kw.deprecated or "deprecated"
        return


def _is_registry(expr: ast.expr, mod: Module, local: dict[str, Any]) -> bool:
    """Whether ``expr`` names a list that the engine extends at run time."""
    for node in ast.walk(expr):
        if not isinstance(node, ast.Name):
            continue
        if local.get(f"__mutated__{node.id}"):
            return True
        found = mod.resolve(node.id)
        if found is not None and found[1].kind == "value" and _mutated_names(found[0]).get(
                node.id):
            return True
    return False


def _mutated_names(mod: Module) -> dict[str, bool]:
    """Module-level lists that some function extends at run time (plugin registries)."""
    cache = getattr(mod, "_mutated_cache", None)
    if cache is None:
        cache = {}
        for node in ast.walk(mod.tree):
            # `NAME.extend(...)`, or `add_x = NAME.extend` handed out to plugins
            if isinstance(node, ast.Attribute) and node.attr in (
                "append", "extend", "add", "insert"
            ) and isinstance(node.value, ast.Name):
                cache[node.value.id] = True
        mod._mutated_cache = cache  # type: ignore[attr-defined]
    return cache


class ArgparseInterpreter:
    """Walks functions that register argparse options and records each option.

    Understands the idioms the engines use: ``x = get_kwargs(Config)``,
    ``parser.add_argument("--a", "-b", **x["field"])``, ``**{**x["f"], "k": v}``,
    overrides such as ``x["f"]["type"] = json.loads``, ``x["f"]["choices"].remove(V)``,
    ``del x["f"]["nargs"]``, calls into other ``add_cli_args`` methods, and the
    ``for key, value in kwargs.items(): add_argument(f"--{key...}", **value)`` loop.
    """

    def __init__(self) -> None:
        self.options: list[RawOption] = []
        self.positionals: list[tuple[str, bool]] = []

    # ---- values -------------------------------------------------------

    def _kw_of(self, expr: ast.expr, mod: Module, local: dict[str, Any]) -> Any:
        """A Kw, a KwTable or a plain constant for ``expr``."""
        if isinstance(expr, ast.Name) and expr.id in local:
            return local[expr.id]
        if isinstance(expr, ast.Subscript):
            base = self._kw_of(expr.value, mod, local)
            key = const_eval(expr.slice, mod, local)
            if isinstance(base, KwTable) and isinstance(key, str):
                return base.fields.get(key)
            return None
        if isinstance(expr, ast.Call) and _terminal_name(expr.func) == "get_kwargs" and expr.args:
            return self._table(expr.args[0], mod, local)
        return None

    def _table(self, expr: ast.expr, mod: Module, local: dict[str, Any]) -> KwTable | None:
        if isinstance(expr, ast.Name) and isinstance(local.get(expr.id), tuple):
            cmod, cls = local[expr.id]
            return KwTable.of(cmod, cls)
        found = mod.resolve_expr(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
        if found is not None and isinstance(found[1].node, ast.ClassDef):
            return KwTable.of(found[0], found[1].node)
        return None

    # ---- statements ---------------------------------------------------

    def run(self, fn: ast.FunctionDef, mod: Module, local: dict[str, Any] | None = None,
            depth: int = 0) -> None:
        self._stmts(fn.body, mod, dict(local or {}), depth)

    def _stmts(self, body: Sequence[ast.stmt], mod: Module, local: dict[str, Any],
               depth: int) -> None:
        for stmt in body:
            self._stmt(stmt, mod, local, depth)

    def _stmt(self, stmt: ast.stmt, mod: Module, local: dict[str, Any], depth: int) -> None:
        if isinstance(stmt, ast.Assign):
            value = stmt.value
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    self._bind(target.id, value, mod, local, depth)
                elif isinstance(target, ast.Subscript):
                    self._override(target, value, mod, local)
        elif isinstance(stmt, ast.AugAssign):
            return
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Subscript):
                    self._override(target, None, mod, local)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self._call(stmt.value, mod, local, depth)
        elif isinstance(stmt, ast.If):
            self._stmts(stmt.body, mod, local, depth)
            self._stmts(stmt.orelse, mod, local, depth)
        elif isinstance(stmt, (ast.With, ast.Try)):
            self._stmts(stmt.body, mod, local, depth)
        elif isinstance(stmt, ast.For):
            self._for(stmt, mod, local, depth)

    def _bind(self, name: str, value: ast.expr, mod: Module, local: dict[str, Any],
              depth: int) -> None:
        if isinstance(value, ast.Call) and _terminal_name(value.func) in (
            "add_cli_args", "_customize_cli_kwargs"
        ):
            self._call(value, mod, local, depth)
            if _terminal_name(value.func) == "_customize_cli_kwargs":
                return  # the same table comes back
            return
        kw = self._kw_of(value, mod, local)
        if kw is not None:
            local[name] = kw
            return
        if isinstance(value, ast.Call) and _terminal_name(value.func) in ("set", "list"):
            local[name] = const_eval(value, mod, local)
            return
        local[name] = const_eval(value, mod, local)

    def _override(self, target: ast.Subscript, value: ast.expr | None, mod: Module,
                  local: dict[str, Any]) -> None:
        key = const_eval(target.slice, mod, local)
        owner = self._kw_of(target.value, mod, local)
        if isinstance(owner, Kw) and isinstance(key, str):
            apply_kwarg(owner, key, value, mod, local)

    def _for(self, stmt: ast.For, mod: Module, local: dict[str, Any], depth: int) -> None:
        it = stmt.iter
        if (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Attribute)
            and it.func.attr == "items"
            and isinstance(stmt.target, ast.Tuple)
            and len(stmt.target.elts) == 2
            and all(isinstance(e, ast.Name) for e in stmt.target.elts)
        ):
            table = self._kw_of(it.func.value, mod, local)
            if isinstance(table, KwTable):
                key_name = stmt.target.elts[0].id  # type: ignore[attr-defined]
                value_name = stmt.target.elts[1].id  # type: ignore[attr-defined]
                for fname, kw in table.fields.items():
                    inner = dict(local)
                    inner[key_name] = fname
                    inner[value_name] = kw
                    self._stmts(stmt.body, mod, inner, depth)

    def _call(self, call: ast.Call, mod: Module, local: dict[str, Any], depth: int) -> None:
        func = call.func
        name = _terminal_name(func)
        if name == "add_argument":
            self._add_argument(call, mod, local)
        elif name == "remove" and isinstance(func, ast.Attribute):
            # kwargs["field"]["choices"].remove(VALUE)
            holder = func.value
            if isinstance(holder, ast.Subscript) and const_eval(holder.slice, mod, local) == \
                    "choices":
                owner = self._kw_of(holder.value, mod, local)
                value = const_eval(call.args[0], mod, local) if call.args else UNKNOWN
                if isinstance(owner, Kw) and isinstance(owner.choices, list):
                    owner.choices = [c for c in owner.choices if c != value]
        elif name in ("add", "append", "extend") and isinstance(func, ast.Attribute) and \
                isinstance(func.value, ast.Name):
            var = func.value.id
            current = local.get(var)
            if isinstance(current, list) and call.args:
                extra = const_eval(call.args[0], mod, local)
                if name == "extend" and isinstance(extra, list):
                    current.extend(extra)
                elif extra is not UNKNOWN:
                    current.append(extra)
                local[f"__mutated__{var}"] = True
        elif name in ("add_cli_args", "_customize_cli_kwargs") and depth < 8:
            self._delegate(call, mod, local, depth)

    def _delegate(self, call: ast.Call, mod: Module, local: dict[str, Any], depth: int) -> None:
        """Run ``Cls.add_cli_args(parser)`` / ``cls._customize_cli_kwargs(table)``."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return
        method = func.attr
        owner = func.value
        cls_ref: tuple[Module, ast.ClassDef] | None = None
        start_after: str | None = None
        if isinstance(owner, ast.Name) and isinstance(local.get(owner.id), tuple):
            cls_ref = local[owner.id]
        elif isinstance(owner, ast.Call) and _terminal_name(owner.func) == "super":
            cls_ref = local.get("__class__")
            start_after = local.get("__defining__")
        else:
            found = mod.resolve_expr(owner) if isinstance(owner, (ast.Name, ast.Attribute)) \
                else None
            if found is not None and isinstance(found[1].node, ast.ClassDef):
                cls_ref = (found[0], found[1].node)
        if cls_ref is None:
            return
        for defining_mod, defining_cls, fn in _methods_in_mro(cls_ref, method, start_after):
            params = [a.arg for a in fn.args.args]
            inner: dict[str, Any] = {"__class__": cls_ref, "__defining__": defining_cls.name}
            if params and params[0] == "cls":
                inner["cls"] = cls_ref
                params = params[1:]
            for pname, arg in zip(params, call.args, strict=False):
                bound = self._kw_of(arg, mod, local)
                if bound is not None:
                    inner[pname] = bound
            self.run(fn, defining_mod, inner, depth + 1)
            return

    def _add_argument(self, call: ast.Call, mod: Module, local: dict[str, Any]) -> None:
        names: list[str] = []
        for arg in call.args:
            if isinstance(arg, ast.Starred):
                continue
            value = const_eval(arg, mod, local)
            if isinstance(value, str):
                names.append(value)
        flags = [n for n in names if n.startswith("-")]
        if not flags:
            for n in names:
                nargs = next((k.value for k in call.keywords if k.arg == "nargs"), None)
                optional = isinstance(nargs, ast.Constant) and nargs.value in ("?", "*")
                self.positionals.append((n, not optional))
            return
        kw = Kw()
        for keyword in call.keywords:
            if keyword.arg is None:
                self._spread(kw, keyword.value, mod, local)
            else:
                apply_kwarg(kw, keyword.arg, keyword.value, mod, local)
        self.options.append(RawOption(flags, kw))

    def _spread(self, kw: Kw, expr: ast.expr, mod: Module, local: dict[str, Any]) -> None:
        if isinstance(expr, ast.Dict):
            for key, value in zip(expr.keys, expr.values, strict=False):
                if key is None:
                    self._spread(kw, value, mod, local)
                else:
                    k = const_eval(key, mod, local)
                    if isinstance(k, str):
                        apply_kwarg(kw, k, value, mod, local)
            return
        source = self._kw_of(expr, mod, local)
        if isinstance(source, Kw):
            for attr, attr_value in source.__dict__.items():
                setattr(kw, attr, attr_value)
            if isinstance(kw.choices, list):
                kw.choices = list(kw.choices)


def _methods_in_mro(cls_ref: tuple[Module, ast.ClassDef], method: str,
                    start_after: str | None) -> Iterator[tuple[Module, ast.ClassDef,
                                                               ast.FunctionDef]]:
    chain: list[tuple[Module, ast.ClassDef]] = [cls_ref]
    chain += [(m, c) for _, m, c in _class_bases(*cls_ref) if c is not None]
    skipping = start_after is not None
    for cmod, cls in chain:
        if skipping:
            if cls.name == start_after:
                skipping = False
            continue
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == method:
                yield cmod, cls, stmt


def _sglang_config_ok(kw: Kw) -> bool:
    """SGLang's config loader takes store-true flags and single-value (or store) actions."""
    if kw.action == "bool-optional":
        return False
    if kw.action == "custom":
        return kw.nargs is None
    return True


def argparse_option(raw: RawOption, *, enable_disable: bool = False,
                    commands: tuple[str, ...] | None = None,
                    config_ok: Callable[[Kw], bool] = lambda kw: True) -> Option:
    """Turn an interpreted add_argument call into an :class:`Option`."""
    kw = raw.kw
    longs = [n for n in raw.names if n.startswith("--")]
    name = longs[0] if longs else raw.names[0]
    aliases = tuple(n for n in raw.names if n != name)
    negations: list[str] = []
    negatable = kw.action == "bool-optional"
    if negatable:
        for n in raw.names:
            if n.startswith("--"):
                negations.append("--no-" + n[2:])
        if enable_disable:
            for n in raw.names:
                for prefix, inverse in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
                    if n.startswith(prefix):
                        negations.append(inverse + n[len(prefix):])
    takes_value = kw.action not in ("flag", "bool-optional") and kw.nargs != 0
    choices, choices_kind = kw.choices, kw.choices_kind
    if choices is not None:
        choices = tuple(dict.fromkeys(str(c) for c in choices))
    return Option(
        name=name,
        aliases=aliases,
        negations=tuple(negations),
        type=kw.type if takes_value else "bool",
        takes_value=takes_value,
        nargs=kw.nargs if takes_value else None,
        choices=choices if takes_value else None,
        choices_kind=choices_kind if (takes_value and choices is not None) else None,
        normalize=kw.normalize,
        deprecated=kw.deprecated,
        removed=kw.removed,
        negatable=negatable,
        json_keys=kw.json_keys if kw.type in ("json", "json|str") else None,
        commands=commands,
        config_ok=config_ok(kw),
    )


_HELP_OPTION = Option(name="--help", aliases=("-h",), type="bool", takes_value=False,
                      config_ok=False)


# ==========================================================================
# vLLM
# ==========================================================================


def _detect(text: str, pattern: str) -> bool:
    return re.search(pattern, text) is not None


def generate_vllm(root: Path, version: str) -> Manifest:
    index = SourceIndex(root)
    arg_utils = index.require("vllm.engine.arg_utils")
    cli_args = index.require("vllm.entrypoints.common.cli_args")
    argparse_utils = index.require("vllm.utils.argparse_utils")
    make_parser = cli_args.function("make_arg_parser")
    if make_parser is None or arg_utils.class_def("EngineArgs") is None:
        raise GenerateError("make_arg_parser / EngineArgs not found")
    interp = ArgparseInterpreter()
    interp.run(make_parser, cli_args)
    ap_text = argparse_utils.text
    enable_disable = _detect(ap_text, r"register\(\s*\"action\",\s*BooleanOptionalAction,\s*"
                                      r"EnableDisableAction")
    options = [argparse_option(r, enable_disable=enable_disable) for r in interp.options]
    # argparse adds -h/--help; FlexibleArgumentParser also reads `--help=<keyword>`.
    options.append(Option(name="--help", aliases=("-h",), type="str", takes_value=True,
                          nargs="?", config_ok=False))
    shorthands: dict[str, str] = {}
    if _detect(ap_text, r'arg\.startswith\("-O"\)') and any(
        o.name == "--optimization-level" for o in options
    ):
        shorthands["-O"] = "--optimization-level"
    parser = ParserRules(
        kind="argparse",
        equals_form=True,
        abbreviations=not _detect(ap_text, r"allow_abbrev\s*=\s*False"),
        underscore_to_dash=_detect(ap_text, r'replace\("_",\s*"-"\)'),
        dotted_json_keys=_detect(ap_text, r'"\." in processed_arg'),
        shorthands=shorthands,
    )
    config_notes = (
        "Top-level YAML keys are long option names without the leading dashes; the file "
        "is turned into `--<key> <value>` arguments, so underscores are read as dashes. "
        "`true` passes the flag; `false` passes `--no-<key>` only when the parser that reads "
        "the file knows that spelling, and under `vllm serve` the file is read by the "
        "top-level `vllm` parser, which knows none of the serve options, so every `false` "
        "is dropped (write `no-<key>: true` instead); a list passes its items as separate "
        "values; a mapping is "
        "passed as JSON (the JSON-valued options). Arguments on the command line win "
        "over the file."
    )
    if not _detect(ap_text, r"def load_config_file"):
        raise GenerateError("FlexibleArgumentParser.load_config_file not found")
    positionals = tuple(Positional(n, required=req) for n, req in interp.positionals)
    return Manifest(
        engine="vllm",
        version=version,
        commands=("vllm serve",),
        options=tuple(options),
        positionals=positionals,
        parser=parser,
        config_file={
            "option": "--config",
            "key_style": "dash-or-underscore" if parser.underscore_to_dash else "dash",
            "notes": config_notes,
        },
        config_keys=None,
        provenance={
            "files": sorted(index.read),
        },
    )


# ==========================================================================
# SGLang
# ==========================================================================


def _arg_meta(meta: Sequence[ast.expr], mod: Module) -> dict[str, ast.expr] | None:
    """The keywords of ``Arg(...)`` (or ``help`` for a bare string) in Annotated metadata."""
    for item in meta:
        if isinstance(item, ast.Call) and _terminal_name(item.func) == "Arg":
            return {k.arg: k.value for k in item.keywords if k.arg}
        value = const_eval(item, mod)
        if isinstance(value, str):
            return {"help": ast.Constant(value)}
    return None


def sglang_field_option(spec: FieldSpec) -> RawOption | None:
    """An option registered by ``add_cli_args_from_dataclass`` for one field."""
    ann = spec.annotation
    if not (isinstance(ann, ast.Subscript) and _terminal_name(ann.value) in ("A", "Annotated")):
        return None
    sl = ann.slice
    items = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
    mod = spec.module
    meta = _arg_meta(items[1:], mod)
    if meta is None:
        return None
    if const_eval(meta.get("no_cli"), mod) is True:
        return None
    cli_name = const_eval(meta.get("cli_name"), mod) if "cli_name" in meta else None
    name = cli_name if isinstance(cli_name, str) else "--" + spec.name.replace("_", "-")
    aliases = const_eval(meta.get("aliases"), mod) if "aliases" in meta else []
    names = [name, *(aliases if isinstance(aliases, list) else [])]
    kw = Kw()
    help_text = const_eval(meta.get("help"), mod) if "help" in meta else None
    if "action" in meta:
        apply_kwarg(kw, "action", meta["action"], mod, {})
        extra = meta.get("action_kwargs")
        if isinstance(extra, ast.Dict):
            for k, v in zip(extra.keys, extra.values, strict=False):
                key = const_eval(k, mod) if k is not None else None
                if isinstance(key, str):
                    apply_kwarg(kw, key, v, mod, {})
    else:
        hints = type_hints(items[0], mod)
        non_none = [h for h in hints if h.kind != "none"]
        inner = non_none[0] if len(non_none) == 1 else None
        type_parser = meta.get("type_parser")
        if inner is not None and inner.kind == "literal":
            values = list(inner.values)
            kw.choices, kw.choices_kind = values, CHOICES_STRICT
            if "choices" in meta:
                apply_kwarg(kw, "choices", meta["choices"], mod, {})
            kw.type = type(values[0]).__name__ if values else "str"
        elif inner is not None and inner.kind == "list" and type_parser is None:
            elem = {h.kind for h in inner.elems[0]} if inner.elems else set()
            kw.type = next((k for k in ("int", "float") if k in elem), "str")
            kw.nargs = "+"
            if "nargs" in meta:
                apply_kwarg(kw, "nargs", meta["nargs"], mod, {})
            if "choices" in meta:
                apply_kwarg(kw, "choices", meta["choices"], mod, {})
        elif inner is not None and inner.kind == "bool":
            kw.action, kw.type, kw.nargs = "flag", "bool", 0
        else:
            kind = inner.kind if inner is not None else "str"
            kw.type = kind if kind in ("int", "float") else "str"
            if type_parser is not None:
                apply_kwarg(kw, "type", type_parser, mod, {})
            if "choices" in meta:
                apply_kwarg(kw, "choices", meta["choices"], mod, {})
            if "nargs" in meta:
                apply_kwarg(kw, "nargs", meta["nargs"], mod, {})
    message = _deprecation_in_help(help_text)
    if message:
        kw.deprecated = message
    return RawOption(names, kw)


def generate_sglang(root: Path, version: str) -> Manifest:
    index = SourceIndex(root)
    server_args = index.require("sglang.srt.server_args")
    launch = index.module("sglang.launch_server")
    if launch is None:
        raise GenerateError("sglang/launch_server.py not found")
    namespaces = server_args.symbols.get("_INPUT_NAMESPACES")
    if namespaces is None or not isinstance(namespaces.node, ast.List):
        raise GenerateError("_INPUT_NAMESPACES not found in server_args.py")
    raws: list[RawOption] = []
    for elt in namespaces.node.elts:
        found = server_args.resolve_expr(elt)
        if found is None or not isinstance(found[1].node, ast.ClassDef):
            raise GenerateError(f"namespace {ast.unparse(elt)} not found")
        for spec in class_fields(found[0], found[1].node):
            raw = sglang_field_option(spec)
            if raw is not None:
                raws.append(raw)
    server_cls = server_args.class_def("ServerArgs")
    method = next(
        (s for s in server_cls.body if isinstance(s, ast.FunctionDef) and s.name == "add_cli_args"),
        None,
    ) if server_cls else None
    if method is None:
        raise GenerateError("ServerArgs.add_cli_args not found")
    interp = ArgparseInterpreter()
    interp.run(method, server_args)
    raws.extend(interp.options)
    commands: tuple[str, ...] = ("python -m sglang.launch_server", "sglang serve")
    options = [argparse_option(r, config_ok=_sglang_config_ok) for r in raws]
    options.append(_HELP_OPTION)
    positionals: tuple[Positional, ...] = ()
    serve = index.module("sglang.cli.serve")
    if serve is not None:
        if _detect(serve.text, r'"--model-type"'):
            options.append(Option(name="--model-type", type="str",
                                  commands=("sglang serve",), config_ok=False))
        if _detect(serve.text, r'def _normalize_positional_model_path'):
            positionals = (Positional("model_path", required=False,
                                      commands=("sglang serve",)),)
    else:
        commands = commands[:1]
    parser_text = server_args.text
    config_notes = (
        "Each top-level YAML key is passed on as `--<key>` exactly as written, so it "
        "must be the option's own spelling (dashes, as in `tp-size`). A store-true flag "
        "is passed for `true` and dropped for `false`; other booleans are passed as "
        "`true`/`false`; a list passes its items as separate values; a mapping is "
        "passed as a JSON string. Keys of options with other actions (for example "
        "`--enable-x/--no-enable-x` switches) are rejected. Arguments on the command "
        "line win over the file."
    )
    if not _detect(parser_text, r'"--config"'):
        raise GenerateError("--config registration not found in server_args.py")
    if serve is not None:
        index.read.add("sglang/cli/serve.py")
    return Manifest(
        engine="sglang",
        version=version,
        commands=commands,
        options=tuple(options),
        positionals=positionals,
        parser=ParserRules(kind="argparse", equals_form=True, abbreviations=True),
        config_file={"option": "--config", "key_style": "flag-spelling",
                     "notes": config_notes},
        config_keys=None,
        provenance={"files": sorted(index.read)},
    )


# ==========================================================================
# llama.cpp (common/arg.cpp)
# ==========================================================================


def _cpp_blank_comments(text: str) -> str:
    """Replace comments by spaces, keeping string and char literals and offsets."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            i = _cpp_skip_literal(text, i)
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        i += 1
    return "".join(out)


def _cpp_skip_literal(text: str, i: int) -> int:
    quote = text[i]
    if quote == '"' and i > 0 and text[i - 1] == "R":
        m = re.match(r'"([^(\s]*)\(', text[i:])
        if m:
            end = text.find(")" + m.group(1) + '"', i)
            return len(text) if end < 0 else end + len(m.group(1)) + 2
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        if text[j] == "\n":
            return j
        j += 1
    return j


def _cpp_match(text: str, i: int) -> int:
    """Index just past the bracket closing the one at ``i``."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = [pairs[text[i]]]
    j = i + 1
    while j < len(text) and stack:
        c = text[j]
        if c in "\"'":
            j = _cpp_skip_literal(text, j)
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")}]":
            if c != stack[-1]:
                raise GenerateError(f"unbalanced brackets near offset {j}")
            stack.pop()
        j += 1
    if stack:
        raise GenerateError(f"unclosed bracket at offset {i}")
    return j


def _cpp_split(text: str) -> list[str]:
    """Split on top-level commas."""
    parts: list[str] = []
    depth, start, j = 0, 0, 0
    while j < len(text):
        c = text[j]
        if c in "\"'":
            j = _cpp_skip_literal(text, j)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:j].strip())
            start = j + 1
        j += 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


_CPP_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "r": "\r", "0": "\0"}


def _cpp_strings(text: str) -> list[str]:
    """Every ordinary string literal in ``text``, decoded."""
    found: list[str] = []
    j = 0
    while j < len(text):
        if text[j] == '"':
            end = _cpp_skip_literal(text, j)
            raw = text[j + 1 : end - 1]
            found.append(re.sub(r"\\(.)", lambda m: _CPP_ESCAPES.get(m.group(1), m.group(1)), raw))
            j = end
        elif text[j] == "'":
            j = _cpp_skip_literal(text, j)
        else:
            j += 1
    return found


def _cpp_only_strings(text: str) -> str | None:
    """The value of ``text`` when it is nothing but adjacent string literals."""
    rest = re.sub(r'"(?:[^"\\]|\\.)*"', "", text)
    if rest.strip():
        return None
    return "".join(_cpp_strings(text))


@dataclass
class CppArg:
    names: list[str]
    negs: list[str]
    hint: str | None
    handler: str  # void | bool | int | string | str_str
    help: str
    body: str
    param: str
    examples: set[str] = field(default_factory=lambda: {"LLAMA_EXAMPLE_COMMON"})
    excludes: set[str] = field(default_factory=set)
    env: str | None = None
    preset_only: bool = False


def _cpp_function_body(text: str, signature: str) -> str:
    m = re.search(signature, text)
    if m is None:
        raise GenerateError(f"function {signature!r} not found")
    brace = text.index("{", m.end())
    return text[brace + 1 : _cpp_match(text, brace) - 1]


def _cpp_parse_arg(call: str, constants: dict[str, list[str]]) -> CppArg:
    m = re.match(r"\s*common_arg\s*\(", call)
    if m is None:
        raise GenerateError(f"unexpected add_opt argument: {call[:80]!r}")
    open_paren = m.end() - 1
    close = _cpp_match(call, open_paren)
    parts = _cpp_split(call[open_paren + 1 : close - 1])
    names = _cpp_strings(parts[0])
    negs: list[str] = []
    hint: str | None = None
    handler_text = parts[-1]
    if len(parts) == 3:
        help_text, kind = parts[1], "void"
    elif len(parts) == 4 and parts[1].lstrip().startswith("{"):
        negs, help_text, kind = _cpp_strings(parts[1]), parts[2], "bool"
    elif len(parts) == 4:
        hint, help_text = _cpp_only_strings(parts[1]), parts[2]
        kind = "value"
    elif len(parts) == 5:
        hint, help_text, kind = _cpp_only_strings(parts[1]), parts[3], "str_str"
    else:
        raise GenerateError(f"common_arg with {len(parts)} arguments: {names}")
    lm = re.match(r"\s*\[[^\]]*\]\s*\(([^)]*)\)\s*\{", handler_text)
    if lm is None:
        raise GenerateError(f"handler of {names} is not a lambda")
    params = [p.strip() for p in lm.group(1).split(",")]
    body_start = handler_text.index("{", lm.end() - 1)
    body = handler_text[body_start + 1 : _cpp_match(handler_text, body_start) - 1]
    param = ""
    if kind == "value":
        last = params[-1] if len(params) > 1 else ""
        kind = "int" if re.match(r"int\b", last) else "string"
        pm = re.search(r"(\w+)\s*$", last)
        param = pm.group(1) if pm else "value"
    arg = CppArg(names, negs, hint, kind, " ".join(_cpp_strings(help_text)), body, param)
    for cm in re.finditer(r"\.\s*(set_\w+)\s*\(", call[close:]):
        start = close + cm.end() - 1
        inner = call[start + 1 : _cpp_match(call, start) - 1]
        method = cm.group(1)
        if method in ("set_examples", "set_excludes"):
            values = re.findall(r"LLAMA_EXAMPLE_\w+", inner)
            if not values and inner.strip() in constants:
                values = constants[inner.strip()]
            if method == "set_examples":
                arg.examples = set(values)
            else:
                arg.excludes = set(values)
        elif method == "set_env":
            strings = _cpp_strings(inner)
            arg.env = strings[0] if strings else None
        elif method == "set_preset_only":
            arg.preset_only = True
    return arg


def _cpp_walk(body: str, example: str, constants: dict[str, list[str]]) -> list[CppArg]:
    """The add_opt calls of a function body that run for ``example``."""
    found: list[CppArg] = []
    i, n = 0, len(body)
    while i < n:
        while i < n and body[i].isspace():
            i += 1
        if i >= n:
            break
        if body.startswith("add_opt(", i):
            end = _cpp_match(body, i + len("add_opt"))
            found.append(_cpp_parse_arg(body[i + len("add_opt(") : end - 1], constants))
            i = end
            while i < n and body[i] in " \t\n;":
                i += 1
            continue
        ifm = re.match(r"if\s*\(", body[i:])
        if ifm:
            i = _cpp_if_chain(body, i, example, constants, found)
            continue
        i = _cpp_skip_statement(body, i)
    return found


def _cpp_eval_condition(cond: str, example: str) -> bool:
    cond = cond.strip()
    for op in ("||", "&&"):
        if op in cond:
            values = [_cpp_eval_condition(c, example) for c in cond.split(op)]
            return any(values) if op == "||" else all(values)
    m = re.fullmatch(r"\(?\s*ex\s*(==|!=)\s*(LLAMA_EXAMPLE_\w+)\s*\)?", cond)
    if m:
        return (m.group(2) == example) == (m.group(1) == "==")
    return True  # unknown conditions are treated as taken


def _cpp_if_chain(body: str, i: int, example: str, constants: dict[str, list[str]],
                  found: list[CppArg]) -> int:
    taken = False
    while True:
        paren = body.index("(", i)
        close = _cpp_match(body, paren)
        cond = body[paren + 1 : close - 1]
        brace = body.index("{", close)
        end = _cpp_match(body, brace)
        if not taken and _cpp_eval_condition(cond, example):
            found.extend(_cpp_walk(body[brace + 1 : end - 1], example, constants))
            taken = True
        i = end
        rest = body[i:]
        m = re.match(r"\s*else\s+(if)\s*\(", rest)
        if m:
            i += m.start(1)
            continue
        m = re.match(r"\s*else\s*\{", rest)
        if m:
            brace = i + m.end() - 1
            end = _cpp_match(body, brace)
            if not taken:
                found.extend(_cpp_walk(body[brace + 1 : end - 1], example, constants))
            return end
        return i


def _cpp_skip_statement(body: str, i: int) -> int:
    starts_block = re.match(r"(for|while|switch|do|else)\b", body[i:]) is not None
    j = i
    while j < len(body):
        c = body[j]
        if c in "\"'":
            j = _cpp_skip_literal(body, j)
            continue
        if c in "([":
            j = _cpp_match(body, j)
            continue
        if c == "{":
            j = _cpp_match(body, j)
            if starts_block:
                return j
            continue
        if c == ";":
            return j + 1
        j += 1
    return j


def _ggml_type_names(root: Path) -> dict[str, str]:
    """GGML_TYPE_X -> type name, read from ggml's type traits table."""
    names: dict[str, str] = {}
    path = root / "ggml" / "src" / "ggml.c"
    if path.is_file():
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in re.finditer(r"\[(GGML_TYPE_\w+)\]\s*=\s*\{[^{}]*?\.type_name\s*=\s*\"([^\"]+)\"",
                             text):
            names[m.group(1)] = m.group(2)
    return names


def _cpp_choices(arg: CppArg, text: str, ggml_names: dict[str, str]) -> tuple[
        tuple[str, ...] | None, bool]:
    """(choices, accepts_numbers) read from a string handler's body."""
    body, param = arg.body, arg.param or "value"
    values: list[str] = []
    # helpers such as kv_cache_type_from_str(value) that accept a fixed list
    for fm in re.finditer(r"\b(\w+)\(\s*" + re.escape(param) + r"\s*\)", body):
        helper = fm.group(1)
        hm = re.search(r"static\s+ggml_type\s+" + helper + r"\s*\([^)]*\)\s*\{", text)
        if hm is None:
            continue
        hbody = text[hm.end() : _cpp_match(text, hm.end() - 1) - 1]
        vm = re.search(r"for\s*\(\s*const\s+auto\s*&\s*\w+\s*:\s*(\w+)\s*\)", hbody)
        if vm is None:
            continue
        lm = re.search(r"\b" + vm.group(1) + r"\s*=\s*\{([^}]*)\}", text)
        if lm is None:
            continue
        enums = re.findall(r"GGML_TYPE_\w+", lm.group(1))
        names = [ggml_names.get(e, e[len("GGML_TYPE_"):].lower()) for e in enums]
        return tuple(names), False
    for helper in ("is_truthy", "is_falsey", "is_autoy"):
        if re.search(r"\b" + helper + r"\(\s*" + re.escape(param) + r"\s*\)", body):
            hm = re.search(r"bool\s+common_arg_utils::" + helper + r"\s*\([^)]*\)\s*\{([^}]*)\}",
                           text)
            if hm:
                values.extend(re.findall(r'==\s*"([^"]*)"', hm.group(1)))
    values.extend(re.findall(re.escape(param) + r'\s*==\s*"([^"]*)"', body))
    if not values:
        return None, False
    chained_throw = re.search(r"else\s*\{\s*throw\b", body) is not None
    numeric_else = re.search(r"else\s*\{[^{}]*std::sto\w+\(\s*" + re.escape(param), body)
    if numeric_else:
        return tuple(dict.fromkeys(values)), True
    if chained_throw:
        return tuple(dict.fromkeys(values)), False
    return None, False


def _llama_vendor_root(root: Path) -> Path:
    for candidate in (root / "vendor" / "llama.cpp", root):
        if (candidate / "common" / "arg.cpp").is_file():
            return candidate
    raise GenerateError(f"common/arg.cpp not found under {root}")


def _llama_vendored_commit(root: Path, package_version: str) -> str | None:
    changelog = root / "CHANGELOG.md"
    if not changelog.is_file():
        return None
    text = changelog.read_text(encoding="utf-8", errors="replace")
    m = re.search(r"^## \[" + re.escape(package_version) + r"\][^\n]*\n(.*?)(?=^## \[|\Z)",
                  text, re.M | re.S)
    if m is None:
        return None
    cm = re.search(r"llama\.cpp@([0-9a-f]{7,40})", m.group(1))
    return cm.group(1) if cm else None


def generate_llama_cpp(root: Path, version: str) -> Manifest:
    vendor = _llama_vendor_root(root)
    arg_path = vendor / "common" / "arg.cpp"
    raw_text = arg_path.read_text(encoding="utf-8", errors="replace")
    text = _cpp_blank_comments(raw_text)
    constants: dict[str, list[str]] = {}
    for m in re.finditer(r"std::initializer_list<enum llama_example>\s+(\w+)\s*=\s*\{([^}]*)\}",
                         text):
        constants[m.group(1)] = re.findall(r"LLAMA_EXAMPLE_\w+", m.group(2))
    body = _cpp_function_body(text, r"common_params_context\s+common_params_parser_init\s*\(")
    example = "LLAMA_EXAMPLE_SERVER"
    ggml_names = _ggml_type_names(vendor)
    options: list[Option] = []
    for arg in _cpp_walk(body, example, constants):
        if arg.preset_only:
            continue
        in_example = example in arg.examples or "LLAMA_EXAMPLE_COMMON" in arg.examples
        if not in_example or example in arg.excludes:
            continue
        longs = [n for n in arg.names if n.startswith("--")]
        name = longs[0] if longs else arg.names[0]
        removed = "arg_removed(" in arg.body or arg.help.lower().startswith(
            "the argument has been removed")
        deprecated = None
        if removed or re.search(r"(?i)\bdeprecated\b", arg.help):
            deprecated = " ".join(arg.help.split())
        choices: tuple[str, ...] | None = None
        numbers = False
        if arg.handler == "string":
            choices, numbers = _cpp_choices(arg, text, ggml_names)
        takes_value = arg.handler in ("int", "string", "str_str")
        typ = {"int": "int", "string": "int" if numbers else "str", "str_str": "str"}.get(
            arg.handler, "bool")
        options.append(
            Option(
                name=name,
                aliases=tuple(n for n in arg.names if n != name),
                negations=tuple(arg.negs),
                type=typ,
                takes_value=takes_value,
                nargs=2 if arg.handler == "str_str" else None,
                choices=choices,
                choices_kind=CHOICES_STRICT if choices else None,
                accepts_numbers=numbers,
                deprecated=deprecated,
                removed=removed,
                negatable=bool(arg.negs),
                env=arg.env,
                config_ok=False,
            )
        )
    parse_ex = raw_text[raw_text.find("static bool common_params_parse_ex"):]
    underscores = _detect(parse_ex, r"std::replace\(arg\.begin\(\),\s*arg\.end\(\),\s*'_',\s*'-'\)")
    commit = _llama_vendored_commit(root, version)
    files = ["common/arg.cpp"]
    if ggml_names:
        files.append("ggml/src/ggml.c")
    prefix = "vendor/llama.cpp/" if vendor != root else ""
    provenance: dict[str, Any] = {
        "files": [prefix + f for f in files] + (["CHANGELOG.md"] if commit else []),
        "llama_cpp_commit": commit,
        "llama_cpp_build": None,
    }
    return Manifest(
        engine="llama.cpp",
        version=commit or version,
        commands=("llama-server",),
        options=tuple(options),
        positionals=(),
        parser=ParserRules(kind="llama.cpp", equals_form=False, abbreviations=False,
                           underscore_to_dash=underscores),
        config_file={
            "option": None,
            "key_style": None,
            "notes": "llama-server reads no YAML configuration file; an option can also be "
                     "set through the environment variable listed as its `env`, and the "
                     "command line wins over the environment.",
        },
        config_keys=None,
        provenance=provenance,
    )


# ==========================================================================
# TensorRT-LLM: click commands (trtllm-serve) and pydantic LLM API arguments
# ==========================================================================


def _click_decorators(fn: ast.FunctionDef) -> tuple[str | None, list[ast.Call]]:
    command: str | None = None
    calls: list[ast.Call] = []
    for deco in fn.decorator_list:
        if not isinstance(deco, ast.Call):
            continue
        name = _terminal_name(deco.func)
        if name == "command":
            first = deco.args[0] if deco.args else None
            command = first.value if isinstance(first, ast.Constant) and isinstance(
                first.value, str) else fn.name
        elif name in ("option", "argument"):
            calls.append(deco)
    return command, calls


def _click_option(call: ast.Call, mod: Module, commands: tuple[str, ...]) -> Option | None:
    names: list[str] = []
    for arg in call.args:
        value = const_eval(arg, mod)
        if isinstance(value, str):
            names.extend(value.split("/"))
    flags = [n.strip() for n in names if n.strip().startswith("-")]
    if not flags:
        return None
    kws = {k.arg: k.value for k in call.keywords if k.arg}
    is_flag = const_eval(kws.get("is_flag"), mod) is True or const_eval(
        kws.get("count"), mod) is True
    secondary = [n.strip() for n in names if "/" in n]
    typ = "str"
    choices: Any = None
    kind: str | None = None
    type_expr = kws.get("type")
    if type_expr is not None:
        tname = _terminal_name(type_expr)
        if tname in ("int", "INT", "IntRange"):
            typ = "int"
        elif tname in ("float", "FLOAT", "FloatRange"):
            typ = "float"
        elif tname in ("bool", "BOOL"):
            typ = "bool"
        elif tname in ("Path", "File"):
            typ = "path"
        elif isinstance(type_expr, ast.Call):
            found = mod.resolve_expr(type_expr.func) if isinstance(
                type_expr.func, (ast.Name, ast.Attribute)) else None
            is_choice = tname == "Choice" or (
                found is not None and isinstance(found[1].node, ast.ClassDef)
                and "Choice" in {n for n, _, _ in _class_bases(found[0], found[1].node)}
            )
            if is_choice and type_expr.args:
                values = const_eval(type_expr.args[0], mod)
                choices, kind = _choices_kind(values)
                if choices is None:
                    kind = None
                elif len(type_expr.args) > 1:
                    aliases = const_eval(type_expr.args[1], mod)
                    if isinstance(aliases, dict):
                        choices = [*choices, *aliases]
    deprecated = None
    help_expr = kws.get("help")
    if isinstance(help_expr, ast.Call) and _terminal_name(help_expr.func) == \
            "help_info_with_stability_tag":
        tag = const_eval(help_expr.args[1], mod) if len(help_expr.args) > 1 else None
        text = const_eval(help_expr.args[0], mod) if help_expr.args else None
        if tag == "deprecated":
            deprecated = text if isinstance(text, str) else "deprecated"
    else:
        deprecated = _deprecation_in_help(const_eval(help_expr, mod))
    params = [n for n in names if n and not n.startswith("-")]
    by_param = [f for f in flags if params and f.lstrip("-").replace("-", "_") == params[0]]
    primary = by_param[0] if by_param else next((f for f in flags if f.startswith("--")),
                                                flags[0])
    negations = tuple(f for f in flags if f in secondary and f != primary and
                      f.startswith("--no"))
    takes_value = not is_flag and not secondary
    return Option(
        name=primary,
        aliases=tuple(f for f in flags if f != primary and f not in negations),
        negations=negations,
        type=typ if takes_value else "bool",
        takes_value=takes_value,
        choices=tuple(str(c) for c in choices) if (choices and takes_value) else None,
        choices_kind=kind if (choices and takes_value) else None,
        deprecated=deprecated,
        negatable=bool(negations),
        commands=commands,
        config_ok=False,
    )


def _pydantic_tree(mod: Module, cls: ast.ClassDef, seen: frozenset[str] = frozenset()
                   ) -> dict[str, ConfigKey]:
    tree: dict[str, ConfigKey] = {}
    for spec in class_fields(mod, cls):
        if spec.name.startswith("_") or not spec.init:
            continue
        tree[spec.name] = _pydantic_key(spec, seen | {cls.name})
    return tree


def _pydantic_key(spec: FieldSpec, seen: frozenset[str]) -> ConfigKey:
    mod = spec.module
    hints = type_hints(spec.annotation, mod)
    kinds = [h.kind for h in hints if h.kind != "none"]
    status = const_eval(spec.kwargs.get("status"), mod)
    deprecated = None
    if status == "deprecated":
        message = const_eval(spec.kwargs.get("deprecated"), mod)
        deprecated = message if isinstance(message, str) else "marked status=\"deprecated\""
    aliases: list[str] = []
    alias = const_eval(spec.kwargs.get("alias"), mod)
    if isinstance(alias, str) and alias != spec.name:
        aliases.append(alias)
    va = spec.kwargs.get("validation_alias")
    if isinstance(va, ast.Call) and _terminal_name(va.func) == "AliasChoices":
        for a in va.args:
            value = const_eval(a, mod)
            if isinstance(value, str) and value != spec.name:
                aliases.append(value)
    choices: list[str] | None = None
    raw_literal = [v for h in hints if h.kind == "literal" for v in h.values]
    literal = [str(v) for v in raw_literal]
    enum_values = [str(v) for h in hints if h.kind == "enum" for v in h.values
                   if isinstance(v, str)]
    open_types = {"str", "any", "class", "int", "float"} & set(kinds)
    if literal and not open_types:
        choices = literal
    elif enum_values and not open_types and all(
            h.kind != "enum" or all(isinstance(v, str) for v in h.values) for h in hints):
        choices = enum_values
    extra_choices = const_eval(spec.kwargs.get("choices"), mod)
    if isinstance(extra_choices, list) and choices is None:
        choices = [str(c) for c in extra_choices]
    models = [h for h in hints if h.kind in ("model", "dataclass") and h.ref is not None]
    keys: dict[str, ConfigKey] | None = None
    discriminator = None
    variants: dict[str, tuple[str, ...]] | None = None
    note = None
    pretty = {"model": "object", "dataclass": "object", "enum": "str", "class": "object",
              "literal": type(raw_literal[0]).__name__ if raw_literal else "str", "none": "null"}
    typ = "/".join(dict.fromkeys(pretty.get(k, k) for k in kinds)) or "any"
    if models:
        keys = {}
        for h in models:
            assert h.ref is not None
            if h.ref[1].name in seen:
                continue
            keys.update(_pydantic_tree(h.ref[0], h.ref[1], seen))
        for meta in (m for h in hints for m in h.meta):
            if isinstance(meta, ast.Call):
                disc = next((k.value for k in meta.keywords if k.arg == "discriminator"), None)
                if disc is not None:
                    discriminator = const_eval(disc, mod)
        if isinstance(discriminator, str):
            variants = {}
            for h in models:
                assert h.ref is not None
                sub = _pydantic_tree(h.ref[0], h.ref[1], seen)
                tag = sub.get(discriminator)
                for value in (tag.choices or ()) if tag else ():
                    variants[value] = tuple(sorted(sub))
            keys[discriminator] = ConfigKey(type="str", choices=tuple(sorted(variants)))
        else:
            discriminator = None
        others = [h for h in hints if h.kind in ("class",) and h.ref is None]
        if others:
            note = "also accepts " + ", ".join(h.name for h in others)
    elif any(h.kind == "class" for h in hints) and not kinds.count("str"):
        names = [h.name for h in hints if h.kind == "class"]
        note = f"type {', '.join(names)} not read; nested keys not checked"
    return ConfigKey(
        type=typ,
        choices=tuple(choices) if choices else None,
        deprecated=deprecated,
        aliases=tuple(aliases),
        keys=keys,
        discriminator=discriminator if isinstance(discriminator, str) else None,
        variants=variants,
        note=note,
    )


def generate_tensorrt_llm(root: Path, version: str) -> Manifest:
    index = SourceIndex(root)
    serve = index.require("tensorrt_llm.commands.serve")
    llm_args = index.require("tensorrt_llm.llmapi.llm_args")
    group_value = serve.symbols.get("main")
    if group_value is None or not isinstance(group_value.node, ast.Call):
        raise GenerateError("click group `main` not found in serve.py")
    group_call = group_value.node
    table = next((k.value for k in group_call.keywords if k.arg == "commands"), None)
    if not isinstance(table, ast.Dict):
        raise GenerateError("commands={...} of the click group not found")
    default_sub = None
    group_cls = serve.class_def(_terminal_name(group_call.func))
    if group_cls is not None:
        m = re.search(r"return\s*\(?\s*['\"](\w+)['\"],\s*self\.commands\[",
                      ast.unparse(group_cls))
        default_sub = m.group(1) if m else None
    program = "trtllm-serve"
    commands: list[str] = [program] if default_sub else []
    options: list[Option] = [Option(name="--help", type="bool", takes_value=False, config_ok=False)]
    positionals: list[Positional] = []
    serve_fn: ast.FunctionDef | None = None
    for key_expr, value_expr in zip(table.keys, table.values, strict=True):
        sub = const_eval(key_expr, serve) if key_expr is not None else None
        fn = serve.function(_terminal_name(value_expr))
        if not isinstance(sub, str) or fn is None:
            continue
        names = (f"{program} {sub}",) + ((program,) if sub == default_sub else ())
        commands.append(f"{program} {sub}")
        _, calls = _click_decorators(fn)
        for call in calls:
            if _terminal_name(call.func) == "argument":
                pname = const_eval(call.args[0], serve) if call.args else "arg"
                req_kw = next((k.value for k in call.keywords if k.arg == "required"), None)
                required = const_eval(req_kw, serve) is not False
                positionals.append(Positional(str(pname), required=required, commands=names))
                continue
            opt = _click_option(call, serve, names)
            if opt is not None:
                options.append(opt)
        if sub == default_sub:
            serve_fn = fn
    torch_args = llm_args.class_def("TorchLlmArgs")
    if torch_args is None:
        raise GenerateError("TorchLlmArgs not found in llm_args.py")
    config_keys = _pydantic_tree(llm_args, torch_args)
    if serve_fn is not None:
        consumed: set[str] = set()
        called = {_terminal_name(n.func) for n in ast.walk(serve_fn) if isinstance(n, ast.Call)}
        scan = [serve_fn] + [f for f in (serve.function(c) for c in called) if f is not None]
        for fn in scan:
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and _terminal_name(node.func) == "pop" and \
                        isinstance(node.func, ast.Attribute) and \
                        _terminal_name(node.func.value) == "llm_args" and node.args:
                    popped = const_eval(node.args[0], serve)
                    if isinstance(popped, str):
                        consumed.add(popped)
        for name in sorted(consumed - set(config_keys)):
            config_keys[name] = ConfigKey(
                type="any", note="read by trtllm-serve itself, not passed to the LLM API")
    return Manifest(
        engine="tensorrt-llm",
        version=version,
        commands=tuple(commands),
        options=tuple(options),
        positionals=tuple(positionals),
        parser=ParserRules(kind="click", equals_form=True, abbreviations=False),
        config_file={
            "option": "--extra_llm_api_options",
            "aliases": ["--config"],
            "key_style": "field-name",
            "notes": "YAML mapping of LLM API arguments (TorchLlmArgs fields for the default "
                     "pytorch backend), keys spelled exactly as the pydantic field names "
                     "(underscores). Nested configuration objects are mappings; unknown "
                     "keys are rejected. Values here override the trtllm-serve options.",
        },
        config_keys=config_keys,
        provenance={"files": sorted(index.read)},
    )


# ==========================================================================
# Sources and the command line
# ==========================================================================


_GENERATORS: dict[str, Callable[[Path, str], Manifest]] = {
    "vllm": generate_vllm,
    "sglang": generate_sglang,
    "llama.cpp": generate_llama_cpp,
    "tensorrt-llm": generate_tensorrt_llm,
}


def _unpack(archive: Path, into: Path) -> Path:
    name = archive.name
    if name.endswith(".whl") or name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            members = [m for m in zf.namelist() if m.endswith((".py", ".md", ".txt", ".cpp",
                                                                ".c", ".h", ".cmake"))]
            for member in members:
                if member.startswith("/") or ".." in Path(member).parts:
                    continue
                zf.extract(member, into)
        return into
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(archive) as tf:
            safe = [m for m in tf.getmembers() if m.isfile() and not m.name.startswith("/")
                    and ".." not in Path(m.name).parts]
            if hasattr(tarfile, "data_filter"):
                tf.extractall(into, members=safe, filter="data")
            else:  # pragma: no cover - Python without extraction filters
                tf.extractall(into, members=safe)
        entries = [p for p in into.iterdir() if p.is_dir()]
        return entries[0] if len(entries) == 1 else into
    raise GenerateError(f"unsupported archive {archive}")


def _pip_download(engine: str, version: str, into: Path) -> Path:
    package = _PIP_PACKAGES.get(engine)
    if package is None:
        raise GenerateError(f"{engine} has no usable release on PyPI; pass --source")
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(into),
           f"{package}=={version}"]
    if engine == "llama.cpp":
        cmd += ["--no-binary", ":all:"]
    else:
        cmd += ["--only-binary", ":all:", "--python-version", "3.11",
                "--platform", "manylinux_2_34_x86_64", "--platform", "manylinux_2_28_x86_64"]
    subprocess.run(cmd, check=True)
    archives = sorted(p for p in into.iterdir() if p.is_file())
    if not archives:
        raise GenerateError(f"pip downloaded nothing for {package}=={version}")
    return archives[0]


def _source_root(engine: str, source: Path) -> Path:
    """The directory that holds the engine's top-level package (or llama-cpp-python)."""
    markers = {
        "vllm": "vllm/engine/arg_utils.py",
        "sglang": "sglang/srt/server_args.py",
        "llama.cpp": "common/arg.cpp",
        "tensorrt-llm": "tensorrt_llm/commands/serve.py",
    }
    marker = markers[engine]
    if (source / marker).is_file():
        return source
    if engine == "llama.cpp" and (source / "vendor" / "llama.cpp" / marker).is_file():
        return source
    for path in sorted(source.rglob(Path(marker).name)):
        if path.as_posix().endswith(marker):
            base = path
            for _ in Path(marker).parts:
                base = base.parent
            if engine == "llama.cpp" and base.name == "llama.cpp" and base.parent.name == "vendor":
                return base.parent.parent
            return base
    raise GenerateError(f"{marker} not found under {source}")


def _read_extra_provenance(root: Path) -> dict[str, Any]:
    path = root / "skillcheck-provenance.json"
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            return data
    return {}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def build(engine: str, version: str, source: Path | None, generated: str, *,
          origin: str | None = None, build_tag: str | None = None) -> Manifest:
    """Generate the manifest of ``engine`` ``version`` from ``source`` (or PyPI).

    ``origin`` overrides the recorded description of the source; ``build_tag``
    (llama.cpp only) names the llama.cpp build (``bNNNN``) of the vendored commit.
    """
    if engine not in _GENERATORS:
        raise GenerateError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    archive_sha: str | None = None
    with tempfile.TemporaryDirectory(prefix="skillcheck-src-") as tmp:
        tmpdir = Path(tmp)
        if source is None:
            archive = _pip_download(engine, version, tmpdir / "dl")
            root = _source_root(engine, _unpack(archive, tmpdir / "src"))
            kind = "sdist" if archive.name.endswith(".tar.gz") else "wheel"
            described = f"PyPI {kind} {archive.name}"
            archive_sha = _sha256(archive)
        elif source.is_file():
            root = _source_root(engine, _unpack(source, tmpdir / "src"))
            kind = "sdist" if source.name.endswith(".tar.gz") else "wheel"
            described = f"{kind} {source.name}"
            archive_sha = _sha256(source)
        else:
            root = _source_root(engine, source)
            described = "unpacked source tree"
        manifest = _GENERATORS[engine](root, version)
        extra = _read_extra_provenance(root)
    package = _PIP_PACKAGES.get(engine, engine)
    provenance: dict[str, Any] = {
        "package": f"{package}=={version}",
        "source": origin or described,
        "generator": f"python -m skillcheck.engines.generate {engine} {version}",
        "generated": generated,
        **dict(manifest.provenance),
    }
    if archive_sha:
        provenance["sha256"] = archive_sha
    if engine not in _PIP_PACKAGES:
        provenance["generator"] += " --source DIR"
    manifest_version = manifest.version
    if engine == "llama.cpp" and build_tag:
        provenance["llama_cpp_build"] = build_tag
        provenance["llama_cpp_build_source"] = (
            "given with --build; the sdist records only the commit (CHANGELOG.md)")
        provenance["generator"] += f" --build {build_tag}"
        manifest_version = build_tag
    provenance.update(extra)
    return Manifest(
        engine=manifest.engine,
        version=manifest_version,
        commands=manifest.commands,
        options=manifest.options,
        positionals=manifest.positionals,
        parser=manifest.parser,
        config_file=manifest.config_file,
        config_keys=manifest.config_keys,
        provenance=provenance,
    )


def manifest_filename(manifest: Manifest) -> str:
    return f"{manifest.engine}-{manifest.version}.json"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m skillcheck.engines.generate",
        description="Generate an engine-flag manifest from a released engine source.",
    )
    ap.add_argument("engine", choices=ENGINES)
    ap.add_argument("version", help="release to pin (llama.cpp: the llama-cpp-python release)")
    ap.add_argument("--source", type=Path, default=None,
                    help="unpacked source tree, wheel or sdist (default: pip download)")
    ap.add_argument("--output", type=Path, default=MANIFEST_DIR,
                    help="directory for the manifest (default: the package's manifests/)")
    ap.add_argument("--date", default=None, help="ISO date recorded as `generated`")
    ap.add_argument("--origin", default=None,
                    help="description of the source recorded in the provenance")
    ap.add_argument("--build", default=None, dest="build_tag",
                    help="llama.cpp only: the build tag (bNNNN) of the vendored commit")
    ap.add_argument("--stdout", action="store_true", help="print the manifest instead")
    args = ap.parse_args(argv)
    generated = args.date or clock.today().isoformat()
    try:
        manifest = build(args.engine, args.version, args.source, generated,
                         origin=args.origin, build_tag=args.build_tag)
    except (GenerateError, OSError, SyntaxError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    text = dumps(manifest)
    if args.stdout:
        sys.stdout.write(text)
        return 0
    args.output.mkdir(parents=True, exist_ok=True)
    target = args.output / manifest_filename(manifest)
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target} ({len(manifest.options)} options)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
