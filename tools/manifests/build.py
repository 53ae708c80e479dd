"""Generate one engine's manifest from its source, with the provenance of that source."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skillcheck.engines import Manifest
from tools.manifests import llamacpp, sglang, tensorrt_llm, vllm
from tools.manifests.errors import GenerateError
from tools.manifests.source import (
    PIP_PACKAGES,
    pip_download,
    read_extra_provenance,
    sha256,
    source_root,
    unpack,
)

ENGINES = ("vllm", "sglang", "llama.cpp", "tensorrt-llm")


# The package's manifests, beside this tool in the repository.
MANIFEST_DIR = Path(__file__).resolve().parents[2] / "skillcheck" / "engines" / "manifests"


_GENERATORS: dict[str, Callable[[Path, str], Manifest]] = {
    "vllm": vllm.generate,
    "sglang": sglang.generate,
    "llama.cpp": llamacpp.generate,
    "tensorrt-llm": tensorrt_llm.generate,
}


def build(
    engine: str,
    version: str,
    source: Path | None,
    generated: str,
    *,
    origin: str | None = None,
    build_tag: str | None = None,
) -> Manifest:
    """Generate the manifest of ``engine`` ``version`` from ``source`` (or PyPI).

    ``origin`` overrides the recorded description of the source; ``build_tag``
    (llama.cpp only) names the llama.cpp build (``bNNNN``) of the vendored commit.
    """
    if engine not in _GENERATORS:
        raise GenerateError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    archive_sha: str | None = None
    with tempfile.TemporaryDirectory(prefix="skillcheck-src-") as tmp:
        tmpdir = Path(tmp)
        if source is None:
            archive = pip_download(engine, version, tmpdir / "dl")
            root = source_root(engine, unpack(archive, tmpdir / "src"))
            kind = "sdist" if archive.name.endswith(".tar.gz") else "wheel"
            described = f"PyPI {kind} {archive.name}"
            archive_sha = sha256(archive)
        elif source.is_file():
            root = source_root(engine, unpack(source, tmpdir / "src"))
            kind = "sdist" if source.name.endswith(".tar.gz") else "wheel"
            described = f"{kind} {source.name}"
            archive_sha = sha256(source)
        else:
            root = source_root(engine, source)
            described = "unpacked source tree"
        manifest = _GENERATORS[engine](root, version)
        extra = read_extra_provenance(root)
    package = PIP_PACKAGES.get(engine, engine)
    provenance: dict[str, Any] = {
        "package": f"{package}=={version}",
        "source": origin or described,
        "generator": f"python -m tools.manifests {engine} {version}",
        "generated": generated,
        **dict(manifest.provenance),
    }
    if archive_sha:
        provenance["sha256"] = archive_sha
    if engine not in PIP_PACKAGES:
        provenance["generator"] += " --source DIR"
    manifest_version = manifest.version
    if engine == "llama.cpp" and build_tag:
        provenance["llama_cpp_build"] = build_tag
        provenance["llama_cpp_build_source"] = (
            "given with --build; the sdist records only the commit (CHANGELOG.md)"
        )
        provenance["generator"] += f" --build {build_tag}"
        manifest_version = build_tag
    provenance.update(extra)
    return Manifest(
        engine=manifest.engine,
        version=manifest_version,
        commands=manifest.commands,
        options=manifest.options,
        positionals=manifest.positionals,
        parser=manifest.parser,
        config_file=manifest.config_file,
        config_keys=manifest.config_keys,
        provenance=provenance,
    )


def manifest_filename(manifest: Manifest) -> str:
    return f"{manifest.engine}-{manifest.version}.json"
