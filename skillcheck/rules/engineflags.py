"""SC61x: engine commands and engine config blocks, checked against the pinned manifests.

A page declares the engine versions it describes on its ``Applies to:`` line
(``Applies to: vLLM 0.33.0, SGLang 0.5.23 ...``); otherwise the ``engine-pins`` setting, and
then the newest committed manifest, apply. A YAML block is an engine config file when its info
string says so: ```` ```yaml engine="vllm" ```` (optionally ``engine="vllm@0.33.0"``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

from skillcheck.context import Context
from skillcheck.diagnostics import Diagnostic
from skillcheck.registry import checker, declare
from skillcheck.rules.codeblocks import SHELLS, SKIP_ATTR

if TYPE_CHECKING:
    from skillcheck.engines import Manifest

declare("SC610", "engine-unknown-option", "error", "An engine command uses an option the pinned engine version does not have.")
declare("SC611", "engine-deprecated-option", "warning", "An engine command uses a deprecated option.")
declare("SC612", "engine-bad-choice", "error", "An engine option's value is not one of its declared choices.")
declare("SC613", "engine-bad-json", "error", "A JSON-valued engine option does not parse.")
declare("SC614", "engine-missing-value", "error", "An engine option that takes a value has none.")
declare("SC615", "engine-version-unknown", "warning", "A page declares an engine version that has no manifest; the nearest one is used.")
declare("SC616", "engine-unexpected-value", "error", "An engine option or command is given a value it does not take.")
declare("SC617", "engine-bad-quoting", "error", "Shell quoting around an engine command does not close.")
declare("SC618", "engine-config-key", "error", "A key of an engine config block (yaml engine=\"...\") is not accepted by the engine.")

KIND_CODES = {
    "unknown-option": "SC610",
    "deprecated-option": "SC611",
    "bad-choice": "SC612",
    "bad-json": "SC613",
    "missing-value": "SC614",
    "unexpected-value": "SC616",
    "bad-quoting": "SC617",
}
ENGINE_NAMES = {  # how pages name engines -> manifest engine ids
    "vllm": "vllm", "sglang": "sglang", "tensorrt-llm": "tensorrt-llm", "trt-llm": "tensorrt-llm",
    "trtllm": "tensorrt-llm", "llama.cpp": "llama.cpp", "llamacpp": "llama.cpp",
}
_APPLIES = re.compile(r"Applies to:?\**\s*(.+)", re.IGNORECASE)
_DECL = re.compile(r"(vLLM|SGLang|TensorRT-LLM|TRT-LLM|llama\.cpp)\s+(?:v(?=\d))?(b?\d+(?:\.\d+)*)",
                   re.IGNORECASE)


@cache
def _manifest(engine: str, version: str | None) -> Manifest | None:
    from skillcheck.engines import ManifestError, load

    try:
        return load(engine, version)
    except (ManifestError, OSError, ValueError, KeyError):
        return None


def _versions(engine: str) -> list[str]:
    from skillcheck.engines import available

    return [v for e, v in available() if e == engine]


def match_version(engine: str, declared: str) -> str | None:
    """The committed manifest version a declared version means (0.33 -> 0.33.0)."""
    for v in _versions(engine):
        if v == declared or declared.startswith(v + ".") or v.startswith(declared + "."):
            return v
    return None


def declared_versions(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in lines[:40]:
        m = _APPLIES.search(line)
        if not m:
            continue
        for d in _DECL.finditer(m.group(1)):
            engine = ENGINE_NAMES.get(d.group(1).lower())
            if engine and engine not in out:
                out[engine] = d.group(2)
    return out


def _resolve(ctx: Context, rel: str, engine: str, declared: dict[str, str],
             warned: set[tuple[str, str]], line: int) -> tuple[Manifest | None, list[Diagnostic]]:
    diags: list[Diagnostic] = []
    want = declared.get(engine) or ctx.config.pins().get(engine)
    version = None
    if want:
        version = match_version(engine, want)
        if version is None and (engine, want) not in warned:
            warned.add((engine, want))
            have = ", ".join(_versions(engine)) or "none"
            diags.append(ctx.diag(rel, line, 1, "SC615",
                                  f"no {engine} manifest for version {want}; checked against the "
                                  f"newest committed one ({have})",
                                  "generate one: python -m skillcheck.engines.generate "
                                  f"{engine} {want}"))
    return _manifest(engine, version), diags


def _first_lines(ctx: Context, rel: str) -> list[str]:
    try:
        with open(ctx.skill.root / rel, encoding="utf-8", errors="replace") as fh:
            return [next(fh, "") for _ in range(40)]
    except OSError:
        return []


@cache
def _manifests_fingerprint() -> str:
    """Changes whenever a committed manifest changes, so memoised results follow them."""
    import os

    import skillcheck.engines as engines_pkg

    folder = os.path.join(os.path.dirname(engines_pkg.__file__), "manifests")
    try:
        names = sorted(os.listdir(folder))
        return ";".join(f"{n}:{os.stat(os.path.join(folder, n)).st_size}:"
                        f"{os.stat(os.path.join(folder, n)).st_mtime_ns}" for n in names)
    except OSError:
        return "unknown"


def extra_seen(warned: set[tuple[str, str]]) -> bool:
    """A page that declared a version without a manifest is not memoised (its SC615 warning
    is emitted while resolving, once per page)."""
    return bool(warned)


@checker("SC61")
def check_engine_flags(ctx: Context) -> Iterator[Diagnostic]:
    from skillcheck import resultmemo as memo_mod
    from skillcheck.engines.commands import check_config_keys, check_invocation, find_invocations

    for rel, doc in sorted(ctx.docs.items()):
        relevant = [f for f in doc.fences if SKIP_ATTR not in f.attrs and (
            (f.lang in SHELLS and any(k in f.content for k in
                                      ("vllm", "sglang", "llama-server", "trtllm-serve")))
            or "engine" in f.attrs)]
        if not relevant:
            continue
        declared = dict(doc.applies_to)  # read by the parser (document.applies_to)
        warned: set[tuple[str, str]] = set()
        for fence in relevant:
            if fence.lang in SHELLS:
                memo = memo_mod.for_config(ctx.config, memo_mod.scope_of(ctx.skill.root))
                mkey = memo_mod.key("engine-shell", "\0".join(
                    [fence.content, repr(sorted(declared.items())), repr(ctx.config.engine_pins),
                     _manifests_fingerprint()]))
                cached = memo.get(mkey) if memo is not None else None
                if isinstance(cached, list):
                    for line, col, code, msg, hint in cached:
                        yield ctx.diag(rel, fence.body_line + line - 1, col, code, msg, hint)
                    continue
                found: list[tuple[int, int, str, str, str]] = []
                for inv in find_invocations(fence.content):
                    manifest, extra = _resolve(ctx, rel, inv.engine, declared, warned,
                                               fence.line)
                    yield from extra
                    if manifest is None:
                        continue
                    for p in (*inv.problems, *check_invocation(inv, manifest)):
                        found.append((max(p.line, 1), max(p.column, 1),
                                      KIND_CODES.get(p.kind, "SC610"), p.message, p.hint))
                if memo is not None and not extra_seen(warned):
                    memo.put(mkey, found)
                for line, col, code, msg, hint in found:
                    yield ctx.diag(rel, fence.body_line + line - 1, col, code, msg, hint)
                continue
            # an engine config block
            spec = fence.attrs.get("engine", "")
            name, _, version = spec.partition("@")
            engine = ENGINE_NAMES.get(name.strip().lower())
            if engine is None:
                yield ctx.diag(rel, fence.line, 1, "SC618",
                               f"unknown engine {name!r} in the block's engine attribute",
                               "use one of: vllm, sglang, tensorrt-llm, llama.cpp")
                continue
            decl = dict(declared)
            if version:
                decl[engine] = version
            manifest, extra = _resolve(ctx, rel, engine, decl, warned, fence.line)
            yield from extra
            if manifest is None:
                continue
            from skillcheck.rules.frontmatter import load_yaml_stream

            values, problems = load_yaml_stream(fence.content)
            if problems:
                continue  # SC603 reports it
            for value in values:
                if value is None:
                    continue
                for p in check_config_keys(value, manifest):
                    code = "SC611" if p.kind == "deprecated-option" else "SC618"
                    line, col = fence.line, 1
                    key = re.search(r"`([^`]+)`", p.message)
                    if key:
                        leaf = key.group(1).split(".")[-1]
                        for i, text in enumerate(fence.content.split("\n")):
                            at = re.match(rf"\s*(?={re.escape(leaf)}\s*:)", text)
                            if at:
                                line, col = fence.body_line + i, at.end() + 1
                                break
                    yield ctx.diag(rel, line, col, code, p.message, p.hint)
