"""The data tables (data/gpus.json): schema, the repository's own table, and SC311-SC314."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from skillcheck import datafiles
from skillcheck.config import load
from skillcheck.datafiles import data_schema, load_table
from skillcheck.engine import run

from .conftest import ROOT

GPUS = ROOT / "data" / "gpus.json"


def _gpus() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads(GPUS.read_text(encoding="utf-8"))
    gpus: list[dict[str, Any]] = data["gpus"]
    return gpus


def test_gpus_schema_is_valid_draft_2020_12() -> None:
    schema = data_schema("gpus")
    assert schema is not None
    Draft202012Validator.check_schema(schema)


def test_repository_table_is_clean() -> None:
    table = load_table(GPUS, "gpus")
    assert table is not None
    assert table.problems == []
    registered = {s["id"] for s in json.loads(
        (ROOT / "data" / "sources.json").read_text(encoding="utf-8"))["sources"]}
    assert {c.source_id for c in table.citations} <= registered


def test_repository_table_is_consistent() -> None:
    gpus = _gpus()
    ids = [g["id"] for g in gpus]
    assert ids == sorted(ids)
    for g in gpus:
        if g["memory_bytes"] is not None:
            assert g["memory_gib"] == round(g["memory_bytes"] / 2**30, 2), g["id"]
        link = g["interconnect"]
        if link and link["gbps_total"] is not None and link["gbps_per_direction"] is not None:
            assert link["gbps_total"] == 2 * link["gbps_per_direction"], g["id"]
        if g["vendor"] == "NVIDIA":
            assert g["compute_capability"] is not None, g["id"]
        else:
            assert g["gfx_target"] is not None, g["id"]
        nulls = [k for k, v in g.items() if v is None and k not in ("gfx_target",
                                                                    "compute_capability")]
        assert not nulls or g.get("note"), f"{g['id']}: null {nulls} without a note"


def test_vendor_fields_are_exclusive() -> None:
    schema = data_schema("gpus")
    assert schema is not None
    doc = json.loads(GPUS.read_text(encoding="utf-8"))
    nvidia = next(g for g in doc["gpus"] if g["vendor"] == "NVIDIA")
    nvidia["gfx_target"] = "gfx942"
    errors = list(Draft202012Validator(schema).iter_errors(doc))
    assert [list(e.path) for e in errors] == [["gpus", doc["gpus"].index(nvidia), "gfx_target"]]


def test_nested_type_error_points_at_its_line(tmp_path: Path) -> None:
    text = GPUS.read_text(encoding="utf-8")
    needle = '"gbps_per_direction": 450'
    assert needle in text
    broken = text.replace(needle, '"gbps_per_direction": "450"', 1)
    path = tmp_path / "gpus.json"
    path.write_text(broken, encoding="utf-8")
    table = load_table(path, "gpus")
    assert table is not None
    [problem] = table.problems
    before = broken[:broken.index('"gbps_per_direction": "450"')]
    line = before.count("\n") + 1
    col = len(before) - (before.rfind("\n") + 1) + 1 + len('"gbps_per_direction": ')
    assert (problem.code, problem.line, problem.column) == ("SC312", line, col)
    assert problem.message.startswith("$.gpus[")
    assert ".interconnect.gbps_per_direction: '450' is not of type" in problem.message


def test_broken_copy_of_the_pack(tmp_path: Path) -> None:
    skill = tmp_path / "ai-llm-inference"
    skill.mkdir()
    shutil.copy(ROOT / "SKILL.md", skill / "SKILL.md")
    for folder in ("references", "assets", "data"):
        shutil.copytree(ROOT / folder, skill / folder)
    gpus = skill / "data" / "gpus.json"
    text = gpus.read_text(encoding="utf-8")
    text = text.replace('"memory_bandwidth_gbps": 3350', '"memory_bandwidth_gbps": "3.35 TB/s"', 1)
    text = text.replace('"nvidia-aiconfigurator-systems"', '"nvidia-aiconfigurator-system"', 1)
    gpus.write_text(text, encoding="utf-8")
    cfg, _ = load(skill, {"cache": False})
    result = run([skill], cfg, skill, exclude_base=skill)
    found = [(d.code, d.line) for d in result.diagnostics]
    lines = text.splitlines()
    bw_line = next(i for i, s in enumerate(lines, 1) if '"3.35 TB/s"' in s)
    src_line = next(i for i, s in enumerate(lines, 1) if '"nvidia-aiconfigurator-system"' in s)
    assert ("SC312", bw_line) in found
    assert ("SC314", src_line) in found
    assert {c for c, _ in found} == {"SC312", "SC314"}


def test_table_without_packaged_schema_is_skipped(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_table(tmp_path / "nothing.json", "no-such-table") is None
    skill = tmp_path / "s"
    (skill / "data").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: A table. Use in tests.\n---\n\n"
                                    "Table: `data/no-such-table.json`.\n", encoding="utf-8")
    (skill / "data" / "no-such-table.json").write_text("{not json", encoding="utf-8")
    monkeypatch.setitem(datafiles.DATA_TABLES, "no-such-table", "rows")
    cfg, _ = load(skill, {"cache": False})
    result = run([skill], cfg, skill, exclude_base=skill)
    assert [d.code for d in result.diagnostics] == []


# mem_capacity of NVIDIA's AIConfigurator system files (ai-dynamo/aiconfigurator at
# 095f58a5, aic-core/src/aiconfigurator_core/systems/*.yaml), with the file's own comment
AIC_MEM_CAPACITY = {
    "a100-80gb": 85_899_345_920,        # a100_sxm: "80GiB"
    "b200": 193_273_528_320,            # b200_sxm: "180GiB"
    "b300": 288_400_343_040,            # b300_sxm: "275040MiB reported by nvidia-smi"
    "gb200": 198_674_743_296,           # gb200: "189471MiB reported by nvidia-smi"
    "gb300": 298_013_687_808,           # gb300: "284208MiB reported by nvidia-smi"
    "h100-pcie": 85_899_345_920,        # h100_pcie: "80GiB"
    "h100-sxm": 85_899_345_920,         # h100_sxm: "80GiB"
    "h200-sxm": 151_397_597_184,        # h200_sxm: "141GiB"
    "l4": 25_769_803_776,               # l4: "24GiB"
    "l40s": 48_305_799_168,             # l40s: "46068 MiB"
    "rtx-pro-6000-blackwell-server": 102_641_958_912,   # "97887 MiB reported by nvidia-smi"
}
# ROCm's specification tables state VRAM in GiB (rocm-docs-gpu-arch-specs, rocm-docs-gpu-specs)
ROCM_VRAM_GIB = {"mi300x": 192, "mi325x": 256, "mi355x": 288}


def test_device_memory_is_the_sourced_capacity() -> None:
    gpus = {g["id"]: g for g in _gpus()}
    for gpu_id, g in gpus.items():
        device = g["memory_device_bytes"]
        if gpu_id in AIC_MEM_CAPACITY:
            assert device == AIC_MEM_CAPACITY[gpu_id], gpu_id
            assert "nvidia-aiconfigurator-systems" in g["sources"], gpu_id
        elif gpu_id in ROCM_VRAM_GIB:
            assert device == ROCM_VRAM_GIB[gpu_id] * 2**30 == g["memory_bytes"], gpu_id
        else:
            assert device is None, gpu_id
            assert "memory_device_bytes null" in g["note"], gpu_id
        assert device is None or "memory_device_bytes" in g["note"], gpu_id


def test_schema_rejects_a_non_integer_device_memory() -> None:
    schema = data_schema("gpus")
    assert schema is not None
    doc = json.loads(GPUS.read_text(encoding="utf-8"))
    doc["gpus"][0]["memory_device_bytes"] = 80.5
    doc["gpus"][1]["memory_device_bytes"] = 0
    del doc["gpus"][2]["memory_device_bytes"]
    errors = sorted(list(e.path) for e in Draft202012Validator(schema).iter_errors(doc))
    assert errors == [["gpus", 0, "memory_device_bytes"], ["gpus", 1, "memory_device_bytes"],
                      ["gpus", 2]]
