"""Memo of expensive per-content results (schema validation, code compilation), keyed by a
hash of the content, stored beside the parse cache. A changed input is a new key, so a stale
entry is never served; ``--no-cache`` turns it off."""

from __future__ import annotations

import atexit
from pathlib import Path

from skillcheck.config import Config
from skillcheck.parsecache import PickleStore

MEMO_VERSION = "3"
MAX_ENTRIES = 20_000


class Memo(PickleStore):
    def __init__(self, path: Path) -> None:
        super().__init__(path, MAX_ENTRIES)


_MEMOS: dict[Path, Memo] = {}


def for_config(config: Config, scope: str = "all") -> Memo | None:
    """The memo for a run; ``scope`` names the tree (a hash of its root) so that trees checked
    in turn do not evict each other's entries."""
    if not config.cache:
        return None
    from skillcheck.parsecache import default_dir

    path = (Path(config.cache_dir) if config.cache_dir else default_dir()) / \
        f"memo-v{MEMO_VERSION}-{scope[:16]}.pickle"
    memo = _MEMOS.get(path)
    if memo is None:
        memo = _MEMOS[path] = Memo(path)
        atexit.register(memo.save)
    return memo


def scope_of(root: Path) -> str:
    from skillcheck.parsecache import content_key

    return content_key(root.as_posix().encode())


def key(kind: str, data: str | bytes) -> str:
    from skillcheck.parsecache import content_key

    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return f"{kind}:{content_key(raw)}"
