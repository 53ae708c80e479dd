"""Option defaults read by the generator: the samples state them, the tests restate them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.engines.test_engine_generate import _generate
from tools.manifests.cpp_defaults import render_cpp
from tools.manifests.defaults import computed, render_value, unset_marker


@pytest.mark.parametrize(
    ("engine", "option", "default"),
    [
        # vllm/config/cache.py: Field(default=0.92, ...)
        ("vllm", "--gpu-memory-utilization", "0.92"),
        # vllm/config/scheduler.py: max_num_seqs: int = 128
        ("vllm", "--max-num-seqs", "128"),
        ("vllm", "--port", "8000"),
        # sglang fields/schedule.py: tp_size ... = 1; mem_fraction_static ... = None
        ("sglang", "--tp-size", "1"),
        ("sglang", "--mem-fraction-static", None),
        ("sglang", "--schedule-policy", "fcfs"),
        # common.h: n_ctx = 4096; arg.cpp sets n_parallel = -1 for the server
        ("llama.cpp", "--ctx-size", "4096"),
        ("llama.cpp", "--parallel", "-1"),
        # LLAMA_FLASH_ATTN_TYPE_AUTO is what is_autoy(value) selects
        ("llama.cpp", "--flash-attn", "auto"),
        ("llama.cpp", "--cache-type-k", "f16"),
        ("llama.cpp", "--cont-batching", "true"),
        # a std::vector without an initializer has no default
        ("llama.cpp", "--lora-scaled", None),
    ],
)
def test_sample_defaults(engine: str, option: str, default: str | None, tmp_path: Path) -> None:
    manifest = _generate(engine, tmp_path)
    opt = manifest.option(option)
    assert opt is not None
    assert opt.default == default


@pytest.mark.parametrize(
    ("value", "rendered"),
    [
        (None, None),
        (True, "true"),
        (False, "false"),
        (0.9, "0.9"),
        (8, "8"),
        ("", '""'),
        ("auto", "auto"),
        ([], "[]"),
        (["a", "b"], "a b"),
        ({"b": 1, "a": 2}, '{"a":2,"b":1}'),
    ],
)
def test_render_value(value: object, rendered: str | None) -> None:
    assert render_value(value) == rendered


@pytest.mark.parametrize(
    ("init", "ctype", "rendered"),
    [
        ("0.80f", "float", "0.8"),
        ("-1", "int32_t", "-1"),
        ('"127.0.0.1"', "std::string", "127.0.0.1"),
        ('{"127.0.0.1"}', "std::vector<std::string>", "127.0.0.1"),
        ('""', "std::string", None),
        ('{"\\n", ":", "\\""}', "std::vector<std::string>", '\\n,:,\\"'),
        ("{0}", "float", "0"),
        (None, "int32_t", None),
        ("cpu_get_num_math()", "int32_t", "(computed: cpu_get_num_math())"),
    ],
)
def test_render_cpp(init: str | None, ctype: str, rendered: str | None) -> None:
    assert render_cpp(init, ctype) == rendered


def test_computed_markers() -> None:
    assert computed() == "(computed)"
    assert computed("X()") == "(computed: X())"
    assert unset_marker(["b.f", "a.g"]) == "(computed when unset: a.g and 1 more)"


def test_filled_when_unset_reads_hooks() -> None:
    from tools.manifests.defaults import filled_by_functions

    tree = ast.parse(
        "def hook(cfg):\n"
        "    if cfg.a is None:\n"
        "        cfg.a = 4\n"
        "    if cfg.b is None:\n"
        "        cfg.b = None\n"
        "    if cfg.c is None:\n"
        "        declare_resolution(cfg, 'x', c=8)\n"
    )
    assert filled_by_functions(tree, "mod") == {"a": ["mod.hook"], "c": ["mod.hook"]}
