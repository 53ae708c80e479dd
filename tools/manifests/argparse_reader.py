"""argparse: what ``add_argument`` calls mean, read by walking the functions that make them."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillcheck.engines import CHOICES_KNOWN, CHOICES_STRICT, Option
from tools.manifests.defaults import render_expr
from tools.manifests.pyeval import (
    FieldSpec,
    choices_kind,
    class_bases,
    class_fields,
    const_eval,
    deprecation_in_help,
)
from tools.manifests.pysource import UNKNOWN, Module, terminal_name


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
    default: str | None = None  # rendered (tools.manifests.defaults)
    default_given: bool = False
    flag_default: str | None = None  # what a store_true / store_false flag implies

    def copy(self) -> Kw:
        return Kw(**self.__dict__)


# How an engine's ``get_kwargs(SomeConfig)`` turns one config field into add_argument kwargs.
FieldKw = Callable[[FieldSpec], "Kw"]


@dataclass
class KwTable:
    """``get_kwargs(SomeConfig)``: one Kw per dataclass field."""

    module: Module
    cls: ast.ClassDef
    fields: dict[str, Kw] = field(default_factory=dict)

    @classmethod
    def of(cls, mod: Module, node: ast.ClassDef, field_kw: FieldKw) -> KwTable:
        table = cls(mod, node)
        for spec in class_fields(mod, node):
            table.fields[spec.name] = field_kw(spec)
        return table


@dataclass
class RawOption:
    names: list[str]
    kw: Kw


def _action_class_nargs(mod: Module, expr: ast.expr) -> tuple[str, Any]:
    """(class name, default nargs) of a custom argparse Action class."""
    found = mod.resolve_expr(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
    name = terminal_name(expr)
    if found is None or not isinstance(found[1].node, ast.ClassDef):
        return name, UNKNOWN
    for stmt in found[1].node.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
            args = stmt.args
            params = args.args[len(args.args) - len(args.defaults) :]
            for param, default in zip(params, args.defaults, strict=False):
                if param.arg == "nargs":
                    return name, const_eval(default, found[0])
            for param, kwdefault in zip(args.kwonlyargs, args.kw_defaults, strict=False):
                if param.arg == "nargs" and kwdefault is not None:
                    return name, const_eval(kwdefault, found[0])
    return name, UNKNOWN


_FLAG_ACTIONS = ("store_true", "store_false", "store_const", "count", "help", "version")
_FLAG_DEFAULTS = {"store_true": "false", "store_false": "true", "count": None}
_INT_TYPES = ("int", "human_readable_int", "human_readable_int_or_auto")


def _apply_action(kw: Kw, expr: ast.expr, mod: Module, local: dict[str, Any]) -> None:
    value = const_eval(expr, mod, local)
    if value in _FLAG_ACTIONS:
        kw.action, kw.nargs, kw.type = "flag", 0, "bool"
        kw.flag_default = _FLAG_DEFAULTS.get(value)
    elif value == "append":
        kw.action = "append"
    elif value in ("store", "extend"):
        kw.action = "store"
    elif terminal_name(expr) == "BooleanOptionalAction":
        kw.action, kw.type, kw.nargs = "bool-optional", "bool", 0
    else:
        _apply_custom_action(kw, expr, mod)


def _apply_custom_action(kw: Kw, expr: ast.expr, mod: Module) -> None:
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


def _apply_type(kw: Kw, expr: ast.expr, mod: Module, local: dict[str, Any]) -> None:
    name = terminal_name(expr)
    if "json.loads" in ast.unparse(expr) or name == "json_list_type":
        kw.type = "json" if kw.type != "json|str" else kw.type
    elif isinstance(expr, ast.Lambda):
        _apply_lambda_type(kw, expr)
    elif name in _INT_TYPES:
        kw.type = "int"
    elif name == "float":
        kw.type = "float"
    elif name in ("str", "optional_type"):
        inner = expr.args[0] if isinstance(expr, ast.Call) and expr.args else None
        if inner is not None and "json.loads" in ast.unparse(inner):
            kw.type = "json"
        elif inner is not None and terminal_name(inner) in ("int", "float"):
            kw.type = terminal_name(inner)
        elif kw.type not in ("int", "float"):
            kw.type = "str"


def _apply_lambda_type(kw: Kw, expr: ast.Lambda) -> None:
    """``type=lambda s: s.lower()...``: a normalisation of the value, not a type."""
    body = ast.unparse(expr.body)
    if ".lower()" in body and "replace('-', '_')" in body:
        kw.normalize = "lower,dash-to-underscore"
    elif ".lower()" in body:
        kw.normalize = "lower"
    if kw.type == "json":
        kw.type = "str"


def _apply_choices(kw: Kw, expr: ast.expr, mod: Module, local: dict[str, Any]) -> None:
    choices, kind = choices_kind(const_eval(expr, mod, local))
    if choices is None:
        kw.choices, kw.choices_kind = None, None
        return
    if kind == CHOICES_STRICT and _is_registry(expr, mod, local):
        kind = CHOICES_KNOWN
    kw.choices, kw.choices_kind = [c for c in choices if c is not None], kind


def _apply_nargs(kw: Kw, expr: ast.expr, mod: Module, local: dict[str, Any]) -> None:
    value = const_eval(expr, mod, local)
    if value is not UNKNOWN:
        kw.nargs = value
        if value != 0 and kw.type == "bool":
            kw.type = "str"


def _apply_help(kw: Kw, expr: ast.expr, mod: Module, local: dict[str, Any]) -> None:
    message = deprecation_in_help(const_eval(expr, mod, local))
    if message:
        kw.deprecated = message


def _apply_deprecated(kw: Kw, expr: ast.expr, mod: Module, local: dict[str, Any]) -> None:
    if const_eval(expr, mod, local) is True:
        kw.deprecated = kw.deprecated or "deprecated"


def _apply_default(kw: Kw, expr: ast.expr, mod: Module, local: dict[str, Any]) -> None:
    kw.default, kw.default_given = render_expr(expr, mod, local), True


_KWARGS: dict[str, Callable[[Kw, ast.expr, Module, dict[str, Any]], None]] = {
    "default": _apply_default,
    "action": _apply_action,
    "type": _apply_type,
    "choices": _apply_choices,
    "nargs": _apply_nargs,
    "help": _apply_help,
    "deprecated": _apply_deprecated,
}


def apply_kwarg(
    kw: Kw, key: str, expr: ast.expr | None, mod: Module, local: dict[str, Any]
) -> None:
    """Fold one add_argument keyword (or an override of it) into ``kw``."""
    if expr is None:  # deleted by `del kwargs["key"]`
        if key == "nargs":
            kw.nargs = None
        return
    handler = _KWARGS.get(key)
    if handler is not None:
        handler(kw, expr, mod, local)


def _is_registry(expr: ast.expr, mod: Module, local: dict[str, Any]) -> bool:
    """Whether ``expr`` names a list that the engine extends at run time."""
    for node in ast.walk(expr):
        if not isinstance(node, ast.Name):
            continue
        if local.get(f"__mutated__{node.id}"):
            return True
        found = mod.resolve(node.id)
        if found is not None and found[1].kind == "value" and _mutated_names(found[0]).get(node.id):
            return True
    return False


def _mutated_names(mod: Module) -> dict[str, bool]:
    """Module-level lists that some function extends at run time (plugin registries)."""
    cache = getattr(mod, "_mutated_cache", None)
    if cache is None:
        cache = {}
        for node in ast.walk(mod.tree):
            # `NAME.extend(...)`, or `add_x = NAME.extend` handed out to plugins
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("append", "extend", "add", "insert")
                and isinstance(node.value, ast.Name)
            ):
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

    def __init__(self, field_kw: FieldKw | None = None) -> None:
        self.field_kw = field_kw
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
        if isinstance(expr, ast.Call) and terminal_name(expr.func) == "get_kwargs" and expr.args:
            return self._table(expr.args[0], mod, local)
        return None

    def _table(self, expr: ast.expr, mod: Module, local: dict[str, Any]) -> KwTable | None:
        if self.field_kw is None:
            return None
        if isinstance(expr, ast.Name) and isinstance(local.get(expr.id), tuple):
            cmod, cls = local[expr.id]
            return KwTable.of(cmod, cls, self.field_kw)
        found = mod.resolve_expr(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
        if found is not None and isinstance(found[1].node, ast.ClassDef):
            return KwTable.of(found[0], found[1].node, self.field_kw)
        return None

    # ---- statements ---------------------------------------------------

    def run(
        self, fn: ast.FunctionDef, mod: Module, local: dict[str, Any] | None = None, depth: int = 0
    ) -> None:
        self._stmts(fn.body, mod, dict(local or {}), depth)

    def _stmts(
        self, body: Sequence[ast.stmt], mod: Module, local: dict[str, Any], depth: int
    ) -> None:
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

    def _bind(
        self, name: str, value: ast.expr, mod: Module, local: dict[str, Any], depth: int
    ) -> None:
        if isinstance(value, ast.Call) and terminal_name(value.func) in (
            "add_cli_args",
            "_customize_cli_kwargs",
        ):
            self._call(value, mod, local, depth)
            if terminal_name(value.func) == "_customize_cli_kwargs":
                return  # the same table comes back
            return
        kw = self._kw_of(value, mod, local)
        if kw is not None:
            local[name] = kw
            return
        if isinstance(value, ast.Call) and terminal_name(value.func) in ("set", "list"):
            local[name] = const_eval(value, mod, local)
            return
        local[name] = const_eval(value, mod, local)

    def _override(
        self, target: ast.Subscript, value: ast.expr | None, mod: Module, local: dict[str, Any]
    ) -> None:
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
        name = terminal_name(func)
        if name == "add_argument":
            self._add_argument(call, mod, local)
        elif name == "remove" and isinstance(func, ast.Attribute):
            # kwargs["field"]["choices"].remove(VALUE)
            holder = func.value
            if (
                isinstance(holder, ast.Subscript)
                and const_eval(holder.slice, mod, local) == "choices"
            ):
                owner = self._kw_of(holder.value, mod, local)
                value = const_eval(call.args[0], mod, local) if call.args else UNKNOWN
                if isinstance(owner, Kw) and isinstance(owner.choices, list):
                    owner.choices = [c for c in owner.choices if c != value]
        elif (
            name in ("add", "append", "extend")
            and isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
        ):
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
        elif isinstance(owner, ast.Call) and terminal_name(owner.func) == "super":
            cls_ref = local.get("__class__")
            start_after = local.get("__defining__")
        else:
            found = (
                mod.resolve_expr(owner) if isinstance(owner, (ast.Name, ast.Attribute)) else None
            )
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


def _methods_in_mro(
    cls_ref: tuple[Module, ast.ClassDef], method: str, start_after: str | None
) -> Iterator[tuple[Module, ast.ClassDef, ast.FunctionDef]]:
    chain: list[tuple[Module, ast.ClassDef]] = [cls_ref]
    chain += [(m, c) for _, m, c in class_bases(*cls_ref) if c is not None]
    skipping = start_after is not None
    for cmod, cls in chain:
        if skipping:
            if cls.name == start_after:
                skipping = False
            continue
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == method:
                yield cmod, cls, stmt


def argparse_option(
    raw: RawOption,
    *,
    enable_disable: bool = False,
    commands: tuple[str, ...] | None = None,
    config_ok: Callable[[Kw], bool] = lambda kw: True,
) -> Option:
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
                        negations.append(inverse + n[len(prefix) :])
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
        default=kw.default if kw.default_given else kw.flag_default,
    )


HELP_OPTION = Option(
    name="--help", aliases=("-h",), type="bool", takes_value=False, config_ok=False
)
