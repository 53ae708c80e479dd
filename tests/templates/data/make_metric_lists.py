"""Write the Prometheus metric families that the pinned vLLM and SGLang releases export.

``tests/templates/test_alert_rules.py`` checks every ``vllm:`` and ``sglang:`` name in the
templates against the two lists next to this script, because CI has no engine source. The
lists are generated, not written by hand; regenerate them whenever a pinned version changes.
CI does not run this script: it needs the released wheels.

Usage (Python 3.11 on Linux x86_64, since the SGLang wheel is cp311)::

    pip download --no-deps vllm==0.33.0 sglang==0.5.23 -d wheels
    python tests/templates/data/make_metric_lists.py \
        --vllm wheels/vllm-0.33.0-*.whl --sglang wheels/sglang-0.5.23-*.whl

Each argument may also be a folder that holds the unpacked wheel (the folder containing
``vllm/`` or ``sglang/`` and its ``*.dist-info``). The files written are
``vllm-<version>-metrics.txt`` and ``sglang-<version>-metrics.txt`` in ``--out-dir``
(default: this script's folder).

How names are found: the files in ``SOURCES`` are parsed with ``ast``; every call of a
prometheus_client constructor (``Counter``, ``Gauge``, ``Histogram``, ``Summary``, the
``_counter_cls``/``_gauge_cls``/``_histogram_cls``/``_summary_cls`` indirections both
engines use, and SGLang's ``GaugeHistogram``, which exposes a plain gauge with ``gt``/``le``
labels) whose ``name`` is a string starting with the engine prefix becomes one family. A
``name`` held in a local variable is resolved from the string constants assigned to that
variable in the same function (vLLM's info gauges). A name built at run time (f-string,
concatenation) stops the script, so a new release cannot drop a family silently.

Output format, one family a line: ``<family> <type>``. Counters are written the way
prometheus_client names the family, without ``_total`` (the exposed series is
``<family>_total``); histograms and summaries without ``_bucket``/``_sum``/``_count``.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

SOURCES: dict[str, tuple[str, ...]] = {
    "vllm": ("vllm/v1/metrics/loggers.py",),
    "sglang": (
        "sglang/srt/observability/metrics_collector.py",
        "sglang/srt/observability/http_request_metrics.py",
    ),
}

CONSTRUCTORS: dict[str, str] = {
    "Counter": "counter",
    "_counter_cls": "counter",
    "_PromCounter": "counter",
    "Gauge": "gauge",
    "_gauge_cls": "gauge",
    "_PromGauge": "gauge",
    "GaugeHistogram": "gauge",
    "Histogram": "histogram",
    "_histogram_cls": "histogram",
    "_PromHistogram": "histogram",
    "Summary": "summary",
    "_summary_cls": "summary",
    "_PromSummary": "summary",
}


class Package:
    """Read files of an unpacked wheel folder or of a ``.whl`` archive."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.zip = zipfile.ZipFile(path) if path.is_file() else None

    def read(self, rel: str) -> str:
        if self.zip is not None:
            return self.zip.read(rel).decode("utf-8")
        return (self.path / rel).read_text(encoding="utf-8")

    def version(self, dist: str) -> str:
        pattern = re.compile(rf"^{re.escape(dist)}-[^/]+\.dist-info/METADATA$")
        if self.zip is not None:
            names = [n for n in self.zip.namelist() if pattern.match(n)]
        else:
            names = [
                str(p.relative_to(self.path)).replace("\\", "/")
                for p in self.path.glob(f"{dist}-*.dist-info/METADATA")
            ]
        if len(names) != 1:
            raise SystemExit(f"{self.path}: expected one {dist} METADATA, found {names}")
        for line in self.read(names[0]).splitlines():
            if line.startswith("Version: "):
                return line.split(": ", 1)[1].strip()
        raise SystemExit(f"{self.path}: no Version in {names[0]}")


def _callee(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _name_node(node: ast.Call) -> ast.expr | None:
    for kw in node.keywords:
        if kw.arg == "name":
            return kw.value
    return node.args[0] if node.args else None


def _local_constants(func: ast.AST) -> dict[str, list[str]]:
    """String constants assigned to plain local names inside one function."""
    out: dict[str, list[str]] = {}
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append(node.value.value)
    return out


def _functions(tree: ast.AST) -> Iterator[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def families(source: str, filename: str, prefix: str) -> dict[str, str]:
    """Map family name -> type for every metric constructor call in ``source``."""
    tree = ast.parse(source, filename)
    found: dict[str, str] = {}
    seen_calls: set[int] = set()
    # Walk function by function so a name held in a variable resolves in its own scope;
    # nested functions are visited twice, which the seen_calls set absorbs.
    scopes: list[ast.AST] = [*_functions(tree), tree]
    for scope in scopes:
        consts = _local_constants(scope) if scope is not tree else {}
        for node in ast.walk(scope):
            if not isinstance(node, ast.Call) or id(node) in seen_calls:
                continue
            kind = CONSTRUCTORS.get(_callee(node) or "")
            if kind is None:
                continue
            name_node = _name_node(node)
            names: list[str] = []
            if isinstance(name_node, ast.Constant) and isinstance(name_node.value, str):
                names = [name_node.value]
            elif isinstance(name_node, ast.Name):
                names = [v for v in consts.get(name_node.id, []) if v.startswith(prefix)]
                if not names and scope is not tree:
                    continue  # a variable of some other call, e.g. a wrapper's parameter
            elif name_node is not None and prefix in ast.unparse(name_node):
                raise SystemExit(
                    f"{filename}:{node.lineno}: metric name built at run time: "
                    f"{ast.unparse(name_node)}"
                )
            names = [n for n in names if n.startswith(prefix)]
            if not names:
                continue
            seen_calls.add(id(node))
            for name in names:
                family = (
                    name[: -len("_total")]
                    if kind == "counter" and name.endswith("_total")
                    else name
                )
                if found.get(family, kind) != kind:
                    raise SystemExit(
                        f"{filename}:{node.lineno}: {family} declared as {found[family]} and {kind}"
                    )
                found[family] = kind
    return found


def write_list(engine: str, pkg: Package, out_dir: Path) -> Path:
    version = pkg.version(engine)
    merged: dict[str, str] = {}
    for rel in SOURCES[engine]:
        for family, kind in families(pkg.read(rel), rel, f"{engine}:").items():
            if merged.get(family, kind) != kind:
                raise SystemExit(f"{rel}: {family} has two types")
            merged[family] = kind
    if not merged:
        raise SystemExit(f"{engine} {version}: no metric found in {', '.join(SOURCES[engine])}")
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{engine}-{version}-metrics.txt"
    lines = [
        f"# {engine} {version}: Prometheus metric families, one '<family> <type>' a line.",
        "# Generated by make_metric_lists.py (see its docstring) from:",
        *(f"#   {rel}" for rel in SOURCES[engine]),
        "# Counters are listed without '_total'; histograms and summaries without",
        "# '_bucket', '_sum' and '_count'. Do not edit by hand.",
        *(f"{family} {merged[family]}" for family in sorted(merged)),
    ]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument(
        "--vllm", type=Path, required=True, help="vLLM wheel, or folder holding the unpacked wheel"
    )
    parser.add_argument(
        "--sglang",
        type=Path,
        required=True,
        help="SGLang wheel, or folder holding the unpacked wheel",
    )
    parser.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args(argv)
    for engine, path in (("vllm", args.vllm), ("sglang", args.sglang)):
        out = write_list(engine, Package(path), args.out_dir)
        count = sum(1 for line in out.read_text().splitlines() if not line.startswith("#"))
        print(f"{out}: {count} families")
    return 0


if __name__ == "__main__":
    sys.exit(main())
