"""What the engine builders share: the per-user cache folder, one build at a time per folder,
and commands run with their output appended to a log."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path


def engine_dir(name: str) -> Path:
    """``$XDG_CACHE_HOME/ai-llm-inference/engines/<name>`` (``~/.cache/...`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ai-llm-inference" / "engines" / name


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """One build or install at a time per cache folder, across processes."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_logged(cmd: list[str], log: Path, failed: type[Exception]) -> None:
    """Run ``cmd`` with its output appended to ``log``; a non-zero exit raises ``failed`` with
    the log's last 15 lines."""
    with log.open("a") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        code = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
    if code != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-15:]
        raise failed(f"{cmd[0]} exited with {code}; full log: {log}\n" + "\n".join(tail))
