"""On-disk caches under the platform cache directory: the parse cache (parsed Markdown and
validated data files, keyed by file content), the pickled store it and the result memo are
built on, and the atomic writer every cache file goes through."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any

from skillcheck.document import PARSER_VERSION


def default_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("skillcheck", appauthor=False))


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file and rename it over ``path``; a cache that cannot be written
    costs time, never correctness, so errors are swallowed."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _warn(message: str) -> None:
    """A cache problem costs time, never the run: say so on stderr and go on."""
    sys.stderr.write(f"skillcheck: warning: {message}\n")


def content_key(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class PickleStore:
    """A dict persisted as one pickle file. Only the entries a run read or wrote are saved, so
    results for inputs that changed drop out; a missing or corrupt file is an empty store."""

    def __init__(self, path: Path, max_entries: int = 100_000) -> None:
        self.path = path
        self.max_entries = max_entries
        self.data: dict[str, Any] = {}
        self.used: set[str] = set()
        self.dirty = False
        try:
            with open(path, "rb") as fh:
                loaded = pickle.load(fh)
        except FileNotFoundError:
            return
        except (
            OSError,
            pickle.UnpicklingError,
            EOFError,
            AttributeError,
            ImportError,
            ValueError,
            TypeError,
            IndexError,
            MemoryError,
        ) as exc:
            _warn(
                f"ignoring the unreadable cache file {path} ({type(exc).__name__}); "
                "it is rewritten at the end of the run"
            )
            return
        if isinstance(loaded, dict):
            self.data = loaded
        else:
            _warn(f"ignoring the cache file {path}: it holds no cache")

    def get(self, key: str) -> Any:
        value = self.data.get(key)
        if value is not None:
            self.used.add(key)
        return value

    def put(self, key: str, value: Any) -> None:
        self.data[key] = value
        self.used.add(key)
        self.dirty = True

    def save(self) -> None:
        if not self.dirty and len(self.used) == len(self.data):
            return
        keep = dict([(k, self.data[k]) for k in self.used][-self.max_entries :])
        write_atomic(self.path, pickle.dumps(keep, protocol=pickle.HIGHEST_PROTOCOL))
        self.dirty = False


def remove_other_versions(path: Path, kind: str, version: str) -> None:
    """Delete the ``kind`` stores an older (or newer) skillcheck wrote beside ``path``: no run
    of this version reads them."""
    try:
        for other in path.parent.glob(f"{kind}-v*-*.pickle"):
            if not other.name.startswith(f"{kind}-v{version}-"):
                with contextlib.suppress(OSError):
                    other.unlink()
    except OSError:
        pass


class ParseCache(PickleStore):
    """Parsed documents and data files, one file per checked tree (set of skill roots), so a
    run loads only its own tree."""

    def __init__(self, directory: Path, scope: str = "all") -> None:
        super().__init__(directory / f"parse-v{PARSER_VERSION}-{scope[:16]}.pickle")

    def save(self) -> None:
        super().save()
        remove_other_versions(self.path, "parse", PARSER_VERSION)
