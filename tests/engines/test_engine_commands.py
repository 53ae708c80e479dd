"""Shell-command parsing and flag checking against the committed manifests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skillcheck.engines import load_manifest
from skillcheck.engines.config_keys import check_config_keys
from skillcheck.engines.findings import Finding
from skillcheck.engines.invocations import find_invocations
from skillcheck.engines.options import check_invocation
from skillcheck.engines.shell import tokenize

CASES = Path(__file__).resolve().parent / "commands"
EXPECT = re.compile(r"^# expect: (?P<kind>[a-z-]+) (?P<line>\d+):(?P<col>\d+) (?P<text>.+)$")


def _problems(text: str) -> list[Finding]:
    found: list[Finding] = []
    for inv in find_invocations(text):
        found.extend(check_invocation(inv, load_manifest(inv.engine)))
    return found


def _case_ids(kind: str) -> list[Path]:
    return sorted((CASES / kind).glob("*.txt"))


@pytest.mark.parametrize("path", _case_ids("pass"), ids=lambda p: p.stem)
def test_pass_cases_have_no_problems(path: Path) -> None:
    assert _problems(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", _case_ids("fail"), ids=lambda p: p.stem)
def test_fail_cases_report_exactly_the_expected_problems(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    expected = [m.groupdict() for m in map(EXPECT.match, text.splitlines()) if m]
    assert expected, f"{path.name} has no `# expect:` lines"
    problems = _problems(text)
    got = sorted((p.kind, p.line, p.column) for p in problems)
    want = sorted((e["kind"], int(e["line"]), int(e["col"])) for e in expected)
    assert got == want, "\n".join(map(str, problems))
    for e in expected:
        match = next(
            p
            for p in problems
            if (p.kind, p.line, p.column) == (e["kind"], int(e["line"]), int(e["col"]))
        )
        assert e["text"] in match.message + " " + match.hint, match


def test_unknown_option_hint_names_the_real_flag() -> None:
    (problem,) = _problems("vllm serve m --max-num-seq 8 --gpu-memory-utilisation 0.9")[1:]
    assert problem.kind == "unknown-option"
    assert problem.hint == "did you mean `--gpu-memory-utilization`?"


def test_find_invocations_reports_options_and_positions() -> None:
    text = "FOO=1 nohup \\\n  vllm serve m \\\n  --max-num-seqs=8 --port 9000\n"
    (inv,) = find_invocations(text)
    assert (inv.engine, inv.command, inv.line, inv.column) == ("vllm", "vllm serve", 2, 3)
    assert [(t.text, t.line, t.column) for t in inv.args] == [
        ("m", 2, 14),
        ("--max-num-seqs=8", 3, 3),
        ("--port", 3, 20),
        ("9000", 3, 27),
    ]


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("python3 -m sglang.launch_server --model-path m", "python -m sglang.launch_server"),
        (
            "/usr/bin/python3.11 -m sglang.launch_server --model-path m",
            "python -m sglang.launch_server",
        ),
        ("sglang serve m", "sglang serve"),
        ("./llama-server -m m.gguf", "llama-server"),
        ("./build/bin/llama-server -m m.gguf", "llama-server"),
        ("trtllm-serve serve m", "trtllm-serve"),
        ("sudo -E env A=1 vllm serve m", "vllm serve"),
        ("uvx --from vllm vllm serve m", "vllm serve"),
        ("time taskset -c 0-7 llama-server -m x", "llama-server"),
    ],
)
def test_find_invocations_recognises_entry_points(text: str, command: str) -> None:
    (inv,) = find_invocations(text)
    assert inv.command == command


def test_separators_split_commands() -> None:
    invs = find_invocations("vllm serve a && llama-server -m b; trtllm-serve c | tee x")
    assert [i.command for i in invs] == ["vllm serve", "llama-server", "trtllm-serve"]


@pytest.mark.parametrize(
    "text",
    [
        "vllm serve m --chat-template 'open",
        'vllm serve m --chat-template "open',
        "vllm serve m \\",
        "vllm serve $(",
        "vllm serve m <<",
        "\\",
        "'",
        'vllm serve --speculative-config \'{"a": [1, {2: }\' --x="\\"',
        "\x00\x01 vllm serve \t\r\n --=",
    ],
)
def test_never_raises_on_bad_shell(text: str) -> None:
    """Bad shell is handled by the tokenizer and the checker proper: no problem comes from the
    catch-all that turns a checker bug into 'could not check'."""
    commands, problems = tokenize(text)  # raises nothing: find_invocations hides a raise
    assert isinstance(commands, list) and all(p.kind == "bad-quoting" for p in problems)
    for inv in find_invocations(text):
        problems = check_invocation(inv, load_manifest(inv.engine))
        assert all(isinstance(p, Finding) for p in problems)
        assert not [p for p in problems if "could not check" in p.message], problems


def test_a_checker_bug_is_reported_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    import skillcheck.engines.config_keys as config_keys
    import skillcheck.engines.options as options

    def broken(self: object) -> list[Finding]:
        raise RuntimeError("boom")

    monkeypatch.setattr(options._Checker, "run", broken)
    (inv,) = find_invocations("vllm serve m --max-num-seqs 8")
    (problem,) = check_invocation(inv, load_manifest("vllm"))
    assert problem.kind == "unknown-option" and (problem.line, problem.column) == (1, 1)
    assert problem.message == "could not check this command: RuntimeError('boom')"

    monkeypatch.setattr(config_keys, "_check_tree", lambda *a: 1 / 0)
    monkeypatch.setattr(config_keys, "_check_flag_config", lambda *a: 1 / 0)
    for engine in ("vllm", "sglang", "llama.cpp", "tensorrt-llm"):
        got = check_config_keys({"a": 1}, load_manifest(engine))
        assert [p.message for p in got] in (
            [f"{engine} reads no YAML configuration file"],
            ["could not check the config: ZeroDivisionError('division by zero')"],
        ), engine


def test_bad_quoting_is_a_problem_of_the_invocation() -> None:
    (inv,) = find_invocations('vllm serve m --chat-template "{{x}}\n  --port 1')
    assert [p.kind for p in inv.problems] == ["bad-quoting"]
    assert [p.kind for p in check_invocation(inv, load_manifest("vllm"))] == ["bad-quoting"]


def test_placeholders_are_accepted_for_any_type() -> None:
    text = (
        "vllm serve {{model}} --max-num-seqs {{max_num_seqs}} --kv-cache-dtype $KV "
        "--speculative-config \"$SPEC\" --compilation-config '{{compilation}}'"
    )
    assert _problems(text) == []


def test_human_readable_numbers_in_vllm_json() -> None:
    text = 'vllm serve m --kv-transfer-config \'{"kv_connector": "X", "kv_port": 14k}\''
    assert _problems(text) == []


def test_checker_ignores_a_foreign_manifest() -> None:
    (inv,) = find_invocations("vllm serve m --bogus")
    assert check_invocation(inv, load_manifest("sglang")) == []


# --------------------------------------------------------------- config files


def test_vllm_config_keys_accept_dashes_and_underscores() -> None:
    manifest = load_manifest("vllm")
    good = {
        "tensor_parallel_size": 2,
        "max-num-seqs": 64,
        "no-enable-prefix-caching": True,
        "speculative-config": {"method": "ngram", "num_speculative_tokens": 4},
        "served-model-name": ["a", "b"],
        "model": "{{model}}",
    }
    assert check_config_keys(good, manifest) == []
    bad = check_config_keys(
        {
            "max_num_seq": 3,
            "kv-cache-dtype": "fp9",
            "max-model-len": True,
            "compilation-config": {"bogus": 1},
            "enable_prefix_caching": False,
        },
        manifest,
    )
    assert [(p.kind, p.line, p.column) for p in bad] == [
        ("unknown-option", 0, 0),
        ("bad-choice", 0, 0),
        ("missing-value", 0, 0),
        ("unknown-option", 0, 0),
        ("unexpected-value", 0, 0),
    ]
    assert bad[0].hint == "did you mean `max-num-seqs`?"
    assert bad[4].hint == "write `no-enable-prefix-caching: true`"
    # under `vllm serve --config` a `false` is dropped whatever the spelling
    dashed = check_config_keys({"enable-prefix-caching": False}, manifest)
    assert [p.kind for p in dashed] == ["unexpected-value"]


def test_sglang_config_keys_use_the_flag_spelling() -> None:
    manifest = load_manifest("sglang")
    assert check_config_keys({"tp-size": 2, "schedule-policy": "lpm"}, manifest) == []
    problems = check_config_keys({"tp_size": 2, "enable-dp-attention": True}, manifest)
    assert [p.kind for p in problems] == ["unknown-option", "unknown-option"]
    assert problems[0].hint == "did you mean `tp-size`?"


def test_trtllm_nested_config_keys() -> None:
    manifest = load_manifest("tensorrt-llm")
    good = {
        "kv_cache_config": {"free_gpu_memory_fraction": 0.85, "enable_block_reuse": True},
        "speculative_config": {
            "decoding_type": "Eagle3",
            "max_draft_len": 3,
            "speculative_model_dir": "{{draft}}",
        },
        "cache_transceiver_config": {"backend": "UCX"},
        "enable_attention_dp": True,
        "cuda_graph_config": {"enable_padding": True, "max_batch_size": 64},
    }
    assert check_config_keys(good, manifest) == []
    bad = check_config_keys(
        {
            "kv_cache_config": {"free_gpu_mem_fraction": 0.8},
            "speculative_config": {"decoding_type": "Eagle3", "num_nextn_predict_layers": 1},
            "cache_transceiver_config": {"backend": "UCXX"},
            "tp_size": 2,
        },
        manifest,
    )
    assert [p.kind for p in bad] == [
        "unknown-option",
        "unknown-option",
        "bad-choice",
        "unknown-option",
    ]
    assert "kv_cache_config.free_gpu_mem_fraction" in bad[0].message
    assert bad[0].hint == "did you mean `free_gpu_memory_fraction`?"
    assert bad[3].hint == "did you mean `tensor_parallel_size`?"


@pytest.mark.parametrize("value", [None, [], "text", 3, {1: 2}, {"a": object()}])
def test_config_check_never_raises(value: object) -> None:
    for engine in ("vllm", "sglang", "llama.cpp", "tensorrt-llm"):
        problems = check_config_keys(value, load_manifest(engine))
        assert all(isinstance(p, Finding) for p in problems)
        assert not [p for p in problems if "could not check" in p.message], (engine, problems)
        if value is None:
            assert problems == []
        elif not isinstance(value, dict):
            assert [p.message for p in problems] == ["a config file must hold a mapping of keys"]
