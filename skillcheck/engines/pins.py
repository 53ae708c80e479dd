"""Which engine release a page describes: its ``Applies to:`` line, matched to the manifests.

A page declares the versions on a line such as ``Applies to: vLLM 0.33.0, SGLang 0.5.23``
near its top; the parser reads them (:func:`skillcheck.document.applies_to`) and
:func:`match_version` finds the committed manifest a declared version means.
"""

from __future__ import annotations

from skillcheck.engines.manifest import available

__all__ = ["match_version", "versions"]


def versions(engine: str) -> list[str]:
    """The committed manifest versions of ``engine``, oldest first."""
    return [v for e, v in available() if e == engine]


def match_version(engine: str, declared: str) -> str | None:
    """The committed manifest version a declared version means (0.33 -> 0.33.0)."""
    for v in versions(engine):
        if v == declared or declared.startswith(v + ".") or v.startswith(declared + "."):
            return v
    return None
