"""Cache of parsed Markdown keyed by file content, under the platform cache directory."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from skillcheck.model import PARSER_VERSION, ParsedDoc


def default_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("skillcheck", appauthor=False))


def write_pickle(path: Path, data: object) -> None:
    """Write atomically (a temporary file renamed over the old one); a cache that cannot be
    written is simply not written."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def content_key(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class ParseCache:
    """One file per set of skill roots, so a run loads only the entries of its own tree."""

    def __init__(self, directory: Path, scope: str = "all") -> None:
        self.path = directory / f"parse-v{PARSER_VERSION}-{scope[:16]}.pickle"
        self.entries: dict[str, ParsedDoc] = {}
        self.used: set[str] = set()
        self.dirty = False

    def load(self) -> None:
        try:
            with open(self.path, "rb") as fh:
                data = pickle.load(fh)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError,
                ValueError, TypeError):
            return
        if isinstance(data, dict):
            self.entries = data

    def get(self, key: str) -> ParsedDoc | None:
        doc = self.entries.get(key)
        if doc is not None:
            self.used.add(key)
        return doc

    def put(self, key: str, doc: ParsedDoc) -> None:
        self.entries[key] = doc
        self.used.add(key)
        self.dirty = True

    def save(self) -> None:
        """Write the entries this run used (files that changed drop their old entries)."""
        if not self.dirty and len(self.used) == len(self.entries):
            return
        keep = {k: self.entries[k] for k in self.used}
        write_pickle(self.path, keep)
