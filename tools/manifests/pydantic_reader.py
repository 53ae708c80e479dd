"""pydantic: the tree of keys a model accepts, nested models included."""

from __future__ import annotations

import ast

from skillcheck.engines import ConfigKey
from tools.manifests.pyeval import TH, FieldSpec, class_fields, const_eval, type_hints
from tools.manifests.pysource import Module, terminal_name


def pydantic_tree(
    mod: Module, cls: ast.ClassDef, seen: frozenset[str] = frozenset()
) -> dict[str, ConfigKey]:
    tree: dict[str, ConfigKey] = {}
    for spec in class_fields(mod, cls):
        if spec.name.startswith("_") or not spec.init:
            continue
        tree[spec.name] = _pydantic_key(spec, seen | {cls.name})
    return tree


def _pydantic_key(spec: FieldSpec, seen: frozenset[str]) -> ConfigKey:
    """One field of a model as a config key, with the keys of nested models."""
    mod = spec.module
    hints = type_hints(spec.annotation, mod)
    kinds = [h.kind for h in hints if h.kind != "none"]
    models = [h for h in hints if h.kind in ("model", "dataclass") and h.ref is not None]
    keys: dict[str, ConfigKey] | None = None
    discriminator: str | None = None
    variants: dict[str, tuple[str, ...]] | None = None
    note = None
    if models:
        keys, discriminator, variants = _nested_keys(hints, models, seen, mod)
        others = [h for h in hints if h.kind == "class" and h.ref is None]
        if others:
            note = "also accepts " + ", ".join(h.name for h in others)
    elif any(h.kind == "class" for h in hints) and "str" not in kinds:
        names = [h.name for h in hints if h.kind == "class"]
        note = f"type {', '.join(names)} not read; nested keys not checked"
    choices = _choices(spec, hints, kinds)
    return ConfigKey(
        type=_type_name(hints, kinds),
        choices=tuple(choices) if choices else None,
        deprecated=_deprecation(spec),
        aliases=_aliases(spec),
        keys=keys,
        discriminator=discriminator,
        variants=variants,
        note=note,
    )


def _deprecation(spec: FieldSpec) -> str | None:
    """``Field(status="deprecated", deprecated=...)`` (TensorRT-LLM's Field wrapper)."""
    if const_eval(spec.kwargs.get("status"), spec.module) != "deprecated":
        return None
    message = const_eval(spec.kwargs.get("deprecated"), spec.module)
    return message if isinstance(message, str) else 'marked status="deprecated"'


def _aliases(spec: FieldSpec) -> tuple[str, ...]:
    """``alias=`` and the names of ``validation_alias=AliasChoices(...)``."""
    aliases: list[str] = []
    alias = const_eval(spec.kwargs.get("alias"), spec.module)
    if isinstance(alias, str) and alias != spec.name:
        aliases.append(alias)
    va = spec.kwargs.get("validation_alias")
    if isinstance(va, ast.Call) and terminal_name(va.func) == "AliasChoices":
        for a in va.args:
            value = const_eval(a, spec.module)
            if isinstance(value, str) and value != spec.name:
                aliases.append(value)
    return tuple(aliases)


def _choices(spec: FieldSpec, hints: tuple[TH, ...], kinds: list[str]) -> list[str] | None:
    """The values of a Literal or a string enum, unless the type is open to other values."""
    literal = [str(v) for h in hints if h.kind == "literal" for v in h.values]
    enum_values = [
        str(v) for h in hints if h.kind == "enum" for v in h.values if isinstance(v, str)
    ]
    open_types = {"str", "any", "class", "int", "float"} & set(kinds)
    string_enums = all(h.kind != "enum" or all(isinstance(v, str) for v in h.values) for h in hints)
    if literal and not open_types:
        return literal
    if enum_values and not open_types and string_enums:
        return enum_values
    extra_choices = const_eval(spec.kwargs.get("choices"), spec.module)
    if isinstance(extra_choices, list):
        return [str(c) for c in extra_choices]
    return None


def _type_name(hints: tuple[TH, ...], kinds: list[str]) -> str:
    """The type as the manifest spells it, such as ``int/null`` or ``object``."""
    raw_literal = [v for h in hints if h.kind == "literal" for v in h.values]
    pretty = {
        "model": "object",
        "dataclass": "object",
        "enum": "str",
        "class": "object",
        "literal": type(raw_literal[0]).__name__ if raw_literal else "str",
        "none": "null",
    }
    return "/".join(dict.fromkeys(pretty.get(k, k) for k in kinds)) or "any"


def _nested_keys(
    hints: tuple[TH, ...], models: list[TH], seen: frozenset[str], mod: Module
) -> tuple[dict[str, ConfigKey], str | None, dict[str, tuple[str, ...]] | None]:
    """The keys of the nested models, and for a discriminated union its tag and variants."""
    keys: dict[str, ConfigKey] = {}
    refs = [h.ref for h in models if h.ref is not None]
    for ref in refs:
        if ref[1].name not in seen:
            keys.update(pydantic_tree(ref[0], ref[1], seen))
    discriminator = None
    for meta in (m for h in hints for m in h.meta):
        if isinstance(meta, ast.Call):
            disc = next((k.value for k in meta.keywords if k.arg == "discriminator"), None)
            if disc is not None:
                discriminator = const_eval(disc, mod)
    if not isinstance(discriminator, str):
        return keys, None, None
    variants: dict[str, tuple[str, ...]] = {}
    for ref in refs:
        sub = pydantic_tree(ref[0], ref[1], seen)
        tag = sub.get(discriminator)
        for value in (tag.choices or ()) if tag else ():
            variants[value] = tuple(sorted(sub))
    keys[discriminator] = ConfigKey(type="str", choices=tuple(sorted(variants)))
    return keys, discriminator, variants
