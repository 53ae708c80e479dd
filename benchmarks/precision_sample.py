"""Measure skillcheck's precision on skill repositories written by others.

Three steps, each reproducible:

  draw   run ``skillcheck check`` on every repository listed in ``precision/repos.tsv``
         (each unpacked at the listed commit under ``--trees``, in a folder named
         ``owner+repo``), check that the output is the same under two hash seeds, and
         draw a stratified random sample of errors (the same number from each repository
         that has errors, with a fixed seed). Writes ``precision/sample.jsonl``: one error a
         line, with the lines of the file around it, for a reader to judge.
  score  read ``precision/verdicts.tsv`` (``id<TAB>verdict<TAB>reason``, verdict
         ``defect`` or ``noise``) and print the precision: defects / judged.
  seeds  only the hash-seed comparison, on every tree.

Get the trees:
  git clone https://github.com/OWNER/REPO && git -C REPO checkout COMMIT   (for each row)

Run:
  python benchmarks/precision_sample.py draw --trees DIR [--per-repo 10] [--seed 2026]
  python benchmarks/precision_sample.py score

Exit codes: 0 done, 1 output differs between hash seeds or a tree is missing,
2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "precision"
REPOS = HERE / "repos.tsv"
SAMPLE = HERE / "sample.jsonl"
VERDICTS = HERE / "verdicts.tsv"
CONTEXT_LINES = 3


def repos() -> list[tuple[str, str]]:
    rows = []
    for line in REPOS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, commit = line.split("\t")
            rows.append((name, commit))
    return rows


def run_check(tree: Path, seed: str) -> list[dict[str, Any]]:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    proc = subprocess.run(
        [sys.executable, "-m", "skillcheck", "check", "--no-cache", "-f", "json", tree.name],
        cwd=tree.parent,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"skillcheck exited {proc.returncode} on {tree}:\n{proc.stderr}")
    diags: list[dict[str, Any]] = json.loads(proc.stdout)["diagnostics"]
    return diags


def checked(tree: Path) -> tuple[list[dict[str, Any]], bool]:
    """Diagnostics of one tree, and whether two hash seeds agree on them."""
    first = run_check(tree, "0")
    second = run_check(tree, "1")
    return first, first == second


def context(tree_parent: Path, diag: dict[str, Any]) -> str:
    path = tree_parent / diag["path"]
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    line = max(int(diag["line"]), 1)
    lo, hi = max(line - 1 - CONTEXT_LINES, 0), min(line + CONTEXT_LINES, len(lines))
    return "\n".join(f"{n + 1:5d}| {lines[n]}" for n in range(lo, hi))


def draw(trees: Path, per_repo: int, seed: int) -> int:
    rng = random.Random(seed)
    sample: list[dict[str, Any]] = []
    status = 0
    for name, commit in repos():
        tree = trees / name.replace("/", "+")
        if not tree.is_dir():
            print(f"missing tree {tree} (clone {name} at {commit})", file=sys.stderr)
            status = 1
            continue
        diags, same = checked(tree)
        errors = [d for d in diags if d["severity"] == "error"]
        warnings = len(diags) - len(errors)
        print(f"{name}: {len(errors)} errors, {warnings} warnings, seeds agree: {same}")
        if not same:
            status = 1
        for diag in rng.sample(errors, min(per_repo, len(errors))):
            sample.append(
                {
                    "id": f"{len(sample) + 1:03d}",
                    "repo": name,
                    "commit": commit,
                    **diag,
                    "context": context(trees, diag),
                }
            )
    with SAMPLE.open("w", encoding="utf-8") as out:
        for row in sample:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {len(sample)} errors to {SAMPLE.relative_to(HERE.parent.parent)}")
    return status


def score() -> int:
    verdicts: dict[str, str] = {}
    for line in VERDICTS.read_text(encoding="utf-8").splitlines()[1:]:
        if line.strip():
            ident, verdict, *_ = line.split("\t")
            if verdict not in ("defect", "noise"):
                print(f"verdict {verdict!r} for {ident}: use defect or noise", file=sys.stderr)
                return 2
            verdicts[ident] = verdict
    ids = [json.loads(line)["id"] for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    missing = [i for i in ids if i not in verdicts]
    if missing:
        print(f"{len(missing)} sampled errors have no verdict: {', '.join(missing)}")
        return 1
    defects = sum(1 for i in ids if verdicts[i] == "defect")
    print(f"precision: {defects}/{len(ids)} = {defects / len(ids):.0%} real defects")
    return 0


def seeds(trees: Path) -> int:
    status = 0
    for name, _commit in repos():
        tree = trees / name.replace("/", "+")
        _diags, same = checked(tree)
        print(f"{name}: seeds agree: {same}")
        status |= 0 if same else 1
    return status


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p_draw = sub.add_parser("draw")
    p_draw.add_argument("--trees", type=Path, required=True)
    p_draw.add_argument("--per-repo", type=int, default=10)
    p_draw.add_argument("--seed", type=int, default=4)
    sub.add_parser("score")
    p_seeds = sub.add_parser("seeds")
    p_seeds.add_argument("--trees", type=Path, required=True)
    args = ap.parse_args()
    if args.command == "draw":
        return draw(args.trees, args.per_repo, args.seed)
    if args.command == "seeds":
        return seeds(args.trees)
    return score()


if __name__ == "__main__":
    sys.exit(main())
