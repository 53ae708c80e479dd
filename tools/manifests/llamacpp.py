"""llama.cpp: ``llama-server`` options, read from ``common/arg.cpp`` of the vendored copy."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillcheck.engines import CHOICES_STRICT, Manifest, Option, ParserRules
from tools.manifests.cpp_defaults import CppDefaults
from tools.manifests.cpp_reader import (
    blank_comments,
    function_body,
    match_bracket,
    only_strings,
    skip_statement,
    split_commas,
    string_literals,
)
from tools.manifests.errors import GenerateError
from tools.manifests.source import detect


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


def _cpp_parse_arg(call: str, constants: dict[str, list[str]]) -> CppArg:
    m = re.match(r"\s*common_arg\s*\(", call)
    if m is None:
        raise GenerateError(f"unexpected add_opt argument: {call[:80]!r}")
    open_paren = m.end() - 1
    close = match_bracket(call, open_paren)
    parts = split_commas(call[open_paren + 1 : close - 1])
    names = string_literals(parts[0])
    negs: list[str] = []
    hint: str | None = None
    handler_text = parts[-1]
    if len(parts) == 3:
        help_text, kind = parts[1], "void"
    elif len(parts) == 4 and parts[1].lstrip().startswith("{"):
        negs, help_text, kind = string_literals(parts[1]), parts[2], "bool"
    elif len(parts) == 4:
        hint, help_text = only_strings(parts[1]), parts[2]
        kind = "value"
    elif len(parts) == 5:
        hint, help_text, kind = only_strings(parts[1]), parts[3], "str_str"
    else:
        raise GenerateError(f"common_arg with {len(parts)} arguments: {names}")
    lm = re.match(r"\s*\[[^\]]*\]\s*\(([^)]*)\)\s*\{", handler_text)
    if lm is None:
        raise GenerateError(f"handler of {names} is not a lambda")
    params = [p.strip() for p in lm.group(1).split(",")]
    body_start = handler_text.index("{", lm.end() - 1)
    body = handler_text[body_start + 1 : match_bracket(handler_text, body_start) - 1]
    param = ""
    if kind == "value":
        last = params[-1] if len(params) > 1 else ""
        kind = "int" if re.match(r"int\b", last) else "string"
        pm = re.search(r"(\w+)\s*$", last)
        param = pm.group(1) if pm else "value"
    arg = CppArg(names, negs, hint, kind, " ".join(string_literals(help_text)), body, param)
    for cm in re.finditer(r"\.\s*(set_\w+)\s*\(", call[close:]):
        start = close + cm.end() - 1
        inner = call[start + 1 : match_bracket(call, start) - 1]
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
            strings = string_literals(inner)
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
            end = match_bracket(body, i + len("add_opt"))
            found.append(_cpp_parse_arg(body[i + len("add_opt(") : end - 1], constants))
            i = end
            while i < n and body[i] in " \t\n;":
                i += 1
            continue
        ifm = re.match(r"if\s*\(", body[i:])
        if ifm:
            i = _cpp_if_chain(body, i, example, constants, found)
            continue
        i = skip_statement(body, i)
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


def _cpp_if_chain(
    body: str, i: int, example: str, constants: dict[str, list[str]], found: list[CppArg]
) -> int:
    taken = False
    while True:
        paren = body.index("(", i)
        close = match_bracket(body, paren)
        cond = body[paren + 1 : close - 1]
        brace = body.index("{", close)
        end = match_bracket(body, brace)
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
            end = match_bracket(body, brace)
            if not taken:
                found.extend(_cpp_walk(body[brace + 1 : end - 1], example, constants))
            return end
        return i


def _ggml_type_names(root: Path) -> dict[str, str]:
    """GGML_TYPE_X -> type name, read from ggml's type traits table."""
    names: dict[str, str] = {}
    path = root / "ggml" / "src" / "ggml.c"
    if path.is_file():
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in re.finditer(
            r"\[(GGML_TYPE_\w+)\]\s*=\s*\{[^{}]*?\.type_name\s*=\s*\"([^\"]+)\"", text
        ):
            names[m.group(1)] = m.group(2)
    return names


def _cpp_choices(
    arg: CppArg, text: str, ggml_names: dict[str, str]
) -> tuple[tuple[str, ...] | None, bool]:
    """(choices, accepts_numbers) read from a string handler's body."""
    body, param = arg.body, arg.param or "value"
    values: list[str] = []
    # helpers such as kv_cache_type_from_str(value) that accept a fixed list
    for fm in re.finditer(r"\b(\w+)\(\s*" + re.escape(param) + r"\s*\)", body):
        helper = fm.group(1)
        hm = re.search(r"static\s+ggml_type\s+" + helper + r"\s*\([^)]*\)\s*\{", text)
        if hm is None:
            continue
        hbody = text[hm.end() : match_bracket(text, hm.end() - 1) - 1]
        vm = re.search(r"for\s*\(\s*const\s+auto\s*&\s*\w+\s*:\s*(\w+)\s*\)", hbody)
        if vm is None:
            continue
        lm = re.search(r"\b" + vm.group(1) + r"\s*=\s*\{([^}]*)\}", text)
        if lm is None:
            continue
        enums = re.findall(r"GGML_TYPE_\w+", lm.group(1))
        names = [ggml_names.get(e, e[len("GGML_TYPE_") :].lower()) for e in enums]
        return tuple(names), False
    for helper in ("is_truthy", "is_falsey", "is_autoy"):
        if re.search(r"\b" + helper + r"\(\s*" + re.escape(param) + r"\s*\)", body):
            hm = re.search(
                r"bool\s+common_arg_utils::" + helper + r"\s*\([^)]*\)\s*\{([^}]*)\}", text
            )
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


def _for_server(arg: CppArg) -> bool:
    """Whether ``llama-server`` registers the option: its own example, or common and not
    excluded (options only a preset file can set are left out)."""
    if arg.preset_only:
        return False
    in_example = _SERVER in arg.examples or "LLAMA_EXAMPLE_COMMON" in arg.examples
    return in_example and _SERVER not in arg.excludes


def _option(
    arg: CppArg, text: str, ggml_names: dict[str, str], defaults: CppDefaults | None = None
) -> Option:
    longs = [n for n in arg.names if n.startswith("--")]
    name = longs[0] if longs else arg.names[0]
    removed = "arg_removed(" in arg.body or arg.help.lower().startswith(
        "the argument has been removed"
    )
    deprecated = None
    if removed or re.search(r"(?i)\bdeprecated\b", arg.help):
        deprecated = " ".join(arg.help.split())
    choices: tuple[str, ...] | None = None
    numbers = False
    if arg.handler == "string":
        choices, numbers = _cpp_choices(arg, text, ggml_names)
    typ = {"int": "int", "string": "int" if numbers else "str", "str_str": "str"}.get(
        arg.handler, "bool"
    )
    return Option(
        name=name,
        aliases=tuple(n for n in arg.names if n != name),
        negations=tuple(arg.negs),
        type=typ,
        takes_value=arg.handler in ("int", "string", "str_str"),
        nargs=2 if arg.handler == "str_str" else None,
        choices=choices,
        choices_kind=CHOICES_STRICT if choices else None,
        accepts_numbers=numbers,
        deprecated=deprecated,
        removed=removed,
        negatable=bool(arg.negs),
        env=arg.env,
        config_ok=False,
        default=(
            defaults.of_handler(arg.body, flag=arg.handler in ("void", "bool"))
            if defaults is not None
            else None
        ),
    )


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
    m = re.search(
        r"^## \[" + re.escape(package_version) + r"\][^\n]*\n(.*?)(?=^## \[|\Z)", text, re.M | re.S
    )
    if m is None:
        return None
    cm = re.search(r"llama\.cpp@([0-9a-f]{7,40})", m.group(1))
    return cm.group(1) if cm else None


_SERVER = "LLAMA_EXAMPLE_SERVER"


def generate(root: Path, version: str) -> Manifest:
    vendor = _llama_vendor_root(root)
    arg_path = vendor / "common" / "arg.cpp"
    raw_text = arg_path.read_text(encoding="utf-8", errors="replace")
    text = blank_comments(raw_text)
    constants: dict[str, list[str]] = {}
    for m in re.finditer(
        r"std::initializer_list<enum llama_example>\s+(\w+)\s*=\s*\{([^}]*)\}", text
    ):
        constants[m.group(1)] = re.findall(r"LLAMA_EXAMPLE_\w+", m.group(2))
    body = function_body(text, r"common_params_context\s+common_params_parser_init\s*\(")
    ggml_names = _ggml_type_names(vendor)
    defaults = CppDefaults(vendor, text)
    options = [
        _option(arg, text, ggml_names, defaults)
        for arg in _cpp_walk(body, _SERVER, constants)
        if _for_server(arg)
    ]
    parse_ex = raw_text[raw_text.find("static bool common_params_parse_ex") :]
    underscores = detect(parse_ex, r"std::replace\(arg\.begin\(\),\s*arg\.end\(\),\s*'_',\s*'-'\)")
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
        parser=ParserRules(
            kind="llama.cpp", equals_form=False, abbreviations=False, underscore_to_dash=underscores
        ),
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
