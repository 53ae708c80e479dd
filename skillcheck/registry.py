"""The rule registry: every rule has a stable code, a default severity and a one-line summary.

Rules that run over parsed files register a checker with :func:`checker`; rules emitted by the
parser or discovery (bad input) are registered with :func:`declare` so that ``skillcheck rules``
lists every code that can appear.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from skillcheck.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from skillcheck.context import Context

Checker = Callable[["Context"], Iterable[Diagnostic]]


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


def diagnostic(
    path: str,
    line: int,
    column: int,
    code: str,
    message: str,
    hint: str = "",
    url: str | None = None,
) -> Diagnostic:
    """A finding of a declared rule, at the severity its declaration gives (the one place a
    code's severity is written)."""
    return Diagnostic(path, line, column, code, RULES[code].severity, message, hint, url)


def selected(code: str, select: Sequence[str], ignore: Sequence[str]) -> bool:
    """Whether --select / --ignore (codes or prefixes) keep ``code``."""
    if select and not any(code.startswith(s) for s in select):
        return False
    return not any(code.startswith(s) for s in ignore)


INTERNAL_ERROR = declare(
    "SC000",
    "internal-error",
    "error",
    "A checker raised an exception: a bug in skillcheck, reported rather than hidden.",
).code


UNUSED_SUPPRESSION = declare(
    "SC001",
    "unused-suppression",
    "warning",
    "A 'skillcheck: ignore' comment names a code that has no finding where it applies.",
).code
INVALID_SUPPRESSION = declare(
    "SC002",
    "invalid-suppression",
    "warning",
    "A 'skillcheck:' comment is malformed or names no rule code, prefix or name.",
).code


def checker(family: str) -> Callable[[Checker], Checker]:
    """Register a function that checks one skill and may emit any code of ``family`` (a code
    prefix): it runs only when --select / --ignore keep at least one declared code of it."""

    def deco(fn: Checker) -> Checker:
        CHECKERS.append((family, fn))
        return fn

    return deco


def active_checkers(select: Sequence[str], ignore: Sequence[str]) -> list[tuple[str, Checker]]:
    """The checkers that may emit a selected code; the others are not run at all."""
    load_builtin_rules()
    return [
        (family, fn)
        for family, fn in CHECKERS
        if any(code.startswith(family) and selected(code, select, ignore) for code in RULES)
    ]


def load_builtin_rules() -> None:
    """Import the rule modules (idempotent)."""
    from skillcheck.probe import codes  # noqa: F401  (SC4xx, for `skillcheck rules`)
    from skillcheck.rules import (  # noqa: F401
        budgets,
        codeblocks,
        engineflags,
        flagindex,
        frontmatter,
        links,
        sources,
    )
