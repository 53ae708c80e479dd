"""skillcheck on its own (``pip install``): the wheel carries the JSON Schema and the engine
manifests, and the installed package checks and packs a skill without this repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import pytest

import skillcheck

from .conftest import FIXTURES, ROOT

MANIFESTS = sorted(p.name for p in (ROOT / "skillcheck" / "engines" / "manifests").glob("*.json"))


def test_package_data_is_found_through_importlib_resources() -> None:
    pkg = resources.files("skillcheck")
    schema = pkg.joinpath("schemas", "sources.schema.json")
    assert schema.is_file()
    assert json.loads(schema.read_text(encoding="utf-8"))["$schema"].startswith("http")
    assert pkg.joinpath("schemas", "gpus.schema.json").is_file()
    manifests = pkg.joinpath("engines", "manifests")
    found = sorted(p.name for p in manifests.iterdir() if p.name.endswith(".json"))
    assert found == MANIFESTS and len(found) >= 4
    for name in found:
        data = json.loads(manifests.joinpath(name).read_text(encoding="utf-8"))
        assert {"engine", "version", "options"} <= data.keys()
    assert pkg.joinpath("py.typed").is_file()
    assert pkg.joinpath("ruledocs.toml").is_file()


def offline_env() -> dict[str, str]:
    """The environment for a pip subprocess that must not reach any index: no index, and
    every proxy a closed port on loopback, so that a request fails at once instead of leaking."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.lower().endswith("_proxy") and not k.startswith("PIP_")
    }
    dead = "http://127.0.0.1:9"
    env.update(
        PIP_NO_INDEX="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
        http_proxy=dead,
        https_proxy=dead,
        HTTP_PROXY=dead,
        HTTPS_PROXY=dead,
        no_proxy="",
        NO_PROXY="",
    )
    return env


def build_backend_is_installed() -> bool:
    """setuptools>=77 (pyproject.toml's build requirement) in this environment: the test
    extra installs it, so that the wheel is built with --no-build-isolation, offline."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major = int(version("setuptools").split(".")[0])
    except (PackageNotFoundError, ValueError):
        return False
    return major >= 77


def test_the_test_extra_brings_the_build_backend() -> None:
    """The offline build below uses the installed backend: the test extra must install the
    one the build system asks for."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (backend,) = data["build-system"]["requires"]
    assert backend in data["project"]["optional-dependencies"]["test"]
    assert build_backend_is_installed()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built by pip from a copy of the package's sources, with this environment's
    setuptools and no index (about 3 s)."""
    if not build_backend_is_installed():
        pytest.skip("setuptools>=77 is not installed: pip install -e '.[test]'")
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    # tools/ sits beside the package in the repository; copied so that the test
    # below sees whether the build would pick it up.
    for name in ("skillcheck", "tools"):
        shutil.copytree(
            ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "--quiet",
            "--wheel-dir",
            str(out),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=offline_env(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (whl,) = out.glob("skillcheck-*.whl")
    return whl


def test_wheel_ships_schema_manifests_and_entry_point(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        assert "skillcheck/schemas/sources.schema.json" in names
        assert "skillcheck/schemas/gpus.schema.json" in names
        assert {f"skillcheck/engines/manifests/{m}" for m in MANIFESTS} <= names
        assert "skillcheck/py.typed" in names
        assert "skillcheck/ruledocs.toml" in names  # what `skillcheck rules CODE` prints
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        assert "skillcheck = skillcheck.cli:main" in zf.read(entry_points).decode()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        assert "License-Expression: Apache-2.0" in zf.read(metadata).decode()
        # the version pyproject.toml reads from the package (dynamic), written nowhere else
        assert f"\nVersion: {skillcheck.__version__}\n" in zf.read(metadata).decode()
        assert not any(n.startswith(("tests/", "references/", "assets/", "data/")) for n in names)


def test_installed_wheel_checks_and_packs_without_the_repository(
    wheel: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    work = tmp_path / "work"
    for case in ("engine-ok", "sources-ok", "full"):  # manifests, schema, everything else
        shutil.copytree(FIXTURES / "pass" / case, work / case)
    env = dict(os.environ, PYTHONPATH=str(site))

    def skillcheck(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "skillcheck", *args],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    where = subprocess.run(
        [sys.executable, "-c", "import skillcheck; print(skillcheck.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(site)  # the wheel's copy, not the sources
    proc = skillcheck("check", "--strict", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("0 errors, 0 warnings in 3 skills")
    broken = work / "engine-ok" / "SKILL.md"
    broken.write_text(
        broken.read_text(encoding="utf-8").replace("vllm serve", "vllm serve --no-such-flag 1", 1),
        encoding="utf-8",
    )
    proc = skillcheck("check", "--no-cache", "engine-ok")
    assert proc.returncode == 1 and "SC610" in proc.stdout, proc.stdout  # manifests were read
    proc = skillcheck("rules", "SC201")  # the explanations are package data
    assert proc.returncode == 0 and "Why it matters:" in proc.stdout, proc.stdout + proc.stderr
    proc = skillcheck("pack", "--no-cache", "full", "-o", "dist")
    assert proc.returncode == 0, proc.stderr
    assert (work / "dist" / "full-1.0.zip").is_file()


def test_wheel_holds_no_manifest_generator(wheel: Path) -> None:
    # The generator is a maintainer tool (python -m tools.manifests), not part of an install.
    with zipfile.ZipFile(wheel) as zf:
        modules = [n for n in zf.namelist() if n.endswith(".py")]
    assert modules and all(n.startswith("skillcheck/") for n in modules)
    assert not [n for n in modules if "generate" in n or n.startswith("tools/")]
    assert not [
        n
        for n in modules
        if Path(n).stem in {"argparse_reader", "click_reader", "pydantic_reader", "cpp_reader"}
    ]
