"""What probing one URL found."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Outcome:
    kind: str  # an outcome class: see skillcheck.probe.codes.CLASSES
    detail: str = ""
    status: int | None = None  # the last HTTP status, when there was an answer
    location: str | None = None  # redirected: where the permanent redirects lead
    attempts: int = 0
    requests: int = 0
    missing_fragments: list[str] = field(default_factory=list)
    fragments_found: list[str] = field(default_factory=list)
    html: bool | None = None  # None when the body was not looked at
    connect_failure: bool = False  # no connection at all (DNS, refused, unreachable)
    cause: str = ""  # of a connection error: dns, refused, tls, unreachable, reset or ""
    from_cache: bool = False
