"""Static evaluation of Python sources: constant expressions, type hints, class fields."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from skillcheck.engines import CHOICES_KNOWN, CHOICES_PARTIAL, CHOICES_STRICT
from tools.manifests.pysource import UNKNOWN, Known, Module, Partial, terminal_name


def const_eval(
    expr: ast.expr | None, mod: Module, local: dict[str, Any] | None = None, depth: int = 0
) -> Any:
    """Evaluate a constant expression statically; :data:`UNKNOWN` when it is not."""
    if expr is None or depth > 20:
        return UNKNOWN
    local = local or {}
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
        return _eval_display(expr, mod, local, depth)
    if isinstance(expr, (ast.Name, ast.Attribute)):
        return _eval_reference(expr, mod, local, depth)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left = const_eval(expr.left, mod, local, depth + 1)
        return _concat(left, const_eval(expr.right, mod, local, depth + 1))
    if isinstance(expr, ast.JoinedStr):
        return _eval_fstring(expr, mod, local, depth)
    if isinstance(expr, ast.Call):
        return _const_call(expr, mod, local, depth)
    # Anything else, including a Literal[...] used as a value, is not evaluated.
    return UNKNOWN


def _eval_display(
    expr: ast.List | ast.Tuple | ast.Set | ast.Dict, mod: Module, local: dict[str, Any], depth: int
) -> Any:
    """A list, tuple or set (as a list) or a dict whose items are all constants."""
    if isinstance(expr, ast.Dict):
        out: dict[Any, Any] = {}
        for k, v in zip(expr.keys, expr.values, strict=False):
            if k is None:
                return UNKNOWN
            out[const_eval(k, mod, local, depth + 1)] = const_eval(v, mod, local, depth + 1)
        return out
    items = [const_eval(e, mod, local, depth + 1) for e in expr.elts]
    if any(i is UNKNOWN for i in items):
        return UNKNOWN
    return items


def _eval_reference(
    expr: ast.Name | ast.Attribute, mod: Module, local: dict[str, Any], depth: int
) -> Any:
    """A local name, or a module-level value reached through the imports."""
    if isinstance(expr, ast.Name) and expr.id in local:
        return local[expr.id]
    found = mod.resolve_expr(expr)
    if found is not None and found[1].kind == "value" and isinstance(found[1].node, ast.expr):
        return const_eval(found[1].node, found[0], None, depth + 1)
    return UNKNOWN


def _eval_fstring(expr: ast.JoinedStr, mod: Module, local: dict[str, Any], depth: int) -> Any:
    parts: list[str] = []
    for value in expr.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(value.value)
        elif isinstance(value, ast.FormattedValue):
            inner = const_eval(value.value, mod, local, depth + 1)
            if inner is UNKNOWN:
                return UNKNOWN
            parts.append(str(inner))
        else:
            return UNKNOWN
    return "".join(parts)


def _concat(left: Any, right: Any) -> Any:
    if isinstance(left, str) and isinstance(right, str):
        return left + right
    if isinstance(left, Known) or isinstance(right, Known):
        joined = _concat(
            list(left.items) if isinstance(left, Known) else left,
            list(right.items) if isinstance(right, Known) else right,
        )
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
    name = terminal_name(func)
    args = [const_eval(a, mod, local, depth + 1) for a in expr.args]
    if (isinstance(func, ast.Attribute) and not isinstance(func.value, (ast.Name,))) or (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
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
            target = mod.index.module(mod.absolute(stmt))
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
    "int": "int",
    "float": "float",
    "str": "str",
    "bool": "bool",
    "bytes": "str",
    "NonNegativeInt": "int",
    "PositiveInt": "int",
    "StrictInt": "int",
    "NonNegativeFloat": "float",
    "PositiveFloat": "float",
    "StrictStr": "str",
    "StrictBool": "bool",
}


_GENERIC_LIST = {"list", "List", "Sequence", "MutableSequence", "Iterable"}


_GENERIC_SET = {"set", "Set", "frozenset", "FrozenSet", "AbstractSet"}


_GENERIC_DICT = {"dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "OrderedDict"}


def type_hints(expr: ast.expr | None, mod: Module, depth: int = 0) -> tuple[TH, ...]:
    """Flatten a type annotation into its members (Optional, Union, Annotated unwrapped)."""
    if expr is None or depth > 25:
        return (TH("any"),)
    if isinstance(expr, ast.Constant):
        return _constant_hint(expr, mod, depth)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        return type_hints(expr.left, mod, depth + 1) + type_hints(expr.right, mod, depth + 1)
    if isinstance(expr, ast.Subscript):
        return _subscript_hints(expr, mod, depth)
    return _name_hints(expr, mod, depth)


def _constant_hint(expr: ast.Constant, mod: Module, depth: int) -> tuple[TH, ...]:
    """``None``, or a string annotation (a forward reference)."""
    if expr.value is None:
        return (TH("none"),)
    if isinstance(expr.value, str):
        try:
            return type_hints(ast.parse(expr.value, mode="eval").body, mod, depth + 1)
        except SyntaxError:
            return (TH("any"),)
    return (TH("any"),)


def _literal_values(items: list[ast.expr], mod: Module, depth: int) -> tuple[Any, ...]:
    values: list[Any] = []
    for item in items:
        value = const_eval(item, mod)
        if value is not UNKNOWN and not isinstance(value, (list, dict)):
            values.append(value)
            continue
        # a nested Literal, possibly through an alias: Literal["auto", Other]
        nested = type_hints(item, mod, depth + 1)
        values.extend(v for h in nested if h.kind == "literal" for v in h.values)
    return tuple(values)


def _wrapper_hints(
    base: str, items: list[ast.expr], mod: Module, depth: int
) -> tuple[TH, ...] | None:
    """Optional, Union, Annotated and the qualifiers (ClassVar, Final, ...); None otherwise."""

    def th(e: ast.expr) -> tuple[TH, ...]:
        return type_hints(e, mod, depth + 1)

    if base == "Optional":
        return (*th(items[0]), TH("none"))
    if base == "Union":
        return tuple(h for item in items for h in th(item))
    if base == "Annotated":
        return tuple(
            TH(h.kind, h.values, h.elems, h.ref, h.name, h.ellipsis, tuple(items[1:]))
            for h in th(items[0])
        )
    if base in ("ClassVar", "InitVar", "Final", "Required", "NotRequired"):
        return tuple(
            TH("classvar" if base == "ClassVar" else h.kind, h.values, h.elems, h.ref, h.name)
            for h in th(items[0])
        )
    return None


def _collection_hint(base: str, items: list[ast.expr], mod: Module, depth: int) -> TH | None:
    """list, set, tuple, dict and the like (with their element types); None otherwise."""

    def th(e: ast.expr) -> tuple[TH, ...]:
        return type_hints(e, mod, depth + 1)

    if base in _GENERIC_LIST:
        return TH("list", elems=(th(items[0]),))
    if base in _GENERIC_SET:
        return TH("set", elems=(th(items[0]),))
    if base in ("tuple", "Tuple"):

        def is_ellipsis(i: ast.expr) -> bool:
            return isinstance(i, ast.Constant) and i.value is Ellipsis

        elems = tuple(th(i) for i in items if not is_ellipsis(i))
        return TH("tuple", elems=elems, ellipsis=any(is_ellipsis(i) for i in items))
    if base in _GENERIC_DICT:
        return TH("dict")
    if base in ("type", "Type", "Callable"):
        return TH("any", name=base)
    return None


def _subscript_hints(expr: ast.Subscript, mod: Module, depth: int) -> tuple[TH, ...]:
    base = terminal_name(expr.value)
    sl = expr.slice
    items = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
    if base == "Literal":
        return (TH("literal", values=_literal_values(items, mod, depth)),)
    wrapped = _wrapper_hints(base, items, mod, depth)
    if wrapped is not None:
        return wrapped
    collection = _collection_hint(base, items, mod, depth)
    if collection is not None:
        return (collection,)
    return type_hints(expr.value, mod, depth + 1)


# Names read without looking them up: builtins, typing and pydantic aliases.
_NAMED_HINTS: dict[str, TH] = {
    **{name: TH(kind) for name, kind in _PRIMS.items()},
    "None": TH("none"),
    "NoneType": TH("none"),
    **{name: TH("dict") for name in _GENERIC_DICT},
    **{name: TH("list", elems=((TH("any"),),)) for name in _GENERIC_LIST},
    "Any": TH("any", name="Any"),
    "object": TH("any", name="object"),
    **{name: TH("str", name=name) for name in ("Path", "PurePath", "PathLike")},
    "Literal": TH("any"),
}


def _name_hints(expr: ast.expr, mod: Module, depth: int) -> tuple[TH, ...]:
    name = terminal_name(expr)
    if name in _NAMED_HINTS:
        return (_NAMED_HINTS[name],)
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


BaseInfo = tuple[str, "Module", "ast.ClassDef | None"]


def class_bases(mod: Module, cls: ast.ClassDef, depth: int = 0) -> Iterator[BaseInfo]:
    """Every base class name, transitively, with its definition when it was found."""
    if depth > 15:
        return
    for base in cls.bases:
        name = terminal_name(base)
        found = mod.resolve_expr(base) if isinstance(base, (ast.Name, ast.Attribute)) else None
        if found is not None and isinstance(found[1].node, ast.ClassDef):
            yield name, found[0], found[1].node
            yield from class_bases(found[0], found[1].node, depth + 1)
        else:
            yield name, mod, None


def classify_class(mod: Module, cls: ast.ClassDef) -> TH:
    bases = {name for name, _, _ in class_bases(mod, cls)}
    decorators = {terminal_name(d) for d in cls.decorator_list}
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
            if (
                isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                doc = nxt.value.value
        kwargs: dict[str, ast.expr] = {}
        init = True
        value = stmt.value
        if isinstance(value, ast.Call) and terminal_name(value.func) in _FIELD_CALLS | {
            "PrivateAttr"
        }:
            if terminal_name(value.func) == "PrivateAttr":
                continue
            kwargs = {k.arg: k.value for k in value.keywords if k.arg}
            init_expr = kwargs.get("init")
            if isinstance(init_expr, ast.Constant) and init_expr.value is False:
                init = False
        fields[stmt.target.id] = FieldSpec(
            stmt.target.id, stmt.annotation, mod, value, kwargs, doc, init
        )
    return list(fields.values())


def deprecation_in_doc(doc: str | None) -> str | None:
    """A "Deprecated: ..." paragraph of a field docstring."""
    if not doc:
        return None
    for para in re.split(r"\n\s*\n", doc):
        text = " ".join(para.split())
        if re.match(r"(?i)\(?deprecated\b", text):
            return text
    return None


def deprecation_in_help(text: Any) -> str | None:
    if not isinstance(text, str):
        return None
    flat = " ".join(text.split())
    if re.match(r"(?i)^\W*deprecated\b", flat) or re.match(
        r"(?i)^\W*-{1,2}[\w.-]+(\s+\(--[\w.-]+\))?\s+is deprecated\b", flat
    ):
        return flat
    return None


def choices_kind(values: Any, default: str = CHOICES_STRICT) -> tuple[Any, str | None]:
    if isinstance(values, Partial):
        return list(values.items), CHOICES_PARTIAL
    if isinstance(values, Known):
        return list(values.items), CHOICES_KNOWN
    if isinstance(values, (list, tuple, set)):
        return list(values), default
    return None, None
