"""Reporters: one function per ``--format``, each writing a result to a stream."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TextIO

from skillcheck import __version__
from skillcheck.diagnostics import Diagnostic, Severity
from skillcheck.registry import RULES
from skillcheck.runner import Result


def summary_line(result: Result) -> str:
    def n(k: int, word: str) -> str:
        return f"{k} {word}{'' if k == 1 else 's'}"

    return (
        f"{n(result.errors, 'error')}, {n(result.warnings, 'warning')} in "
        f"{n(result.skills, 'skill')} ({n(result.files, 'Markdown file')}) "
        f"in {result.elapsed:.2f}s"
    )


def location(d: Diagnostic) -> str:
    return f"{d.path}:{d.line}:{d.column}"


def text(result: Result, out: TextIO, err: TextIO) -> None:
    for d in result.diagnostics:
        sev = "" if d.severity is Severity.ERROR else " (warning)"
        out.write(f"{location(d)}: {d.code}{sev} {d.message}\n")
        if d.hint:
            out.write(f"  hint: {d.hint}\n")
        if d.url:
            out.write(f"  url: {d.url}\n")
    out.write(summary_line(result) + "\n")


def summary_dict(result: Result) -> dict[str, object]:
    return {
        "errors": result.errors,
        "warnings": result.warnings,
        "skills": result.skills,
        "files": result.files,
        "elapsed_seconds": round(result.elapsed, 3),
    }


def as_json(result: Result, out: TextIO, err: TextIO) -> None:
    payload = {
        "diagnostics": [d.as_dict() for d in result.diagnostics],
        "summary": summary_dict(result),
    }
    out.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


def _gh_escape(s: str, prop: bool = False) -> str:
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        s = s.replace(":", "%3A").replace(",", "%2C")
    return s


def github(result: Result, out: TextIO, err: TextIO) -> None:
    for d in result.diagnostics:
        kind = "error" if d.severity is Severity.ERROR else "warning"
        props = [
            f"file={_gh_escape(d.path, True)}",
            f"line={d.line}",
            f"col={d.column}",
            f"title={_gh_escape(d.code, True)}",
        ]
        msg = d.message + (f" (hint: {d.hint})" if d.hint else "")
        out.write(f"::{kind} {','.join(props)}::{_gh_escape(msg)}\n")
    err.write(summary_line(result) + "\n")


# The project's repository, as docs/install.md names it (SARIF's driver.informationUri).
REPOSITORY_URL = "https://github.com/OWNER/REPOSITORY"


def sarif_uri(path: str) -> str:
    """A reported path as a SARIF artifact URI (RFC 3986): a relative reference with spaces,
    '#', '%', ':' and non-ASCII percent-encoded (UTF-8), or a file: URI for an absolute path."""
    from pathlib import Path
    from urllib.parse import quote

    if Path(path).is_absolute():
        return Path(path).as_uri()
    return quote(path, safe="/")


def sarif(result: Result, out: TextIO, err: TextIO) -> None:
    used = sorted({d.code for d in result.diagnostics})
    index = {code: i for i, code in enumerate(used)}
    rules = []
    for code in used:
        r = RULES.get(code)
        rules.append(
            {
                "id": code,
                "name": r.name if r else code,
                "shortDescription": {"text": r.summary if r else code},
                "defaultConfiguration": {"level": (r.severity.value if r else "error")},
            }
        )
    results = []
    for d in result.diagnostics:
        loc: dict[str, object] = {
            "artifactLocation": {"uri": sarif_uri(d.path)},
            "region": {"startLine": d.line, "startColumn": d.column},
        }
        msg = d.message + (f" Hint: {d.hint}" if d.hint else "")
        results.append(
            {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": d.severity.value,
                "message": {"text": msg},
                "locations": [{"physicalLocation": loc}],
            }
        )
    payload = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "skillcheck",
                        "version": __version__,
                        "informationUri": REPOSITORY_URL,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    out.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    err.write(summary_line(result) + "\n")


REPORTERS: dict[str, Callable[[Result, TextIO, TextIO], None]] = {
    "text": text,
    "json": as_json,
    "github": github,
    "sarif": sarif,
}
