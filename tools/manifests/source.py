"""Where an engine's source comes from: a wheel, an sdist, an unpacked tree or ``pip download``."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

from tools.manifests.errors import GenerateError

PIP_PACKAGES = {"vllm": "vllm", "sglang": "sglang", "llama.cpp": "llama-cpp-python"}


def detect(text: str, pattern: str) -> bool:
    return re.search(pattern, text) is not None


def unpack(archive: Path, into: Path) -> Path:
    name = archive.name
    if name.endswith(".whl") or name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            members = [
                m
                for m in zf.namelist()
                if m.endswith((".py", ".md", ".txt", ".cpp", ".c", ".h", ".cmake"))
            ]
            for member in members:
                if member.startswith("/") or ".." in Path(member).parts:
                    continue
                zf.extract(member, into)
        return into
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(archive) as tf:
            safe = [
                m
                for m in tf.getmembers()
                if m.isfile() and not m.name.startswith("/") and ".." not in Path(m.name).parts
            ]
            if hasattr(tarfile, "data_filter"):
                tf.extractall(into, members=safe, filter="data")
            else:  # pragma: no cover - Python without extraction filters
                tf.extractall(into, members=safe)
        entries = [p for p in into.iterdir() if p.is_dir()]
        return entries[0] if len(entries) == 1 else into
    raise GenerateError(f"unsupported archive {archive}")


def pip_download(engine: str, version: str, into: Path) -> Path:
    package = PIP_PACKAGES.get(engine)
    if package is None:
        raise GenerateError(f"{engine} has no usable release on PyPI; pass --source")
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "-d",
        str(into),
        f"{package}=={version}",
    ]
    if engine == "llama.cpp":
        cmd += ["--no-binary", ":all:"]
    else:
        cmd += [
            "--only-binary",
            ":all:",
            "--python-version",
            "3.11",
            "--platform",
            "manylinux_2_34_x86_64",
            "--platform",
            "manylinux_2_28_x86_64",
        ]
    subprocess.run(cmd, check=True)
    archives = sorted(p for p in into.iterdir() if p.is_file())
    if not archives:
        raise GenerateError(f"pip downloaded nothing for {package}=={version}")
    return archives[0]


def source_root(engine: str, source: Path) -> Path:
    """The directory that holds the engine's top-level package (or llama-cpp-python)."""
    markers = {
        "vllm": "vllm/engine/arg_utils.py",
        "sglang": "sglang/srt/server_args.py",
        "llama.cpp": "common/arg.cpp",
        "tensorrt-llm": "tensorrt_llm/commands/serve.py",
    }
    marker = markers[engine]
    if (source / marker).is_file():
        return source
    if engine == "llama.cpp" and (source / "vendor" / "llama.cpp" / marker).is_file():
        return source
    for path in sorted(source.rglob(Path(marker).name)):
        if path.as_posix().endswith(marker):
            base = path
            for _ in Path(marker).parts:
                base = base.parent
            if engine == "llama.cpp" and base.name == "llama.cpp" and base.parent.name == "vendor":
                return base.parent.parent
            return base
    raise GenerateError(f"{marker} not found under {source}")


def read_extra_provenance(root: Path) -> dict[str, Any]:
    path = root / "skillcheck-provenance.json"
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            return data
    return {}


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
