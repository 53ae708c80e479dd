"""TensorRT-LLM: ``trtllm-serve`` click options and the LLM API arguments its YAML file takes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from skillcheck.engines import ConfigKey, Manifest, Option, ParserRules, Positional
from tools.manifests.click_reader import click_decorators, click_option
from tools.manifests.errors import GenerateError
from tools.manifests.pydantic_reader import pydantic_tree
from tools.manifests.pyeval import const_eval
from tools.manifests.pysource import Module, SourceIndex, terminal_name

PROGRAM = "trtllm-serve"

_CONFIG_NOTES = (
    "YAML mapping of LLM API arguments (TorchLlmArgs fields for the default "
    "pytorch backend), keys spelled exactly as the pydantic field names "
    "(underscores). Nested configuration objects are mappings; unknown "
    "keys are rejected. Values here override the trtllm-serve options."
)


def generate(root: Path, version: str) -> Manifest:
    index = SourceIndex(root)
    serve = index.require("tensorrt_llm.commands.serve")
    llm_args = index.require("tensorrt_llm.llmapi.llm_args")
    table, default_sub = _group(serve)
    commands: list[str] = [PROGRAM] if default_sub else []
    options: list[Option] = [Option(name="--help", type="bool", takes_value=False, config_ok=False)]
    positionals: list[Positional] = []
    serve_fn: ast.FunctionDef | None = None
    for key_expr, value_expr in zip(table.keys, table.values, strict=True):
        sub = const_eval(key_expr, serve) if key_expr is not None else None
        fn = serve.function(terminal_name(value_expr))
        if not isinstance(sub, str) or fn is None:
            continue
        names = (f"{PROGRAM} {sub}",) + ((PROGRAM,) if sub == default_sub else ())
        commands.append(f"{PROGRAM} {sub}")
        _read_subcommand(fn, serve, names, options, positionals)
        if sub == default_sub:
            serve_fn = fn
    torch_args = llm_args.class_def("TorchLlmArgs")
    if torch_args is None:
        raise GenerateError("TorchLlmArgs not found in llm_args.py")
    config_keys = pydantic_tree(llm_args, torch_args)
    if serve_fn is not None:
        for name in sorted(_popped_keys(serve, serve_fn) - set(config_keys)):
            config_keys[name] = ConfigKey(
                type="any", note="read by trtllm-serve itself, not passed to the LLM API"
            )
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
            "notes": _CONFIG_NOTES,
        },
        config_keys=config_keys,
        provenance={"files": sorted(index.read)},
    )


def _group(serve: Module) -> tuple[ast.Dict, str | None]:
    """The ``commands={...}`` table of the click group ``main``, and the subcommand it runs
    when the first word is not a subcommand name (None when there is none)."""
    group_value = serve.symbols.get("main")
    if group_value is None or not isinstance(group_value.node, ast.Call):
        raise GenerateError("click group `main` not found in serve.py")
    group_call = group_value.node
    table = next((k.value for k in group_call.keywords if k.arg == "commands"), None)
    if not isinstance(table, ast.Dict):
        raise GenerateError("commands={...} of the click group not found")
    group_cls = serve.class_def(terminal_name(group_call.func))
    if group_cls is None:
        return table, None
    m = re.search(r"return\s*\(?\s*['\"](\w+)['\"],\s*self\.commands\[", ast.unparse(group_cls))
    return table, m.group(1) if m else None


def _read_subcommand(
    fn: ast.FunctionDef,
    serve: Module,
    names: tuple[str, ...],
    options: list[Option],
    positionals: list[Positional],
) -> None:
    """Append the options and arguments a subcommand's click decorators declare."""
    _, calls = click_decorators(fn)
    for call in calls:
        if terminal_name(call.func) == "argument":
            pname = const_eval(call.args[0], serve) if call.args else "arg"
            req_kw = next((k.value for k in call.keywords if k.arg == "required"), None)
            required = const_eval(req_kw, serve) is not False
            positionals.append(Positional(str(pname), required=required, commands=names))
            continue
        opt = click_option(call, serve, names)
        if opt is not None:
            options.append(opt)


def _popped_keys(serve: Module, serve_fn: ast.FunctionDef) -> set[str]:
    """Keys that ``serve`` (or a function it calls) pops from ``llm_args`` itself."""
    consumed: set[str] = set()
    called = {terminal_name(n.func) for n in ast.walk(serve_fn) if isinstance(n, ast.Call)}
    scan = [serve_fn] + [f for f in (serve.function(c) for c in called) if f is not None]
    for fn in scan:
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Call)
                and terminal_name(node.func) == "pop"
                and isinstance(node.func, ast.Attribute)
                and terminal_name(node.func.value) == "llm_args"
                and node.args
            ):
                popped = const_eval(node.args[0], serve)
                if isinstance(popped, str):
                    consumed.add(popped)
    return consumed
