"""The data tables (data/gpus.json): schema, the repository's own table, SC311-SC314, and the
hardware table of references/gpu-optimization-checklists.md, which prints its figures."""

from __future__ import annotations

import json
import re
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from skillcheck import datatables as datafiles
from skillcheck.config import load_config
from skillcheck.datatables import data_schema, load_table
from skillcheck.runner import run

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
    registered = {
        s["id"]
        for s in json.loads((ROOT / "data" / "sources.json").read_text(encoding="utf-8"))["sources"]
    }
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
        nulls = [
            k for k, v in g.items() if v is None and k not in ("gfx_target", "compute_capability")
        ]
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
    before = broken[: broken.index('"gbps_per_direction": "450"')]
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
        # data/engine-flags/history is left out of the check by pyproject.toml's exclude
        ignore = shutil.ignore_patterns("history") if folder == "data" else None
        shutil.copytree(ROOT / folder, skill / folder, ignore=ignore)
    gpus = skill / "data" / "gpus.json"
    text = gpus.read_text(encoding="utf-8")
    text = text.replace('"memory_bandwidth_gbps": 3350', '"memory_bandwidth_gbps": "3.35 TB/s"', 1)
    text = text.replace('"nvidia-aiconfigurator-systems"', '"nvidia-aiconfigurator-system"', 1)
    gpus.write_text(text, encoding="utf-8")
    cfg, _ = load_config(skill, {"cache": False})
    result = run([skill], cfg, skill, exclude_base=skill)
    found = [(d.code, d.line) for d in result.diagnostics]
    lines = text.splitlines()
    bw_line = next(i for i, s in enumerate(lines, 1) if '"3.35 TB/s"' in s)
    src_line = next(i for i, s in enumerate(lines, 1) if '"nvidia-aiconfigurator-system"' in s)
    assert ("SC312", bw_line) in found
    assert ("SC314", src_line) in found
    assert {c for c, _ in found} == {"SC312", "SC314"}


def test_table_without_packaged_schema_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_table(tmp_path / "nothing.json", "no-such-table") is None
    skill = tmp_path / "s"
    (skill / "data").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: s\ndescription: A table. Use in tests.\n---\n\n"
        "Table: `data/no-such-table.json`.\n",
        encoding="utf-8",
    )
    (skill / "data" / "no-such-table.json").write_text("{not json", encoding="utf-8")
    monkeypatch.setitem(datafiles.DATA_TABLES, "no-such-table", "rows")
    cfg, _ = load_config(skill, {"cache": False})
    result = run([skill], cfg, skill, exclude_base=skill)
    assert [d.code for d in result.diagnostics] == []


def _skill_with_models(tmp_path: Path, text: str) -> list[str]:
    skill = tmp_path / "s"
    (skill / "data").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: s\ndescription: A table. Use in tests.\n---\n\nModels: `data/models.json`.\n",
        encoding="utf-8",
    )
    (skill / "data" / "models.json").write_text(text, encoding="utf-8")
    cfg, _ = load_config(skill, {"cache": False})
    result = run([skill], cfg, skill, exclude_base=skill)
    return [f"{d.code} {d.line}:{d.column}" for d in result.diagnostics]


@pytest.mark.parametrize(
    "text",
    [
        '{"models": [{"name": "mine", "context": 8192}]}',  # no $schema: another format
        '[{"name": "mine"}]',  # not even an object
        '{"$schema": "https://example.com/models.schema.v2.json", "models": []}',
    ],
)
def test_a_table_that_does_not_declare_our_schema_is_not_judged(tmp_path: Path, text: str) -> None:
    assert _skill_with_models(tmp_path, text) == []


def test_a_table_that_declares_our_schema_is_checked(tmp_path: Path) -> None:
    text = '{\n  "$schema": "../skillcheck/schemas/models.schema.json",\n  "models": 3\n}\n'
    assert _skill_with_models(tmp_path, text) == ["SC312 3:13"]


def test_broken_json_in_a_table_is_reported_whatever_it_declares(tmp_path: Path) -> None:
    assert _skill_with_models(tmp_path, '{"models": [1,]}') == [
        "SC311 1:15"
    ]  # the "]" after the trailing comma


def test_sources_json_is_judged_whatever_its_schema_key_says(tmp_path: Path) -> None:
    """Unlike the tables, data/sources.json is always ours to judge: the citation rules read
    it. A registry with no (or another) $schema is still validated and still loaded."""
    entry = {
        "id": "src-1",
        "title": "Source 1",
        "url": "https://docs.fixture-source.dev/1",
        "publisher": "Example",
        "kind": "docs",
        "topics": ["serving"],
        "checked": "2026-11-01",
    }
    path = tmp_path / "sources.json"
    for head, problems in (
        ({}, ["SC302 $: '$schema' is a required property"]),
        ({"$schema": "https://example.com/other.schema.json"}, []),
    ):
        path.write_text(json.dumps({**head, "sources": [entry]}), encoding="utf-8")
        reg = datafiles.load_registry(path)
        assert reg.loaded and list(reg.entries) == ["src-1"]
        assert [f"{p.code} {p.message}" for p in reg.problems] == problems


# mem_capacity of NVIDIA's AIConfigurator system files (ai-dynamo/aiconfigurator at
# 095f58a5, aic-core/src/aiconfigurator_core/systems/*.yaml), with the file's own comment
AIC_MEM_CAPACITY = {
    "a100-80gb": 85_899_345_920,  # a100_sxm: "80GiB"
    "b200": 193_273_528_320,  # b200_sxm: "180GiB"
    "b300": 288_400_343_040,  # b300_sxm: "275040MiB reported by nvidia-smi"
    "gb200": 198_674_743_296,  # gb200: "189471MiB reported by nvidia-smi"
    "gb300": 298_013_687_808,  # gb300: "284208MiB reported by nvidia-smi"
    "h100-pcie": 85_899_345_920,  # h100_pcie: "80GiB"
    "h100-sxm": 85_899_345_920,  # h100_sxm: "80GiB"
    "h200-sxm": 151_397_597_184,  # h200_sxm: "141GiB"
    "l4": 25_769_803_776,  # l4: "24GiB"
    "l40s": 48_305_799_168,  # l40s: "46068 MiB"
    "rtx-pro-6000-blackwell-server": 102_641_958_912,  # "97887 MiB reported by nvidia-smi"
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
    assert errors == [
        ["gpus", 0, "memory_device_bytes"],
        ["gpus", 1, "memory_device_bytes"],
        ["gpus", 2],
    ]


# ---------------------------------------------------------------- the page's hardware table

GPU_PAGE = ROOT / "references" / "gpu-optimization-checklists.md"
ROW_IDS = {
    "A100 80GB SXM": "a100-80gb",
    "H100 SXM": "h100-sxm",
    "H100 PCIe": "h100-pcie",
    "H200 SXM": "h200-sxm",
    "L40S": "l40s",
    "L4": "l4",
    "B200 (HGX/DGX)": "b200",
    "GB200 (per GPU)": "gb200",
    "B300 (HGX)": "b300",
    "GB300 (per GPU)": "gb300",
    "RTX PRO 6000 Blackwell Server": "rtx-pro-6000-blackwell-server",
    "MI300X": "mi300x",
    "MI325X": "mi325x",
    "MI355X": "mi355x",
}
UNIT = {"GB": 10**9, "GiB": 2**30, "MiB": 2**20}


def _hardware_rows() -> list[dict[str, str]]:
    lines = GPU_PAGE.read_text(encoding="utf-8").splitlines()
    head = next(i for i, s in enumerate(lines) if s.startswith("| GPU | Arch (CC / gfx) |"))
    names = [c.strip() for c in lines[head].strip("|").split("|")]
    rows = []
    for line in lines[head + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(names, (c.strip() for c in line.strip("|").split("|")), strict=True)))
    return rows


def _number(cell: str) -> float | None:
    return None if cell in ("—", "n/v") else float(cell.replace(",", ""))


def _rate_gbps(text: str) -> float:
    value, unit = text.split()
    return float(Decimal(value.replace(",", "")) * (1000 if unit == "TB/s" else 1))


def test_hardware_table_prints_gpus_json() -> None:
    gpus = {g["id"]: g for g in _gpus()}
    rows = _hardware_rows()
    assert [r["GPU"] for r in rows] == list(ROW_IDS)
    for row in rows:
        g = gpus[ROW_IDS[row["GPU"]]]
        where = row["GPU"]
        # Arch: compute capability or gfx target
        assert row["Arch (CC / gfx)"].split(", ")[1] == (
            g["compute_capability"] or g["gfx_target"]
        ), where
        # Memory: the vendor's figure in the vendor's unit, then the memory type if printed
        mem = re.fullmatch(r"([\d,.]+) (GB|GiB|MiB)(?: (\S+))?(?: \(.*\))?", row["Memory"])
        assert mem, where
        assert float(mem[1].replace(",", "")) * UNIT[mem[2]] == g["memory_bytes"], where
        assert mem[3] is None or mem[3] == g["memory_type"], where
        # Sizing memory: memory_device_bytes in GiB (2 decimals), and in MiB where printed
        size = re.fullmatch(r"([\d.]+) GiB(?: \(([\d,]+) MiB\))?", row["Sizing memory"])
        assert size, where
        assert float(size[1]) == round(g["memory_device_bytes"] / 2**30, 2), where
        if size[2]:
            assert int(size[2].replace(",", "")) * 2**20 == g["memory_device_bytes"], where
        bw = row["Mem BW"]
        assert (None if bw == "n/v" else _rate_gbps(bw)) == g["memory_bandwidth_gbps"], where
        for col, key in (
            ("BF16", "bf16_dense_tflops"),
            ("FP8", "fp8_dense_tflops"),
            ("FP4", "fp4_dense_tflops"),
        ):
            assert _number(row[col]) == g[key], (where, col)
        # Link: every rate says total or per direction and equals the table's
        link, spec = row["Scale-up link per GPU"], g["interconnect"]
        rates = re.findall(r"([\d.,]+ (?:TB|GB)/s) (total|per direction|per 8 GPUs)", link)
        assert len(rates) == len(re.findall(r"[\d.,]+ (?:TB|GB)/s", link)), where
        assert not re.search(r"\d (?:total|per direction)", link), f"{where}: rate without unit"
        for rate, kind in rates:
            if kind == "per 8 GPUs":
                assert _rate_gbps(rate) == 8 * spec["gbps_total"], where
            else:
                key = "gbps_total" if kind == "total" else "gbps_per_direction"
                assert _rate_gbps(rate) == spec[key], (where, kind)
        if "BW n/v" in link:
            assert spec["gbps_total"] is None and spec["gbps_per_direction"] is None, where
        else:
            assert rates, where
