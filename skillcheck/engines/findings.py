"""What the engine checks report: a finding with a kind, a position, a message and a hint.

Kinds: ``unknown-option``, ``deprecated-option``, ``bad-choice``, ``bad-json``,
``missing-value``, ``unexpected-value`` (a value given to a flag, or a positional
argument the command does not take) and ``bad-quoting`` (shell quoting that does
not close).
"""

from __future__ import annotations

from dataclasses import dataclass

UNKNOWN_OPTION = "unknown-option"
DEPRECATED_OPTION = "deprecated-option"
BAD_CHOICE = "bad-choice"
BAD_JSON = "bad-json"
MISSING_VALUE = "missing-value"
UNEXPECTED_VALUE = "unexpected-value"
BAD_QUOTING = "bad-quoting"


@dataclass(frozen=True)
class Finding:
    """One finding. ``line``/``column`` are 1-based; 0 means "no position" (config keys).

    ``key`` is the path of the config key a config finding is about (``("a", "b")`` for
    ``a.b``), so that the caller can point at the key where it found it; ``()`` when the
    finding is about no key (and for every finding on a command).
    """

    line: int
    column: int
    kind: str
    message: str
    hint: str = ""
    key: tuple[str, ...] = ()
