"""Memo of expensive per-content results (code-block compilation, engine-command checks), keyed
by a hash of the content and of what the result depends on, stored beside the parse cache. A
changed input is a new key, so a stale entry is never served; ``--no-cache`` turns it off.

One store per checked tree (the same scope as the parse cache): the runner opens it before the
checkers run (:func:`open_for_run`) and writes it when they are done (:func:`close_run`).
Checkers run in forked workers when there are many skills: each worker sends the entries it
made and the keys it read back with its findings (:func:`taken` / :func:`merge`), so the
parent writes them. At write, entries this run did not use are dropped (see ``PickleStore``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillcheck.config import Config
from skillcheck.parsecache import PickleStore, content_key, default_dir, remove_other_versions

MEMO_VERSION = "5"
MAX_ENTRIES = 20_000


class ResultMemo(PickleStore):
    """The memo of one checked tree; remembers what this process added and read."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, MAX_ENTRIES)
        self.fresh: dict[str, Any] = {}

    def put(self, key: str, value: Any) -> None:
        super().put(key, value)
        self.fresh[key] = value


_ACTIVE: ResultMemo | None = None


def open_for_run(config: Config, scope: str) -> ResultMemo | None:
    """Open the memo of the tree named ``scope`` (a hash of its skill roots) for a run."""
    global _ACTIVE
    if not config.cache:
        _ACTIVE = None
        return None
    directory = Path(config.cache_dir) if config.cache_dir else default_dir()
    path = directory / f"memo-v{MEMO_VERSION}-{scope[:16]}.pickle"
    if _ACTIVE is None or _ACTIVE.path != path:
        _ACTIVE = ResultMemo(path)
    return _ACTIVE


def close_run(memo: ResultMemo | None) -> None:
    """Write the run's memo (entries not used in this run dropped) and forget it."""
    global _ACTIVE
    if memo is not None:
        memo.save()
        remove_other_versions(memo.path, "memo", MEMO_VERSION)
    _ACTIVE = None


def for_config(config: Config) -> ResultMemo | None:
    """The memo of the run in progress (None with ``--no-cache`` or outside a run)."""
    return _ACTIVE if config.cache else None


def taken(memo: ResultMemo | None) -> tuple[dict[str, Any], set[str]]:
    """What a forked worker did to its copy of the memo: the entries it made, the keys it
    used. Sent back to the parent with the worker's findings."""
    if memo is None:
        return {}, set()
    return dict(memo.fresh), set(memo.used)


def merge(memo: ResultMemo | None, fresh: dict[str, Any], used: set[str]) -> None:
    """Fold a worker's entries and reads into the parent's memo (written by close_run)."""
    if memo is None:
        return
    for k, v in fresh.items():
        memo.put(k, v)
    memo.used |= used & memo.data.keys()


def key(kind: str, data: str | bytes) -> str:
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return f"{kind}:{content_key(raw)}"
