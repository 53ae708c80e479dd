"""One version, written once: ``skillcheck.__version__``. pyproject.toml reads it
(``dynamic = ["version"]``), the installed distribution's metadata carries it, and
``skillcheck --version`` prints it."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

import skillcheck

from .conftest import ROOT


def test_pyproject_reads_the_version_from_the_package() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in data["project"], "write the version only in skillcheck/__init__.py"
    assert "version" in data["project"]["dynamic"]
    dynamic = data["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "skillcheck.__version__"}


def test_the_version_is_a_release_number() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+(?:(?:a|b|rc)\d+|\.dev\d+)?", skillcheck.__version__)


def test_installed_metadata_and_cli_print_the_package_version() -> None:
    assert version("skillcheck") == skillcheck.__version__
    proc = subprocess.run(
        [sys.executable, "-m", "skillcheck", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"skillcheck, version {skillcheck.__version__}"
