"""Diagnostics: what every rule reports."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding, located at ``path:line:column``, both 1-based: a finding about a whole
    file (or folder) is at 1:1, so that every output format has a valid position."""

    path: str
    line: int
    column: int
    code: str
    severity: Severity
    message: str
    hint: str = ""
    url: str | None = None

    def __post_init__(self) -> None:
        if self.line < 1:
            object.__setattr__(self, "line", 1)
        if self.column < 1:
            object.__setattr__(self, "column", 1)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "hint": self.hint,
        }
        if self.url is not None:
            out["url"] = self.url
        return out
