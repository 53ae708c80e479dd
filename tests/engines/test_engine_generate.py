"""The generator, run on the small synthetic sources under ``samples/``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skillcheck.engines import Manifest, dumps, manifest_from_dict
from skillcheck.engines.config_keys import check_config_keys
from skillcheck.engines.invocations import find_invocations
from skillcheck.engines.options import check_invocation
from tools.manifests import GenerateError, build
from tools.manifests.__main__ import main

SAMPLES = Path(__file__).resolve().parent / "samples"
EXPECTED = SAMPLES / "expected"
DATE = "2026-11-30"
LLAMA_CHANGELOG = (
    "# Changelog\n\n## [9.9.9]\n\n- feat: update llama.cpp to ggml-org/llama.cpp@abc1234de\n\n"
    "## [9.9.8]\n\n- feat: update llama.cpp to ggml-org/llama.cpp@0000000aa\n"
)
VERSIONS = {"vllm": "9.9.9", "sglang": "9.9.9", "llama.cpp": "9.9.9", "tensorrt-llm": "9.9"}


def _source(engine: str, tmp_path: Path) -> Path:
    if engine == "llama.cpp":
        # The sdist's CHANGELOG.md names the vendored commit; it is written here
        # rather than committed so that the Markdown checks never see it.
        root = tmp_path / "llama"
        shutil.copytree(SAMPLES / "llama", root)
        (root / "CHANGELOG.md").write_text(LLAMA_CHANGELOG, encoding="utf-8")
        return root
    return SAMPLES / {"vllm": "vllm", "sglang": "sglang", "tensorrt-llm": "trtllm"}[engine]


def _generate(engine: str, tmp_path: Path) -> Manifest:
    return build(engine, VERSIONS[engine], _source(engine, tmp_path), DATE)


@pytest.mark.parametrize("engine", sorted(VERSIONS))
def test_generator_output_matches_the_expected_manifest(engine: str, tmp_path: Path) -> None:
    expected = (EXPECTED / f"{engine}.json").read_text(encoding="utf-8")
    assert dumps(_generate(engine, tmp_path)) == expected


@pytest.mark.parametrize("engine", sorted(VERSIONS))
def test_expected_manifests_round_trip(engine: str) -> None:
    text = (EXPECTED / f"{engine}.json").read_text(encoding="utf-8")
    assert dumps(manifest_from_dict(json.loads(text))) == text


def test_vllm_sample_follows_get_kwargs(tmp_path: Path) -> None:
    m = _generate("vllm", tmp_path)
    prefix = m.option("--enable-prefix-caching")
    assert prefix is not None and prefix.negatable and not prefix.takes_value
    assert prefix.negations == ("--no-enable-prefix-caching", "--disable-prefix-caching")
    dtype = m.option("--kv-cache-dtype")
    assert dtype is not None and dtype.choices == ("auto", "fp8", "fp8_e5m2")
    assert dtype.choices_kind == "known"  # Literal | str: plugins may add more
    backend = m.option("--sched-backend")
    assert backend is not None and backend.choices == ("a", "b")  # "passthrough" removed
    assert backend.normalize == "lower,dash-to-underscore"
    spec = m.option("-sc")
    assert spec is not None and spec.name == "--speculative-config" and spec.type == "json"
    assert spec.json_keys == ("method", "model", "num_speculative_tokens")
    assert m.option("--derived") is None  # init=False fields are not options
    old_mode = m.option("--old-mode")
    assert old_mode is not None and old_mode.deprecated == "Deprecated: has no effect any more."
    old_flag = m.option("--old-flag")
    assert old_flag is not None and old_flag.deprecated is not None
    origins = m.option("--allowed-origins")
    assert origins is not None and origins.type == "json" and origins.nargs is None
    assert [p.name for p in m.positionals] == ["model_tag"]
    assert m.parser.underscore_to_dash and m.parser.dotted_json_keys
    assert dict(m.parser.shorthands) == {"-O": "--optimization-level"}
    assert m.config_file is not None and m.config_file["key_style"] == "dash-or-underscore"


def test_sglang_sample_follows_add_cli_args_from_dataclass(tmp_path: Path) -> None:
    m = _generate("sglang", tmp_path)
    assert m.option("--model") is m.option("--model-path")
    assert m.option("--hidden-knob") is None and m.option("--plain-field") is None
    quant = m.option("--quantization")
    assert quant is not None and quant.choices_kind == "known"  # extended by plugins
    tf32 = m.option("--enable-tf32")
    assert tf32 is not None and tf32.negations == ("--no-enable-tf32",) and not tf32.config_ok
    dp = m.option("--enable-dp-attention")
    assert dp is not None and dp.deprecated and not dp.takes_value
    parser_opt = m.option("--reasoning-parser")
    assert parser_opt is not None and parser_opt.choices == ("auto", "deepseek-r1", "qwen3")
    assert m.option("--model-type", "python -m sglang.launch_server") is None
    assert m.option("--model-type", "sglang serve") is not None


def test_llama_sample_filters_the_server_example(tmp_path: Path) -> None:
    m = _generate("llama.cpp", tmp_path)
    assert m.version == "abc1234de"
    assert m.option("-p") is None and m.option("--perplexity") is None
    parallel = m.option("-np")
    assert parallel is not None and parallel.env == "LLAMA_ARG_N_PARALLEL"
    ngl = m.option("-ngl")
    assert ngl is not None and ngl.choices == ("auto", "all") and ngl.accepts_numbers
    fa = m.option("--flash-attn")
    assert fa is not None and fa.choices == ("on", "true", "off", "false", "auto")
    ctk = m.option("--cache-type-k")
    assert ctk is not None and ctk.choices == ("f16", "q8_0", "iq4_nl")
    draft = m.option("--draft-max")
    assert draft is not None and draft.removed
    lora = m.option("--lora-scaled")
    assert lora is not None and lora.nargs == 2
    assert not m.parser.equals_form and m.parser.underscore_to_dash


def test_trtllm_sample_reads_click_and_pydantic(tmp_path: Path) -> None:
    m = _generate("tensorrt-llm", tmp_path)
    assert m.commands == ("trtllm-serve", "trtllm-serve serve", "trtllm-serve disaggregated")
    extra = m.option("--config", "trtllm-serve")
    assert extra is not None and extra.name == "--extra_llm_api_options"
    backend = m.option("--backend", "trtllm-serve")
    assert backend is not None and backend.choices == ("pytorch", "tensorrt", "trt")
    knob = m.option("--old_knob", "trtllm-serve")
    assert knob is not None and knob.deprecated == "An old knob."
    assert m.option("-c", "trtllm-serve disaggregated") is not None
    assert m.option("-c", "trtllm-serve") is None
    keys = m.config_keys
    assert keys is not None
    assert set(keys["kv_cache_config"].keys or {}) == {
        "free_gpu_memory_fraction",
        "enable_block_reuse",
        "dtype",
    }
    spec = keys["speculative_config"]
    assert spec.discriminator == "decoding_type"
    assert dict(spec.variants or {}) == {
        "Eagle": ("decoding_type", "eagle3_one_model", "max_draft_len", "speculative_model"),
        "MTP": ("decoding_type", "max_draft_len", "num_nextn_predict_layers", "speculative_model"),
    }
    assert (spec.keys or {})["speculative_model"].aliases == ("speculative_model_dir",)
    assert keys["decoding_config"].deprecated == "Use speculative_config instead."
    assert (keys["scheduler_config"].keys or {})["capacity_scheduler_policy"].choices == (
        "MAX_UTILIZATION",
        "GUARANTEED_NO_EVICT",
    )
    assert keys["build_config"].note is not None  # popped by trtllm-serve itself
    assert keys["lora_config"].keys is None  # type not in the sources read


def test_sample_manifests_drive_the_checker(tmp_path: Path) -> None:
    m = _generate("tensorrt-llm", tmp_path)
    (inv,) = find_invocations("trtllm-serve m --tp-size 2 --old_knob 0.1 --backend trt")
    assert [p.kind for p in check_invocation(inv, m)] == ["unknown-option", "deprecated-option"]
    problems = check_config_keys(
        {"speculative_config": {"decoding_type": "MTP", "eagle3_one_model": True}}, m
    )
    assert [p.message for p in problems] == [
        "unknown config key `speculative_config.eagle3_one_model` (tensorrt-llm 9.9)"
    ]


def test_missing_sources_are_reported(tmp_path: Path) -> None:
    with pytest.raises(GenerateError):
        build("vllm", "1.0", tmp_path, DATE)
    with pytest.raises(GenerateError):
        build("nope", "1.0", tmp_path, DATE)


def test_cli_writes_a_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code = main(
        [
            "tensorrt-llm",
            "9.9",
            "--source",
            str(SAMPLES / "trtllm"),
            "--output",
            str(out),
            "--date",
            DATE,
        ]
    )
    assert code == 0
    written = out / "tensorrt-llm-9.9.json"
    assert written.read_text(encoding="utf-8") == (EXPECTED / "tensorrt-llm.json").read_text(
        encoding="utf-8"
    )
    assert "tensorrt-llm-9.9.json" in capsys.readouterr().out
    assert main(["vllm", "1.0", "--source", str(tmp_path), "--output", str(out)]) == 1


def test_cli_reports_an_unreadable_archive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("vllm-1.0-py3-none-any.whl", "llama_cpp_python-1.0.tar.gz"):
        archive = tmp_path / name
        archive.write_bytes(b"not an archive")
        engine = "llama.cpp" if name.endswith(".tar.gz") else "vllm"
        assert main([engine, "1.0", "--source", str(archive), "--stdout"]) == 1
        assert capsys.readouterr().err.startswith("error: ")
