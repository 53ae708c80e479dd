"""The rule registry: every rule has a stable code, a default severity and a one-line summary.

Rules that run over parsed files register a checker with :func:`rule`; rules emitted by the
parser or discovery (bad input) are registered with :func:`declare` so that ``skillcheck rules``
lists every code that can appear.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from skillcheck.diagnostics import Severity

if TYPE_CHECKING:
    from skillcheck.context import Context
    from skillcheck.diagnostics import Diagnostic

Checker = Callable[["Context"], Iterable["Diagnostic"]]


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str


RULES: dict[str, Rule] = {}
CHECKERS: list[tuple[str, Checker]] = []


def declare(code: str, name: str, severity: Severity | str, summary: str) -> Rule:
    sev = Severity(severity)
    if code in RULES:
        raise ValueError(f"rule {code} declared twice")
    r = Rule(code, name, sev, summary)
    RULES[code] = r
    return r


INTERNAL_ERROR = declare(
    "SC000", "internal-error", "error",
    "A checker raised an exception: a bug in skillcheck, reported rather than hidden.").code


def checker(family: str) -> Callable[[Checker], Checker]:
    """Register a function that checks one skill and may emit any code of ``family``."""

    def deco(fn: Checker) -> Checker:
        CHECKERS.append((family, fn))
        return fn

    return deco


def load_builtin_rules() -> None:
    """Import the rule modules (idempotent)."""
    from skillcheck.probe import codes  # noqa: F401  (SC4xx, for `skillcheck rules`)
    from skillcheck.rules import (  # noqa: F401
        budgets,
        codeblocks,
        engineflags,
        frontmatter,
        links,
        sources,
    )
