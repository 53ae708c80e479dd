"""llama-server at the pinned build: compiled from the llama.cpp sources that the pinned
llama-cpp-python sdist vendors, CPU only, and cached per user so that only the first run
on a machine pays for the build.

    python -m tools.engines.llama_server [--fetch-only] [--sdist PATH]

prints the binary's path. The cache is ``$XDG_CACHE_HOME/ai-llm-inference/engines/
llama-server-<version>/`` (``~/.cache/...`` by default): ``src/`` the unpacked sdist,
``build/`` cmake's tree, ``build-info.json`` written after a successful build. The binary
is built with ``GGML_NATIVE`` (tuned to this CPU): the cache belongs to the machine.

Without cmake, a C/C++ compiler, or ninja/make, :func:`ensure` raises
:class:`EngineUnavailable` whose message names what is missing; the CLI prints it and
exits 2. The sdist comes from ``--sdist``, the cache, or ``pip download`` (the only step
that uses the network; ``--fetch-only`` does just that).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Sequence
from pathlib import Path

from tools.engines.cache import engine_dir, locked, run_logged

VERSION = "0.3.36"  # llama-cpp-python; it vendors llama.cpp b11312
LLAMA_CPP_BUILD, LLAMA_CPP_COMMIT = "11312", "0c1e570"  # as the b11312 manifest records them
PACKAGE = "llama-cpp-python"
SDIST = f"llama_cpp_python-{VERSION}.tar.gz"
CMAKE_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",  # one self-contained binary
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_OPENSSL=OFF",  # -hf downloads are not used here
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # the web UI would be fetched from a Hugging Face bucket
    "-DLLAMA_BUILD_UI=OFF",
    # the sdist has no git history: name the build as the release does (`--version`,
    # system_fingerprint "b11312-0c1e570")
    f"-DLLAMA_BUILD_NUMBER={LLAMA_CPP_BUILD}",
    f"-DLLAMA_BUILD_COMMIT={LLAMA_CPP_COMMIT}",
)
TARGET = "llama-server"
MANIFEST = (
    Path(__file__).resolve().parents[2] / "skillcheck/engines/manifests/llama.cpp-b11312.json"
)


class EngineUnavailable(RuntimeError):
    """The engine cannot be built or found here; the message says why, for a person."""


class BuildFailed(EngineUnavailable):
    """The tools are there but cmake or the compiler failed: a defect, not a missing tool."""


def cache_dir(version: str = VERSION) -> Path:
    return engine_dir(f"llama-server-{version}")


def binary_path(version: str = VERSION) -> Path:
    return cache_dir(version) / "build" / "bin" / TARGET


def _flags_key() -> str:
    return hashlib.sha256("\n".join(CMAKE_FLAGS).encode()).hexdigest()[:16]


def cached(version: str = VERSION) -> Path | None:
    """The binary when a finished build with the current flags is in the cache."""
    info = cache_dir(version) / "build-info.json"
    binary = binary_path(version)
    try:
        data = json.loads(info.read_text())
    except (OSError, ValueError):
        return None
    if data.get("flags_key") != _flags_key() or not os.access(binary, os.X_OK):
        return None
    return binary


def missing_tools() -> list[str]:
    """What the build needs and PATH lacks, each as a sentence fragment."""
    missing = []
    if shutil.which("cmake") is None:
        missing.append("cmake (3.14 or later)")
    if not any(shutil.which(c) for c in ("cc", "gcc", "clang")):
        missing.append("a C compiler (cc, gcc or clang)")
    if not any(shutil.which(c) for c in ("c++", "g++", "clang++")):
        missing.append("a C++17 compiler (c++, g++ or clang++)")
    if not any(shutil.which(c) for c in ("ninja", "make")):
        missing.append("ninja or make")
    return missing


def check_sdist(sdist: Path, version: str = VERSION) -> None:
    """The sdist must be the one the b11312 manifest was generated from (its sha256)."""
    if version != VERSION:
        return
    expected = json.loads(MANIFEST.read_text())["provenance"]["sha256"]
    digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
    if digest != expected:
        raise EngineUnavailable(
            f"{sdist} has sha256 {digest}, not the {expected} that {MANIFEST.name} records"
        )


def find_sdist(explicit: Path | None = None, version: str = VERSION) -> Path | None:
    if explicit is not None:
        return explicit if explicit.is_file() else None
    candidate = cache_dir(version) / "dist" / f"llama_cpp_python-{version}.tar.gz"
    return candidate if candidate.is_file() else None


def fetch_sdist(version: str = VERSION) -> Path:
    """``pip download`` the sdist into the cache (network: the package registry only)."""
    dest = cache_dir(version) / "dist"
    found = find_sdist(None, version)
    if found is not None:
        return found
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
    cmd += ["-d", str(dest), f"{PACKAGE}=={version}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    found = find_sdist(None, version)
    if proc.returncode != 0 or found is None:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise EngineUnavailable(
            f"could not download the {PACKAGE} {version} sdist: " + " / ".join(tail)
        )
    return found


def build(sdist: Path, version: str = VERSION, jobs: int = 2) -> Path:
    """Unpack ``sdist`` and build the server target; returns the binary. Seconds taken are
    recorded in build-info.json."""
    missing = missing_tools()
    if missing:
        raise EngineUnavailable(
            "cannot build llama-server: not found on PATH: " + ", ".join(missing)
        )
    check_sdist(sdist, version)
    root = cache_dir(version)
    started = time.monotonic()
    src = root / "src"
    source = src / "vendor" / "llama.cpp"
    if not (source / "CMakeLists.txt").is_file():
        shutil.rmtree(src, ignore_errors=True)
        src.mkdir(parents=True)
        with tarfile.open(sdist) as tar:
            for member in tar.getmembers():
                parts = Path(member.name).parts[1:]  # drop llama_cpp_python-<version>/
                if not parts or ".." in parts or member.issym() or member.islnk():
                    continue
                member.name = str(Path(*parts))
                tar.extract(member, src)
    log = root / "build.log"
    log.write_text("")
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = ["cmake", "-S", str(source), "-B", str(root / "build"), *generator, *CMAKE_FLAGS]
    run_logged(configure, log, BuildFailed)
    compile_ = ["cmake", "--build", str(root / "build"), "--target", TARGET, f"-j{jobs}"]
    run_logged(compile_, log, BuildFailed)
    info = {
        "version": version,
        "flags_key": _flags_key(),
        "flags": list(CMAKE_FLAGS),
        "seconds": round(time.monotonic() - started, 1),
    }
    (root / "build-info.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")
    return binary_path(version)


def ensure(sdist: Path | None = None, version: str = VERSION, fetch: bool = True) -> Path:
    """The cached binary, building it first when needed (downloading the sdist only when
    ``fetch``). Raises EngineUnavailable with the reason when that cannot be done."""
    found = cached(version)
    if found is not None:
        return found
    with locked(cache_dir(version)):
        found = cached(version)
        if found is not None:
            return found
        archive = find_sdist(sdist, version)
        if archive is None:
            if sdist is not None:
                raise EngineUnavailable(f"no sdist at {sdist}")
            if not fetch:
                raise EngineUnavailable(
                    f"the {PACKAGE} {version} sdist is not in {cache_dir(version) / 'dist'}; "
                    "run `python -m tools.engines.llama_server --fetch-only` (needs PyPI)"
                )
            archive = fetch_sdist(version)
        return build(archive, version)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.engines.llama_server")
    parser.add_argument("--sdist", type=Path, help="a local llama-cpp-python sdist to build")
    parser.add_argument("--fetch-only", action="store_true", help="download the sdist only")
    args = parser.parse_args(argv)
    try:
        if args.fetch_only:
            print(fetch_sdist() if args.sdist is None else args.sdist)
        else:
            print(ensure(args.sdist))
    except EngineUnavailable as exc:
        print(f"llama-server: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
