"""The manifest model: which options an engine release accepts, and how its parser reads them.

Manifests are JSON files under ``skillcheck/engines/manifests/``, generated from
each engine's released source by the maintainer tool ``python -m tools.manifests``
(in the repository, not in the installed package). :func:`load_manifest` reads
them (from the source tree or an installed wheel) into frozen dataclasses.

>>> ("vllm", "0.33.0") in available()
True
>>> load_manifest("vllm").option("--max-num-seqs") is not None
True
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

__all__ = [
    "CHOICES_KNOWN",
    "CHOICES_PARTIAL",
    "CHOICES_STRICT",
    "ConfigKey",
    "Manifest",
    "ManifestError",
    "Option",
    "ParserRules",
    "Positional",
    "available",
    "dumps",
    "load_manifest",
    "manifest_from_dict",
    "manifest_to_dict",
]

#: Choice lists whose values the engine rejects when a value is not listed.
CHOICES_STRICT = "strict"
#: Choice lists that hold every value of the pinned release, where plugins can
#: register more at run time (the engine validates later, against a registry).
CHOICES_KNOWN = "known"
#: Choice lists that are only partly known (computed at run time).
CHOICES_PARTIAL = "partial"

_MANIFEST_PACKAGE = "skillcheck.engines"
_MANIFEST_DIR = "manifests"


class ManifestError(ValueError):
    """A manifest is missing or does not have the expected shape."""


@dataclass(frozen=True)
class Option:
    """One command-line option of an engine command.

    ``name`` is the primary spelling, ``aliases`` are the other accepted
    spellings (short forms included) and ``negations`` the spellings that turn
    a boolean option off (``--no-x``). ``nargs`` follows argparse: ``None`` for
    exactly one value when ``takes_value``, ``"?"``, ``"*"``, ``"+"`` or a
    count. ``commands`` limits the option to some of the manifest's commands
    (``None``: all of them). ``default`` is the default the source states, as the
    command line spells it (``None``: no default; a value starting with
    ``(computed`` is computed at run time).
    """

    name: str
    aliases: tuple[str, ...] = ()
    negations: tuple[str, ...] = ()
    type: str = "str"
    takes_value: bool = True
    nargs: str | int | None = None
    choices: tuple[str, ...] | None = None
    choices_kind: str | None = None
    accepts_numbers: bool = False
    normalize: str | None = None
    deprecated: str | None = None
    removed: bool = False
    negatable: bool = False
    json_keys: tuple[str, ...] | None = None
    env: str | None = None
    commands: tuple[str, ...] | None = None
    config_ok: bool = True
    default: str | None = None

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every accepted spelling: name, aliases and negations."""
        return (self.name, *self.aliases, *self.negations)

    def applies_to(self, command: str | None) -> bool:
        return command is None or self.commands is None or command in self.commands


@dataclass(frozen=True)
class Positional:
    """A positional argument (for example the model of ``vllm serve``)."""

    name: str
    required: bool = False
    commands: tuple[str, ...] | None = None

    def applies_to(self, command: str | None) -> bool:
        return command is None or self.commands is None or command in self.commands


@dataclass(frozen=True)
class ParserRules:
    """How the engine's command-line parser reads options.

    ``equals_form``: ``--opt=value`` is accepted. ``abbreviations``: a unique
    prefix of a long option is accepted (argparse ``allow_abbrev``).
    ``underscore_to_dash``: underscores in a long option name are read as
    dashes. ``dotted_json_keys``: ``--json-opt.key value`` sets one key of a
    JSON-valued option. ``shorthands`` maps a short prefix that takes an
    attached value (``-O3``) to the option it stands for.
    """

    kind: str = "argparse"
    equals_form: bool = True
    abbreviations: bool = False
    underscore_to_dash: bool = False
    dotted_json_keys: bool = False
    shorthands: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ConfigKey:
    """One key of a YAML configuration tree (TensorRT-LLM LLM API options).

    ``keys`` holds the nested keys when the value is itself a configuration
    object (``None`` when the nested keys are not known). A union of
    configuration objects told apart by ``discriminator`` has ``variants``:
    discriminator value to the keys that variant accepts.
    """

    type: str = "any"
    choices: tuple[str, ...] | None = None
    deprecated: str | None = None
    aliases: tuple[str, ...] = ()
    keys: Mapping[str, ConfigKey] | None = None
    discriminator: str | None = None
    variants: Mapping[str, tuple[str, ...]] | None = None
    note: str | None = None


@dataclass(frozen=True)
class Manifest:
    """The options of one engine release, with where they were read from."""

    engine: str
    version: str
    commands: tuple[str, ...]
    options: tuple[Option, ...]
    positionals: tuple[Positional, ...] = ()
    parser: ParserRules = field(default_factory=ParserRules)
    config_file: Mapping[str, Any] | None = None
    config_keys: Mapping[str, ConfigKey] | None = None
    provenance: Mapping[str, Any] = field(default_factory=dict)
    _index: dict[str | None, dict[str, Option]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def options_for(self, command: str | None = None) -> Iterator[Option]:
        return (opt for opt in self.options if opt.applies_to(command))

    def option(self, spelling: str, command: str | None = None) -> Option | None:
        """The option spelled ``spelling`` (exactly, as the parser matches it)."""
        return self._spelling_index(command).get(spelling)

    def spellings(self, command: str | None = None) -> tuple[str, ...]:
        """Every option spelling accepted by ``command``, sorted."""
        return tuple(sorted(self._spelling_index(command)))

    def _spelling_index(self, command: str | None) -> dict[str, Option]:
        index = self._index.get(command)
        if index is None:
            index = {}
            for opt in self.options_for(command):
                for spelling in opt.spellings:
                    index.setdefault(spelling, opt)
            self._index[command] = index
        return index


# --------------------------------------------------------------------------
# JSON (de)serialisation
# --------------------------------------------------------------------------


def _opt_tuple(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError(f"expected a list of strings, got {value!r}")
    return tuple(value)


def _tuple(value: Any) -> tuple[str, ...]:
    return _opt_tuple(value) or ()


def _opt_str(value: Any, name: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ManifestError(f"bad default {value!r} for {name!r}: expected a string or null")
    return value


def _option_from_dict(raw: Mapping[str, Any]) -> Option:
    nargs = raw.get("nargs")
    if nargs is not None and not isinstance(nargs, (str, int)):
        raise ManifestError(f"bad nargs {nargs!r} for {raw.get('name')!r}")
    return Option(
        name=str(raw["name"]),
        aliases=_tuple(raw.get("aliases")),
        negations=_tuple(raw.get("negations")),
        type=str(raw.get("type", "str")),
        takes_value=bool(raw.get("takes_value", True)),
        nargs=nargs,
        choices=_opt_tuple(raw.get("choices")),
        choices_kind=raw.get("choices_kind"),
        accepts_numbers=bool(raw.get("accepts_numbers", False)),
        normalize=raw.get("normalize"),
        deprecated=raw.get("deprecated"),
        removed=bool(raw.get("removed", False)),
        negatable=bool(raw.get("negatable", False)),
        json_keys=_opt_tuple(raw.get("json_keys")),
        env=raw.get("env"),
        commands=_opt_tuple(raw.get("commands")),
        config_ok=bool(raw.get("config_ok", True)),
        default=_opt_str(raw.get("default"), raw.get("name")),
    )


def _option_to_dict(opt: Option) -> dict[str, Any]:
    return {
        "name": opt.name,
        "aliases": list(opt.aliases),
        "negations": list(opt.negations),
        "type": opt.type,
        "takes_value": opt.takes_value,
        "nargs": opt.nargs,
        "choices": None if opt.choices is None else list(opt.choices),
        "choices_kind": opt.choices_kind,
        "accepts_numbers": opt.accepts_numbers,
        "normalize": opt.normalize,
        "deprecated": opt.deprecated,
        "removed": opt.removed,
        "negatable": opt.negatable,
        "json_keys": None if opt.json_keys is None else list(opt.json_keys),
        "env": opt.env,
        "commands": None if opt.commands is None else list(opt.commands),
        "config_ok": opt.config_ok,
        "default": opt.default,
    }


def _config_key_from_dict(raw: Mapping[str, Any]) -> ConfigKey:
    keys = raw.get("keys")
    variants = raw.get("variants")
    return ConfigKey(
        type=str(raw.get("type", "any")),
        choices=_opt_tuple(raw.get("choices")),
        deprecated=raw.get("deprecated"),
        aliases=_tuple(raw.get("aliases")),
        keys=None if keys is None else _config_tree_from_dict(keys),
        discriminator=raw.get("discriminator"),
        variants=None
        if variants is None
        else {str(k): _tuple(v) for k, v in dict(variants).items()},
        note=raw.get("note"),
    )


def _config_tree_from_dict(raw: Any) -> dict[str, ConfigKey]:
    if not isinstance(raw, dict):
        raise ManifestError(f"expected a mapping of config keys, got {type(raw).__name__}")
    return {str(k): _config_key_from_dict(v) for k, v in raw.items()}


def _config_key_to_dict(key: ConfigKey) -> dict[str, Any]:
    return {
        "type": key.type,
        "choices": None if key.choices is None else list(key.choices),
        "deprecated": key.deprecated,
        "aliases": list(key.aliases),
        "keys": None if key.keys is None else _config_tree_to_dict(key.keys),
        "discriminator": key.discriminator,
        "variants": None
        if key.variants is None
        else {k: list(v) for k, v in sorted(key.variants.items())},
        "note": key.note,
    }


def _config_tree_to_dict(tree: Mapping[str, ConfigKey]) -> dict[str, Any]:
    return {k: _config_key_to_dict(v) for k, v in sorted(tree.items())}


def manifest_from_dict(raw: Mapping[str, Any]) -> Manifest:
    """Build a :class:`Manifest` from its JSON form."""
    try:
        parser = raw.get("parser") or {}
        config_keys = raw.get("config_keys")
        return Manifest(
            engine=str(raw["engine"]),
            version=str(raw["version"]),
            commands=_tuple(raw["commands"]),
            options=tuple(_option_from_dict(o) for o in raw["options"]),
            positionals=tuple(
                Positional(
                    name=str(p["name"]),
                    required=bool(p.get("required", False)),
                    commands=_opt_tuple(p.get("commands")),
                )
                for p in raw.get("positionals", [])
            ),
            parser=ParserRules(
                kind=str(parser.get("kind", "argparse")),
                equals_form=bool(parser.get("equals_form", True)),
                abbreviations=bool(parser.get("abbreviations", False)),
                underscore_to_dash=bool(parser.get("underscore_to_dash", False)),
                dotted_json_keys=bool(parser.get("dotted_json_keys", False)),
                shorthands=dict(parser.get("shorthands") or {}),
            ),
            config_file=raw.get("config_file"),
            config_keys=None if config_keys is None else _config_tree_from_dict(config_keys),
            provenance=dict(raw.get("provenance") or {}),
        )
    except (KeyError, TypeError) as exc:
        raise ManifestError(f"malformed manifest: {exc!r}") from exc


def manifest_to_dict(manifest: Manifest) -> dict[str, Any]:
    """The JSON form of ``manifest`` (options sorted by name, then commands)."""
    options = sorted(manifest.options, key=lambda o: (o.name, o.commands or ()))
    return {
        "engine": manifest.engine,
        "version": manifest.version,
        "commands": list(manifest.commands),
        "positionals": [
            {
                "name": p.name,
                "required": p.required,
                "commands": None if p.commands is None else list(p.commands),
            }
            for p in manifest.positionals
        ],
        "parser": {
            "kind": manifest.parser.kind,
            "equals_form": manifest.parser.equals_form,
            "abbreviations": manifest.parser.abbreviations,
            "underscore_to_dash": manifest.parser.underscore_to_dash,
            "dotted_json_keys": manifest.parser.dotted_json_keys,
            "shorthands": dict(sorted(manifest.parser.shorthands.items())),
        },
        "config_file": None if manifest.config_file is None else dict(manifest.config_file),
        "config_keys": None
        if manifest.config_keys is None
        else _config_tree_to_dict(manifest.config_keys),
        "provenance": dict(manifest.provenance),
        "options": [_option_to_dict(o) for o in options],
    }


def dumps(manifest: Manifest) -> str:
    """Serialise ``manifest`` as stable JSON text: sorted keys, one option per line."""
    data = manifest_to_dict(manifest)
    options = data.pop("options")
    marker = "@@OPTIONS@@"
    data["options"] = marker
    text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False)
    lines = ",\n".join("  " + json.dumps(o, sort_keys=True, ensure_ascii=False) for o in options)
    return text.replace(json.dumps(marker), "[\n" + lines + "\n ]", 1) + "\n"


# --------------------------------------------------------------------------
# Loader
# --------------------------------------------------------------------------


def _version_key(version: str) -> tuple[tuple[int, Any], ...]:
    parts = re.split(r"[.\-+]", version)
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)


@functools.lru_cache(maxsize=1)
def _catalogue() -> dict[tuple[str, str], str]:
    """(engine, version) -> manifest file name, read from the files themselves."""
    found: dict[tuple[str, str], str] = {}
    directory = resources.files(_MANIFEST_PACKAGE).joinpath(_MANIFEST_DIR)
    if not directory.is_dir():
        return found
    for entry in directory.iterdir():
        if not entry.name.endswith(".json"):
            continue
        try:
            head = json.loads(entry.read_text(encoding="utf-8"))
            found[(str(head["engine"]), str(head["version"]))] = entry.name
        except (ValueError, KeyError, TypeError) as exc:
            raise ManifestError(f"unreadable manifest {entry.name}: {exc}") from exc
    return found


def available() -> list[tuple[str, str]]:
    """Every committed (engine, version) pair, sorted by engine then version."""
    return sorted(_catalogue(), key=lambda ev: (ev[0], _version_key(ev[1])))


def load_manifest(engine: str, version: str | None = None) -> Manifest:
    """Load the manifest of ``engine`` at ``version`` (default: the newest committed).

    Manifests are parsed once and cached; the same object is returned each time.
    """
    versions = [v for e, v in available() if e == engine]
    if not versions:
        known = sorted({e for e, _ in available()})
        raise ManifestError(f"no manifest for engine {engine!r}; known engines: {known}")
    if version is None:
        version = versions[-1]
    elif version not in versions:
        raise ManifestError(f"no manifest for {engine} {version}; committed versions: {versions}")
    return _load_exact(engine, version)


@functools.lru_cache(maxsize=32)
def _load_exact(engine: str, version: str) -> Manifest:
    name = _catalogue()[(engine, version)]
    text = (
        resources.files(_MANIFEST_PACKAGE)
        .joinpath(_MANIFEST_DIR)
        .joinpath(name)
        .read_text(encoding="utf-8")
    )
    return manifest_from_dict(json.loads(text))
