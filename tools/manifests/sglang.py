"""SGLang: `launch_server` and `sglang serve` options, read from the server-argument dataclasses."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

from skillcheck.engines import CHOICES_STRICT, Manifest, Option, ParserRules, Positional
from tools.manifests.argparse_reader import (
    HELP_OPTION,
    ArgparseInterpreter,
    Kw,
    RawOption,
    apply_kwarg,
    argparse_option,
)
from tools.manifests.defaults import (
    computed,
    field_default,
    filled_by_functions,
    render_expr,
    unset_marker,
)
from tools.manifests.errors import GenerateError
from tools.manifests.pyeval import (
    FieldSpec,
    class_fields,
    const_eval,
    deprecation_in_help,
    type_hints,
)
from tools.manifests.pysource import Module, SourceIndex, terminal_name
from tools.manifests.source import detect


def _arg_meta(meta: Sequence[ast.expr], mod: Module) -> dict[str, ast.expr] | None:
    """The keywords of ``Arg(...)`` (or ``help`` for a bare string) in Annotated metadata."""
    for item in meta:
        if isinstance(item, ast.Call) and terminal_name(item.func) == "Arg":
            return {k.arg: k.value for k in item.keywords if k.arg}
        value = const_eval(item, mod)
        if isinstance(value, str):
            return {"help": ast.Constant(value)}
    return None


def sglang_field_option(
    spec: FieldSpec, filled: dict[str, list[str]] | None = None
) -> RawOption | None:
    """An option registered by ``add_cli_args_from_dataclass`` for one field."""
    ann = spec.annotation
    if not (isinstance(ann, ast.Subscript) and terminal_name(ann.value) in ("A", "Annotated")):
        return None
    sl = ann.slice
    items = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
    mod = spec.module
    meta = _arg_meta(items[1:], mod)
    if meta is None or const_eval(meta.get("no_cli"), mod) is True:
        return None
    cli_name = const_eval(meta.get("cli_name"), mod) if "cli_name" in meta else None
    name = cli_name if isinstance(cli_name, str) else "--" + spec.name.replace("_", "-")
    aliases = const_eval(meta.get("aliases"), mod) if "aliases" in meta else []
    names = [name, *(aliases if isinstance(aliases, list) else [])]
    help_text = const_eval(meta.get("help"), mod) if "help" in meta else None
    kw = _action_kw(meta, mod) if "action" in meta else _typed_kw(items[0], meta, mod)
    message = deprecation_in_help(help_text)
    if message:
        kw.deprecated = message
    kw.default, kw.default_given = _field_default(spec, meta, filled or {}), True
    return RawOption(names, kw)


def _field_default(
    spec: FieldSpec, meta: dict[str, ast.expr], filled: dict[str, list[str]]
) -> str | None:
    """The field's default; an unset (``None``) field that resolution hooks may fill, or
    that declares a ``fallback``, is computed at startup."""
    default = field_default(spec)
    if default is not None:
        return default
    fallback = render_expr(meta.get("fallback"), spec.module)
    if spec.name in filled:
        marker = unset_marker(filled[spec.name])
        return marker if fallback is None else f"{marker[:-1]}; else {fallback})"
    if fallback is not None:
        return computed(f"resolution hooks, else {fallback}")
    if const_eval(meta.get("resolvable"), spec.module) is True:
        return computed("resolution hooks")
    return None


def _apply_meta(kw: Kw, meta: dict[str, ast.expr], keys: Sequence[str], mod: Module) -> None:
    """Fold the ``Arg(...)`` keywords ``keys`` that are present, in that order, into ``kw``."""
    for key in keys:
        if key in meta:
            apply_kwarg(kw, key, meta[key], mod, {})


def _action_kw(meta: dict[str, ast.expr], mod: Module) -> Kw:
    """``Arg(action=..., action_kwargs={...})``: the action decides."""
    kw = Kw()
    _apply_meta(kw, meta, ("action",), mod)
    extra = meta.get("action_kwargs")
    if isinstance(extra, ast.Dict):
        for k, v in zip(extra.keys, extra.values, strict=False):
            key = const_eval(k, mod) if k is not None else None
            if isinstance(key, str):
                apply_kwarg(kw, key, v, mod, {})
    return kw


def _typed_kw(annotation: ast.expr, meta: dict[str, ast.expr], mod: Module) -> Kw:
    """No action: the field's type decides, as ``add_cli_args_from_dataclass`` reads it."""
    kw = Kw()
    non_none = [h for h in type_hints(annotation, mod) if h.kind != "none"]
    inner = non_none[0] if len(non_none) == 1 else None
    type_parser = meta.get("type_parser")
    if inner is not None and inner.kind == "literal":
        values = list(inner.values)
        kw.choices, kw.choices_kind = values, CHOICES_STRICT
        _apply_meta(kw, meta, ("choices",), mod)
        kw.type = type(values[0]).__name__ if values else "str"
    elif inner is not None and inner.kind == "list" and type_parser is None:
        elem = {h.kind for h in inner.elems[0]} if inner.elems else set()
        kw.type = next((k for k in ("int", "float") if k in elem), "str")
        kw.nargs = "+"
        _apply_meta(kw, meta, ("nargs", "choices"), mod)
    elif inner is not None and inner.kind == "bool":
        kw.action, kw.type, kw.nargs = "flag", "bool", 0
    else:
        kind = inner.kind if inner is not None else "str"
        kw.type = kind if kind in ("int", "float") else "str"
        if type_parser is not None:
            apply_kwarg(kw, "type", type_parser, mod, {})
        _apply_meta(kw, meta, ("choices", "nargs"), mod)
    return kw


def _filled_when_unset(server_args: Module) -> dict[str, list[str]]:
    """Fields that ``server_args.py`` or a resolution hook under ``arg_groups/`` fills in
    when unset. The hooks are parsed here only for defaults, not listed as option sources."""
    filled = filled_by_functions(server_args.tree, "server_args")
    hooks = server_args.path.parent / "arg_groups"
    for path in sorted(hooks.glob("*.py")) if hooks.is_dir() else []:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (SyntaxError, ValueError):
            continue
        for name, where in filled_by_functions(tree, path.stem).items():
            filled.setdefault(name, []).extend(w for w in where if w not in filled[name])
    return filled


def _namespaces(server_args: Module) -> list[tuple[Module, ast.ClassDef]]:
    """The classes whose fields become options: ``_INPUT_NAMESPACES`` (0.5.20 on), or
    ``ServerArgs`` itself when its fields carry the ``A[...]`` annotations (0.5.18, 0.5.19)."""
    namespaces = server_args.symbols.get("_INPUT_NAMESPACES")
    if namespaces is None or not isinstance(namespaces.node, ast.List):
        server_cls = server_args.class_def("ServerArgs")
        if server_cls is None or "add_cli_args_from_dataclass" not in server_args.text:
            raise GenerateError("_INPUT_NAMESPACES not found in server_args.py")
        return [(server_args, server_cls)]
    found_all = []
    for elt in namespaces.node.elts:
        found = server_args.resolve_expr(elt)
        if found is None or not isinstance(found[1].node, ast.ClassDef):
            raise GenerateError(f"namespace {ast.unparse(elt)} not found")
        found_all.append((found[0], found[1].node))
    return found_all


def _config_ok(kw: Kw) -> bool:
    """SGLang's config loader takes store-true flags and single-value (or store) actions."""
    if kw.action == "bool-optional":
        return False
    if kw.action == "custom":
        return kw.nargs is None
    return True


def generate(root: Path, version: str) -> Manifest:
    index = SourceIndex(root)
    server_args = index.require("sglang.srt.server_args")
    launch = index.module("sglang.launch_server")
    if launch is None:
        raise GenerateError("sglang/launch_server.py not found")
    filled = _filled_when_unset(server_args)
    raws: list[RawOption] = []
    for ns_mod, ns_cls in _namespaces(server_args):
        for spec in class_fields(ns_mod, ns_cls):
            raw = sglang_field_option(spec, filled)
            if raw is not None:
                raws.append(raw)
    server_cls = server_args.class_def("ServerArgs")
    method = (
        next(
            (
                s
                for s in server_cls.body
                if isinstance(s, ast.FunctionDef) and s.name == "add_cli_args"
            ),
            None,
        )
        if server_cls
        else None
    )
    if method is None:
        raise GenerateError("ServerArgs.add_cli_args not found")
    interp = ArgparseInterpreter()
    interp.run(method, server_args)
    raws.extend(interp.options)
    commands: tuple[str, ...] = ("python -m sglang.launch_server", "sglang serve")
    options = [argparse_option(r, config_ok=_config_ok) for r in raws]
    options.append(HELP_OPTION)
    positionals: tuple[Positional, ...] = ()
    serve = index.module("sglang.cli.serve")
    if serve is not None:
        if detect(serve.text, r'"--model-type"'):
            options.append(
                Option(name="--model-type", type="str", commands=("sglang serve",), config_ok=False)
            )
        if detect(serve.text, r"def _normalize_positional_model_path"):
            positionals = (Positional("model_path", required=False, commands=("sglang serve",)),)
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
    if not detect(parser_text, r'"--config"'):
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
        config_file={"option": "--config", "key_style": "flag-spelling", "notes": config_notes},
        config_keys=None,
        provenance={"files": sorted(index.read)},
    )
