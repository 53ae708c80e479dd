"""The committed manifests against expectations written by hand from each engine's source
(tests/engines/oracles/<engine>.json; each entry names the file and line it was read from), so
that a bug of the generator cannot hide behind its own output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillcheck.engines import Option, load_manifest

ORACLES = Path(__file__).resolve().parent / "oracles"
FILES = sorted(ORACLES.glob("*.json"))


def _entries() -> list[tuple[str, str, str | None, dict[str, Any]]]:
    out = []
    for path in FILES:
        data = json.loads(path.read_text(encoding="utf-8"))
        for entry in data["options"]:
            out.append((data["engine"], data["version"], data.get("command"), entry))
    return out


def _find(engine: str, version: str, command: str | None, spelling: str) -> list[Option]:
    manifest = load_manifest(engine, version)
    return [
        o
        for o in manifest.options
        if spelling in (o.name, *o.aliases)
        and (command is None or o.commands is None or command in o.commands)
    ]


def test_every_engine_has_at_least_eight_oracles() -> None:
    counts: dict[str, int] = {}
    for engine, _, _, _ in _entries():
        counts[engine] = counts.get(engine, 0) + 1
    assert set(counts) == {"vllm", "sglang", "llama.cpp", "tensorrt-llm"}
    assert min(counts.values()) >= 8, counts


@pytest.mark.parametrize(
    ("engine", "version", "command", "entry"),
    _entries(),
    ids=lambda v: v["spellings"][0] if isinstance(v, dict) else None,
)
def test_manifest_matches_the_source(
    engine: str, version: str, command: str | None, entry: dict[str, Any]
) -> None:
    assert entry["source"], "every expectation names where in the source it was read"
    spellings = entry["spellings"]
    found = _find(engine, version, command, spellings[0])
    assert len(found) == 1, f"{spellings[0]}: {len(found)} options in the manifest"
    (opt,) = found
    assert {opt.name, *opt.aliases} == set(spellings)
    assert opt.name in spellings and len(opt.aliases) == len(spellings) - 1
    assert opt.takes_value is entry["takes_value"]
    if "choices" in entry:
        expected = entry["choices"]
        assert (None if opt.choices is None else sorted(opt.choices)) == (
            None if expected is None else sorted(expected)
        )
    if "choices_include" in entry:
        assert opt.choices is not None and set(entry["choices_include"]) <= set(opt.choices)
    if "choices_kind" in entry:
        assert opt.choices_kind == entry["choices_kind"]
    if "negations" in entry:
        assert sorted(opt.negations) == sorted(entry["negations"])
    if "type" in entry:
        assert opt.type == entry["type"]
