"""The keys of a YAML config file checked against an engine's manifest.

vLLM and SGLang read top-level keys as option names; TensorRT-LLM reads a tree
of LLM API arguments. Findings carry line and column 0 and the path of the key
they are about (``Finding.key``); the message names the key too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from skillcheck.engines.findings import (
    BAD_CHOICE,
    DEPRECATED_OPTION,
    MISSING_VALUE,
    UNEXPECTED_VALUE,
    UNKNOWN_OPTION,
    Finding,
)
from skillcheck.engines.manifest import ConfigKey, Manifest, Option
from skillcheck.engines.shell import PLACEHOLDER, Token
from skillcheck.engines.values import (
    check_json,
    check_json_keys,
    choice_problem,
    close_match,
    normalize_flag,
    replacement_hint,
)

__all__ = ["check_config_keys"]

Path = tuple[str, ...]


def _is_placeholder_value(value: object) -> bool:
    return isinstance(value, str) and (bool(PLACEHOLDER.search(value)) or "$" in value)


def _finding(kind: str, message: str, hint: str = "", key: Path = ()) -> Finding:
    return Finding(0, 0, kind, message, hint, key)


def _about(findings: list[Finding], key: Path) -> list[Finding]:
    """``findings`` (made by the shared value checks) marked as about ``key``."""
    return [dataclasses.replace(f, key=key) for f in findings]


def _scalar_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def check_config_keys(mapping: object, manifest: Manifest) -> list[Finding]:
    """Findings on a YAML configuration mapping (already parsed) for ``manifest``.

    vLLM and SGLang: the top-level keys of a ``--config`` file. TensorRT-LLM:
    the nested keys of an ``--extra_llm_api_options`` / ``--config`` file.
    Never raises.
    """
    try:
        if mapping is None:
            return []
        if not isinstance(mapping, Mapping):
            return [_finding(UNKNOWN_OPTION, "a config file must hold a mapping of keys")]
        if manifest.config_keys is not None:
            return _check_tree(mapping, manifest.config_keys, (), manifest)
        if (manifest.config_file or {}).get("option"):
            return _check_flag_config(mapping, manifest)
        return [_finding(UNKNOWN_OPTION, f"{manifest.engine} reads no YAML configuration file")]
    except Exception as exc:  # pragma: no cover - must not raise
        return [_finding(UNKNOWN_OPTION, f"could not check the config: {exc!r}")]


# --------------------------------------------------------------------------
# vLLM and SGLang: top-level keys are option names
# --------------------------------------------------------------------------


def _check_flag_config(mapping: Mapping[object, object], manifest: Manifest) -> list[Finding]:
    """vLLM / SGLang: keys are option names passed on as ``--<key>``."""
    problems: list[Finding] = []
    command = manifest.commands[0] if manifest.commands else None
    for key, value in mapping.items():
        if not isinstance(key, str):
            problems.append(_finding(UNKNOWN_OPTION, f"config key {key!r} is not a string"))
            continue
        opt = _flag_option(key, manifest, command)
        if isinstance(opt, Finding):
            problems.append(opt)
            continue
        if opt.deprecated:
            problems.append(
                _finding(
                    DEPRECATED_OPTION,
                    f"config key `{key}` is deprecated: {opt.deprecated}",
                    replacement_hint(opt.deprecated),
                    (key,),
                )
            )
        problems.extend(_flag_value(key, value, opt, manifest))
    return problems


def _flag_option(key: str, manifest: Manifest, command: str | None) -> Option | Finding:
    """The option a top-level key names, or the finding that refuses the key."""
    flag = normalize_flag("--" + key, manifest)
    opt = manifest.option(flag, command)
    if (
        opt is None
        or not flag.startswith("--")
        or flag == (manifest.config_file or {}).get("option")
    ):
        long_spellings = [s for s in manifest.spellings(command) if s.startswith("--")]
        close = close_match(flag, long_spellings)
        if close is None and "_" in flag and not manifest.parser.underscore_to_dash:
            close = close_match(flag.replace("_", "-"), long_spellings)
        return _finding(
            UNKNOWN_OPTION,
            f"unknown config key `{key}` ({manifest.engine} {manifest.version})",
            f"did you mean `{close[2:]}`?" if close else "",
            (key,),
        )
    if not opt.config_ok:
        return _finding(
            UNKNOWN_OPTION,
            f"config key `{key}` is refused by the config-file loader",
            f"pass `{opt.name}` on the command line instead",
            (key,),
        )
    if opt.removed:
        return _finding(
            UNKNOWN_OPTION,
            f"config key `{key}` was removed: {opt.deprecated}",
            replacement_hint(opt.deprecated),
            (key,),
        )
    return opt


def _flag_value(key: str, value: object, opt: Option, manifest: Manifest) -> list[Finding]:
    """The value of a top-level key, read as the option's value."""
    label = f"config key `{key}`"
    pseudo = Token(_scalar_text(value), 0, 0)
    if value is None or _is_placeholder_value(value):
        return []
    if isinstance(value, bool):
        return _flag_bool(key, value, opt, manifest)
    if not opt.takes_value:
        return [
            _finding(UNEXPECTED_VALUE, f"{label} is a flag; give `true` or `false`", "", (key,))
        ]
    if isinstance(value, Mapping):
        if not opt.type.startswith("json"):
            return [
                _finding(
                    UNEXPECTED_VALUE, f"{label} takes a single value, not a mapping", "", (key,)
                )
            ]
        return [
            f
            for k, v in value.items()
            for f in _about(check_json_keys(opt, {k: v}, pseudo, label), (key, str(k)))
        ]
    if isinstance(value, list):
        if opt.nargs in (None, "?") and len(value) != 1:
            return [_finding(UNEXPECTED_VALUE, f"{label} takes one value, not a list", "", (key,))]
        out: list[Finding] = []
        for item in value:
            if _is_placeholder_value(item):
                continue
            problem = choice_problem(opt, _scalar_text(item), pseudo, label)
            if problem:
                out.append(problem)
        return _about(out, (key,))
    if opt.type.startswith("json") and isinstance(value, str):
        return _about(check_json(opt, value, pseudo, manifest, label), (key,))
    problem = choice_problem(opt, pseudo.text, pseudo, label)
    return _about([problem], (key,)) if problem else []


def _flag_bool(key: str, value: bool, opt: Option, manifest: Manifest) -> list[Finding]:
    """``true`` passes the flag; ``false`` passes ``--no-<key>``, or nothing."""
    label = f"config key `{key}`"
    if value and opt.takes_value and opt.nargs not in ("?", "*"):
        return [
            _finding(
                MISSING_VALUE,
                f"{label} is `true` but the option needs a value",
                "give the value instead of `true`",
                (key,),
            )
        ]
    if not value and opt.negatable and manifest.engine == "vllm":
        # `vllm serve --config` is read by the top-level `vllm` parser, whose option
        # table holds none of the serve options, so `--no-<key>` is never found and
        # `false` is dropped whatever the spelling.
        return [
            _finding(
                UNEXPECTED_VALUE,
                f"{label}: `false` is dropped by `vllm serve --config`",
                f"write `no-{key.replace('_', '-')}: true`",
                (key,),
            )
        ]
    if not opt.takes_value or value:
        return []
    if manifest.engine == "vllm":
        return []  # `false` drops a flag that has no --no- form
    pseudo = Token("false", 0, 0)
    problem = choice_problem(opt, pseudo.text, pseudo, label)
    return _about([problem], (key,)) if problem else []


# --------------------------------------------------------------------------
# TensorRT-LLM: a tree of LLM API arguments
# --------------------------------------------------------------------------


def _cli_alias_key(key: str, names: Mapping[str, str], manifest: Manifest) -> str | None:
    """The config key of the command-line option spelled ``--<key>`` (``tp_size``)."""
    for command in manifest.commands:
        opt = manifest.option("--" + key, command)
        if opt is not None:
            candidate = opt.name.lstrip("-").replace("-", "_")
            if candidate in names:
                return candidate
    return None


def _check_tree(
    mapping: Mapping[object, object], tree: Mapping[str, ConfigKey], path: Path, manifest: Manifest
) -> list[Finding]:
    problems: list[Finding] = []
    names: dict[str, str] = {}
    for name, node in tree.items():
        names[name] = name
        for alias in node.aliases:
            names.setdefault(alias, name)
    for key, value in mapping.items():
        at = (*path, str(key))
        dotted = ".".join(at)
        if not isinstance(key, str) or key not in names:
            close = close_match(str(key), list(names))
            if not path and isinstance(key, str):
                close = _cli_alias_key(key, names, manifest) or close
            problems.append(
                _finding(
                    UNKNOWN_OPTION,
                    f"unknown config key `{dotted}` ({manifest.engine} {manifest.version})",
                    f"did you mean `{close}`?" if close else "",
                    at,
                )
            )
            continue
        problems.extend(_check_tree_value(tree[names[key]], value, at, manifest))
    return problems


def _check_tree_value(
    node: ConfigKey, value: object, at: Path, manifest: Manifest
) -> list[Finding]:
    """One known key of the tree: deprecation, choices, and its nested keys."""
    dotted = ".".join(at)
    problems: list[Finding] = []
    if node.deprecated:
        problems.append(
            _finding(
                DEPRECATED_OPTION,
                f"config key `{dotted}` is deprecated: {node.deprecated}",
                replacement_hint(node.deprecated),
                at,
            )
        )
    if value is None or _is_placeholder_value(value):
        return problems
    if (
        isinstance(value, (str, int, float))
        and not isinstance(value, bool)
        and node.choices is not None
        and _scalar_text(value) not in node.choices
    ):
        close = close_match(_scalar_text(value), node.choices, cutoff=0.6)
        problems.append(
            _finding(
                BAD_CHOICE,
                f"`{value}` is not a valid value for config key `{dotted}`",
                (f"did you mean `{close}`? " if close else "")
                + "allowed: "
                + ", ".join(node.choices),
                at,
            )
        )
    if isinstance(value, Mapping) and node.keys is not None:
        keys: Mapping[str, ConfigKey] = node.keys
        if node.discriminator and node.variants:
            tag = value.get(node.discriminator)
            if isinstance(tag, str) and tag in node.variants:
                allowed = set(node.variants[tag]) | {node.discriminator}
                keys = {k: v for k, v in node.keys.items() if k in allowed}
        problems.extend(_check_tree(value, keys, at, manifest))
    return problems
