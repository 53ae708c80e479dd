"""The GitHub Actions workflows: triggers, jobs and the commands each one runs."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from .conftest import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@(v\d+|release/v\d+)$")


def load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    if True in data:  # YAML 1.1 reads the key `on` as true
        data["on"] = data.pop(True)
    return data


def steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    out = job["steps"]
    assert isinstance(out, list) and out
    return out


def runs(job: dict[str, Any]) -> str:
    return "\n".join(s.get("run", "") for s in steps(job))


def uses(job: dict[str, Any]) -> list[str]:
    return [s["uses"] for s in steps(job) if "uses" in s]


@pytest.mark.parametrize("name", ["ci.yml", "probe.yml", "release.yml"])
def test_workflow_shape(name: str) -> None:
    wf = load(name)
    assert {"name", "on", "jobs"} <= wf.keys()
    assert wf["permissions"] == {"contents": "read"}  # jobs widen it only where needed
    for job in wf["jobs"].values():
        assert job["runs-on"] == "ubuntu-latest"
        for step in steps(job):
            assert ("uses" in step) != ("run" in step), step
            if "uses" in step:
                assert PINNED.match(step["uses"]), f"pin {step['uses']} to a major version"


def test_ci_runs_lint_types_tests_and_the_check_on_every_python() -> None:
    wf = load("ci.yml")
    assert set(wf["on"]) == {"push", "pull_request"}
    job = wf["jobs"]["test"]
    versions = job["strategy"]["matrix"]["python-version"]
    assert versions == ["3.10", "3.11", "3.12", "3.13"]
    requires = re.search(r'requires-python = ">=(3\.\d+)"',
                         (ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert requires and versions[0] == requires.group(1)
    assert uses(job)[:2] == ["actions/checkout@v5", "actions/setup-python@v6"]
    setup = next(s for s in steps(job) if s.get("uses", "").startswith("actions/setup-python"))
    assert setup["with"]["python-version"] == "${{ matrix.python-version }}"
    script = runs(job)
    for command in ("pip install -e '.[test]'", "ruff check .", "mypy", "pytest",
                    "skillcheck check --strict --format github"):
        assert command in script, command
    order = [script.index(c) for c in ("pip install", "ruff", "mypy", "pytest", "skillcheck")]
    assert order == sorted(order)


def test_probe_is_weekly_cached_and_never_on_pull_requests() -> None:
    wf = load("probe.yml")
    assert set(wf["on"]) == {"schedule", "workflow_dispatch"}
    (cron,) = [c["cron"] for c in wf["on"]["schedule"]]
    fields = cron.split()
    assert len(fields) == 5 and fields[2:4] == ["*", "*"] and fields[4].isdigit()  # weekly
    job = wf["jobs"]["probe"]
    cache = next(s for s in steps(job) if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == "~/.cache/skillcheck"  # platformdirs' user cache on Linux
    assert "steps.week.outputs.week" in cache["with"]["key"]
    restore = cache["with"]["restore-keys"].split()
    assert restore[-1] == "skillcheck-probe-" and cache["with"]["key"].startswith(restore[0][:17])
    week = next(s for s in steps(job) if s.get("id") == "week")
    assert "%G-W%V" in week["run"]
    probe = next(s for s in steps(job) if "skillcheck probe" in s.get("run", ""))
    assert "--format github" in probe["run"]
    assert probe["env"]["GITHUB_TOKEN"] == "${{ secrets.GITHUB_TOKEN }}"
    assert steps(job).index(cache) < steps(job).index(probe)


def test_release_builds_publishes_and_attaches_the_pack() -> None:
    wf = load("release.yml")
    assert wf["on"] == {"push": {"tags": ["v*"]}}
    jobs = wf["jobs"]
    build = runs(jobs["build"])
    assert "python -m build" in build
    assert "skillcheck check --strict" in build
    assert "sha256sum" in build and "GITHUB_REF_NAME" in build
    uploaded = {s["with"]["name"]: s["with"]["path"] for s in steps(jobs["build"])
                if s.get("uses", "").startswith("actions/upload-artifact@")}
    packed = re.search(r"skillcheck pack --strict -o (\S+)", build)
    assert packed
    pack_dir = packed.group(1)
    assert uploaded == {"python-dist": "dist/", "skill": f"{pack_dir}/"}
    pypi = jobs["pypi"]
    assert pypi["needs"] == "build"
    assert pypi["permissions"] == {"id-token": "write"}  # trusted publishing
    assert "pypa/gh-action-pypi-publish@release/v1" in uses(pypi)
    downloaded = [s["with"]["name"] for s in steps(pypi)
                  if s.get("uses", "").startswith("actions/download-artifact@")]
    assert downloaded == ["python-dist"]  # the zip is not a distribution: never sent to PyPI
    release = jobs["github-release"]
    assert release["permissions"] == {"contents": "write"}
    gh = next(s for s in steps(release)
              if s.get("uses", "").startswith("softprops/action-gh-release@"))
    files = gh["with"]["files"].split()
    assert "dist/*" in files and f"{pack_dir}/*" in files
