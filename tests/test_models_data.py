"""data/models.json: valid against its schema, internally consistent, and true to its sources.

The spot values below were read from the cited configuration files and reports, not from the
data file, so a wrong edit to the data fails here.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from .conftest import ROOT

MODELS_PATH = ROOT / "data" / "models.json"
SCHEMA_PATH = ROOT / "skillcheck" / "schemas" / "models.schema.json"
SOURCES_PATH = ROOT / "data" / "sources.json"


def _load(path: Any) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


DATA: dict[str, Any] = _load(MODELS_PATH)
SCHEMA: dict[str, Any] = _load(SCHEMA_PATH)
MODELS: list[dict[str, Any]] = DATA["models"]
BY_ID: dict[str, dict[str, Any]] = {m["id"]: m for m in MODELS}


def _errors(doc: Any) -> list[str]:
    return [e.message for e in Draft202012Validator(SCHEMA).iter_errors(doc)]


def _ids(param: Any) -> str:
    return str(param["id"]) if isinstance(param, dict) and "id" in param else str(param)


# --- the schema itself ---------------------------------------------------------------------


def test_schema_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def _objects(node: Any, path: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield path, node
        for key, value in node.items():
            yield from _objects(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _objects(value, f"{path}[{i}]")


def test_schema_objects_are_closed_and_every_property_is_described() -> None:
    objects = list(_objects(SCHEMA))
    assert len(objects) >= 5  # top level, model, mla, sliding_window, moe
    for path, obj in objects:
        assert obj.get("additionalProperties") is False, path
        assert obj.get("description"), path
        for name, prop in obj["properties"].items():
            assert prop.get("description"), f"{path}.properties.{name}"


# --- the file against the schema -----------------------------------------------------------


def test_file_validates_and_points_at_its_schema() -> None:
    assert _errors(DATA) == []
    assert DATA["$schema"] == "../skillcheck/schemas/models.schema.json"
    assert (MODELS_PATH.parent / DATA["$schema"]).resolve() == SCHEMA_PATH.resolve()


def test_ids_unique_and_sorted() -> None:
    ids = [m["id"] for m in MODELS]
    assert len(ids) == len(set(ids))
    assert ids == sorted(ids), "keep data/models.json sorted by id"


def test_covers_the_families_the_pack_names() -> None:
    assert len(MODELS) >= 25
    families = {m["family"] for m in MODELS}
    for family in (
        "llama-3",
        "llama-4",
        "qwen3",
        "qwen3-moe",
        "deepseek-v3",
        "gpt-oss",
        "mixtral",
        "gemma-3",
        "glm-4.5",
        "kimi-k2",
    ):
        assert family in families, family


def test_every_source_id_is_registered() -> None:
    registered = {s["id"] for s in _load(SOURCES_PATH)["sources"]}
    for m in MODELS:
        missing = [s for s in m["sources"] if s not in registered]
        assert missing == [], f"{m['id']}: {missing}"


GOOD = copy.deepcopy(BY_ID["llama-3.1-8b"])


def _wrap(entry: Any) -> dict[str, Any]:
    return {"$schema": "../skillcheck/schemas/models.schema.json", "models": [entry]}


def _with(**changes: Any) -> dict[str, Any]:
    entry = copy.deepcopy(GOOD)
    entry.update(changes)
    return entry


def _without(key: str) -> dict[str, Any]:
    entry = copy.deepcopy(GOOD)
    del entry[key]
    return entry


@pytest.mark.parametrize(
    "entry",
    [
        _with(id="Llama-3.1-8B"),
        _with(id="llama_3.1_8b"),
        _with(id="llama-3.1-8b-"),
        _with(num_layers=0),
        _with(num_kv_heads=2.5),
        _with(params_total="8B"),
        _with(attention="sliding"),
        _with(revision="main"),
        _with(hf_repo="Llama-3.1-8B"),
        _with(mla={"kv_lora_rank": 512}),
        _with(moe={"num_experts": 8, "experts_per_token": 2, "num_shared_experts": 0}),
        _with(
            sliding_window={"window": 128, "sliding_layers": 16, "full_layers": 16, "pattern": 2}
        ),
        _with(sources=[]),
        _with(sources=["a", "a"]),
        _with(dtype="fp8"),
        _with(extra="value"),
        _without("num_kv_heads"),
        _without("mla"),
        _without("sources"),
    ],
    ids=lambda e: next(
        (f"{k}={e[k]!r}" for k in e if e[k] != GOOD.get(k, object())),
        f"missing {sorted(set(GOOD) - set(e))}",
    ),
)
def test_invalid_entry_rejected(entry: dict[str, Any]) -> None:
    assert _errors(_wrap(entry))


def test_good_entry_accepted() -> None:
    assert _errors(_wrap(GOOD)) == []


def test_top_level_is_closed() -> None:
    doc = _wrap(GOOD)
    doc["extra"] = 1
    assert _errors(doc)
    assert _errors({"$schema": "x", "models": []})


# --- internal consistency --------------------------------------------------------------------


@pytest.mark.parametrize("m", MODELS, ids=_ids)
def test_attention_kind_matches_heads(m: dict[str, Any]) -> None:
    heads, kv = m["num_attention_heads"], m["num_kv_heads"]
    assert (m["attention"] == "mla") == (m["mla"] is not None)
    if m["attention"] == "mla":
        mla = m["mla"]
        assert m["head_dim"] == mla["qk_nope_head_dim"] + mla["qk_rope_head_dim"]
        return
    assert heads % kv == 0
    expected = "mha" if kv == heads else "mqa" if kv == 1 else "gqa"
    assert m["attention"] == expected


@pytest.mark.parametrize("m", MODELS, ids=_ids)
def test_head_dim_is_width_over_heads_or_explained(m: dict[str, Any]) -> None:
    if m["attention"] == "mla":
        return
    if m["head_dim"] * m["num_attention_heads"] != m["hidden_size"]:
        assert "head_dim" in m.get("note", ""), "a head_dim other than hidden/heads needs a note"


@pytest.mark.parametrize("m", MODELS, ids=_ids)
def test_sliding_window_layers_add_up(m: dict[str, Any]) -> None:
    sw = m["sliding_window"]
    if sw is None:
        return
    assert sw["sliding_layers"] + sw["full_layers"] == m["num_layers"]
    assert sw["sliding_layers"] > 0
    if m["max_context"] is not None:
        assert sw["window"] < m["max_context"]


@pytest.mark.parametrize("m", MODELS, ids=_ids)
def test_params_dense_and_moe(m: dict[str, Any]) -> None:
    assert m["params_active"] <= m["params_total"]
    moe = m["moe"]
    if moe is None:
        assert m["params_active"] == m["params_total"]
        return
    assert m["params_active"] < m["params_total"]
    assert moe["experts_per_token"] < moe["num_experts"]
    if moe["moe_layers"] is not None:
        assert 0 < moe["moe_layers"] < m["num_layers"]


@pytest.mark.parametrize("m", MODELS, ids=_ids)
def test_unsourced_values_are_explained(m: dict[str, Any]) -> None:
    nulls = [
        k
        for k in ("revision", "architecture", "vocab_size", "max_context", "dtype")
        if m[k] is None
    ]
    if nulls:
        assert m.get("note"), f"{m['id']}: {nulls} are null without a note"


# --- spot values read from the sources ---------------------------------------------------------


SPOT: list[tuple[str, dict[str, Any]]] = [
    # meta-llama--Meta-Llama-3.1-70B_config.json; Meta sku_list arch_args
    (
        "llama-3.1-70b",
        {
            "num_layers": 80,
            "hidden_size": 8192,
            "num_attention_heads": 64,
            "num_kv_heads": 8,
            "head_dim": 128,
            "vocab_size": 128256,
            "max_context": 131072,
            "architecture": "LlamaForCausalLM",
        },
    ),
    ("llama-3.1-8b", {"num_layers": 32, "hidden_size": 4096, "num_kv_heads": 8}),
    (
        "llama-3.1-405b",
        {"num_layers": 126, "hidden_size": 16384, "num_attention_heads": 128, "num_kv_heads": 8},
    ),
    # DeepSeek-V3 config.json and inference/configs/config_671B.json
    (
        "deepseek-v3",
        {
            "num_layers": 61,
            "hidden_size": 7168,
            "num_attention_heads": 128,
            "vocab_size": 129280,
            "max_context": 163840,
            "dtype": "float8_e4m3fn",
            "mla": {
                "kv_lora_rank": 512,
                "qk_rope_head_dim": 64,
                "qk_nope_head_dim": 128,
                "v_head_dim": 128,
                "q_lora_rank": 1536,
            },
            "moe": {
                "num_experts": 256,
                "experts_per_token": 8,
                "num_shared_experts": 1,
                "moe_layers": 58,
            },
        },
    ),
    # openai--gpt-oss-120b_config.json: layer_types alternates sliding (128) and full
    (
        "gpt-oss-120b",
        {
            "num_layers": 36,
            "hidden_size": 2880,
            "head_dim": 64,
            "num_kv_heads": 8,
            "dtype": "mxfp4",
            "sliding_window": {"window": 128, "sliding_layers": 18, "full_layers": 18},
            "moe": {
                "num_experts": 128,
                "experts_per_token": 4,
                "num_shared_experts": 0,
                "moe_layers": None,
            },
        },
    ),
    (
        "gpt-oss-20b",
        {
            "num_layers": 24,
            "sliding_window": {"window": 128, "sliding_layers": 12, "full_layers": 12},
        },
    ),
    # Qwen--Qwen3-235B-A22B_config.json
    (
        "qwen3-235b-a22b",
        {
            "num_layers": 94,
            "num_attention_heads": 64,
            "num_kv_heads": 4,
            "head_dim": 128,
            "max_context": 40960,
        },
    ),
    # moonshotai--Kimi-K2-Instruct_config.json
    (
        "kimi-k2",
        {
            "num_layers": 61,
            "num_attention_heads": 64,
            "vocab_size": 163840,
            "moe": {
                "num_experts": 384,
                "experts_per_token": 8,
                "num_shared_experts": 1,
                "moe_layers": 60,
            },
        },
    ),
    # Gemma 3 27B in gemma/gm/nn/_gemma.py: 62 layers, 5 local : 1 global, window 1024
    (
        "gemma-3-27b",
        {
            "num_layers": 62,
            "hidden_size": 5376,
            "head_dim": 128,
            "num_kv_heads": 16,
            "sliding_window": {"window": 1024, "sliding_layers": 52, "full_layers": 10},
        },
    ),
    # GLM-4.5 technical report, Table 1
    (
        "glm-4.5",
        {
            "num_layers": 92,
            "hidden_size": 5120,
            "num_attention_heads": 96,
            "num_kv_heads": 8,
            "moe": {
                "num_experts": 160,
                "experts_per_token": 8,
                "num_shared_experts": 1,
                "moe_layers": 89,
            },
        },
    ),
    # Llama 4 Maverick: interleave_moe_layer_step 2 over 48 layers; model card 400B / 17B
    (
        "llama-4-maverick",
        {
            "params_total": 400_000_000_000,
            "params_active": 17_000_000_000,
            "moe": {
                "num_experts": 128,
                "experts_per_token": 1,
                "num_shared_experts": 1,
                "moe_layers": 24,
            },
        },
    ),
]


@pytest.mark.parametrize(("model_id", "expected"), SPOT, ids=[s[0] for s in SPOT])
def test_spot_values(model_id: str, expected: dict[str, Any]) -> None:
    m = BY_ID[model_id]
    assert {k: m[k] for k in expected} == expected


def test_llama_3_1_70b_parameter_count_from_its_shapes() -> None:
    # config.json: hidden 8192, intermediate 28672, 80 layers, 64 heads of 128, 8 KV heads,
    # vocab 128256, tie_word_embeddings false; Llama has no biases.
    hidden, ffn, layers, heads, kv, hd, vocab = 8192, 28672, 80, 64, 8, 128, 128256
    attention = hidden * heads * hd + 2 * hidden * kv * hd + heads * hd * hidden
    per_layer = attention + 3 * hidden * ffn + 2 * hidden
    total = layers * per_layer + 2 * vocab * hidden + hidden
    assert total == 70_553_706_496
    assert total * 2 == 141_107_412_992  # bytes in BF16
    assert BY_ID["llama-3.1-70b"]["params_total"] == total
    assert BY_ID["llama-3.3-70b"]["params_total"] == total


def test_deepseek_v3_counts_match_the_stated_671b_and_37b() -> None:
    m = BY_ID["deepseek-v3"]
    assert round(m["params_total"] / 1e9) == 671
    assert 37e9 <= m["params_active"] < 38e9
    assert BY_ID["deepseek-r1"]["params_total"] == m["params_total"]
