"""Option defaults as the engine's source states them, rendered as the command line spells them.

A default is a string (``0.92``, ``auto``, ``false``, ``[]``), ``None`` when the option has
none, or a string starting with :data:`COMPUTED` when the source computes it at run time
(``(computed: CompilationConfig())``, ``(computed when unset: EngineArgs._set_defaults)``).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable
from typing import Any

from tools.manifests.pyeval import FieldSpec, class_fields, classify_class, const_eval
from tools.manifests.pysource import UNKNOWN, Known, Module, Partial, terminal_name

#: The prefix of a default that the source computes at run time.
COMPUTED = "(computed"

# An expression longer than this is not quoted in a "(computed: ...)" marker.
_MAX_QUOTED = 60

_FIELD_CALLS = {"field", "Field", "PydanticField"}
_EMPTY_FACTORIES = {"list": "[]", "dict": "{}", "set": "[]", "tuple": "[]", "OrderedDict": "{}"}


def computed(source: str | None = None) -> str:
    """The marker of a default computed at run time, naming where from when known."""
    return f"{COMPUTED}: {source})" if source else f"{COMPUTED})"


def render_value(value: Any) -> str | None:
    """A Python value as the command line writes it; ``None`` stays ``None``."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return value if value else '""'
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        items = [render_value(v) for v in value]
        return " ".join("None" if i is None else i for i in items)
    if isinstance(value, dict):
        try:
            return json.dumps(value, separators=(",", ":"), sort_keys=True)
        except TypeError:
            return computed()
    return computed()


def _quoted(expr: ast.expr) -> str:
    text = " ".join(ast.unparse(expr).split())
    return computed(text if len(text) <= _MAX_QUOTED else None)


def _class_attribute(expr: ast.Attribute, mod: Module, depth: int) -> Any:
    """``Cls.member`` of an enum, or ``Cls.field`` (a field's default); UNKNOWN otherwise."""
    if not isinstance(expr.value, (ast.Name, ast.Attribute)):
        return UNKNOWN
    found = mod.resolve_expr(expr.value)
    if found is None or not isinstance(found[1].node, ast.ClassDef):
        return UNKNOWN
    cmod, cls = found[0], found[1].node
    if classify_class(cmod, cls).kind == "enum":
        for stmt in cls.body:
            if (
                isinstance(stmt, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == expr.attr for t in stmt.targets)
                and isinstance(stmt.value, ast.Constant)
            ):
                return render_value(stmt.value.value)
        return UNKNOWN
    for spec in class_fields(cmod, cls):
        if spec.name == expr.attr:
            return field_default(spec, depth + 1)
    return UNKNOWN


def render_expr(
    expr: ast.expr | None, mod: Module, local: dict[str, Any] | None = None, depth: int = 0
) -> str | None:
    """The default an expression evaluates to, or a computed marker when it is not static."""
    with mod.index.quietly():
        return _render_expr(expr, mod, local, depth)


def _render_expr(
    expr: ast.expr | None, mod: Module, local: dict[str, Any] | None, depth: int
) -> str | None:
    if expr is None:
        return None
    if depth > 8:
        return computed()
    if isinstance(expr, ast.Attribute) and terminal_name(expr) == "SUPPRESS":
        return None  # argparse.SUPPRESS: the attribute is left unset
    value = const_eval(expr, mod, local)
    if value is UNKNOWN and isinstance(expr, ast.Attribute):
        attr = _class_attribute(expr, mod, depth)
        if attr is not UNKNOWN:
            return attr  # type: ignore[no-any-return]
    if value is UNKNOWN:
        number = _arithmetic(expr, mod, depth)
        if number is not None:
            return render_value(number)
    if isinstance(value, (Partial, Known)) or value is UNKNOWN:
        return _quoted(expr)
    if isinstance(value, list) and any(v is UNKNOWN for v in value):
        return _quoted(expr)
    return render_value(value)


_OPS: dict[type[ast.operator], Any] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Pow: lambda a, b: a**b,
    ast.LShift: lambda a, b: a << b,
}


def _arithmetic(expr: ast.expr, mod: Module, depth: int) -> int | float | None:
    """``16 * 1024 * 1024``, ``-1`` or a module constant holding one; ``None`` otherwise."""
    if depth > 8:
        return None
    if isinstance(expr, ast.Constant) and type(expr.value) in (int, float):
        number: int | float = expr.value  # type: ignore[assignment]
        return number
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _arithmetic(expr.operand, mod, depth + 1)
        return None if inner is None else -inner
    if isinstance(expr, ast.BinOp) and type(expr.op) in _OPS:
        left = _arithmetic(expr.left, mod, depth + 1)
        right = _arithmetic(expr.right, mod, depth + 1)
        if left is None or right is None:
            return None
        return _OPS[type(expr.op)](left, right)  # type: ignore[no-any-return]
    if isinstance(expr, (ast.Name, ast.Attribute)):
        found = mod.resolve_expr(expr)
        if found is not None and found[1].kind == "value" and isinstance(found[1].node, ast.expr):
            return _arithmetic(found[1].node, found[0], depth + 1)
    return None


def _factory(expr: ast.expr, mod: Module, depth: int) -> str | None:
    """The default of ``default_factory=expr``."""
    if isinstance(expr, ast.Lambda) and not expr.args.args:
        return render_expr(expr.body, mod, depth=depth + 1)
    name = terminal_name(expr)
    if isinstance(expr, (ast.Name, ast.Attribute)) and name in _EMPTY_FACTORIES:
        return _EMPTY_FACTORIES[name]
    if isinstance(expr, (ast.Name, ast.Attribute)):
        return computed(f"{name}()")
    return _quoted(expr)


def field_default(spec: FieldSpec, depth: int = 0) -> str | None:
    """The default of a dataclass, pydantic or msgspec field (``None`` when it has none)."""
    with spec.module.index.quietly():
        return _field_default(spec, depth)


def _field_default(spec: FieldSpec, depth: int) -> str | None:
    value = spec.default
    if value is None:
        return None
    if isinstance(value, ast.Call) and terminal_name(value.func) in _FIELD_CALLS:
        keywords = {k.arg: k.value for k in value.keywords if k.arg}
        if "default" in keywords:
            return render_expr(keywords["default"], spec.module, depth=depth + 1)
        if "default_factory" in keywords:
            return _factory(keywords["default_factory"], spec.module, depth)
        if value.args and not (
            isinstance(value.args[0], ast.Constant) and value.args[0].value is Ellipsis
        ):
            return render_expr(value.args[0], spec.module, depth=depth + 1)
        return None
    return render_expr(value, spec.module, depth=depth + 1)


def computed_when_unset(mod: Module, cls: ast.ClassDef) -> dict[str, str]:
    """Fields that a method of ``cls`` fills in when left unset: field -> ``Cls.method``.

    Reads ``if self.x is None: ... self.x = VALUE`` (VALUE not an empty literal) in
    every method of the class.
    """
    found: dict[str, list[str]] = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef):
            for name in _filled(stmt, "self"):
                _add(found, name, f"{cls.name}.{stmt.name}")
    return {name: unset_marker(places) for name, places in sorted(found.items())}


def filled_by_functions(tree: ast.Module, label: str) -> dict[str, list[str]]:
    """Attributes that a function of a module fills in when unset: attribute -> ``label.fn``s.

    Reads ``if obj.x is None: ... obj.x = VALUE`` for any name ``obj`` (resolution hooks
    that receive the configuration as an argument).
    """
    found: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for name in _filled(node, None):
                _add(found, name, f"{label}.{node.name}")
    return found


def _add(found: dict[str, list[str]], name: str, place: str) -> None:
    places = found.setdefault(name, [])
    if place not in places:
        places.append(place)


def unset_marker(places: list[str]) -> str:
    """``(computed when unset: A)``, or ``(computed when unset: A and 2 more)``."""
    ordered = sorted(places)
    more = f" and {len(ordered) - 1} more" if len(ordered) > 1 else ""
    return f"{COMPUTED} when unset: {ordered[0]}{more})"


def _filled(fn: ast.FunctionDef, receiver: str | None) -> list[str]:
    names: list[str] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.If):
            for obj, name in _none_tests(node.test, receiver):
                if _assigns(node.body, obj, name):
                    names.append(name)
    return names


def _none_tests(test: ast.expr, receiver: str | None) -> Iterable[tuple[str, str]]:
    """``obj.x is None`` (alone or in an ``and``/``or``) -> ``(obj, x)``."""
    parts = test.values if isinstance(test, ast.BoolOp) else [test]
    for part in parts:
        if (
            isinstance(part, ast.Compare)
            and len(part.ops) == 1
            and isinstance(part.ops[0], ast.Is)
            and isinstance(part.comparators[0], ast.Constant)
            and part.comparators[0].value is None
            and isinstance(part.left, ast.Attribute)
            and isinstance(part.left.value, ast.Name)
            and (receiver is None or part.left.value.id == receiver)
        ):
            yield part.left.value.id, part.left.attr


def _assigns(body: list[ast.stmt], obj: str, name: str) -> bool:
    """``obj.name = VALUE``, ``declarations["name"] = VALUE`` or ``declare_x(..., name=VALUE)``."""
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign) and not _empty_literal(node.value):
                found = any(_targets(t, obj, name) for t in node.targets)
            elif isinstance(node, ast.Call) and "declare" in terminal_name(node.func):
                found = any(k.arg == name and not _empty_literal(k.value) for k in node.keywords)
            else:
                found = False
            if found:
                return True
    return False


def _targets(target: ast.expr, obj: str, name: str) -> bool:
    if isinstance(target, ast.Attribute):
        return target.attr == name and isinstance(target.value, ast.Name) and target.value.id == obj
    if isinstance(target, ast.Subscript):
        key = target.slice
        return isinstance(key, ast.Constant) and key.value == name
    return False


def _empty_literal(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Constant):
        return expr.value is None
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        return not expr.elts
    if isinstance(expr, ast.Dict):
        return not expr.keys
    return False
