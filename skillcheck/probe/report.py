"""Printing a probe run: the reporters of ``check`` for the diagnostics, plus a summary by
outcome class and by host (on stderr in text and github formats, in the JSON payload)."""

from __future__ import annotations

import json
from typing import TextIO

from skillcheck.probe.codes import CLASSES
from skillcheck.probe.runner import ProbeResult, Summary
from skillcheck.reporters import REPORTERS, summary_dict

FORMATS = ("text", "json", "github")
MAX_HOSTS = 10


def _n(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def summary_text(s: Summary) -> str:
    head = f"probe: {_n(s.urls, 'URL')} in {_n(s.uses, 'place')}"
    extra = []
    if s.cached:
        extra.append(f"{s.cached} from the cache")
    examples = s.skipped - s.skipped_private
    if examples:
        extra.append(f"{examples} example address{'' if examples == 1 else 'es'} skipped")
    if s.skipped_private:
        extra.append(
            f"{s.skipped_private} localhost or private address"
            f"{'' if s.skipped_private == 1 else 'es'} skipped (probe them with --allow-private)"
        )
    if extra:
        head += f" ({'; '.join(extra)})"
    lines = [f"{head}, {_n(s.requests, 'request')}"]
    if s.outcomes:
        parts = [f"{k} {s.outcomes[k]}" for k in CLASSES if s.outcomes[k]]
        lines.append("  by outcome: " + ", ".join(parts))
    if s.unreachable:
        lines.append("  the network looks unreachable: no URL was judged")
    hosts = sorted(s.hosts.items(), key=lambda kv: (-kv[1].problems, -kv[1].urls, kv[0]))
    if hosts:
        width = max(len(h) for h, _ in hosts[:MAX_HOSTS])
        lines.append("  by host:")
        for h, st in hosts[:MAX_HOSTS]:
            lines.append(
                f"    {h:<{width}}  {_n(st.urls, 'URL'):>9}  "
                f"{_n(st.requests, 'request'):>12}  {_n(st.problems, 'problem')}"
            )
        if len(hosts) > MAX_HOSTS:
            lines.append(f"    ... and {_n(len(hosts) - MAX_HOSTS, 'more host')}")
    return "\n".join(lines) + "\n"


def write(fmt: str, pr: ProbeResult, out: TextIO, err: TextIO, quiet: bool = False) -> None:
    if fmt == "json":
        payload = {
            "diagnostics": [d.as_dict() for d in pr.result.diagnostics],
            "summary": {**summary_dict(pr.result), **pr.summary.as_dict()},
        }
        out.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
        return
    REPORTERS[fmt](pr.result, out, err)
    if not quiet:
        err.write(summary_text(pr.summary))
