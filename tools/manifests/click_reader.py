"""click: the options and arguments a command's decorators declare."""

from __future__ import annotations

import ast
from typing import Any

from skillcheck.engines import Option
from tools.manifests.pyeval import choices_kind, class_bases, const_eval, deprecation_in_help
from tools.manifests.pysource import Module, terminal_name


def click_decorators(fn: ast.FunctionDef) -> tuple[str | None, list[ast.Call]]:
    command: str | None = None
    calls: list[ast.Call] = []
    for deco in fn.decorator_list:
        if not isinstance(deco, ast.Call):
            continue
        name = terminal_name(deco.func)
        if name == "command":
            first = deco.args[0] if deco.args else None
            command = (
                first.value
                if isinstance(first, ast.Constant) and isinstance(first.value, str)
                else fn.name
            )
        elif name in ("option", "argument"):
            calls.append(deco)
    return command, calls


def click_option(call: ast.Call, mod: Module, commands: tuple[str, ...]) -> Option | None:
    """The option a ``@click.option(...)`` decorator declares (None for an argument)."""
    names: list[str] = []
    for arg in call.args:
        value = const_eval(arg, mod)
        if isinstance(value, str):
            names.extend(value.split("/"))
    flags = [n.strip() for n in names if n.strip().startswith("-")]
    if not flags:
        return None
    kws = {k.arg: k.value for k in call.keywords if k.arg}
    is_flag = (
        const_eval(kws.get("is_flag"), mod) is True or const_eval(kws.get("count"), mod) is True
    )
    secondary = [n.strip() for n in names if "/" in n]
    typ, choices, kind = _click_type(kws.get("type"), mod)
    params = [n for n in names if n and not n.startswith("-")]
    by_param = [f for f in flags if params and f.lstrip("-").replace("-", "_") == params[0]]
    primary = by_param[0] if by_param else next((f for f in flags if f.startswith("--")), flags[0])
    negations = tuple(f for f in flags if f in secondary and f != primary and f.startswith("--no"))
    takes_value = not is_flag and not secondary
    return Option(
        name=primary,
        aliases=tuple(f for f in flags if f != primary and f not in negations),
        negations=negations,
        type=typ if takes_value else "bool",
        takes_value=takes_value,
        choices=tuple(str(c) for c in choices) if (choices and takes_value) else None,
        choices_kind=kind if (choices and takes_value) else None,
        deprecated=_click_deprecation(kws.get("help"), mod),
        negatable=bool(negations),
        commands=commands,
        config_ok=False,
    )


_CLICK_TYPES = {
    **dict.fromkeys(("int", "INT", "IntRange"), "int"),
    **dict.fromkeys(("float", "FLOAT", "FloatRange"), "float"),
    **dict.fromkeys(("bool", "BOOL"), "bool"),
    **dict.fromkeys(("Path", "File"), "path"),
}


def _click_type(type_expr: ast.expr | None, mod: Module) -> tuple[str, Any, str | None]:
    """(type, choices, choices kind) of an option's ``type=``."""
    if type_expr is None:
        return "str", None, None
    tname = terminal_name(type_expr)
    if tname in _CLICK_TYPES:
        return _CLICK_TYPES[tname], None, None
    if not isinstance(type_expr, ast.Call) or not type_expr.args:
        return "str", None, None
    found = (
        mod.resolve_expr(type_expr.func)
        if isinstance(type_expr.func, (ast.Name, ast.Attribute))
        else None
    )
    is_choice = tname == "Choice" or (
        found is not None
        and isinstance(found[1].node, ast.ClassDef)
        and "Choice" in {n for n, _, _ in class_bases(found[0], found[1].node)}
    )
    if not is_choice:
        return "str", None, None
    choices, kind = choices_kind(const_eval(type_expr.args[0], mod))
    if choices is not None and len(type_expr.args) > 1:
        # a Choice subclass that also takes a mapping of aliases
        aliases = const_eval(type_expr.args[1], mod)
        if isinstance(aliases, dict):
            choices = [*choices, *aliases]
    return "str", choices, kind


def _click_deprecation(help_expr: ast.expr | None, mod: Module) -> str | None:
    """A deprecation read from the help text (or TensorRT-LLM's stability tag)."""
    if (
        isinstance(help_expr, ast.Call)
        and terminal_name(help_expr.func) == "help_info_with_stability_tag"
    ):
        tag = const_eval(help_expr.args[1], mod) if len(help_expr.args) > 1 else None
        text = const_eval(help_expr.args[0], mod) if help_expr.args else None
        if tag == "deprecated":
            return text if isinstance(text, str) else "deprecated"
        return None
    return deprecation_in_help(const_eval(help_expr, mod))
