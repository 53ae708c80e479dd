"""vLLM: ``vllm serve`` options, read from ``make_arg_parser`` and the config dataclasses."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from skillcheck.engines import (
    CHOICES_KNOWN,
    CHOICES_STRICT,
    Manifest,
    Option,
    ParserRules,
    Positional,
)
from tools.manifests.argparse_reader import ArgparseInterpreter, Kw, argparse_option
from tools.manifests.defaults import computed_when_unset, field_default
from tools.manifests.errors import GenerateError
from tools.manifests.pyeval import TH, FieldSpec, class_fields, deprecation_in_doc, type_hints
from tools.manifests.pysource import Module, SourceIndex
from tools.manifests.source import detect


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
    kw.deprecated = deprecation_in_doc(spec.doc)
    kw.default, kw.default_given = field_default(spec), True
    return kw


def _with_computed(options: list[Option], engine_args: tuple[Module, ast.ClassDef]) -> list[Option]:
    """An option left unset (default ``None``) that ``EngineArgs`` fills in is computed."""
    filled = computed_when_unset(*engine_args)
    out = []
    for opt in options:
        dest = opt.name.lstrip("-").replace("-", "_")
        if opt.default is None and dest in filled:
            opt = replace(opt, default=filled[dest])
        out.append(opt)
    return out


_CLI_ARGS_MODULES = (
    "vllm.entrypoints.common.cli_args",
    "vllm.entrypoints.launchers.cli_args",
    "vllm.entrypoints.openai.cli_args",
)


def generate(root: Path, version: str) -> Manifest:
    index = SourceIndex(root)
    arg_utils = index.require("vllm.engine.arg_utils")
    # make_arg_parser moved: openai/ (0.28), launchers/ (0.29-0.32), common/ (0.33)
    cli_args = next(
        (m for m in map(index.module, _CLI_ARGS_MODULES) if m is not None),
        None,
    ) or index.require(_CLI_ARGS_MODULES[0])
    argparse_utils = index.require("vllm.utils.argparse_utils")
    make_parser = cli_args.function("make_arg_parser")
    if make_parser is None or arg_utils.class_def("EngineArgs") is None:
        raise GenerateError("make_arg_parser / EngineArgs not found")
    interp = ArgparseInterpreter(field_kw=vllm_field_kw)
    interp.run(make_parser, cli_args)
    ap_text = argparse_utils.text
    enable_disable = detect(
        ap_text,
        r"register\(\s*\"action\",\s*BooleanOptionalAction,\s*"
        r"EnableDisableAction",
    )
    options = [argparse_option(r, enable_disable=enable_disable) for r in interp.options]
    engine_args = arg_utils.class_def("EngineArgs")
    assert engine_args is not None  # checked above
    options = _with_computed(options, (arg_utils, engine_args))
    # argparse adds -h/--help; FlexibleArgumentParser also reads `--help=<keyword>`.
    options.append(
        Option(
            name="--help", aliases=("-h",), type="str", takes_value=True, nargs="?", config_ok=False
        )
    )
    shorthands: dict[str, str] = {}
    if detect(ap_text, r'arg\.startswith\("-O"\)') and any(
        o.name == "--optimization-level" for o in options
    ):
        shorthands["-O"] = "--optimization-level"
    parser = ParserRules(
        kind="argparse",
        equals_form=True,
        abbreviations=not detect(ap_text, r"allow_abbrev\s*=\s*False"),
        underscore_to_dash=detect(ap_text, r'replace\("_",\s*"-"\)'),
        dotted_json_keys=detect(ap_text, r'"\." in processed_arg'),
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
    if not detect(ap_text, r"def load_config_file"):
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
