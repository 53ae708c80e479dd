"""The committed manifests: they load, and they hold the options the pack relies on."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from skillcheck.engines import (
    ManifestError,
    Option,
    available,
    dumps,
    load_manifest,
    manifest_from_dict,
)


def test_available_lists_each_committed_manifest() -> None:
    assert available() == [
        ("llama.cpp", "b11312"),
        ("sglang", "0.5.23"),
        ("tensorrt-llm", "1.2"),
        ("vllm", "0.33.0"),
    ]


@pytest.mark.parametrize(("engine", "version"), available())
def test_committed_manifests_are_stable_json(engine: str, version: str) -> None:
    name = f"{engine}-{version}.json"
    folder = resources.files("skillcheck.engines").joinpath("manifests")
    text = folder.joinpath(name).read_text(encoding="utf-8")
    assert dumps(manifest_from_dict(json.loads(text))) == text
    manifest = load_manifest(engine, version)
    assert manifest.provenance["generated"] == "2026-11-30"
    assert manifest.provenance["generator"].startswith(f"python -m tools.manifests {engine} ")
    names = [o.name for o in manifest.options]
    assert len(names) > 50


def test_load_defaults_to_the_newest_and_caches() -> None:
    assert load_manifest("vllm") is load_manifest("vllm", "0.33.0")
    with pytest.raises(ManifestError, match="committed versions"):
        load_manifest("vllm", "0.1.0")
    with pytest.raises(ManifestError, match="known engines"):
        load_manifest("tgi")


def _flag(engine: str, spelling: str, command: str | None = None) -> Option:
    opt = load_manifest(engine).option(spelling, command)
    assert opt is not None, f"{engine}: {spelling} missing"
    return opt


def test_vllm_core_options() -> None:
    for flag in (
        "--max-num-seqs",
        "--max-num-batched-tokens",
        "--gpu-memory-utilization",
        "--max-model-len",
        "--served-model-name",
        "--api-key",
        "--config",
        "--headless",
        "--api-server-count",
        "--data-parallel-size",
    ):
        assert _flag("vllm", flag).takes_value or flag == "--headless"
    assert _flag("vllm", "-tp") is _flag("vllm", "--tensor-parallel-size")
    assert _flag("vllm", "--device-memory-utilization").name == "--gpu-memory-utilization"
    prefix = _flag("vllm", "--enable-prefix-caching")
    assert prefix.negatable and "--no-enable-prefix-caching" in prefix.negations
    assert "--disable-prefix-caching" in prefix.negations
    spec = _flag("vllm", "--speculative-config")
    assert spec.type == "json" and spec.aliases == ("-sc",)
    assert spec.json_keys is not None
    assert {"method", "model", "num_speculative_tokens"} <= set(spec.json_keys)
    kv = _flag("vllm", "--kv-cache-dtype")
    assert kv.choices is not None and {"auto", "fp8", "fp8_e4m3", "fp8_e5m2"} <= set(kv.choices)
    assert load_manifest("vllm").option("--max-num-partial-prefills") is None
    assert _flag("vllm", "--disable-cascade-attn").deprecated is not None
    assert load_manifest("vllm").parser.underscore_to_dash


def test_sglang_core_options() -> None:
    assert _flag("sglang", "--model") is _flag("sglang", "--model-path")
    assert _flag("sglang", "--tensor-parallel-size") is _flag("sglang", "--tp-size")
    for flag in (
        "--mem-fraction-static",
        "--chunked-prefill-size",
        "--max-prefill-tokens",
        "--attn-dp-size",
        "--config",
    ):
        assert _flag("sglang", flag).takes_value
    policy = _flag("sglang", "--schedule-policy")
    assert policy.choices is not None and {"lpm", "fcfs"} <= set(policy.choices)
    dp_attention = _flag("sglang", "--enable-dp-attention")
    assert dp_attention.deprecated is not None and "--attn-dp-size" in dp_attention.deprecated
    assert not load_manifest("sglang").parser.underscore_to_dash


def test_llama_server_core_options() -> None:
    assert _flag("llama.cpp", "-c") is _flag("llama.cpp", "--ctx-size")
    assert _flag("llama.cpp", "-ngl") is _flag("llama.cpp", "--n-gpu-layers")
    assert _flag("llama.cpp", "-np") is _flag("llama.cpp", "--parallel")
    fa = _flag("llama.cpp", "-fa")
    assert fa.name == "--flash-attn" and fa.choices is not None and "auto" in fa.choices
    ctk = _flag("llama.cpp", "--cache-type-k")
    assert ctk.choices == ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")
    cb = _flag("llama.cpp", "--cont-batching")
    assert cb.negations == ("-nocb", "--no-cont-batching")
    assert _flag("llama.cpp", "--draft-max").removed
    assert load_manifest("llama.cpp").option("-p") is None  # excluded from the server
    assert load_manifest("llama.cpp").provenance["llama_cpp_commit"] == "0c1e57098"
    assert not load_manifest("llama.cpp").parser.equals_form


def test_trtllm_serve_core_options() -> None:
    serve = "trtllm-serve"
    assert _flag("tensorrt-llm", "--tp_size", serve).name == "--tensor_parallel_size"
    assert _flag("tensorrt-llm", "--max_batch_size", serve).type == "int"
    extra = _flag("tensorrt-llm", "--extra_llm_api_options", serve)
    assert extra is _flag("tensorrt-llm", "--config", serve)
    assert load_manifest("tensorrt-llm").option("--tp-size", serve) is None
    keys = load_manifest("tensorrt-llm").config_keys
    assert keys is not None
    kv = keys["kv_cache_config"].keys
    assert kv is not None and "free_gpu_memory_fraction" in kv
    transceiver = (keys["cache_transceiver_config"].keys or {})["backend"]
    assert transceiver.choices == ("DEFAULT", "UCX", "NIXL", "MOONCAKE", "MPI")
    spec = keys["speculative_config"]
    assert spec.variants is not None and {"Eagle3", "MTP", "NGram"} <= set(spec.variants)
