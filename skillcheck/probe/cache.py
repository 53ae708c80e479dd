"""The probe's result cache: URLs that were fine recently are not requested again.

One JSON file (``probe-v1.json`` in the cache directory: ``cache-dir`` or the platform cache
dir). Only successes are stored (ok and permanently redirected), each for ``success-ttl-hours``;
failures are never stored, so a broken URL is asked again on every run. The file is written to
a temporary file and renamed over the old one, so a crash or a concurrent run never leaves a
half-written cache.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from skillcheck.probe.outcome import Outcome

VERSION = 1
FILENAME = f"probe-v{VERSION}.json"
MAX_ENTRIES = 50_000
CACHEABLE = ("ok", "redirected")
CLOCK_SKEW = 60.0  # seconds an entry may seem to come from the future (clock adjustments)


def default_path(cache_dir: str | None) -> Path:
    from skillcheck.parsecache import default_dir

    return (Path(cache_dir) if cache_dir else default_dir()) / FILENAME


class ProbeCache:
    def __init__(
        self, path: Path, ttl_hours: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.path = path
        self.ttl = ttl_hours * 3600.0
        self.clock = clock
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False

    def load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return
        if (
            isinstance(data, dict)
            and data.get("version") == VERSION
            and isinstance(data.get("entries"), dict)
        ):
            self.entries = {k: v for k, v in data["entries"].items() if isinstance(v, dict)}

    def _fresh(self, entry: dict[str, Any]) -> bool:
        checked = entry.get("checked")
        if not isinstance(checked, (int, float)):
            return False
        age = self.clock() - checked
        return -CLOCK_SKEW <= age < self.ttl

    def get(self, key: str, fragments: Iterable[str], allow_private: bool) -> Outcome | None:
        """The stored success for ``key`` if it is fresh and answers everything this run asks:
        each fragment to check was seen on the page, and an answer obtained with
        ``--allow-private`` is not reused by a run without it."""
        entry = self.entries.get(key)
        if entry is None or not self._fresh(entry) or entry.get("kind") not in CACHEABLE:
            return None
        if entry.get("private") and not allow_private:
            return None
        needed = set(fragments)
        if needed and entry.get("html", True) and not needed <= set(entry.get("fragments", [])):
            return None
        status, location, detail = entry.get("status"), entry.get("location"), entry.get("detail")
        return Outcome(
            kind=str(entry["kind"]),
            detail=detail if isinstance(detail, str) else "",
            status=status if isinstance(status, int) else None,
            location=location if isinstance(location, str) else None,
            from_cache=True,
        )

    def put(self, key: str, outcome: Outcome, allow_private: bool) -> None:
        if outcome.kind not in CACHEABLE or outcome.missing_fragments or outcome.from_cache:
            return
        old = self.entries.get(key, {})
        frags = set(outcome.fragments_found)
        if old and self._fresh(old):
            frags |= set(old.get("fragments", []))
        self.entries[key] = {
            "kind": outcome.kind,
            "checked": self.clock(),
            "status": outcome.status,
            "detail": outcome.detail,
            "location": outcome.location,
            "html": outcome.html if outcome.html is not None else True,
            "fragments": sorted(frags),
            "private": allow_private,
        }
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        fresh = {k: v for k, v in self.entries.items() if self._fresh(v)}
        if len(fresh) > MAX_ENTRIES:
            newest = sorted(fresh.items(), key=lambda kv: kv[1]["checked"], reverse=True)
            fresh = dict(newest[:MAX_ENTRIES])
        payload = json.dumps({"version": VERSION, "entries": fresh}, indent=0, sort_keys=True)
        from skillcheck.parsecache import write_atomic

        write_atomic(self.path, payload.encode("utf-8"))
        self.dirty = False
