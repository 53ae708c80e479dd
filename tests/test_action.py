"""``action.yml``, the composite action other repositories use: its inputs and outputs, the
hardening of the workflows (actions pinned to a commit with the release in a comment, inputs
reaching scripts through ``env`` only), and its two scripts run here with the environment a
runner gives them (``GITHUB_OUTPUT``, ``RUNNER_TEMP``), the check against fixture skills.
zizmor audits the file with the workflows (``tests/test_workflows.py``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import FIXTURES, ROOT
from .test_workflows import NAMES, PINNED, USES_LINE, VERSION_COMMENT, WORKFLOWS

ACTION = ROOT / "action.yml"
BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="the action's scripts are bash")


def action() -> dict[str, Any]:
    data = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def steps() -> list[dict[str, Any]]:
    out = action()["runs"]["steps"]
    assert isinstance(out, list)
    return out


def step(step_id: str) -> dict[str, Any]:
    return next(s for s in steps() if s.get("id") == step_id)


def test_inputs_outputs_and_steps() -> None:
    data = action()
    assert data["runs"]["using"] == "composite"
    inputs = data["inputs"]
    assert {k: v["default"] for k, v in inputs.items()} == {
        "path": ".",
        "args": "",
        "sarif": "true",
        "python-version": "3.13",
        "version": "",
    }
    assert all(v["description"] and v["required"] is False for v in inputs.values())
    assert set(data["outputs"]) == {"exit-code", "sarif-file"}
    used = [s["uses"].split("@")[0] for s in steps() if "uses" in s]
    assert used == ["actions/setup-python", "github/codeql-action/upload-sarif"]
    ids = [s.get("id") for s in steps()]
    upload = steps()[-1]
    assert ids.index("check") < len(steps()) - 1  # the upload comes after the check
    assert upload["if"] == (
        "always() && inputs.sarif == 'true' && steps.check.outputs.sarif-file != ''"
    )
    assert upload["with"]["sarif_file"] == "${{ steps.check.outputs.sarif-file }}"
    # setup-python gives its interpreter's path and leaves the caller's PATH alone
    assert step("python")["with"]["update-environment"] is False


def test_every_action_is_pinned_to_a_commit_with_its_release() -> None:
    lines = [m for ln in ACTION.read_text().splitlines() if (m := USES_LINE.match(ln))]
    assert len(lines) == 2
    pins: dict[str, str] = {}
    for name in NAMES:
        for ln in (WORKFLOWS / name).read_text(encoding="utf-8").splitlines():
            if m := USES_LINE.match(ln):
                pins[m.group("ref").split("@")[0]] = m.group("ref") + m.group("rest")
    for m in lines:
        ref = m.group("ref")
        assert PINNED.match(ref), f"pin {ref} to a 40-hex commit"
        assert re.fullmatch(r"[^@]+@[0-9a-f]{40}", ref)
        assert VERSION_COMMENT.match(m.group("rest")), f"{ref}: add '# vX.Y.Z'"
        # the same commit as the workflows use, where they use the action too
        assert pins.get(ref.split("@")[0], ref + m.group("rest")) == ref + m.group("rest")


def test_inputs_reach_scripts_through_env_only() -> None:
    """``${{ }}`` inside ``run`` is pasted into the script before the shell reads it (script
    injection): every value goes through ``env``, and every variable a script reads that is
    not the runner's own is set in its step's ``env``."""
    runner_vars = {"GITHUB_OUTPUT", "RUNNER_TEMP"}
    scripted = [s for s in steps() if "run" in s]
    assert [s["id"] for s in scripted] == ["install", "check"]
    for s in scripted:
        assert "${{" not in s["run"], s["id"]
        assert s["shell"] == "bash"
        read = set(re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", s["run"]))
        assert read - runner_vars <= set(s["env"]), (s["id"], read - set(s["env"]))
        for value in s["env"].values():
            assert re.fullmatch(r"\$\{\{ [\w.-]+ \}\}", value), value
    mentioned = {
        m for s in steps() for m in re.findall(r"inputs\.([\w-]+)", json.dumps(s, sort_keys=True))
    }
    assert mentioned == set(action()["inputs"])


def _run(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    assert BASH is not None
    keep = {k: os.environ[k] for k in ("PATH", "HOME", "XDG_CACHE_HOME") if k in os.environ}
    return subprocess.run(
        # what `shell: bash` runs on a runner: bash --noprofile --norc -eo pipefail {0}
        [BASH, "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env={**keep, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _outputs(path: Path) -> dict[str, str]:
    return dict(ln.split("=", 1) for ln in path.read_text(encoding="utf-8").splitlines())


def _executable(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _check(tmp_path: Path, case: str, args: str, sarif: str = "true") -> tuple[Any, ...]:
    """The check step on a copy of a fixture, with this checkout's skillcheck."""
    work = tmp_path / "work"
    shutil.copytree(FIXTURES / case, work / "skills" / case.split("/")[1])
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    out = tmp_path / "github-output"
    out.touch()
    skillcheck = _executable(
        tmp_path / "skillcheck",
        f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m skillcheck "$@"\n',
    )
    env = {
        "SKILLCHECK": str(skillcheck),
        "CHECK_PATH": "skills",
        "CHECK_ARGS": args,
        "SARIF": sarif,
        "GITHUB_OUTPUT": str(out),
        "RUNNER_TEMP": str(temp),
    }
    proc = _run(step("check")["run"], env, work)
    return proc, _outputs(out), temp


@needs_bash
def test_the_check_step_annotates_fails_and_writes_sarif(tmp_path: Path) -> None:
    proc, outputs, temp = _check(tmp_path, "fail/link-broken", "--no-cache --strict")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("::error file=skills/link-broken/SKILL.md,line=6,col=5,")
    assert outputs == {"exit-code": "1", "sarif-file": str(temp / "skillcheck.sarif")}
    log = json.loads((temp / "skillcheck.sarif").read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0"
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "SC201"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "skills/link-broken/SKILL.md"
    assert location["region"] == {"startLine": 6, "startColumn": 5}


@needs_bash
def test_the_check_step_on_a_clean_skill(tmp_path: Path) -> None:
    proc, outputs, temp = _check(tmp_path, "pass/minimal", "")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert outputs["exit-code"] == "0"
    log = json.loads((temp / "skillcheck.sarif").read_text(encoding="utf-8"))
    assert log["runs"][0]["results"] == []


@needs_bash
def test_no_sarif_when_not_asked_or_when_skillcheck_cannot_run(tmp_path: Path) -> None:
    proc, outputs, temp = _check(tmp_path, "fail/link-broken", "--no-cache", sarif="false")
    assert (proc.returncode, outputs) == (1, {"exit-code": "1", "sarif-file": ""})
    assert not (temp / "skillcheck.sarif").exists()
    shutil.rmtree(tmp_path)
    tmp_path.mkdir()
    proc, outputs, _ = _check(tmp_path, "pass/minimal", "--select SC9")  # a usage error
    assert (proc.returncode, outputs) == (2, {"exit-code": "2", "sarif-file": ""})
    assert "no rule code starts with 'SC9'" in proc.stderr


FAKE_PYTHON = """#!/bin/sh
# stands for setup-python's interpreter: `-m venv DIR` makes DIR/bin/python, this same script
echo "$0 $*" >> "{log}"
if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; fi
"""


@needs_bash
@pytest.mark.parametrize(
    ("version", "requirement"),
    [
        ("", "{action}"),  # this action's own code, at the ref the workflow names
        ("0.2.0", "skillcheck==0.2.0"),
        ("./dist/skillcheck-0.2.0-py3-none-any.whl", "./dist/skillcheck-0.2.0-py3-none-any.whl"),
    ],
)
def test_the_install_step(tmp_path: Path, version: str, requirement: str) -> None:
    log, temp, out = tmp_path / "log", tmp_path / "runner-temp", tmp_path / "github-output"
    temp.mkdir()
    out.touch()
    python = _executable(tmp_path / "python", FAKE_PYTHON.format(log=log))
    env = {
        "PYTHON": str(python),
        "SKILLCHECK_VERSION": version,
        "ACTION_PATH": str(ROOT),
        "GITHUB_OUTPUT": str(out),
        "RUNNER_TEMP": str(temp),
    }
    proc = _run(step("install")["run"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    venv = temp / "skillcheck-venv"
    assert log.read_text(encoding="utf-8").splitlines() == [
        f"{python} -m venv {venv}",
        f"{venv}/bin/python -m pip install --disable-pip-version-check --quiet "
        + requirement.format(action=ROOT),
    ]
    assert _outputs(out) == {"skillcheck": f"{venv}/bin/skillcheck"}
