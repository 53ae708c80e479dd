"""``python -m tools.manifests coverage``: how much of each engine the pack explains.

Reads ``data/engine-flags/<engine>.tsv`` and counts the options of the pinned release (rows
whose status is not ``removed``): those whose ``covered_by`` names a page section (explained),
those classified ``out-of-scope: REASON``, and those with neither. Operator-relevant means
not out of scope. Prints a Markdown table; README carries the same table, and a test keeps
the two equal.

Exit codes: 0 printed, 1 an index file is missing or malformed, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from skillcheck.engines.flagindex import INDEX_FILES, FlagIndexError, Row, load_index
from tools.manifests.index import INDEX_DIR

ENGINE_NAMES = {
    "vllm": "vLLM (`vllm serve`)",
    "sglang": "SGLang (`sglang.launch_server`)",
    "llama.cpp": "llama.cpp (`llama-server`)",
    "tensorrt-llm": "TensorRT-LLM (`trtllm-serve` and LLM-API keys)",
}
HEADER = (
    "| Engine | Options at the pin | Operator-relevant | Explained on a page | Out of scope |"
    " Unclassified |\n| --- | --- | --- | --- | --- | --- |"
)


def counts(rows: Sequence[Row]) -> tuple[int, int, int, int]:
    """(options at the pin, explained, out of scope, unclassified)."""
    pinned = [r for r in rows if not r.status.startswith("removed")]
    out = sum(1 for r in pinned if r.covered_by.startswith("out-of-scope:"))
    unclassified = sum(1 for r in pinned if not r.covered_by.strip())
    return len(pinned), len(pinned) - out - unclassified, out, unclassified


def table(directory: Path = INDEX_DIR) -> str:
    lines = [HEADER]
    for engine, filename in INDEX_FILES.items():
        total, explained, out, unclassified = counts(load_index(directory / filename))
        relevant = explained + unclassified
        share = f" ({explained / relevant:.0%})" if relevant else ""
        lines.append(
            f"| {ENGINE_NAMES[engine]} | {total} | {relevant} | {explained}{share} | {out} |"
            f" {unclassified} |"
        )
    return "\n".join(lines) + "\n"


def coverage_main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tools.manifests coverage",
        description="Print how many options of each engine the pack explains.",
    )
    ap.add_argument("--index-dir", type=Path, default=INDEX_DIR, help="where the TSVs are")
    args = ap.parse_args(argv)
    try:
        sys.stdout.write(table(args.index_dir))
    except (OSError, FlagIndexError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
