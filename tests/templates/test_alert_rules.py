"""The alert-rule template: its rule file parses, has the Prometheus rule-file shape, and names only
metrics that vLLM 0.33.0 and SGLang 0.5.23 export, with the suffix each metric type allows.

CI has no engine source, so the exported names come from ``data/*-metrics.txt``, generated from the
released wheels by ``data/make_metric_lists.py`` (its docstring has the command). Each line there
is ``<family> <type>``: counters without ``_total``, histograms without ``_bucket``, ``_sum`` and
``_count``.

The promtool test skips when promtool is not on PATH, unless ``SKILLCHECK_REQUIRE_PROMTOOL=1``
(set in CI, which installs promtool), where it fails instead.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from skillcheck.extract import named_blocks

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
TEMPLATE = ROOT / "assets" / "observability" / "template-alerts-and-dashboard.md"
RULES_NAME = "llm-inference-rules.yaml"
TEST_NAME = "llm-inference-rules.test.yaml"
# Templates whose prose, tables and code mention engine metrics; all must use exported names.
METRIC_PAGES = (
    TEMPLATE,
    ROOT / "assets" / "serving" / "template-high-throughput-setup.md",
    ROOT / "assets" / "checklists" / "inference-review-checklist.md",
)
METRIC_LISTS = {
    "vllm": DATA / "vllm-0.33.0-metrics.txt",
    "sglang": DATA / "sglang-0.5.23-metrics.txt",
}
TYPES = {"counter", "gauge", "histogram", "summary"}
# Series suffixes and the family types that expose them (prometheus_client exposition).
SUFFIXES = (
    ("_bucket", {"histogram"}),
    ("_sum", {"histogram", "summary"}),
    ("_count", {"histogram", "summary"}),
    ("_total", {"counter"}),
)
ENGINE_NAME = re.compile(r"(?<![\w:])(?:vllm|sglang):[A-Za-z0-9_:]+")
RECORD_NAME = re.compile(r"(?<![\w:])llm:[A-Za-z0-9_:]+")
METRIC_NAME_SYNTAX = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
DURATION = re.compile(r"^(\d+(ms|s|m|h|d|w|y))+$")
RECORD_KEYS = {"record", "expr", "labels"}
ALERT_KEYS = {"alert", "expr", "for", "keep_firing_for", "labels", "annotations"}


def load_metrics() -> dict[str, str]:
    metrics: dict[str, str] = {}
    for engine, path in METRIC_LISTS.items():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line or line.startswith("#"):
                continue
            family, kind = line.split()
            assert family.startswith(f"{engine}:"), f"{path.name}:{n}: {family}"
            assert kind in TYPES, f"{path.name}:{n}: unknown type {kind}"
            assert family not in metrics, f"{path.name}:{n}: duplicate {family}"
            metrics[family] = kind
    return metrics


METRICS = load_metrics()


def series_problem(name: str, metrics: dict[str, str]) -> str | None:
    """Why ``name`` is not a series the engines expose, or None when it is one."""
    kind = metrics.get(name)
    if kind == "gauge":
        return None
    if kind is not None:
        return f"{name} is a {kind}: query it through its series suffixes"
    for suffix, allowed in SUFFIXES:
        if name.endswith(suffix):
            base = name[: -len(suffix)]
            base_kind = metrics.get(base)
            if base_kind in allowed:
                return None
            if base_kind is not None:
                return f"{name}: '{suffix}' on the {base_kind} {base}"
    return f"{name} is not exported at the pinned version"


def rule_file() -> dict[str, Any]:
    text = TEMPLATE.read_text(encoding="utf-8")
    blocks = [content for name, _, content in named_blocks(text) if name == RULES_NAME]
    assert len(blocks) == 1, f"expected one block titled {RULES_NAME}, found {len(blocks)}"
    doc = yaml.safe_load(blocks[0])
    assert isinstance(doc, dict)
    return doc


def all_rules(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [rule for group in doc["groups"] for rule in group["rules"]]


def test_metric_lists_are_generated_files() -> None:
    for engine, path in METRIC_LISTS.items():
        text = path.read_text(encoding="utf-8")
        assert text.startswith(f"# {engine} "), path.name
        assert "make_metric_lists.py" in text, path.name
        families = [ln.split()[0] for ln in text.splitlines() if ln and not ln.startswith("#")]
        assert families == sorted(families), f"{path.name} is not sorted"
    # spot checks that tie the lists to facts quoted on the reference pages
    assert METRICS["vllm:num_requests_waiting"] == "gauge"
    assert METRICS["vllm:request_success"] == "counter"
    assert METRICS["vllm:iteration_tokens_total"] == "histogram"
    assert METRICS["sglang:num_retracted_requests"] == "counter"
    assert METRICS["sglang:time_to_first_token_seconds"] == "histogram"


def test_rule_file_structure() -> None:
    doc = rule_file()
    assert set(doc) == {"groups"}
    groups = doc["groups"]
    assert isinstance(groups, list) and groups
    names = [g.get("name") for g in groups]
    assert all(isinstance(n, str) and n for n in names)
    assert len(names) == len(set(names)), f"duplicate group names: {names}"
    for group in groups:
        assert set(group) <= {"name", "interval", "limit", "rules"}, group["name"]
        if "interval" in group:
            assert DURATION.match(str(group["interval"])), group["interval"]
        rules = group.get("rules")
        assert isinstance(rules, list) and rules, f"group {group['name']} has no rules"
        for rule in rules:
            assert isinstance(rule, dict)
            assert ("record" in rule) != ("alert" in rule), rule
            assert isinstance(rule.get("expr"), str) and rule["expr"].strip(), rule
            if "record" in rule:
                assert set(rule) <= RECORD_KEYS, rule["record"]
                assert METRIC_NAME_SYNTAX.match(rule["record"]), rule["record"]
            else:
                assert set(rule) <= ALERT_KEYS, rule["alert"]
                assert isinstance(rule["alert"], str) and rule["alert"], rule
                for key in ("for", "keep_firing_for"):
                    if key in rule:
                        assert DURATION.match(str(rule[key])), (rule["alert"], rule[key])
                for key in ("labels", "annotations"):
                    value = rule.get(key, {})
                    assert isinstance(value, dict), (rule["alert"], key)
                    assert all(isinstance(v, str) for v in value.values()), (rule["alert"], key)
    records = [r["record"] for r in all_rules(doc) if "record" in r]
    assert len(records) == len(set(records)), "a recording rule name appears twice"


def test_rule_file_keeps_the_reference_names() -> None:
    """The names of observability-and-slos.md's rule file, which the template extends."""
    rules = all_rules(rule_file())
    records = {r["record"] for r in rules if "record" in r}
    alerts = {r["alert"] for r in rules if "alert" in r}
    for window in ("5m", "30m", "1h", "6h", "3d"):
        assert f"llm:ttft_over_2s:ratio_rate{window}" in records
    for window in ("5m", "30m", "1h", "6h"):
        assert f"llm:errors:ratio_rate{window}" in records
    assert {
        "LLMTTFTBudgetBurnFast",
        "LLMTTFTBudgetBurnSlow",
        "LLMErrorBudgetBurnFast",
        "LLMQueueNotDraining",
        "LLMKVCachePressure",
        "LLMPreemptionRateHigh",
        "LLMAdmissionRejections",
        "SGLangRetractionUnderKVPressure",
        "LLMEngineMetricsAbsent",
    } <= alerts


def test_every_expr_names_exported_metrics_with_valid_suffixes() -> None:
    rules = all_rules(rule_file())
    records = {r["record"] for r in rules if "record" in r}
    problems: list[str] = []
    seen: set[str] = set()
    for rule in rules:
        label = rule.get("record") or rule.get("alert")
        for name in ENGINE_NAME.findall(rule["expr"]):
            seen.add(name)
            problem = series_problem(name, METRICS)
            if problem:
                problems.append(f"{label}: {problem}")
        for name in RECORD_NAME.findall(rule["expr"]):
            if name not in records:
                problems.append(f"{label}: recording rule {name} is not defined")
    assert not problems, "\n".join(problems)
    assert any(n.startswith("vllm:") for n in seen) and any(n.startswith("sglang:") for n in seen)


@pytest.mark.parametrize("page", METRIC_PAGES, ids=lambda p: p.name)
def test_templates_mention_only_exported_metric_series(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    names = sorted(set(ENGINE_NAME.findall(text)))
    assert names, f"{page.name} names no engine metric"
    problems = [p for p in (series_problem(n, METRICS) for n in names) if p]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("vllm:num_requests_waiting", None),
        ("vllm:request_success_total", None),
        ("vllm:time_to_first_token_seconds_bucket", None),
        ("vllm:time_to_first_token_seconds_count", None),
        ("vllm:iteration_tokens_total_bucket", None),
        ("sglang:num_retracted_requests_total", None),
        ("vllm:request_success", "is a counter"),
        ("vllm:time_to_first_token_seconds", "is a histogram"),
        ("vllm:num_preemptions_bucket", "'_bucket' on the counter"),
        ("vllm:num_requests_waiting_total", "'_total' on the gauge"),
        ("vllm:time_to_first_token_seconds_total", "'_total' on the histogram"),
        ("vllm:gpu_cache_usage_perc", "not exported"),
        ("sglang:num_queue_reqs_count", "'_count' on the gauge"),
    ],
)
def test_series_problem_accepts_and_rejects(name: str, expected: str | None) -> None:
    problem = series_problem(name, METRICS)
    if expected is None:
        assert problem is None
    else:
        assert problem is not None and expected in problem


def test_promtool_checks_and_unit_tests_the_rules(tmp_path: Path) -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        if os.environ.get("SKILLCHECK_REQUIRE_PROMTOOL") == "1":
            pytest.fail("SKILLCHECK_REQUIRE_PROMTOOL=1 but promtool is not on PATH")
        pytest.skip("promtool is not installed (set SKILLCHECK_REQUIRE_PROMTOOL=1 to require it)")
    text = TEMPLATE.read_text(encoding="utf-8")
    for name, _, content in named_blocks(text):
        if name in (RULES_NAME, TEST_NAME):
            (tmp_path / name).write_text(content, encoding="utf-8")
    for args in (["check", "rules", RULES_NAME], ["test", "rules", TEST_NAME]):
        res = subprocess.run(
            [promtool, *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert res.returncode == 0, res.stdout + res.stderr
