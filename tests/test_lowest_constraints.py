"""``constraints/lowest.txt`` pins each runtime dependency to the lower bound pyproject.toml
declares, and CI's ``lowest`` job installs the package under it on the lowest supported Python
and runs the suite: a bound that no longer works fails there, not on a user's machine."""

from __future__ import annotations

import re
import sys

import yaml
from packaging.requirements import Requirement
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

from .conftest import ROOT

CONSTRAINTS = ROOT / "constraints" / "lowest.txt"


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def lower_bounds() -> dict[str, Version]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    bounds: dict[str, Version] = {}
    for text in project["dependencies"]:
        req = Requirement(text)
        lows = [Version(s.version) for s in req.specifier if s.operator == ">="]
        assert len(lows) == 1, f"{text}: give the dependency one lower bound (>=)"
        bounds[_name(req.name)] = lows[0]
    return bounds


def pins() -> dict[str, Version]:
    out: dict[str, Version] = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep and name.strip() and version.strip(), f"{line!r}: write name==version"
        assert _name(name.strip()) not in out, f"{name} is pinned twice"
        out[_name(name.strip())] = Version(version.strip())
    return out


def test_constraints_pin_every_dependency_at_its_lower_bound() -> None:
    assert pins() == lower_bounds()


def test_ci_runs_the_suite_with_the_lowest_versions_on_the_lowest_python() -> None:
    ci = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    job = ci["jobs"]["lowest"]
    assert job["permissions"] == {"contents": "read"}
    (setup,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python@")]
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "requires-python"
    ]
    assert requires == f">={setup['with']['python-version']}"
    script = [s["run"] for s in job["steps"] if "run" in s]
    install = next(i for i, run in enumerate(script) if "pip install" in run)
    assert script[install] == "python -m pip install -c constraints/lowest.txt -e '.[test]'"
    tests = next(i for i, run in enumerate(script) if "pytest" in run)
    assert install < tests
