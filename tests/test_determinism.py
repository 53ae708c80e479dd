"""The same tree gives the same output whatever Python's hash seed.

Runs the CLI in fresh processes under several PYTHONHASHSEED values, on the pack and on every
fail fixture at once (one run over many skills also shows that no rule's code is used before
the module that declares it is imported).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SEEDS = ("0", "1", "2", "3")


def run(target: str, seed: str) -> tuple[int, object]:
    res = subprocess.run(
        [sys.executable, "-m", "skillcheck", "check", "--no-cache", "-f", "json", target],
        cwd=REPO,
        env=dict(os.environ, PYTHONHASHSEED=seed),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode in (0, 1), (res.stdout + res.stderr)[-2000:]
    report = json.loads(res.stdout)
    report.get("summary", {}).pop("elapsed_seconds", None)
    return res.returncode, report


@pytest.mark.parametrize("target", [".", "tests/fixtures/fail"])
def test_output_identical_under_hash_seeds(target: str) -> None:
    outputs = {seed: run(target, seed) for seed in SEEDS}
    first = outputs[SEEDS[0]]
    for seed in SEEDS[1:]:
        assert outputs[seed] == first, f"PYTHONHASHSEED={seed} differs from {SEEDS[0]}"
