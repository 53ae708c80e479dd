"""pydantic: the tree of keys a model accepts, nested models included."""

from __future__ import annotations

import ast

from skillcheck.engines import ConfigKey
from tools.manifests.pyeval import FieldSpec, class_fields, const_eval, type_hints
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
    mod = spec.module
    hints = type_hints(spec.annotation, mod)
    kinds = [h.kind for h in hints if h.kind != "none"]
    status = const_eval(spec.kwargs.get("status"), mod)
    deprecated = None
    if status == "deprecated":
        message = const_eval(spec.kwargs.get("deprecated"), mod)
        deprecated = message if isinstance(message, str) else 'marked status="deprecated"'
    aliases: list[str] = []
    alias = const_eval(spec.kwargs.get("alias"), mod)
    if isinstance(alias, str) and alias != spec.name:
        aliases.append(alias)
    va = spec.kwargs.get("validation_alias")
    if isinstance(va, ast.Call) and terminal_name(va.func) == "AliasChoices":
        for a in va.args:
            value = const_eval(a, mod)
            if isinstance(value, str) and value != spec.name:
                aliases.append(value)
    choices: list[str] | None = None
    raw_literal = [v for h in hints if h.kind == "literal" for v in h.values]
    literal = [str(v) for v in raw_literal]
    enum_values = [
        str(v) for h in hints if h.kind == "enum" for v in h.values if isinstance(v, str)
    ]
    open_types = {"str", "any", "class", "int", "float"} & set(kinds)
    if literal and not open_types:
        choices = literal
    elif (
        enum_values
        and not open_types
        and all(h.kind != "enum" or all(isinstance(v, str) for v in h.values) for h in hints)
    ):
        choices = enum_values
    extra_choices = const_eval(spec.kwargs.get("choices"), mod)
    if isinstance(extra_choices, list) and choices is None:
        choices = [str(c) for c in extra_choices]
    models = [h for h in hints if h.kind in ("model", "dataclass") and h.ref is not None]
    keys: dict[str, ConfigKey] | None = None
    discriminator = None
    variants: dict[str, tuple[str, ...]] | None = None
    note = None
    pretty = {
        "model": "object",
        "dataclass": "object",
        "enum": "str",
        "class": "object",
        "literal": type(raw_literal[0]).__name__ if raw_literal else "str",
        "none": "null",
    }
    typ = "/".join(dict.fromkeys(pretty.get(k, k) for k in kinds)) or "any"
    if models:
        keys = {}
        for h in models:
            assert h.ref is not None
            if h.ref[1].name in seen:
                continue
            keys.update(pydantic_tree(h.ref[0], h.ref[1], seen))
        for meta in (m for h in hints for m in h.meta):
            if isinstance(meta, ast.Call):
                disc = next((k.value for k in meta.keywords if k.arg == "discriminator"), None)
                if disc is not None:
                    discriminator = const_eval(disc, mod)
        if isinstance(discriminator, str):
            variants = {}
            for h in models:
                assert h.ref is not None
                sub = pydantic_tree(h.ref[0], h.ref[1], seen)
                tag = sub.get(discriminator)
                for value in (tag.choices or ()) if tag else ():
                    variants[value] = tuple(sorted(sub))
            keys[discriminator] = ConfigKey(type="str", choices=tuple(sorted(variants)))
        else:
            discriminator = None
        others = [h for h in hints if h.kind in ("class",) and h.ref is None]
        if others:
            note = "also accepts " + ", ".join(h.name for h in others)
    elif any(h.kind == "class" for h in hints) and not kinds.count("str"):
        names = [h.name for h in hints if h.kind == "class"]
        note = f"type {', '.join(names)} not read; nested keys not checked"
    return ConfigKey(
        type=typ,
        choices=tuple(choices) if choices else None,
        deprecated=deprecated,
        aliases=tuple(aliases),
        keys=keys,
        discriminator=discriminator if isinstance(discriminator, str) else None,
        variants=variants,
        note=note,
    )
