#!/usr/bin/env python3
"""KV cache and weight sizing for one model on one GPU type, as vLLM 0.33.0 or SGLang 0.5.23 do it.

Given a model (an id from data/models.json or a path to a Hugging Face config.json), a GPU
(an id from data/gpus.json or --gpu-memory-gib), a tensor-parallel size and dtypes, it prints
the KV bytes per token (whole model and per GPU), the weight bytes, the KV memory left per GPU,
the token capacity and the number of sequences of --context tokens that fit at once.

It follows each engine's own arithmetic (file:line of each rule in ASSUMPTIONS and in
assets/capacity/template-sizing.md), but it cannot profile: the activation peak, CUDA graphs
and non-torch memory that vLLM measures at start-up are one assumed reserve (--reserve-gib).
Replace it with the engine's "Available KV cache memory" log line when you have one.

Standard library only; Python 3.10+. Copy the file anywhere and pass --data DIR (the folder
holding models.json and gpus.json) when ../../data does not exist next to it.

Exit codes: 0 the model fits; 2 bad input, or the model does not fit (the message says by how
much; the table or JSON is still printed when the inputs were valid).
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GIB = 1 << 30
MIB = 1 << 20

# Bytes per parameter. Quantized formats hold the linear and expert weights; embeddings, the
# LM head and the norms stay 16-bit (see "embeddings" in ASSUMPTIONS).
WEIGHT_BYTES: dict[str, float] = {
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,  # per-channel or 128x128-block scales ignored (< 0.1 %)
    "int8": 1.0,
    "int4": 0.5 + 2 / 128,  # 4 bits + one FP16 scale per group of 128
    "nvfp4": 0.5 + 1 / 16,  # 4 bits + one FP8 (E4M3) scale per 16 elements
    "mxfp4": 0.5 + 1 / 32,  # 4 bits + one E8M0 scale per 32 elements
}
KV_BYTES: dict[str, int] = {"bf16": 2, "fp16": 2, "fp8": 1}
# dtype strings of checkpoints (config.json torch_dtype / quant_method, models.json "dtype")
CHECKPOINT_DTYPES: dict[str, str] = {
    "bfloat16": "bf16",
    "float16": "fp16",
    "float32": "bf16",
    "fp8": "fp8",
    "float8_e4m3fn": "fp8",
    "mxfp4": "mxfp4",
    "nvfp4": "nvfp4",
    "modelopt_fp4": "nvfp4",
}

# vLLM 0.33.0
VLLM_GPU_MEMORY_UTILIZATION = 0.92  # vllm/config/cache.py:215
VLLM_BLOCK_SIZE = 16  # vllm/config/cache.py:185
VLLM_CONCURRENT_BATCHES = 2  # async scheduling on by default: vllm/config/vllm.py:588-598
DEFAULT_RESERVE_GIB = {"vllm": 4.0, "sglang": 0.0}
# SGLang 0.5.23
SGLANG_PAGE_SIZE = 1
SGLANG_SWA_FULL_TOKENS_RATIO = 0.8  # sglang/srt/arg_groups/fields/schedule.py:150-161
# Some architectures SGLang serves with its hybrid SWA pool (model_config.py:88-96, 2651-2699);
# Gemma 2/3 are opted out (model_overrides/gemma2_gemma3.py:13-26) and get a full pool.
SGLANG_HYBRID_SWA_ARCHS = frozenset(
    {
        "GptOssForCausalLM",
        "GraniteSWAForCausalLM",
        "GraniteMoeSWAForCausalLM",
        "Gemma4ForCausalLM",
        "Gemma4ForConditionalGeneration",
        "Step3p5ForCausalLM",
    }
)

ASSUMPTIONS: dict[str, dict[str, str]] = {
    "kv_heads_per_gpu": {
        "rule": "KV heads per GPU = max(1, kv_heads // tp): heads are replicated when TP exceeds "
        "them; MLA keeps one latent 'head' on every GPU",
        "source": "vllm-src-model-config",
        "where": "vllm/config/model.py:1663-1683",
        "also": "sglang-src-model-config python/sglang/srt/configs/model_config.py:1700-1711",
    },
    "head_dim": {
        "rule": "head_dim from config, else hidden_size // num_attention_heads; "
        "MLA head = kv_lora_rank + qk_rope_head_dim",
        "source": "vllm-src-model-arch-config-convertor",
        "where": "vllm/transformers_utils/model_arch_config_convertor.py:91-118",
    },
    "page_bytes": {
        "rule": "page = kv_heads_per_gpu x block_size x (head_size + head_size_v) x dtype bytes; "
        "MLA has head_size_v = 0; fp8 is per-tensor (no per-token scale bytes)",
        "source": "vllm-src-kv-cache-interface",
        "where": "vllm/v1/kv_cache_interface.py:585-601, 743, 121-148",
    },
    "mla_not_split": {
        "rule": "MLA spec: num_kv_heads=1, max_tp_shards=1: every TP rank holds the whole latent",
        "source": "vllm-src-mla-attention",
        "where": "vllm/model_executor/layers/attention/mla_attention.py:1375-1389",
    },
    "block_size": {
        "rule": "vLLM block_size 16 tokens unless the attention backend needs another; "
        "SGLang page_size resolves to 1 unless a backend forces more",
        "source": "vllm-src-config-cache",
        "where": "vllm/config/cache.py:185",
    },
    "vllm_memory": {
        "rule": "KV = ceil(total x gpu_memory_utilization) - weights - (activation peak + "
        "non-torch memory) - CUDA graph estimate; the last two are --reserve-gib here",
        "source": "vllm-src-gpu-worker",
        "where": "vllm/v1/worker/gpu_worker.py:747-757; vllm/v1/worker/utils.py:724-726; "
        "vllm/utils/mem_utils.py:318-321",
    },
    "vllm_gpu_memory_utilization": {
        "rule": "gpu_memory_utilization defaults to 0.92",
        "source": "vllm-src-config-cache",
        "where": "vllm/config/cache.py:215",
    },
    "vllm_num_blocks": {
        "rule": "num_blocks = available // (layers per group x page bytes)",
        "source": "vllm-src-kv-cache-planning",
        "where": "vllm/v1/core/kv_cache_planning.py:574-600, 681",
    },
    "vllm_hybrid_groups": {
        "rule": "full and sliding layers form groups of equal size (the smaller count, or the "
        "larger when it is under 1.5x the smaller); each group draws blocks from one pool",
        "source": "vllm-src-kv-cache-planning",
        "where": "vllm/v1/core/kv_cache_planning.py:521-534",
    },
    "vllm_sliding_window": {
        "rule": "a sliding layer holds cdiv(min(window - 1 + in-flight tokens, context), "
        "block_size) + 1 blocks per sequence; in-flight = 2 x max_num_batched_tokens "
        "with async scheduling",
        "source": "vllm-src-kv-cache-interface",
        "where": "vllm/v1/kv_cache_interface.py:918-944; vllm/config/vllm.py:588-609",
    },
    "vllm_max_num_batched_tokens": {
        "rule": "vllm serve default: 16384 if GPU memory >= 160 GiB; 8192 if >= 70 GiB and not "
        "A100 or GB10; 2048 otherwise (GB10 is not in gpus.json: pass "
        "--max-num-batched-tokens 2048)",
        "source": "vllm-src-arg-utils",
        "where": "vllm/engine/arg_utils.py:2958-3006",
    },
    "vllm_capacity": {
        "rule": "concurrency = num_blocks / blocks per sequence at max_model_len; the start-up "
        "line's token count = int(concurrency x max_model_len)",
        "source": "vllm-src-kv-cache-utils",
        "where": "vllm/v1/core/kv_cache_utils.py:1061-1128",
    },
    "sglang_memory": {
        "rule": "mem_fraction_static covers weights + KV pool; KV = free after loading - "
        "free before loading x (1 - mem_fraction_static) ~ mem_fraction_static x total "
        "- weights",
        "source": "sglang-src-kv-cache-configurator",
        "where": "python/sglang/srt/mem_cache/kv_cache_configurator.py:2990-3060",
    },
    "sglang_mem_fraction_static": {
        "rule": "unset: (gpu_mem - reserved) / gpu_mem rounded to 3 places, reserved MiB = 512 + "
        "1.5 x max(chunked_prefill_size, 2048) + tp/8 x 1024 + graph reserve (decode "
        "max_bs x 2, + 8 per prefill graph size or 1536 with MLA), at least 10240 above "
        "60 GiB",
        "source": "sglang-src-memory-hook",
        "where": "python/sglang/srt/arg_groups/memory_hook.py:89-178, 281-344, 357-399",
    },
    "sglang_cell_size": {
        "rule": "bytes per token = kv_heads_per_gpu x (head_dim + v_head_dim) x layers x dtype "
        "bytes; MLA: (kv_lora_rank + qk_rope_head_dim) x layers x dtype bytes",
        "source": "sglang-src-pool-configurator",
        "where": "python/sglang/srt/model_executor/pool_configurator.py:379-384, 491-498, 642",
    },
    "sglang_swa_pool": {
        "rule": "hybrid SWA pool: full tokens = available // (full layers x per-layer bytes + "
        "0.8 x sliding layers x per-layer bytes); SWA tokens = 0.8 x full tokens",
        "source": "sglang-src-pool-configurator",
        "where": "python/sglang/srt/model_executor/pool_configurator.py:786-803, 859-916",
    },
    "gpu_memory": {
        "rule": "--gpu takes gpus.json memory_device_bytes (device-reported, or the capacity "
        "NVIDIA's AIConfigurator system file models) when present, else memory_bytes "
        "(the vendor's figure); gpu_memory_from says which",
        "source": "nvidia-aiconfigurator-systems",
        "where": "data/gpus.json",
    },
    "weights": {
        "rule": "weights = params_total x bytes per parameter (MoE: every expert resident); "
        "split evenly over TP ranks",
        "source": "",
        "where": "assumption",
    },
    "embeddings": {
        "rule": "with a quantized weight dtype, embeddings, LM head and the (2 x layers + 1) x "
        "hidden RMSNorm weights stay 16-bit: vLLM's quantization methods cover linear "
        "and expert layers only",
        "source": "vllm-src-fp8-quant",
        "where": "vllm/model_executor/layers/quantization/fp8.py:177-198",
    },
}


class InputError(Exception):
    """Bad input: printed on stderr, exit 2."""


@dataclass
class Model:
    id: str
    name: str
    num_layers: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    v_head_dim: int
    hidden_size: int
    vocab_size: int
    tie_word_embeddings: bool
    architecture: str
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    window: int | None = None
    sliding_layers: int = 0
    params_total: int | None = None
    params_note: str = ""
    checkpoint_dtype: str = "bf16"
    max_context: int | None = None
    num_experts: int = 0
    moe_layers: int = 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def full_layers(self) -> int:
        return self.num_layers - self.sliding_layers

    @property
    def attention(self) -> str:
        if self.is_mla:
            return "mla"
        if self.num_kv_heads == self.num_attention_heads:
            return "mha"
        return "mqa" if self.num_kv_heads == 1 else "gqa"


@dataclass
class Result:
    data: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


# ---------------------------------------------------------------- loading


def _int(cfg: dict[str, Any], *names: str, default: int | None = None) -> int | None:
    for n in names:
        v = cfg.get(n)
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            return v
        if isinstance(v, list) and v and all(isinstance(x, int) for x in v):
            return int(max(v))
    return default


def _require(cfg: dict[str, Any], where: str, *names: str) -> int:
    v = _int(cfg, *names)
    if v is None or v <= 0:
        raise InputError(
            f"{where}: no positive integer '{names[0]}' (config field missing or malformed)"
        )
    return v


def _sliding_layers(cfg: dict[str, Any], layers: int, where: str) -> tuple[int | None, int]:
    window = _int(cfg, "sliding_window")
    types = cfg.get("layer_types")
    if isinstance(types, list) and types:
        if not all(isinstance(t, str) for t in types) or len(types) != layers:
            raise InputError(
                f"{where}: 'layer_types' must list one string per layer ({layers} layers)"
            )
        sliding = sum(1 for t in types if "sliding" in t)
        if sliding and not window:
            raise InputError(f"{where}: 'layer_types' has sliding layers but no 'sliding_window'")
        return (window, sliding) if sliding else (None, 0)
    pattern = _int(cfg, "sliding_window_pattern")
    if pattern and window:
        # Gemma 3: every pattern-th layer is global, the others slide
        full = layers // pattern
        return window, layers - full
    use = cfg.get("use_sliding_window")
    max_pos = _int(cfg, "max_position_embeddings")
    if window and use is not False and (max_pos is None or window < max_pos):
        return window, layers  # every layer slides (Mistral 7B v0.1 style)
    return None, 0


def estimate_params(cfg: dict[str, Any], m: Model) -> int:
    """Parameter count from the config's shapes (decoder-only, SwiGLU MLPs, RMSNorm)."""
    h, nh = m.hidden_size, m.num_attention_heads
    if m.is_mla:
        nope = _int(cfg, "qk_nope_head_dim", default=0) or 0
        rope = m.qk_rope_head_dim or 0
        qr = _int(cfg, "q_lora_rank")
        q = (h * qr + qr + qr * nh * (nope + rope)) if qr else h * nh * (nope + rope)
        attn = (
            q
            + h * ((m.kv_lora_rank or 0) + rope)
            + (m.kv_lora_rank or 0)
            + (m.kv_lora_rank or 0) * nh * (nope + m.v_head_dim)
            + nh * m.v_head_dim * h
        )
    else:
        attn = h * nh * m.head_dim + 2 * h * m.num_kv_heads * m.head_dim + nh * m.head_dim * h
        if cfg.get("attention_bias"):
            attn += nh * m.head_dim + 2 * m.num_kv_heads * m.head_dim + h
    inter = _int(cfg, "intermediate_size", default=0) or 0
    dense_mlp = 3 * h * inter
    moe_mlp = 0
    if m.num_experts:
        mi = _int(cfg, "moe_intermediate_size", default=inter) or inter
        shared = _int(cfg, "n_shared_experts", "num_shared_experts", default=0) or 0
        per_expert = 3 * h * mi
        if cfg.get("model_type") == "gpt_oss":
            per_expert += 2 * mi + h  # gate_up and down biases
        moe_mlp = m.num_experts * per_expert + shared * 3 * h * mi + h * m.num_experts
        if cfg.get("model_type") == "gpt_oss":
            moe_mlp += m.num_experts  # router bias
    norms = 2 * h
    total = m.num_layers * (attn + norms)
    total += m.moe_layers * moe_mlp + (m.num_layers - m.moe_layers) * dense_mlp
    total += m.vocab_size * h * (1 if m.tie_word_embeddings else 2) + h
    return total


def model_from_config(cfg: Any, where: str) -> Model:
    if not isinstance(cfg, dict):
        raise InputError(f"{where}: a config.json must hold a JSON object")
    text = cfg.get("text_config")
    if isinstance(text, dict):  # multimodal wrappers (Gemma 3, Llama 4): the text model decides
        cfg = {**cfg, **text}
    layers = _require(cfg, where, "num_hidden_layers", "n_layers", "num_layers")
    heads = _require(cfg, where, "num_attention_heads", "n_heads", "n_head")
    hidden = _require(cfg, where, "hidden_size", "dim", "d_model")
    kv = (
        _int(
            cfg,
            "n_head_kv",
            "num_kv_heads",
            "num_key_value_heads",
            "multi_query_group_num",
            "num_attention_groups",
            default=heads,
        )
        or heads
    )
    if kv <= 0:
        raise InputError(f"{where}: 'num_key_value_heads' must be positive")
    head_dim = _int(cfg, "head_dim")
    if not head_dim:
        head_dim = hidden // heads
    arch_list = cfg.get("architectures") or ["?"]
    arch = arch_list[0] if isinstance(arch_list, list) and arch_list else "?"
    kv_lora = _int(cfg, "kv_lora_rank")
    rope = _int(cfg, "qk_rope_head_dim") if kv_lora else None
    if kv_lora is not None and not rope:
        raise InputError(f"{where}: MLA config (kv_lora_rank) without 'qk_rope_head_dim'")
    window, sliding = _sliding_layers(cfg, layers, where)
    experts = (
        _int(
            cfg,
            "num_experts",
            "moe_num_experts",
            "n_routed_experts",
            "num_local_experts",
            default=0,
        )
        or 0
    )
    moe_layers = 0
    if experts:
        first_dense = _int(cfg, "first_k_dense_replace", default=0) or 0
        moe_layers = layers - first_dense
    dtype = "bf16"
    q = cfg.get("quantization_config")
    if isinstance(q, dict) and isinstance(q.get("quant_method"), str):
        dtype = CHECKPOINT_DTYPES.get(q["quant_method"], "bf16")
    elif isinstance(cfg.get("torch_dtype") or cfg.get("dtype"), str):
        dtype = CHECKPOINT_DTYPES.get(cfg.get("torch_dtype") or cfg.get("dtype"), "bf16")
    v_head = _int(cfg, "v_head_dim", default=head_dim) or head_dim
    m = Model(
        id=where,
        name=str(cfg.get("_name_or_path") or where),
        num_layers=layers,
        num_attention_heads=heads,
        num_kv_heads=kv,
        head_dim=head_dim,
        v_head_dim=v_head if kv_lora else head_dim,
        hidden_size=hidden,
        vocab_size=_int(cfg, "vocab_size", default=0) or 0,
        tie_word_embeddings=bool(cfg.get("tie_word_embeddings", False)),
        architecture=arch,
        kv_lora_rank=kv_lora,
        qk_rope_head_dim=rope,
        window=window,
        sliding_layers=sliding,
        checkpoint_dtype=dtype,
        max_context=_int(cfg, "max_position_embeddings"),
        num_experts=experts,
        moe_layers=moe_layers,
    )
    m.params_total = estimate_params(cfg, m)
    m.params_note = "estimated from config.json shapes (pass --params to override)"
    return m


def model_from_entry(e: dict[str, Any]) -> Model:
    where = f"models.json entry '{e.get('id')}'"
    try:
        mla = e.get("mla") or {}
        sw = e.get("sliding_window") or {}
        moe = e.get("moe") or {}
        layers = int(e["num_layers"])
        m = Model(
            id=str(e["id"]),
            name=str(e.get("name") or e["id"]),
            num_layers=layers,
            num_attention_heads=int(e["num_attention_heads"]),
            num_kv_heads=int(e["num_kv_heads"]),
            head_dim=int(e["head_dim"]),
            v_head_dim=int(mla.get("v_head_dim") or e["head_dim"]),
            hidden_size=int(e["hidden_size"]),
            vocab_size=int(e.get("vocab_size") or 0),
            tie_word_embeddings=bool(e.get("tie_word_embeddings", False)),
            architecture=str(e.get("architecture") or "?"),
            kv_lora_rank=int(mla["kv_lora_rank"]) if mla else None,
            qk_rope_head_dim=int(mla["qk_rope_head_dim"]) if mla else None,
            window=int(sw["window"]) if sw else None,
            sliding_layers=int(sw["sliding_layers"]) if sw else 0,
            params_total=int(e["params_total"]) if e.get("params_total") else None,
            params_note="params_total from data/models.json",
            checkpoint_dtype=CHECKPOINT_DTYPES.get(str(e.get("dtype")), "bf16"),
            max_context=e.get("max_context"),
            num_experts=int(moe.get("num_experts") or 0),
            moe_layers=int(moe.get("moe_layers") or (layers if moe else 0)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{where} is malformed: {exc!r}") from None
    return m


def load_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{what} not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {what} {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{what} {path} is not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None


def _entries(data_dir: Path, name: str, key: str) -> list[dict[str, Any]]:
    path = data_dir / name
    doc = load_json(path, name)
    rows = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        raise InputError(f"{path}: expected an object with a '{key}' array")
    return [r for r in rows if isinstance(r, dict) and isinstance(r.get("id"), str)]


def _unknown(kind: str, wanted: str, rows: list[dict[str, Any]], flag: str) -> InputError:
    keys = {r["id"]: r["id"] for r in rows}
    for r in rows:
        for extra in ("name", "hf_repo"):
            if isinstance(r.get(extra), str):
                keys[r[extra].lower()] = r["id"]
    close = difflib.get_close_matches(wanted.lower(), list(keys), n=5, cutoff=0.5)
    ids = sorted({keys[c] for c in close})
    hint = (
        f"; did you mean: {', '.join(ids)}?"
        if ids
        else f"; known ids: {', '.join(sorted(r['id'] for r in rows))}"
    )
    extra = " or a path to a config.json" if flag == "--model" else ""
    return InputError(
        f"unknown {kind} '{wanted}' for {flag}{hint} (give an id from data/{kind}s.json{extra})"
    )


def resolve_model(spec: str, data_dir: Path) -> Model:
    p = Path(spec)
    if spec.endswith(".json") or p.is_file():
        return model_from_config(load_json(p, "config"), str(p))
    rows = _entries(data_dir, "models.json", "models")
    for r in rows:
        if spec in (r["id"], r.get("hf_repo")):
            return model_from_entry(r)
    raise _unknown("model", spec, rows, "--model")


def resolve_gpu(spec: str, data_dir: Path) -> tuple[str, int, str]:
    """(name, bytes, field): memory_device_bytes when present, else memory_bytes."""
    rows = _entries(data_dir, "gpus.json", "gpus")
    for r in rows:
        if r["id"] == spec:
            for key in ("memory_device_bytes", "memory_bytes"):
                mem = r.get(key)
                if isinstance(mem, int) and not isinstance(mem, bool) and mem > 0:
                    return str(r.get("name") or spec), mem, f"gpus.json {key}"
            raise InputError(
                f"gpus.json entry '{spec}' has neither memory_device_bytes nor "
                "memory_bytes; pass --gpu-memory-gib"
            )
    raise _unknown("gpu", spec, rows, "--gpu")


# ---------------------------------------------------------------- arithmetic


def weight_bytes(m: Model, dtype: str) -> int:
    if m.params_total is None:
        raise InputError(f"model '{m.id}' has no params_total; pass --params")
    per = WEIGHT_BYTES[dtype]
    if per >= 2.0:
        return int(m.params_total * per)
    embed = m.vocab_size * m.hidden_size * (1 if m.tie_word_embeddings else 2)
    norms = (2 * m.num_layers + 1) * m.hidden_size  # two RMSNorms per layer and the final one
    keep = min(embed + norms, m.params_total)
    return int((m.params_total - keep) * per + keep * 2)


def kv_heads_per_gpu(m: Model, tp: int) -> int:
    return 1 if m.is_mla else max(1, m.num_kv_heads // tp)


def per_layer_token_bytes(m: Model, tp: int, kv_bytes: int) -> int:
    """Bytes one token takes in one layer on one GPU (K and V, or the MLA latent)."""
    if m.is_mla:
        return ((m.kv_lora_rank or 0) + (m.qk_rope_head_dim or 0)) * kv_bytes
    return kv_heads_per_gpu(m, tp) * (m.head_dim + m.head_dim) * kv_bytes


def whole_model_token_bytes(m: Model, kv_bytes: int) -> int:
    if m.is_mla:
        return m.num_layers * ((m.kv_lora_rank or 0) + (m.qk_rope_head_dim or 0)) * kv_bytes
    return m.num_layers * m.num_kv_heads * 2 * m.head_dim * kv_bytes


def vllm_default_batched_tokens(total_bytes: int, gpu_name: str) -> int:
    if total_bytes >= 160 * GIB:
        return 16384
    if total_bytes >= 70 * GIB and "a100" not in gpu_name.lower():
        return 8192
    return 2048


def sglang_default_mem_fraction(total_bytes: int, tp: int, mla: bool) -> tuple[float, float]:
    """(mem_fraction_static, reserved MiB) as SGLang 0.5.23 picks them on CUDA, defaults only."""
    gpu_mem = total_bytes / MIB
    if gpu_mem < 20 * 1024:
        chunk, max_bs = 2048, 8
    elif gpu_mem < 35 * 1024:
        chunk, max_bs = 4096, (48 if tp < 4 else 160)
    elif gpu_mem < 60 * 1024:
        chunk, max_bs = 4096, (32 if tp < 4 else 160)
    elif gpu_mem < 160 * 1024:
        chunk, max_bs = 8192, (256 if tp < 4 else 512)
    else:
        chunk, max_bs = 16384, 512
    reserved = 512 + max(chunk, 2048) * 1.5 + tp / 8 * 1024
    graph = max_bs * 2.0
    if mla:
        graph += 1.5 * 1024
    else:
        prefill_max = chunk
        sizes = (
            list(range(4, 33, 4))
            + list(range(48, 257, 16))
            + list(range(288, 513, 32))
            + list(range(576, 1025, 64))
            + list(range(1280, 4097, 256))
            + list(range(4608, prefill_max + 1, 512))
        )
        graph += 8 * len([s for s in sizes if s <= prefill_max])
    reserved += graph
    if gpu_mem > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return round((gpu_mem - reserved) / gpu_mem, 3), reserved


@dataclass
class Inputs:
    model: Model
    gpu_name: str
    gpu_bytes: int
    gpu_memory_from: str
    gpus: int
    tp: int
    weight_dtype: str
    kv_dtype: str
    context: int
    engine: str
    fraction: float | None
    reserve_gib: float
    block_size: int | None
    max_num_batched_tokens: int | None
    weight_bytes: int | None = None


def size(inp: Inputs) -> Result:
    m, tp, ctx = inp.model, inp.tp, inp.context
    if m.num_attention_heads % tp:
        ok = ", ".join(str(d) for d in (1, 2, 4, 8, 16, 32) if m.num_attention_heads % d == 0)
        raise InputError(
            f"--tp {tp} does not divide the {m.num_attention_heads} attention heads "
            f"of {m.id} (vLLM and SGLang refuse it); use one of {ok}"
        )
    kvb = KV_BYTES[inp.kv_dtype]
    layer_tok = per_layer_token_bytes(m, tp, kvb)
    total_w = inp.weight_bytes if inp.weight_bytes else weight_bytes(m, inp.weight_dtype)
    w_gpu = cdiv(total_w, tp)
    reserve = int(inp.reserve_gib * GIB)
    out: dict[str, Any] = {
        "model": m.id,
        "model_name": m.name,
        "architecture": m.architecture,
        "attention": m.attention,
        "engine": inp.engine,
        "gpu": inp.gpu_name,
        "gpu_memory_bytes": inp.gpu_bytes,
        "gpu_memory_from": inp.gpu_memory_from,
        "gpus": inp.gpus,
        "tp": tp,
        "replicas": inp.gpus // tp,
        "weight_dtype": inp.weight_dtype,
        "kv_dtype": inp.kv_dtype,
        "context": ctx,
        "num_layers": m.num_layers,
        "full_attention_layers": m.full_layers,
        "sliding_window_layers": m.sliding_layers,
        "sliding_window": m.window,
        "kv_heads_per_gpu": kv_heads_per_gpu(m, tp),
        "kv_bytes_per_token": whole_model_token_bytes(m, kvb),
        "kv_bytes_per_token_per_gpu": m.num_layers * layer_tok,
        "kv_bytes_per_token_per_layer_per_gpu": layer_tok,
        "params_total": m.params_total,
        "params_note": m.params_note,
        "weight_bytes": total_w,
        "weight_bytes_per_gpu": w_gpu,
        "reserve_bytes": reserve,
        "weight_bytes_from": "--weight-bytes" if inp.weight_bytes else "params x dtype bytes",
    }
    assumptions = ["kv_heads_per_gpu", "head_dim", "weights", "block_size"]
    if inp.gpu_memory_from.startswith("gpus.json"):
        assumptions.insert(0, "gpu_memory")
    if WEIGHT_BYTES[inp.weight_dtype] < 2.0 and not inp.weight_bytes:
        assumptions.append("embeddings")
    if m.is_mla:
        assumptions.append("mla_not_split")
    if inp.engine == "vllm":
        frac = inp.fraction if inp.fraction is not None else VLLM_GPU_MEMORY_UTILIZATION
        budget = math.ceil(inp.gpu_bytes * frac)
        avail = budget - w_gpu - reserve
        bs = inp.block_size or VLLM_BLOCK_SIZE
        mnbt = inp.max_num_batched_tokens or vllm_default_batched_tokens(
            inp.gpu_bytes, inp.gpu_name
        )
        page = bs * layer_tok
        seq_blocks_full = cdiv(ctx, bs)
        if m.sliding_layers and m.full_layers:
            small, large = sorted((m.full_layers, m.sliding_layers))
            group = large if large < small * 1.5 else small
            full_groups, sw_groups = cdiv(m.full_layers, group), cdiv(m.sliding_layers, group)
        elif m.sliding_layers:
            group, full_groups, sw_groups = m.num_layers, 0, 1
        else:
            group, full_groups, sw_groups = m.num_layers, 1, 0
        in_flight = VLLM_CONCURRENT_BATCHES * mnbt
        sw_blocks = cdiv(min((m.window or 0) - 1 + in_flight, ctx), bs) + 1 if sw_groups else 0
        per_seq = full_groups * seq_blocks_full + sw_groups * sw_blocks
        bytes_per_block = group * page
        blocks = max(avail, 0) // bytes_per_block
        conc = blocks / per_seq
        out.update(
            {
                "memory_fraction": frac,
                "memory_fraction_flag": "--gpu-memory-utilization",
                "budget_bytes": budget,
                "kv_bytes_available_per_gpu": avail,
                "block_size": bs,
                "kv_blocks": blocks,
                "kv_cache_groups": full_groups + sw_groups,
                "layers_per_group": group,
                "blocks_per_sequence": per_seq,
                "max_num_batched_tokens": mnbt if sw_groups else None,
                "max_tokens": int(conc * ctx),
                "max_sequences_at_context": round(conc, 2),
            }
        )
        assumptions += [
            "vllm_memory",
            "vllm_gpu_memory_utilization",
            "page_bytes",
            "vllm_num_blocks",
            "vllm_capacity",
        ]
        if sw_groups:
            assumptions += [
                "vllm_hybrid_groups",
                "vllm_sliding_window",
                "vllm_max_num_batched_tokens",
            ]
        need_one = per_seq * bytes_per_block
    else:
        if inp.fraction is not None:
            frac, reserved_mib = inp.fraction, None
        else:
            frac, reserved_mib = sglang_default_mem_fraction(inp.gpu_bytes, tp, m.is_mla)
        budget = int(inp.gpu_bytes * frac)
        avail = budget - w_gpu - reserve
        page = inp.block_size or SGLANG_PAGE_SIZE
        hybrid = bool(m.sliding_layers) and m.architecture in SGLANG_HYBRID_SWA_ARCHS
        if hybrid:
            cell = (
                m.full_layers * layer_tok
                + SGLANG_SWA_FULL_TOKENS_RATIO * m.sliding_layers * layer_tok
            )
            if not m.full_layers:
                cell = m.sliding_layers * layer_tok
        else:
            cell = m.num_layers * layer_tok
        tokens = int(max(avail, 0) // cell) // page * page
        seq_tokens = cdiv(ctx, page) * page
        conc = tokens / seq_tokens
        swa_tokens = None
        if hybrid and m.full_layers:
            swa_tokens = int(tokens * SGLANG_SWA_FULL_TOKENS_RATIO) // page * page
            conc = min(conc, swa_tokens / min(seq_tokens, cdiv(m.window or 1, page) * page))
        out.update(
            {
                "memory_fraction": frac,
                "memory_fraction_flag": "--mem-fraction-static",
                "sglang_reserved_mib": reserved_mib,
                "budget_bytes": budget,
                "kv_bytes_available_per_gpu": avail,
                "block_size": page,
                "hybrid_swa_pool": hybrid,
                "swa_tokens": swa_tokens,
                "max_tokens": tokens,
                "max_sequences_at_context": round(conc, 2),
            }
        )
        assumptions += ["sglang_memory", "sglang_cell_size"]
        if inp.fraction is None:
            assumptions.append("sglang_mem_fraction_static")
        if hybrid:
            assumptions.append("sglang_swa_pool")
        need_one = int(cell * seq_tokens)
    out["max_sequences_total"] = round(out["max_sequences_at_context"] * out["replicas"], 2)
    out["assumptions"] = {k: ASSUMPTIONS[k] for k in assumptions}
    res = Result(out)
    if avail <= 0:
        res.problem = (
            f"does not fit: weights {w_gpu / GIB:.2f} GiB per GPU + reserve "
            f"{reserve / GIB:.2f} GiB exceed the {budget / GIB:.2f} GiB budget "
            f"({frac} x {inp.gpu_bytes / GIB:.2f} GiB) by {-avail / GIB:.2f} GiB; "
            "raise --tp, quantize the weights, or use a larger GPU"
        )
    elif avail < need_one:
        res.problem = (
            f"does not fit: one {ctx}-token sequence needs {need_one / GIB:.2f} GiB "
            f"of KV per GPU, {avail / GIB:.2f} GiB is left, short by "
            f"{(need_one - avail) / GIB:.2f} GiB; lower --context or raise --tp"
        )
    out["fits"] = res.problem is None
    return res


# ---------------------------------------------------------------- command line


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {v}")
    return v


def _fraction(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < v <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1]: {v}")
    return v


def _non_negative(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if v < 0 or not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0: {v}")
    return v


def _params(text: str) -> int:
    try:
        v = float(text[:-1]) * 1e9 if text[-1:].upper() == "B" else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a parameter count: {text!r} (e.g. 70.6B)") from None
    if v <= 0 or not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"must be positive: {text}")
    return int(v)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # exit 2 with one line, as argparse does
        self.print_usage(sys.stderr)
        print(f"sizing.py: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="sizing.py", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--model",
        required=True,
        help="id or hf_repo from data/models.json, or a path to a config.json",
    )
    p.add_argument("--gpu", help="id from data/gpus.json (or give --gpu-memory-gib)")
    p.add_argument(
        "--gpu-memory-gib",
        type=_non_negative,
        help="device memory in GiB as the engine sees it (overrides --gpu's figure; "
        "nvidia-smi memory.total in MiB / 1024)",
    )
    p.add_argument("--gpus", type=_positive_int, help="GPUs in total (default: --tp)")
    p.add_argument("--tp", type=_positive_int, help="tensor-parallel size (default: --gpus or 1)")
    p.add_argument(
        "--weight-dtype", choices=sorted(WEIGHT_BYTES), help="default: the checkpoint's dtype"
    )
    p.add_argument("--kv-dtype", choices=sorted(KV_BYTES), default="bf16")
    p.add_argument(
        "--context",
        type=_positive_int,
        default=None,
        help="tokens per sequence (max_model_len); default: the model's max context",
    )
    p.add_argument("--engine", choices=("vllm", "sglang"), default="vllm")
    p.add_argument(
        "--gpu-memory-utilization",
        type=_fraction,
        dest="fraction",
        help="vLLM --gpu-memory-utilization (default 0.92) or SGLang "
        "--mem-fraction-static (default: SGLang's own rule)",
    )
    p.add_argument(
        "--reserve-gib",
        type=_non_negative,
        help="activation peak + CUDA graphs + non-torch memory per GPU, outside the "
        "engine's own rule (default: 4 for vLLM, 0 for SGLang)",
    )
    p.add_argument(
        "--block-size", type=_positive_int, help="vLLM --block-size (16) or SGLang --page-size (1)"
    )
    p.add_argument(
        "--max-num-batched-tokens",
        type=_positive_int,
        help="vLLM only: sliding-window layers keep 2 x this many in-flight tokens "
        "(default: vLLM's rule by GPU memory)",
    )
    p.add_argument("--params", type=_params, help="parameter count, e.g. 70.6B or 70553706496")
    p.add_argument(
        "--weight-bytes",
        type=_positive_int,
        help="total weight bytes as loaded, scales included (e.g. a checkpoint's "
        "safetensors total_size); replaces params x --weight-dtype bytes",
    )
    p.add_argument(
        "--data",
        type=Path,
        help="folder holding models.json and gpus.json (default: ../../data next to this script)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def default_data_dir() -> Path:
    return Path(__file__).resolve().parent.parent.parent / "data"


def inputs_from_args(a: argparse.Namespace) -> Inputs:
    data_dir = a.data or default_data_dir()
    model = resolve_model(a.model, data_dir)
    if a.params:
        model.params_total, model.params_note = a.params, "--params"
    if a.gpu is None and a.gpu_memory_gib is None:
        raise InputError("give --gpu ID (from data/gpus.json) or --gpu-memory-gib")
    gpu_name, gpu_bytes, mem_from = "custom", 0, "--gpu-memory-gib"
    if a.gpu is not None:
        gpu_name, gpu_bytes, mem_from = resolve_gpu(a.gpu, data_dir)
    if a.gpu_memory_gib is not None:
        if a.gpu_memory_gib <= 0:
            raise InputError("--gpu-memory-gib must be positive")
        gpu_bytes, mem_from = int(a.gpu_memory_gib * GIB), "--gpu-memory-gib"
    tp = a.tp or a.gpus or 1
    gpus = a.gpus or tp
    if gpus % tp:
        raise InputError(f"--gpus {gpus} is not a multiple of --tp {tp}")
    context = a.context or model.max_context
    if not context:
        raise InputError(f"model '{model.id}' has no max context; pass --context")
    reserve = a.reserve_gib if a.reserve_gib is not None else DEFAULT_RESERVE_GIB[a.engine]
    return Inputs(
        model=model,
        gpu_name=gpu_name,
        gpu_bytes=gpu_bytes,
        gpu_memory_from=mem_from,
        gpus=gpus,
        tp=tp,
        weight_dtype=a.weight_dtype or model.checkpoint_dtype,
        kv_dtype=a.kv_dtype,
        context=context,
        engine=a.engine,
        fraction=a.fraction,
        reserve_gib=reserve,
        block_size=a.block_size,
        max_num_batched_tokens=a.max_num_batched_tokens,
        weight_bytes=a.weight_bytes,
    )


def _gib(n: int | float) -> str:
    return f"{n / GIB:,.2f} GiB"


def render(d: dict[str, Any]) -> str:
    rows = [
        (
            "model",
            f"{d['model']} ({d['attention']}, {d['num_layers']} layers"
            + (
                f", {d['sliding_window_layers']} sliding of window {d['sliding_window']}"
                if d["sliding_window_layers"]
                else ""
            )
            + ")",
        ),
        ("engine", d["engine"]),
        (
            "gpu",
            f"{d['gpu']}, {_gib(d['gpu_memory_bytes'])} ({d['gpu_memory_from']}); "
            f"{d['gpus']} GPUs, TP {d['tp']}, {d['replicas']} replica(s)",
        ),
        ("dtypes", f"weights {d['weight_dtype']}, KV {d['kv_dtype']}"),
        ("KV heads per GPU", str(d["kv_heads_per_gpu"])),
        ("KV bytes per token", f"{d['kv_bytes_per_token']:,} (whole model)"),
        ("KV bytes per token per GPU", f"{d['kv_bytes_per_token_per_gpu']:,}"),
        (
            "weights",
            f"{_gib(d['weight_bytes'])} ("
            + (
                "--weight-bytes"
                if d["weight_bytes_from"] == "--weight-bytes"
                else f"{d['params_total']:,} params"
            )
            + f"), {_gib(d['weight_bytes_per_gpu'])} per GPU",
        ),
        (
            "budget per GPU",
            f"{d['memory_fraction']} x {_gib(d['gpu_memory_bytes'])} = "
            f"{_gib(d['budget_bytes'])} ({d['memory_fraction_flag']})",
        ),
        ("reserve per GPU", f"{_gib(d['reserve_bytes'])} (--reserve-gib)"),
        ("KV available per GPU", _gib(d["kv_bytes_available_per_gpu"])),
        ("page", f"{d['block_size']} tokens"),
        ("max tokens", f"{d['max_tokens']:,}"),
        (
            f"sequences at {d['context']:,}",
            f"{d['max_sequences_at_context']} per replica, {d['max_sequences_total']} in total",
        ),
    ]
    width = max(len(k) for k, _ in rows)
    lines = [f"{k.ljust(width)}  {v}" for k, v in rows]
    lines.append("assumptions:")
    lines += [
        f"  - {a['rule']} ["
        + (f"{a['source']}: {a['where']}" if a["source"] else "assumption")
        + "]"
        for a in d["assumptions"].values()
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        res = size(inputs_from_args(args))
    except InputError as exc:
        print(f"sizing.py: error: {exc}", file=sys.stderr)
        return 2
    try:
        print(json.dumps(res.data, indent=2) if args.json else render(res.data), flush=True)
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
        return 0 if res.problem is None else 2
    if res.problem:
        print(f"sizing.py: {res.problem}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
