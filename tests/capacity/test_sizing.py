"""assets/capacity/sizing.py, run as a command and imported as a module.

Expected numbers are computed here by hand from each engine's own formula (file:line of the
pinned release in the comments), or copied from the worked examples of the pack's pages; none
come from the code under test. The model and GPU entries are the stand-ins in data/.
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "assets" / "capacity" / "sizing.py"
DATA = Path(__file__).resolve().parent / "data"
GIB = 2**30

LLAMA_70B = 70_553_706_496  # parameters, from the shapes (quantization-patterns.md)
LLAMA_8B = 8_030_261_248  # kv-cache-optimization.md, worked example step 1


def run(*args: str, data: Path | None = DATA) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, str(SCRIPT), *args]
    if data is not None:
        cmd += ["--data", str(data)]
    return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=60)


def run_json(*args: str) -> dict[str, Any]:
    proc = run(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


@pytest.fixture(scope="module")
def sizing() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sizing_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


# ---------------------------------------------------------------- KV bytes per token


def test_gqa_llama_70b_tp4_vllm() -> None:
    d = run_json(
        "--model", "llama-3.1-70b", "--gpu-memory-gib", "80", "--tp", "4", "--context", "32768"
    )
    # vllm/config/model.py:1683: KV heads per GPU = max(1, 8 // 4) = 2
    assert d["kv_heads_per_gpu"] == 2
    # vllm/v1/kv_cache_interface.py:586-594: heads x (head_size + head_size_v) x 2 B per token
    per_layer = 2 * (128 + 128) * 2
    assert d["kv_bytes_per_token_per_layer_per_gpu"] == per_layer
    assert d["kv_bytes_per_token_per_gpu"] == 80 * per_layer == 81_920
    assert d["kv_bytes_per_token"] == 2 * 80 * 8 * 128 * 2 == 327_680
    # vllm/v1/worker/utils.py:724-726 budget; gpu_worker.py:753-757 KV = budget - non-KV
    budget = math.ceil(80 * GIB * 0.92)
    avail = budget - cdiv(LLAMA_70B * 2, 4) - 4 * GIB
    assert d["kv_bytes_available_per_gpu"] == avail
    # kv_cache_planning.py:681: blocks = avail // (80 layers x 16 tokens x 1024 B)
    blocks = avail // (80 * 16 * per_layer)
    assert d["kv_blocks"] == blocks
    # kv_cache_utils.py:1087,1128: concurrency = blocks / cdiv(32768, 16); tokens = int(c x len)
    conc = blocks / (32768 // 16)
    assert d["max_tokens"] == int(conc * 32768)
    assert d["max_sequences_at_context"] == round(conc, 2)


def test_mla_deepseek_v3_latent_not_split() -> None:
    for tp in ("1", "8"):
        d = run_json(
            "--model", "deepseek-v3", "--gpu-memory-gib", "1000", "--tp", tp, "--context", "8192"
        )
        # mla_attention.py:1375-1389: num_kv_heads=1, max_tp_shards=1, head_size_v=0
        # (kv_cache_interface.py:743); head_size = kv_lora_rank + qk_rope_head_dim
        # (model_arch_config_convertor.py:98)
        assert d["kv_heads_per_gpu"] == 1
        assert d["kv_bytes_per_token_per_layer_per_gpu"] == (512 + 64) * 2
        assert d["kv_bytes_per_token_per_gpu"] == 61 * (512 + 64) * 2 == 70_272
        assert d["kv_bytes_per_token"] == 70_272
    # plain fp8 is per-tensor (kv_cache_interface.py:148): one byte, no per-token scale
    d = run_json(
        "--model",
        "deepseek-v3",
        "--gpu-memory-gib",
        "1000",
        "--tp",
        "8",
        "--context",
        "8192",
        "--kv-dtype",
        "fp8",
    )
    assert d["kv_bytes_per_token_per_gpu"] == 61 * 576


def test_sliding_window_gpt_oss_vllm_hybrid_groups() -> None:
    d = run_json("--model", "gpt-oss-120b", "--gpu-memory-gib", "80", "--context", "32768")
    per_layer = 8 * (64 + 64) * 2  # 8 KV heads at TP 1, head_dim 64, BF16
    assert d["kv_bytes_per_token"] == 36 * per_layer == 73_728
    # kv_cache_planning.py:521-532: 18 full and 18 sliding layers -> two groups of 18
    assert (d["kv_cache_groups"], d["layers_per_group"]) == (2, 18)
    # arg_utils.py:2983-2991: 80 GiB, not A100 -> max_num_batched_tokens 8192;
    # vllm.py:597,608: two concurrent batches in flight
    assert d["max_num_batched_tokens"] == 8192
    # kv_cache_interface.py:937-944: sliding blocks = cdiv(min(128 - 1 + 2 x 8192, 32768), 16) + 1
    sliding = cdiv(min(128 - 1 + 2 * 8192, 32768), 16) + 1
    assert sliding == 1033
    assert d["blocks_per_sequence"] == 32768 // 16 + sliding
    weights = d["weight_bytes_per_gpu"]
    avail = math.ceil(80 * GIB * 0.92) - weights - 4 * GIB
    blocks = avail // (18 * 16 * per_layer)
    assert d["kv_blocks"] == blocks
    assert d["max_tokens"] == int(blocks / (2048 + 1033) * 32768)
    # a short context: the sliding layers hold the context, plus one block
    short = run_json("--model", "gpt-oss-120b", "--gpu-memory-gib", "80", "--context", "1000")
    assert short["blocks_per_sequence"] == cdiv(1000, 16) + cdiv(1000, 16) + 1


def test_sliding_window_gpt_oss_sglang_swa_pool() -> None:
    d = run_json(
        "--model",
        "gpt-oss-120b",
        "--gpu-memory-gib",
        "141",
        "--context",
        "8192",
        "--engine",
        "sglang",
        "--gpu-memory-utilization",
        "0.9",
    )
    per_layer = 8 * (64 + 64) * 2
    # pool_configurator.py:799-802: full layers x bytes + 0.8 x sliding layers x bytes
    cell = 18 * per_layer + 0.8 * 18 * per_layer
    avail = int(141 * GIB * 0.9) - d["weight_bytes_per_gpu"]
    assert d["kv_bytes_available_per_gpu"] == avail
    assert d["max_tokens"] == int(avail // cell)
    assert d["swa_tokens"] == int(d["max_tokens"] * 0.8)


def test_gemma3_pattern_is_a_full_pool_in_sglang(tmp_path: Path) -> None:
    # sliding_window_pattern 6: every sixth layer global; SGLang opts Gemma 3 out of the
    # hybrid SWA pool (model_overrides/gemma2_gemma3.py:13-26), vLLM groups it
    cfg = {
        "architectures": ["Gemma3ForCausalLM"],
        "num_hidden_layers": 12,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 128,
        "hidden_size": 1024,
        "intermediate_size": 4096,
        "vocab_size": 1000,
        "sliding_window": 1024,
        "sliding_window_pattern": 6,
        "max_position_embeddings": 131072,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    v = run_json("--model", str(path), "--gpu-memory-gib", "24", "--context", "16384")
    assert (v["sliding_window_layers"], v["full_attention_layers"]) == (10, 2)
    assert (v["kv_cache_groups"], v["layers_per_group"]) == (6, 2)  # 1 full + 5 sliding groups
    s = run_json(
        "--model", str(path), "--gpu-memory-gib", "24", "--context", "16384", "--engine", "sglang"
    )
    assert s["hybrid_swa_pool"] is False
    per_token = 12 * 4 * 256 * 2
    assert s["max_tokens"] == s["kv_bytes_available_per_gpu"] // per_token


def test_tp_replicates_kv_heads() -> None:
    d = run_json(
        "--model", "llama-3.1-8b", "--gpu-memory-gib", "80", "--tp", "16", "--context", "8192"
    )
    # vllm/config/model.py:1683: max(1, 8 // 16) = 1 head per rank, not 0.5
    assert d["kv_heads_per_gpu"] == 1
    assert d["kv_bytes_per_token_per_gpu"] == 32 * 1 * 256 * 2 == 16_384
    assert 16 * d["kv_bytes_per_token_per_gpu"] == 2 * d["kv_bytes_per_token"]


def test_sglang_default_mem_fraction_static() -> None:
    d = run_json(
        "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "8192", "--engine", "sglang"
    )
    gpu_mib = 80 * 1024  # the stand-in's memory_device_bytes, 80 GiB
    # memory_hook.py:132-145: < 90 GiB -> chunked_prefill_size 8192, decode max_bs 256 (TP < 4)
    # cuda_graph_hook.py:480-497: prefill capture sizes up to 8192
    sizes = [
        s
        for s in (
            list(range(4, 33, 4))
            + list(range(48, 257, 16))
            + list(range(288, 513, 32))
            + list(range(576, 1025, 64))
            + list(range(1280, 4097, 256))
            + list(range(4608, 8193, 512))
        )
        if s <= 8192
    ]
    # memory_hook.py:309-315, 368, 386: 512 + 1.5 x 8192 + 1/8 x 1024 + 2 x 256 + 8 per size
    reserved = max(512 + 1.5 * 8192 + 1 / 8 * 1024 + 2 * 256 + 8 * len(sizes), 10 * 1024)
    frac = round((gpu_mib - reserved) / gpu_mib, 3)  # memory_hook.py:325
    assert d["memory_fraction"] == frac == 0.83
    avail = int(80 * GIB * frac) - cdiv(LLAMA_8B * 2, 1)
    assert d["kv_bytes_available_per_gpu"] == avail
    # pool_configurator.py:491-498, 642: tokens = avail // (8 x 256 x 32 x 2)
    assert d["max_tokens"] == avail // (8 * 256 * 32 * 2)


def test_sglang_mla_graph_reserve() -> None:
    d = run_json(
        "--model",
        "deepseek-v3",
        "--gpu",
        "h200-sxm",
        "--tp",
        "8",
        "--context",
        "8192",
        "--engine",
        "sglang",
    )
    gpu_mib = 141 * 1024  # the stand-in's memory_device_bytes, 141 GiB
    # memory_hook.py:146-159: < 160 GiB -> chunk 8192, decode max_bs 512 at TP >= 4;
    # memory_hook.py:309-315, 368, 389: MLA prefill graphs reserve 1536 MiB
    reserved = 512 + 1.5 * 8192 + 8 / 8 * 1024 + 2 * 512 + 1536
    assert d["sglang_reserved_mib"] == reserved
    assert d["memory_fraction"] == round((gpu_mib - reserved) / gpu_mib, 3) == 0.887
    # pool_configurator.py:379-384: (512 + 64) x 61 layers x 2 B per token, on every rank
    assert d["max_tokens"] == d["kv_bytes_available_per_gpu"] // (576 * 61 * 2)


def test_replicas() -> None:
    one = run_json(
        "--model", "llama-3.1-70b", "--gpu", "h200-sxm", "--tp", "4", "--context", "32768"
    )
    two = run_json(
        "--model",
        "llama-3.1-70b",
        "--gpu",
        "h200-sxm",
        "--gpus",
        "8",
        "--tp",
        "4",
        "--context",
        "32768",
    )
    assert (one["replicas"], two["replicas"]) == (1, 2)
    assert two["max_sequences_total"] == round(2 * one["max_sequences_at_context"], 2)


# ---------------------------------------------------------------- GPU memory and weight bytes


def test_gpu_memory_prefers_device_bytes() -> None:
    # stand-in h100-sxm: memory_bytes 80e9 (vendor, decimal GB), memory_device_bytes 80 GiB
    d = run_json("--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "8192")
    assert (d["gpu_memory_bytes"], d["gpu_memory_from"]) == (
        80 * GIB,
        "gpus.json memory_device_bytes",
    )
    assert d["budget_bytes"] == math.ceil(80 * GIB * 0.92)
    assert "gpu_memory" in d["assumptions"]


def test_gpu_memory_falls_back_to_vendor_bytes() -> None:
    # stand-in b200: memory_device_bytes null
    d = run_json("--model", "llama-3.1-8b", "--gpu", "b200", "--context", "8192")
    assert (d["gpu_memory_bytes"], d["gpu_memory_from"]) == (
        180_000_000_000,
        "gpus.json memory_bytes",
    )


def test_gpu_memory_gib_overrides_gpu() -> None:
    d = run_json(
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "h100-sxm",
        "--gpu-memory-gib",
        "79.5",
        "--context",
        "8192",
    )
    assert (d["gpu_memory_bytes"], d["gpu_memory_from"]) == (int(79.5 * GIB), "--gpu-memory-gib")
    assert "gpu_memory" not in d["assumptions"]


def test_gpu_without_memory_is_bad_input(tmp_path: Path) -> None:
    for name in ("models.json", "gpus.json"):
        (tmp_path / name).write_text((DATA / name).read_text(encoding="utf-8"), encoding="utf-8")
    doc = json.loads((tmp_path / "gpus.json").read_text(encoding="utf-8"))
    doc["gpus"][0]["memory_bytes"] = None
    (tmp_path / "gpus.json").write_text(json.dumps(doc), encoding="utf-8")
    proc = run("--model", "llama-3.1-8b", "--gpu", "b200", data=tmp_path)
    assert proc.returncode == 2
    assert "gpus.json entry 'b200' has neither memory_device_bytes nor memory_bytes" in proc.stderr


def test_weight_bytes_flag_replaces_params() -> None:
    # quantization-patterns.md's FP8 total, scales included: 72,669,806,592 B
    d = run_json(
        "--model",
        "llama-3.1-70b",
        "--gpu",
        "h100-sxm",
        "--tp",
        "2",
        "--context",
        "4096",
        "--weight-bytes",
        "72669806592",
    )
    assert d["weight_bytes"] == 72_669_806_592
    assert d["weight_bytes_per_gpu"] == 72_669_806_592 // 2
    assert d["weight_bytes_from"] == "--weight-bytes"
    avail = math.ceil(80 * GIB * 0.92) - 72_669_806_592 // 2 - 4 * GIB
    assert d["kv_bytes_available_per_gpu"] == avail
    bad = run("--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--weight-bytes", "0")
    assert bad.returncode == 2
    assert "must be positive: 0" in bad.stderr


# quantization-patterns.md, Llama 3.1 70B: totals with embeddings and LM head in BF16
@pytest.mark.parametrize(
    ("dtype", "page_bytes"),
    [
        ("bf16", 141_107_412_992),
        ("fp8", 72_669_806_592),  # the page adds 13,434,880 B of channel scales
        ("int4", 39_500_398_592),
        ("nvfp4", 42_709_041_152),
        ("mxfp4", 40_569_946_112),
    ],
)
def test_weight_bytes_match_quantization_patterns(dtype: str, page_bytes: int) -> None:
    d = run_json(
        "--model",
        "llama-3.1-70b",
        "--gpu",
        "b200",
        "--tp",
        "8",
        "--weight-dtype",
        dtype,
        "--context",
        "4096",
    )
    # embeddings, LM head and the (2 x 80 + 1) x 8192 norm weights stay BF16 in both; the page
    # counts FP8 channel scales (13,434,880 B), which the script leaves out (pass --weight-bytes)
    scales = 13_434_880 if dtype == "fp8" else 0
    assert d["weight_bytes"] + scales == page_bytes


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--model", "llama-3.1-7b", "--gpu", "h100-sxm"),
            "unknown model 'llama-3.1-7b' for --model; did you mean: llama-3.1-70b, llama-3.1-8b?",
        ),
        (
            ("--model", "llama-3.1-8b", "--gpu", "h100"),
            "unknown gpu 'h100' for --gpu; did you mean",
        ),
        (("--model", "llama-3.1-8b"), "give --gpu ID (from data/gpus.json) or --gpu-memory-gib"),
        (
            ("--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--tp", "3"),
            "--tp 3 does not divide the 64 attention heads of llama-3.1-70b",
        ),
        (
            ("--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--gpus", "6", "--tp", "4"),
            "--gpus 6 is not a multiple of --tp 4",
        ),
        (
            ("--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--context", "8192"),
            "does not fit: weights 131.42 GiB per GPU + reserve 4.00 GiB"
            " exceed the 73.60 GiB budget",
        ),
        (
            ("--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "2000000"),
            "does not fit: one 2000000-token sequence needs",
        ),
        (("--model", "missing.json", "--gpu", "h100-sxm"), "config not found: missing.json"),
        (
            ("--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--weight-dtype", "fp4"),
            "argument --weight-dtype: invalid choice: 'fp4'",
        ),
        (
            ("--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpu-memory-utilization", "1.5"),
            "must be in (0, 1]: 1.5",
        ),
        (("--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--tp", "0"), "must be positive: 0"),
    ],
)
def test_bad_input_exit_2(args: tuple[str, ...], message: str) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_does_not_fit_still_prints_the_numbers() -> None:
    proc = run("--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--context", "8192", "--json")
    assert proc.returncode == 2
    d = json.loads(proc.stdout)
    assert d["fits"] is False
    assert d["kv_bytes_available_per_gpu"] < 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON: line 1 column 2"),
        ("[1, 2]", "a config.json must hold a JSON object"),
        ('{"num_hidden_layers": 32}', "no positive integer 'num_attention_heads'"),
        (
            '{"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64, '
            '"kv_lora_rank": 16}',
            "MLA config (kv_lora_rank) without 'qk_rope_head_dim'",
        ),
        (
            '{"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64, '
            '"layer_types": ["full_attention"]}',
            "'layer_types' must list one string per layer",
        ),
    ],
)
def test_malformed_config(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "config.json"
    path.write_text(content, encoding="utf-8")
    proc = run("--model", str(path), "--gpu-memory-gib", "80")
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_data_dir(tmp_path: Path) -> None:
    proc = run("--model", "llama-3.1-8b", "--gpu", "h100-sxm", data=tmp_path)
    assert proc.returncode == 2
    assert f"models.json not found: {tmp_path / 'models.json'}" in proc.stderr


# ---------------------------------------------------------------- output and module use


def test_json_keys_and_sources() -> None:
    d = run_json("--model", "gpt-oss-120b", "--gpu", "h200-sxm", "--context", "32768")
    for key in (
        "kv_bytes_per_token",
        "kv_bytes_per_token_per_gpu",
        "weight_bytes",
        "kv_bytes_available_per_gpu",
        "max_tokens",
        "max_sequences_at_context",
        "assumptions",
        "fits",
    ):
        assert key in d
    registry = json.loads((ROOT / "data" / "sources.json").read_text(encoding="utf-8"))
    ids = {s["id"] for s in registry["sources"]}
    for name, a in d["assumptions"].items():
        assert a["where"], name
        assert a["source"] in ids or a["where"] == "assumption", (name, a["source"])
    assert "vllm_sliding_window" in d["assumptions"]


def test_every_assumption_cites_a_registered_source(sizing: ModuleType) -> None:
    registry = json.loads((ROOT / "data" / "sources.json").read_text(encoding="utf-8"))
    ids = {s["id"] for s in registry["sources"]}
    for name, a in sizing.ASSUMPTIONS.items():
        assert a["source"] in ids or a["where"] == "assumption", name


def test_table_output() -> None:
    proc = run(
        "--model", "llama-3.1-70b", "--gpu-memory-gib", "80", "--tp", "4", "--context", "32768"
    )
    assert proc.returncode == 0, proc.stderr
    assert "KV available per GPU        36.75 GiB" in proc.stdout
    assert "sequences at 32,768         14.7 per replica" in proc.stdout
    assert "assumptions:" in proc.stdout


def test_config_path_and_module_api(sizing: ModuleType, tmp_path: Path) -> None:
    cfg = {
        "architectures": ["LlamaForCausalLM"],
        "num_hidden_layers": 80,
        "hidden_size": 8192,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "intermediate_size": 28672,
        "vocab_size": 128256,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "max_position_embeddings": 131072,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    model = sizing.resolve_model(str(path), DATA)
    assert model.params_total == LLAMA_70B  # estimated from the shapes
    assert model.head_dim == 128  # hidden_size // num_attention_heads
    assert (
        sizing.main(
            [
                "--model",
                str(path),
                "--gpu-memory-gib",
                "80",
                "--tp",
                "4",
                "--context",
                "32768",
                "--json",
            ]
        )
        == 0
    )


def test_default_data_dir_is_the_pack(sizing: ModuleType) -> None:
    assert sizing.default_data_dir() == ROOT / "data"


def test_copied_script_runs_with_data_flag(tmp_path: Path) -> None:
    copy = tmp_path / "sizing.py"
    copy.write_text(SCRIPT.read_text(encoding="utf-8"), encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            str(copy),
            "--model",
            "llama-3.1-8b",
            "--gpu",
            "h100-sxm",
            "--data",
            str(DATA),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["context"] == 131072
