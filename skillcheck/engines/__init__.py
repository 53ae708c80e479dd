"""LLM serving engines: their flag manifests and the checks of commands and config files.

- :mod:`.manifest`: the manifest model and its loader (``load_manifest``);
- :mod:`.shell`: a shell tokenizer;
- :mod:`.invocations`: the engine commands of a shell block (``find_invocations``);
- :mod:`.options`: a command's options checked against a manifest (``check_invocation``);
- :mod:`.config_keys`: the keys of a YAML config file (``check_config_keys``);
- :mod:`.findings`: what the checks report; :mod:`.values`: value checks both use.
"""

from skillcheck.engines.manifest import (
    CHOICES_KNOWN,
    CHOICES_PARTIAL,
    CHOICES_STRICT,
    ConfigKey,
    Manifest,
    ManifestError,
    Option,
    ParserRules,
    Positional,
    available,
    dumps,
    load_manifest,
    manifest_from_dict,
    manifest_to_dict,
)

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
