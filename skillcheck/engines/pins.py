"""Which engine release a page describes: its ``Applies to:`` line, matched to the manifests.

A page declares the versions on a line such as ``Applies to: vLLM 0.33.0, SGLang 0.5.23``
near its top; :func:`declared_versions` reads them and :func:`match_version` finds the
committed manifest a declared version means.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from skillcheck.engines.manifest import available

__all__ = ["ENGINE_NAMES", "PIN_LINES", "declared_versions", "match_version", "versions"]

ENGINE_NAMES = {  # how pages name engines -> manifest engine ids
    "vllm": "vllm",
    "sglang": "sglang",
    "tensorrt-llm": "tensorrt-llm",
    "trt-llm": "tensorrt-llm",
    "trtllm": "tensorrt-llm",
    "llama.cpp": "llama.cpp",
    "llamacpp": "llama.cpp",
}
#: How many lines from the top of a page (front matter included) are searched.
PIN_LINES = 40

_APPLIES = re.compile(r"Applies to:?\**\s*(.+)", re.IGNORECASE)
_DECL = re.compile(
    r"(vLLM|SGLang|TensorRT-LLM|TRT-LLM|llama\.cpp)\s+(?:v(?=\d))?(b?\d+(?:\.\d+)*)", re.IGNORECASE
)


def declared_versions(lines: Iterable[str]) -> dict[str, str]:
    """Engine id -> declared version, from the ``Applies to:`` lines among the first
    :data:`PIN_LINES` of ``lines``; the first declaration of an engine wins."""
    out: dict[str, str] = {}
    for n, line in enumerate(lines):
        if n >= PIN_LINES:
            break
        m = _APPLIES.search(line)
        if not m:
            continue
        for d in _DECL.finditer(m.group(1)):
            engine = ENGINE_NAMES.get(d.group(1).lower())
            if engine and engine not in out:
                out[engine] = d.group(2)
    return out


def versions(engine: str) -> list[str]:
    """The committed manifest versions of ``engine``, oldest first."""
    return [v for e, v in available() if e == engine]


def match_version(engine: str, declared: str) -> str | None:
    """The committed manifest version a declared version means (0.33 -> 0.33.0)."""
    for v in versions(engine):
        if v == declared or declared.startswith(v + ".") or v.startswith(declared + "."):
            return v
    return None
