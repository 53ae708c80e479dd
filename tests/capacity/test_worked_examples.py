"""Every worked sizing example of the pack, kept true by the calculator.

For each example that sizes memory or capacity, this module names its inputs (model and GPU ids
from data/, dtypes, TP, context, reserve, utilisation), asserts that the page still prints its
figures (exact text, with line breaks read as spaces, so an edit that breaks a number fails), and
asserts that assets/capacity/sizing.py, run on the real data/models.json and data/gpus.json,
gives the same figures at the page's rounding. Where a page's example has a one-line command,
the command is asserted to be on the page and is the one run here.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import re
import shlex
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "assets" / "capacity" / "sizing.py"
GIB = 2**30

KV = "references/kv-cache-optimization.md"
PAR = "references/parallelism-patterns.md"
QUANT = "references/quantization-patterns.md"
PROF = "references/profiling-and-capacity-planning.md"
SERVE = "references/serving-architectures.md"
DISAGG = "references/disaggregated-inference.md"
EDGE = "references/edge-cpu-optimization.md"
GPUS_PAGE = "references/gpu-optimization-checklists.md"
REVIEW = "assets/checklists/inference-review-checklist.md"
TEMPLATE = "assets/capacity/template-sizing.md"

# quantization-patterns.md "Worked example: 70B weight memory": the FP8 (FP8_DYNAMIC) checkpoint
# of Llama 3.1 70B, channel scales included. The calculator leaves scales out, so the FP8
# examples pass this total with --weight-bytes.
FP8_70B_BYTES = 72_669_806_592
FP8_70B_SCALES = 13_434_880


@functools.cache
def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sizing_worked_examples", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@functools.cache
def _calc(args: tuple[str, ...]) -> dict[str, Any]:
    m = _module()
    data: dict[str, Any] = m.size(m.inputs_from_args(m.build_parser().parse_args(list(args)))).data
    return data


def calc(command: str) -> dict[str, Any]:
    """Run a `python3 assets/capacity/sizing.py ...` command line in-process on data/."""
    words = shlex.split(command)
    assert words[:2] == ["python3", "assets/capacity/sizing.py"], command
    return _calc(tuple(words[2:]))


@functools.cache
def page(path: str) -> str:
    return re.sub(r"\s+", " ", (ROOT / path).read_text(encoding="utf-8"))


def shows(path: str, text: str) -> None:
    assert re.sub(r"\s+", " ", text) in page(path), f"{path} no longer prints: {text}"


def command_on(path: str, command: str) -> dict[str, Any]:
    shows(path, f"`{command}`")
    return calc(command)


def gib(n: float, places: int = 2) -> str:
    return f"{n / GIB:,.{places}f}"


def gb(n: float, places: int = 2) -> str:
    return f"{n / 1e9:,.{places}f}"


def seqs(d: dict[str, Any]) -> int:
    return math.floor(d["max_sequences_at_context"])


def _model(model_id: str) -> dict[str, Any]:
    doc = json.loads((ROOT / "data" / "models.json").read_text(encoding="utf-8"))
    entry: dict[str, Any] = next(m for m in doc["models"] if m["id"] == model_id)
    return entry


def _gpu(gpu_id: str) -> dict[str, Any]:
    doc = json.loads((ROOT / "data" / "gpus.json").read_text(encoding="utf-8"))
    entry: dict[str, Any] = next(g for g in doc["gpus"] if g["id"] == gpu_id)
    return entry


# ---------------------------------------------------------------- kv-cache-optimization.md


def test_kv_bytes_per_token_table() -> None:
    # inputs: llama-3.1-8b, llama-3.1-70b, deepseek-v3, gpt-oss-120b; BF16 and FP8 KV
    def per_token(model: str, kv: str = "bf16", tp: str = "1") -> dict[str, Any]:
        return _calc(
            (
                "--model",
                model,
                "--gpu-memory-gib",
                "1000",
                "--tp",
                tp,
                "--context",
                "4096",
                "--kv-dtype",
                kv,
            )
        )

    b8, f8 = per_token("llama-3.1-8b"), per_token("llama-3.1-8b", "fp8")
    shows(
        KV,
        f"2x32x8x128x2 = {b8['kv_bytes_per_token']:,} (128 KiB) | "
        f"{f8['kv_bytes_per_token']:,} (64 KiB)",
    )
    b70, f70 = per_token("llama-3.1-70b"), per_token("llama-3.1-70b", "fp8")
    shows(KV, f"| {b70['kv_bytes_per_token']:,} (320 KiB) | {f70['kv_bytes_per_token']:,} |")
    ds, dsf = per_token("deepseek-v3"), per_token("deepseek-v3", "fp8")
    shows(
        KV,
        f"61x576x2 = {ds['kv_bytes_per_token']:,} "
        f"({ds['kv_bytes_per_token'] / 1024:.1f} KiB) | {dsf['kv_bytes_per_token']:,} |",
    )
    oss = per_token("gpt-oss-120b")
    full = oss["kv_bytes_per_token_per_layer_per_gpu"] * oss["full_attention_layers"]
    shows(KV, f"{full:,} (36 KiB) for the full layers")
    shows(KV, f"128 x {full:,} B = {128 * full / 2**20} MiB per sequence")
    tp4, tp8 = per_token("llama-3.1-70b", tp="4"), per_token("llama-3.1-70b", tp="8")
    shows(
        KV,
        f"Llama 3.1 70B stores {tp4['kv_bytes_per_token_per_gpu'] // 1024} KiB per token "
        f"per GPU at TP=4 and {tp8['kv_bytes_per_token_per_gpu'] // 1024} KiB at TP=8",
    )
    shows(KV, f"holds the whole {ds['kv_bytes_per_token']:,}-byte latent")


def test_kv_cache_optimization_8b_on_h100() -> None:
    # inputs: llama-3.1-8b, h100-sxm (80 GiB), BF16 weights and KV, TP 1, 4 GiB reserve, 0.92
    d = command_on(
        KV, "python3 assets/capacity/sizing.py --model llama-3.1-8b --gpu h100-sxm --context 32768"
    )
    assert d["gpu_memory_bytes"] == 80 * GIB
    shows(KV, f"= {d['params_total']:,} parameters x 2 B = {gib(d['weight_bytes'])} GiB")
    shows(
        KV,
        f"Budget: 0.92 x 80 GiB = {gib(d['budget_bytes'], 1)} GiB. "
        f"KV: {gib(d['budget_bytes'], 1)} - {gib(d['weight_bytes'])} - 4 = "
        f"{gib(d['kv_bytes_available_per_gpu'])} GiB",
    )
    per_token = d["kv_bytes_per_token_per_gpu"]
    shows(
        KV,
        f"{gib(d['kv_bytes_available_per_gpu'])} GiB / 128 KiB = "
        f"{d['kv_bytes_available_per_gpu'] // per_token:,}; in 16-token blocks "
        f"{d['kv_blocks']:,} x 16 = {d['max_tokens']:,} tokens",
    )
    short = calc(
        "python3 assets/capacity/sizing.py --model llama-3.1-8b --gpu h100-sxm --context 8192"
    )
    full = calc(
        "python3 assets/capacity/sizing.py --model llama-3.1-8b --gpu h100-sxm --context 131072"
    )
    shows(
        KV,
        f"{d['max_tokens']:,} / 8,192 = {short['max_sequences_at_context']:.1f}; "
        f"/ 32,768 = {d['max_sequences_at_context']:.1f}; "
        f"/ 131,072 = {full['max_sequences_at_context']:.1f}",
    )
    f = calc(
        "python3 assets/capacity/sizing.py --model llama-3.1-8b --gpu h100-sxm "
        "--context 32768 --kv-dtype fp8"
    )
    shows(
        KV,
        f"{f['kv_bytes_per_token_per_gpu'] // 1024} KiB per token, {f['max_tokens']:,} "
        f"tokens, {f['max_sequences_at_context']:.1f} sequences at 32,768",
    )
    shows(
        KV,
        f"256 sequences x {f['max_tokens'] // 256:,} tokens fill the "
        f"{f['max_tokens']:,}-token FP8 pool",
    )


def test_kv_cache_optimization_sglang_fraction_on_h100() -> None:
    # inputs: llama-3.1-8b, h100-sxm (80 GiB = 81,920 MiB), TP 1, SGLang defaults
    d = command_on(
        KV,
        "python3 assets/capacity/sizing.py --model llama-3.1-8b --gpu h100-sxm "
        "--context 32768 --engine sglang --json",
    )
    mib = d["gpu_memory_bytes"] // 2**20
    reserved = d["sglang_reserved_mib"]
    shows(
        KV,
        f"512 + 12,288 + 128 + 512 + 464 = {reserved:,.0f} MiB reserved; a device reporting "
        f"{mib:,} MiB gets ({mib:,} - {reserved:,.0f}) / {mib:,} = "
        f"{d['memory_fraction']:.3f}",
    )


# ---------------------------------------------------------------- parallelism-patterns.md

PAR_COMMAND = (
    "python3 assets/capacity/sizing.py --model llama-3.1-70b --gpu h100-sxm --tp 4 --context 32768"
)
GPU_LABEL = {"h100-sxm": "H100 80 GiB", "h200-sxm": "H200 141 GiB"}


def _par(
    gpu: str, weights: str, tp: int, kv: str = "bf16", gpus: int | None = None, context: int = 32768
) -> dict[str, Any]:
    args = [
        "--model",
        "llama-3.1-70b",
        "--gpu",
        gpu,
        "--tp",
        str(tp),
        "--context",
        str(context),
        "--kv-dtype",
        kv,
    ]
    if weights == "FP8":
        args += ["--weight-bytes", str(FP8_70B_BYTES)]
    if gpus:
        args += ["--gpus", str(gpus)]
    return _calc(tuple(args))


def test_parallelism_patterns_70b_worked_row() -> None:
    # inputs: llama-3.1-70b, h100-sxm (80 GiB), BF16 weights and KV, TP 4, 32,768, 4 GiB, 0.92
    d = command_on(PAR, PAR_COMMAND)
    shows(PAR, f"weights {gb(d['weight_bytes'], 1)} GB = {gib(d['weight_bytes'])} GiB in BF16")
    shows(PAR, f"{gb(FP8_70B_BYTES, 1)} GB = {gib(FP8_70B_BYTES)} GiB as an FP8 checkpoint")
    shows(
        PAR,
        f"one 32,768-token sequence is exactly {32768 * d['kv_bytes_per_token'] // GIB} "
        f"GiB (BF16 KV) or {32768 * d['kv_bytes_per_token'] // GIB // 2} GiB (FP8 KV)",
    )
    shows(
        PAR,
        f"{gib(d['weight_bytes'])} / 4 = {gib(d['weight_bytes_per_gpu'])} GiB of weights "
        f"per GPU; {gib(d['budget_bytes'], 1)} - {gib(d['weight_bytes_per_gpu'])} - 4 = "
        f"{gib(d['kv_bytes_available_per_gpu'])} GiB of KV room per GPU",
    )
    shows(PAR, f"{d['kv_blocks']:,} blocks of 16 tokens = {d['max_tokens']:,} tokens")
    f = calc(PAR_COMMAND + " --kv-dtype fp8")
    shows(
        PAR,
        f"= {d['max_sequences_at_context']:.1f} full-length sequences: {seqs(d)} whole "
        f"ones ({seqs(f)} with FP8 KV)",
    )
    # the same row read as 80 x 10^9 B (gpus.json memory_bytes, the vendor's decimal GB)
    vendor_gib = str(_gpu("h100-sxm")["memory_bytes"] / GIB)
    decimal = _calc((*PAR_COMMAND.split()[2:], "--gpu-memory-gib", vendor_gib))
    shows(
        PAR,
        f'Reading "80 GB" as 80 x 10^9 B = {gib(decimal["gpu_memory_bytes"], 1)} GiB '
        f"instead takes {gib(d['budget_bytes'] - decimal['budget_bytes'], 1)} GiB of budget "
        f"off each GPU and turns the TP 4 row's {seqs(d)} sequences into {seqs(decimal)}",
    )
    h200 = _par("h200-sxm", "BF16", 4)
    shows(
        PAR,
        f"budget 0.92 x 80 = {gib(d['budget_bytes'], 1)} GiB and 0.92 x 141 = "
        f"{gib(h200['budget_bytes'])} GiB per GPU",
    )


PAR_ROWS = [
    ("h100-sxm", "BF16", 2, "0 (0.78)"),
    ("h100-sxm", "BF16", 4, "14 (14.7)"),
    ("h100-sxm", "BF16", 8, ""),
    ("h100-sxm", "FP8", 2, ""),
    ("h100-sxm", "FP8", 4, ""),
    ("h200-sxm", "BF16", 2, ""),
    ("h200-sxm", "BF16", 4, ""),
    ("h200-sxm", "FP8", 1, ""),
    ("h200-sxm", "FP8", 2, ""),
    ("h200-sxm", "FP8", 4, ""),
]


@pytest.mark.parametrize(("gpu", "weights", "tp", "bf16_cell"), PAR_ROWS)
def test_parallelism_patterns_70b_table(gpu: str, weights: str, tp: int, bf16_cell: str) -> None:
    # inputs: llama-3.1-70b, the row's GPU, dtype and TP; 32,768 tokens, 4 GiB, 0.92
    b, f = _par(gpu, weights, tp), _par(gpu, weights, tp, "fp8")
    if not bf16_cell:
        bf16_cell = str(seqs(b))
    elif "(" in bf16_cell:
        places = len(bf16_cell.split(".")[1].rstrip(")"))
        bf16_cell = f"{seqs(b)} ({b['max_sequences_at_context']:.{places}f})"
    shows(
        PAR,
        f"| {GPU_LABEL[gpu]} | {weights} | {tp} | {gib(b['weight_bytes_per_gpu'])} GiB | "
        f"{gib(b['kv_bytes_available_per_gpu'])} GiB | {bf16_cell} | {seqs(f)} |",
    )


def test_parallelism_patterns_70b_left_out_and_node() -> None:
    one = _par("h100-sxm", "FP8", 1)
    shows(PAR, f"FP8 at TP 1 on H100 ({gib(one['kv_bytes_available_per_gpu'])} GiB of room")
    assert _par("h100-sxm", "FP8", 1, "fp8")["max_sequences_at_context"] < 1
    bf16 = _par("h200-sxm", "BF16", 1)
    shows(
        PAR,
        f"BF16 at TP 1 on either GPU ({gib(bf16['weight_bytes'])} GiB of weights against "
        f"budgets of {gib(one['budget_bytes'], 1)} and {gib(bf16['budget_bytes'])} GiB)",
    )
    assert bf16["fits"] is False
    # one 8-GPU node, FP8 weights, BF16 KV: replicas x whole sequences per replica
    h200 = {tp: _par("h200-sxm", "FP8", tp, gpus=8) for tp in (1, 2, 4, 8)}
    whole = {tp: seqs(d) * d["replicas"] for tp, d in h200.items()}
    shows(
        PAR,
        f"8 x TP1 replicas hold 8 x {seqs(h200[1])} = {whole[1]} sequences, 4 x TP2 hold "
        f"{whole[2]}, 2 x TP4 hold {whole[4]}, 1 x TP8 holds {whole[8]}",
    )
    h100_fp8, h100_bf16 = _par("h100-sxm", "FP8", 2, gpus=8), _par("h100-sxm", "BF16", 4, gpus=8)
    shows(
        PAR,
        f"(4 x {seqs(h100_fp8)} = {4 * seqs(h100_fp8)} per node) and the smallest BF16 "
        f"replica TP4 (2 x {seqs(h100_bf16)} = {2 * seqs(h100_bf16)})",
    )


# DeepSeek-V3 with DP attention: weights per GPU = routed experts / EP + the rest (17.1 GB) + an
# assumed 2 GB, in decimal GB as the page derives them; MLA KV is the whole latent on every GPU
# whatever the TP, so an EP row is a --tp 1 run with that per-GPU weight.
DS_ROUTED, DS_REST = 653.9e9, 17.1e9 + 2e9
DS_ROWS = [
    ("2 nodes x 8 H100, EP 16", "h100-sxm", 16, 16),
    ("1 node x 8 H200, EP 8", "h200-sxm", 8, 8),
    ("2 nodes x 8 H200, EP 16", "h200-sxm", 16, 16),
]


@pytest.mark.parametrize(("label", "gpu", "ep", "gpus"), DS_ROWS)
def test_parallelism_patterns_deepseek_ep_rows(label: str, gpu: str, ep: int, gpus: int) -> None:
    per_gpu = round(DS_ROUTED / ep + DS_REST)
    d = _calc(
        (
            "--model",
            "deepseek-v3",
            "--gpu",
            gpu,
            "--tp",
            "1",
            "--context",
            "8192",
            "--weight-bytes",
            str(per_gpu),
        )
    )
    shows(
        PAR,
        f"| {label} | {gib(DS_ROUTED / ep)} GiB | {gib(d['weight_bytes_per_gpu'])} GiB | "
        f"{gib(d['kv_bytes_available_per_gpu'])} GiB | {seqs(d)} | {seqs(d) * gpus:,} |",
    )
    if ep == 16 and gpu == "h100-sxm":
        shows(PAR, f"`--gpu h100-sxm --tp 1 --weight-bytes {per_gpu}`")


def test_parallelism_patterns_deepseek_tp8_row() -> None:
    # inputs: deepseek-v3, h200-sxm (141 GiB), 671 GB + 2 GB of weights over TP 8, BF16 KV,
    # 8,192 tokens, 4 GiB, 0.92
    d = command_on(
        PAR,
        "python3 assets/capacity/sizing.py --model deepseek-v3 --gpu h200-sxm "
        "--tp 8 --context 8192 --weight-bytes 673000000000",
    )
    shows(
        PAR,
        f"| 1 node x 8 H200, TP 8 (no DP attention) | {gib(DS_ROUTED / 8)} GiB | "
        f"{gib(d['weight_bytes_per_gpu'])} GiB | {gib(d['kv_bytes_available_per_gpu'])} "
        f"GiB | {seqs(d)} | {seqs(d)} |",
    )
    seq_bytes = 8192 * d["kv_bytes_per_token_per_gpu"]
    shows(PAR, f"8k-token sequences ({seq_bytes:,} B = {gib(seq_bytes, 3)} GiB of KV each)")
    shows(
        PAR, f"MLA KV / token = 61 layers * (512 + 64) * 2 B (BF16) = {d['kv_bytes_per_token']:,} B"
    )


# ---------------------------------------------------------------- quantization-patterns.md


@pytest.mark.parametrize(
    ("dtype", "label"),
    [
        ("bf16", "BF16"),
        ("fp8", "FP8_DYNAMIC"),
        ("int4", "W4A16"),
        ("nvfp4", "NVFP4"),
        ("mxfp4", "MXFP4"),
    ],
)
def test_quantization_patterns_weight_table(dtype: str, label: str) -> None:
    # inputs: llama-3.1-70b, weights in the row's format (embeddings, LM head, norms in BF16)
    d = _calc(
        (
            "--model",
            "llama-3.1-70b",
            "--gpu",
            "b200",
            "--tp",
            "8",
            "--context",
            "4096",
            "--weight-dtype",
            dtype,
        )
    )
    total = d["weight_bytes"] + (FP8_70B_SCALES if dtype == "fp8" else 0)
    shows(QUANT, f"| {total:,} B ({gb(total, 1)} GB) | {gib(total, 1)} |")
    row = next(
        line
        for line in (ROOT / QUANT).read_text(encoding="utf-8").splitlines()
        if line.startswith(f"| {label} |") and " B (" in line
    )
    assert f"| {total:,} B" in row
    if dtype == "fp8":
        shows(QUANT, f"6,717,440 channels x 2 B = {FP8_70B_SCALES:,}")
        assert total == FP8_70B_BYTES


def test_quantization_patterns_linear_and_bf16_split() -> None:
    m = _model("llama-3.1-70b")
    h, layers, vocab = m["hidden_size"], m["num_layers"], m["vocab_size"]
    keep = 2 * vocab * h + (2 * layers + 1) * h
    shows(
        QUANT,
        f"| BF16 | {m['params_total'] - keep:,} x 2 B = "
        f"{2 * (m['params_total'] - keep):,} | 0 | {2 * keep:,} |",
    )


def test_quantization_patterns_fit_on_h100() -> None:
    # inputs: llama-3.1-70b on h100-sxm (80 GiB), BF16 KV, 4 GiB, 0.92; the row's format and TP
    bf16 = command_on(
        QUANT,
        "python3 assets/capacity/sizing.py --model llama-3.1-70b "
        "--gpu h100-sxm --tp 2 --context 4096",
    )
    shows(
        QUANT,
        f"BF16, TP=2: 2 x ({gib(bf16['budget_bytes'], 1)} - 4) - "
        f"{gib(bf16['weight_bytes'])} = {gib(2 * bf16['kv_bytes_available_per_gpu'])} "
        f"GiB left, {bf16['max_tokens']:,} tokens",
    )
    fp8 = _calc(
        (
            "--model",
            "llama-3.1-70b",
            "--gpu",
            "h100-sxm",
            "--tp",
            "2",
            "--context",
            "4096",
            "--weight-bytes",
            str(FP8_70B_BYTES),
        )
    )
    shows(
        QUANT,
        f"FP8, TP=2: 2 x (73.6 - 4) - {gib(FP8_70B_BYTES)} = "
        f"{gib(2 * fp8['kv_bytes_available_per_gpu'])} GiB, {fp8['max_tokens']:,} tokens",
    )
    one = _calc(
        (
            "--model",
            "llama-3.1-70b",
            "--gpu",
            "h100-sxm",
            "--tp",
            "1",
            "--context",
            "4096",
            "--weight-bytes",
            str(FP8_70B_BYTES),
        )
    )
    shows(
        QUANT,
        f"FP8 on one GPU leaves {gib(one['kv_bytes_available_per_gpu'])} GiB "
        f"({one['max_tokens']:,} tokens)",
    )
    w4 = _calc(
        (
            "--model",
            "llama-3.1-70b",
            "--gpu",
            "h100-sxm",
            "--tp",
            "1",
            "--context",
            "4096",
            "--weight-dtype",
            "int4",
        )
    )
    shows(
        QUANT,
        f"W4A16, TP=1: 73.6 - 4 - {gib(w4['weight_bytes'])} = "
        f"{gib(w4['kv_bytes_available_per_gpu'])} GiB, {w4['max_tokens']:,} tokens",
    )
    shows(QUANT, "`--weight-bytes 72669806592`")


# ------------------------------------------------------- profiling-and-capacity-planning.md


def test_profiling_capacity_plan_memory_check() -> None:
    # inputs: llama-3.1-70b FP8 (72,669,806,592 B), h200-sxm (141 GiB), TP 1, BF16 KV, 4 GiB, 0.92
    d = command_on(
        PROF,
        "python3 assets/capacity/sizing.py --model llama-3.1-70b --gpu h200-sxm "
        "--context 32768 --weight-bytes 72669806592",
    )
    shows(
        PROF,
        f"0.92 x 141 GiB (the H200's capacity in NVIDIA's aiconfigurator file) = "
        f"{gib(d['budget_bytes'])} GiB; minus {gib(d['weight_bytes'])} GiB of FP8 weights "
        f"({gb(d['weight_bytes'])} GB)",
    )
    shows(
        PROF,
        f"leaves {gib(d['kv_bytes_available_per_gpu'])} GiB = {d['max_tokens']:,} KV "
        f"tokens of 320 KiB",
    )


def test_profiling_roofline_bytes_per_step() -> None:
    # inputs: llama-3.1-70b FP8 weights, BF16 KV, 2,000 tokens per request, TP 1 and 2
    one = _calc(
        (
            "--model",
            "llama-3.1-70b",
            "--gpu",
            "h200-sxm",
            "--context",
            "2048",
            "--weight-bytes",
            str(FP8_70B_BYTES),
        )
    )
    two = _calc(
        (
            "--model",
            "llama-3.1-70b",
            "--gpu",
            "h100-sxm",
            "--tp",
            "2",
            "--context",
            "2048",
            "--weight-bytes",
            str(FP8_70B_BYTES),
        )
    )
    kv1 = 2000 * one["kv_bytes_per_token_per_gpu"]
    kv2 = 2000 * two["kv_bytes_per_token_per_gpu"]
    w1, w2 = gb(one["weight_bytes_per_gpu"]), gb(two["weight_bytes_per_gpu"])
    shows(PROF, f"FP8 weights (linear layers 1 B; embeddings, head, norms BF16) = {w1} GB")
    shows(
        PROF,
        f"| H200, TP=1, batch 1 | {w1} + {gb(kv1)} = {gb(one['weight_bytes_per_gpu'] + kv1)} GB |",
    )
    shows(
        PROF,
        f"| H100 x 2, TP=2, batch 1 | {w2} + {gb(kv2)} = "
        f"{gb(two['weight_bytes_per_gpu'] + kv2)} GB |",
    )
    shows(
        PROF,
        f"| H100 x 2, TP=2, batch 32 | {w2} + {gb(32 * kv2)} = "
        f"{gb(two['weight_bytes_per_gpu'] + 32 * kv2)} GB |",
    )


# ---------------------------------------------------------------- serving-architectures.md


def test_serving_architectures_lora_copilot() -> None:
    # inputs: llama-3.1-8b, h100-sxm (80 GiB), BF16, TP 1, 0.92, reserve 4 GiB + 12 LoRA slots
    d = command_on(
        SERVE,
        "python3 assets/capacity/sizing.py --model llama-3.1-8b --gpu h100-sxm "
        "--context 32768 --reserve-gib 4.9375",
    )
    lora = 16 * (8192 + 5120 + 5120 + 8192 + 18432 + 18432 + 18432) * 32 * 2
    assert 12 * lora == int(0.9375 * GIB)
    shows(
        SERVE,
        f"x 32 layers x 2 B = {lora // 2**20} MiB per adapter, x 12 slots = {gib(12 * lora)} GiB",
    )
    shows(
        SERVE,
        f"Budget 0.92 (vLLM 0.33.0 default `--gpu-memory-utilization`, "
        f"[cache.py][vllm-src-config-cache]) x 80 GiB = {gib(d['budget_bytes'], 1)} GiB",
    )
    shows(SERVE, f"{d['params_total']:,} parameters x 2 B = {gib(d['weight_bytes'])} GiB")
    pool = d["kv_blocks"] * 16
    shows(
        SERVE,
        f"KV left: {gib(d['budget_bytes'], 1)} minus {gib(d['weight_bytes'])}, "
        f"{gib(12 * lora)} and 4 = {gib(d['kv_bytes_available_per_gpu'])} GiB; "
        f"in 16-token blocks that is {pool:,} tokens",
    )
    shows(
        SERVE, f"130 x 800 + 1,500 = 105,500 tokens ({round(100 * 105_500 / pool)} % of the pool)"
    )
    shows(SERVE, f"260 x 800 + 1,500 = 209,500 tokens ({round(100 * 209_500 / pool)} %)")
    assert pool < 260 * 2300  # no prefix hit: 2,300 tokens each do not fit


# ---------------------------------------------------------------- disaggregated-inference.md


def test_disaggregated_transfer_sizes() -> None:
    # inputs: llama-3.1-70b, KV bytes per token in BF16 and FP8
    b = _calc(("--model", "llama-3.1-70b", "--gpu-memory-gib", "1000", "--context", "4096"))
    f = _calc(
        (
            "--model",
            "llama-3.1-70b",
            "--gpu-memory-gib",
            "1000",
            "--context",
            "4096",
            "--kv-dtype",
            "fp8",
        )
    )
    shows(DISAGG, f"2 x 80 x 8 x 128 x 2 bytes = {b['kv_bytes_per_token']:,} bytes per token")
    for tokens, d, kv in (
        (2000, b, "BF16"),
        (8000, f, "FP8"),
        (8000, b, "BF16"),
        (32000, b, "BF16"),
    ):
        shows(DISAGG, f"| {tokens:,} tokens, {kv} | {gb(tokens * d['kv_bytes_per_token'])} GB |")


def test_disaggregated_decode_pool() -> None:
    # inputs: llama-3.1-70b FP8 weights and FP8 KV, h100-sxm, TP 4, 8,400-token requests
    d = command_on(
        DISAGG,
        "python3 assets/capacity/sizing.py --model llama-3.1-70b "
        "--gpu h100-sxm --tp 4 --context 8400 --kv-dtype fp8 "
        "--weight-bytes 72669806592",
    )
    room = d["kv_bytes_available_per_gpu"]
    shows(
        DISAGG,
        f"48 x 8,400 tokens x {d['kv_bytes_per_token']:,} B = "
        f"{gb(48 * 8400 * d['kv_bytes_per_token'], 1)} GB",
    )
    shows(DISAGG, f"has {gib(room)} GiB of KV room per GPU")
    shows(
        DISAGG,
        f"4 x {gib(room)} = {gib(4 * room, 1)} GiB = {gb(4 * room, 0)} GB: room for "
        f"about {seqs(d)} such requests",
    )
    shows(DISAGG, "(2 instances hold about 452 GB)")
    assert abs(8 * room / 1e9 - 452) < 1


# ---------------------------------------------------------------- edge-cpu-optimization.md


def test_edge_cpu_kv_per_token() -> None:
    # inputs: llama-3.1-8b, f16 KV (the same bytes as BF16), TP 1
    d = command_on(
        EDGE,
        "python3 assets/capacity/sizing.py --model llama-3.1-8b "
        "--gpu-memory-gib 16 --weight-bytes 4910000000 --context 8192",
    )
    assert d["fits"]
    per = d["kv_bytes_per_token"]
    shows(EDGE, f"2 x 32 layers x 8 heads x 128 x 2 B = {per:,} B = {per // 1024} KiB")
    shows(EDGE, f"8,192 x {per:,} B = {8192 * per:,} B = {gib(8192 * per)} GiB")
    shows(EDGE, f"KV is {gib(32768 * per)} GiB f16")
    shows(EDGE, f"131,072 x 128 KiB = {131072 * per // GIB} GiB")
    shows(EDGE, f"f16 KV = 4,096 x {per:,} B = {gb(4096 * per)} GB")


# ---------------------------------------------------------------- gpu-optimization-checklists.md

USABLE = [
    ("L40S", "l40s"),
    ("H100 SXM", "h100-sxm"),
    ("H200", "h200-sxm"),
    ("MI300X", "mi300x"),
    ("B200", "b200"),
]


def test_gpu_checklists_which_gpu_for_70b() -> None:
    # inputs: llama-3.1-70b FP8 weights (72,669,806,592 B) and FP8 KV, 32 streams of 4,096
    # tokens, each GPU's memory_device_bytes, 0.92, 4 GiB
    runs = {
        gpu: _calc(
            (
                "--model",
                "llama-3.1-70b",
                "--gpu",
                gpu,
                "--context",
                "4096",
                "--kv-dtype",
                "fp8",
                "--weight-bytes",
                str(FP8_70B_BYTES),
            )
        )
        for _, gpu in USABLE
    }
    d = command_on(
        GPUS_PAGE,
        "python3 assets/capacity/sizing.py --model llama-3.1-70b "
        "--gpu h200-sxm --context 4096 --kv-dtype fp8 "
        "--weight-bytes 72669806592",
    )
    assert d == runs["h200-sxm"]
    kv = 32 * 4096 * d["kv_bytes_per_token"]
    need = FP8_70B_BYTES + kv
    shows(
        GPUS_PAGE,
        f"KV 32 x 4,096 x {d['kv_bytes_per_token']:,} B = {gb(kv)} GB; total "
        f"{gb(FP8_70B_BYTES)} + {gb(kv)} = {gb(need)} GB",
    )
    for label, gpu in USABLE:
        r = runs[gpu]
        usable = r["budget_bytes"] - r["reserve_bytes"]
        fits = "yes" if usable > need else "no"
        sign = ">" if usable > need else "<"
        shows(
            GPUS_PAGE,
            f"| 1x {label} ({_bw(gpu)}) | {fits}: {gb(usable, 1)} {sign} {gb(need, 1)} GB |",
        )
    tp2 = _calc(
        (
            "--model",
            "llama-3.1-70b",
            "--gpu",
            "h100-sxm",
            "--tp",
            "2",
            "--context",
            "4096",
            "--kv-dtype",
            "fp8",
            "--weight-bytes",
            str(FP8_70B_BYTES),
        )
    )
    per_gpu = tp2["weight_bytes_per_gpu"] + 32 * 4096 * tp2["kv_bytes_per_token_per_gpu"]
    usable = tp2["budget_bytes"] - tp2["reserve_bytes"]
    shows(GPUS_PAGE, f"| 2x H100 SXM, TP=2 | yes: {gb(per_gpu, 1)} < {gb(usable, 1)} GB per GPU |")
    shows(
        GPUS_PAGE,
        f"H200 row: usable 0.92 x {gb(d['gpu_memory_bytes'])} - "
        f"{gb(d['reserve_bytes'])} = {gb(d['budget_bytes'] - d['reserve_bytes'])} GB",
    )
    stream = 4096 * d["kv_bytes_per_token"]
    shows(
        GPUS_PAGE,
        f"KV room {gb(d['budget_bytes'] - d['reserve_bytes'])} - "
        f"{gb(FP8_70B_BYTES)} = {gb(d['kv_bytes_available_per_gpu'])} GB; "
        f"a 4,096-token stream needs {gb(stream, 3)} GB, so {seqs(d)} streams fit",
    )
    for label, gpu in (
        ("L40S 46,068 MiB", "l40s"),
        ("H100 80 GiB", "h100-sxm"),
        ("H200 141 GiB", "h200-sxm"),
        ("B200 180 GiB", "b200"),
        ("ROCm's 192 GiB", "mi300x"),
    ):
        shows(GPUS_PAGE, f"{label} = {gb(runs[gpu]['gpu_memory_bytes'])} GB")


def _bw(gpu: str) -> str:
    gbps = _gpu(gpu)["memory_bandwidth_gbps"]
    return f"{gbps / 1000:g} TB/s" if gbps >= 1000 else f"{gbps:g} GB/s"


# ---------------------------------------------------------------- inference-review-checklist.md


def test_review_checklist_weight_read_time() -> None:
    # inputs: llama-3.1-70b FP8 weights, h200-sxm memory bandwidth from data/gpus.json
    bw = _gpu("h200-sxm")["memory_bandwidth_gbps"] * 1e9
    shows(
        REVIEW,
        f"{gb(FP8_70B_BYTES)} GB / {bw / 1e12:g} TB/s = "
        f"{1000 * FP8_70B_BYTES / bw:.1f} ms for Llama 3.1 70B FP8 weights on one H200",
    )


# ---------------------------------------------------------------- template-sizing.md


def test_template_expected_output_is_the_output() -> None:
    text = (ROOT / TEMPLATE).read_text(encoding="utf-8")
    shows(TEMPLATE, f"`{PAR_COMMAND.replace('python3 assets/capacity/sizing.py ', '')}`")
    block = text.split("```text\nmodel ", 1)[1].split("\nassumptions:", 1)[0]
    expected = ("model " + block).splitlines()
    m = _module()
    out = m.render(calc(PAR_COMMAND)).splitlines()
    assert out[: len(expected)] == expected


# ---------------------------------------------------------------- figures other pages carry


def test_other_pages_carry_the_same_figures() -> None:
    # inputs: llama-3.1-8b BF16 KV; llama-3.1-70b BF16 weights (TP 4); the decode pool above
    b8 = _calc(("--model", "llama-3.1-8b", "--gpu-memory-gib", "1000", "--context", "8192"))
    per = b8["kv_bytes_per_token"]
    shows(
        "assets/batching/template-batching-config.md",
        f"50 GiB of KV at {per // 1024} KiB per token = {50 * GIB // per:,} tokens",
    )
    shows("references/batching-and-scheduling.md", f"KV cache: {per // 1024} KiB per token")
    shows(
        "references/batching-and-scheduling.md",
        f"128 x (2,000 + 300) tokens x 128 KiB = {gib(128 * 2300 * per, 1)} GiB < 50 GiB",
    )
    w = _calc(("--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--tp", "4", "--context", "8192"))
    shows(
        "references/infrastructure-tuning.md",
        f"{gb(w['weight_bytes'], 1)} GB of safetensors ({gib(w['weight_bytes'], 1)} GiB); "
        "TP 4 on H100",
    )
    shows("references/infrastructure-tuning.md", f"({gb(w['weight_bytes_per_gpu'], 1)} GB per GPU")
    pool = _calc(
        (
            "--model",
            "llama-3.1-70b",
            "--gpu",
            "h100-sxm",
            "--tp",
            "4",
            "--context",
            "8400",
            "--kv-dtype",
            "fp8",
            "--weight-bytes",
            str(FP8_70B_BYTES),
        )
    )
    room = pool["kv_bytes_available_per_gpu"]
    shows(
        "assets/serving/template-disaggregated-serving.md",
        f"2 x 80 x 8 x 128 x 1 = {pool['kv_bytes_per_token']:,} B",
    )
    shows(
        "assets/serving/template-disaggregated-serving.md",
        f"4 x {gib(room)} GiB = {gb(4 * room, 0)} GB (H100, TP4, FP8 weights",
    )
