"""The GitHub Actions workflows: triggers, jobs, the commands each one runs, and the hardening
zizmor checks (actions pinned to a commit, no credentials left behind, least privilege); and
``.github/dependabot.yml``, which keeps the pins current."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sysconfig
from typing import Any

import pytest
import yaml

from .conftest import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
NAMES = ["ci.yml", "probe.yml", "release-check.yml", "release.yml"]
# owner/repo[/path]@<commit> and, after it on the line, the release the commit was tagged as:
# the form Dependabot and Renovate update.
USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<rest>.*)$")
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")
VERSION_COMMENT = re.compile(r"^\s+# v\d+\.\d+\.\d+$")
# The only write permissions in any workflow, and the job that holds each.
WRITERS = {
    ("release.yml", "pypi"): {"id-token": "write"},
    ("release.yml", "github-release"): {"contents": "write"},
    ("release-check.yml", "release-check"): {"issues": "write"},
}


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
    """The actions a job uses, without the commit: ``actions/checkout``."""
    return [s["uses"].split("@")[0] for s in steps(job) if "uses" in s]


def step_using(job: dict[str, Any], action: str) -> dict[str, Any]:
    return next(s for s in steps(job) if s.get("uses", "").split("@")[0] == action)


def step_running(job: dict[str, Any], command: str) -> dict[str, Any]:
    return next(s for s in steps(job) if command in s.get("run", ""))


@pytest.mark.parametrize("name", NAMES)
def test_workflow_shape(name: str) -> None:
    wf = load(name)
    assert {"name", "on", "jobs"} <= wf.keys()
    assert wf["permissions"] == {}  # each job asks for what it needs
    for job in wf["jobs"].values():
        assert job["runs-on"] == "ubuntu-latest"
        assert isinstance(job.get("name"), str) and job["name"]
        assert "timeout-minutes" in job
        for step in steps(job):
            assert ("uses" in step) != ("run" in step), step
            if "uses" in step:
                assert PINNED.match(step["uses"]), f"pin {step['uses']} to a commit"


@pytest.mark.parametrize("name", NAMES)
def test_every_action_names_the_release_of_its_commit(name: str) -> None:
    lines = [
        m
        for line in (WORKFLOWS / name).read_text(encoding="utf-8").splitlines()
        if (m := USES_LINE.match(line))
    ]
    assert lines
    for m in lines:
        assert VERSION_COMMENT.match(m.group("rest")), f"{m.group('ref')}: add '# vX.Y.Z'"
    # one action, one commit, across the workflows of the repository
    commits: dict[str, set[str]] = {}
    for other in NAMES:
        for line in (WORKFLOWS / other).read_text(encoding="utf-8").splitlines():
            if m := USES_LINE.match(line):
                action, _, commit = m.group("ref").partition("@")
                commits.setdefault(action, set()).add(commit + m.group("rest").strip())
    assert all(len(pins) == 1 for pins in commits.values()), commits


@pytest.mark.parametrize("name", NAMES)
def test_least_privilege(name: str) -> None:
    for job_id, job in load(name)["jobs"].items():
        granted = job.get("permissions")
        assert isinstance(granted, dict), f"{job_id}: say which permissions the job needs"
        writes = {k: v for k, v in granted.items() if v == "write"}
        assert writes == WRITERS.get((name, job_id), {}), job_id
        assert set(granted.values()) <= {"read", "write", "none"}


@pytest.mark.parametrize("name", NAMES)
def test_no_credentials_left_and_no_expressions_in_scripts(name: str) -> None:
    for job in load(name)["jobs"].values():
        for step in steps(job):
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
            # ${{ }} in a script is pasted into it before the shell runs: pass values via env
            assert "${{" not in step.get("run", ""), step["run"]


def test_ci_runs_lint_types_tests_and_the_check_on_every_python() -> None:
    wf = load("ci.yml")
    assert set(wf["on"]) == {"push", "pull_request"}
    job = wf["jobs"]["test"]
    assert job["permissions"] == {"contents": "read"}
    versions = job["strategy"]["matrix"]["python-version"]
    assert versions == ["3.10", "3.11", "3.12", "3.13"]
    requires = re.search(
        r'requires-python = ">=(3\.\d+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    )
    assert requires and versions[0] == requires.group(1)
    assert uses(job)[:2] == ["actions/checkout", "actions/setup-python"]
    setup = step_using(job, "actions/setup-python")
    assert setup["with"]["python-version"] == "${{ matrix.python-version }}"
    script = runs(job)
    for command in (
        "pip install -e '.[test]'",
        "ruff check .",
        "mypy",
        "pytest",
        "skillcheck check --strict --format github",
    ):
        assert command in script, command
    order = [script.index(c) for c in ("pip install", "ruff", "mypy", "pytest", "skillcheck")]
    assert order == sorted(order)


def test_ci_audits_the_workflows_with_the_pre_commit_zizmor() -> None:
    job = load("ci.yml")["jobs"]["tools"]
    assert job["permissions"] == {"contents": "read"}
    install = step_running(job, "pip install")
    pinned = re.search(r"\bzizmor==(\d+\.\d+\.\d+)\b", install["run"])
    assert pinned, "pin the zizmor version CI installs"
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    hook = re.search(r"zizmor-pre-commit\n\s+rev: [0-9a-f]{40}\s+# frozen: v(\S+)", config)
    assert hook and hook.group(1) == pinned.group(1), "CI and pre-commit run one zizmor"
    audit = step_running(job, "zizmor ")
    argv = audit["run"].split()
    assert argv[argv.index("--min-severity") + 1] == "medium"
    assert "--offline" not in argv  # online audits check each pinned commit against its tag
    assert audit["env"] == {"GH_TOKEN": "${{ github.token }}"}
    assert steps(job).index(install) < steps(job).index(audit)


def test_ci_runs_the_alert_rule_tests_with_a_verified_promtool() -> None:
    job = load("ci.yml")["jobs"]["tools"]
    fetch = step_running(job, "promtool")
    version = fetch["env"]["PROMETHEUS_VERSION"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert re.fullmatch(r"[0-9a-f]{64}", fetch["env"]["PROMETHEUS_SHA256"])
    script = fetch["run"]
    assert (
        "https://github.com/prometheus/prometheus/releases/download/"
        "v${PROMETHEUS_VERSION}/${name}.tar.gz"
    ) in script
    assert 'name="prometheus-${PROMETHEUS_VERSION}.linux-amd64"' in script
    # the checksum is verified before the archive is opened, and promtool lands on PATH
    assert script.index("sha256sum --check") < script.index("tar ")
    assert "GITHUB_PATH" in script
    tests = step_running(job, "pytest")
    assert "tests/templates/test_alert_rules.py" in tests["run"]
    assert tests["env"]["SKILLCHECK_REQUIRE_PROMTOOL"] == "1"
    assert steps(job).index(fetch) < steps(job).index(tests)


def test_probe_is_weekly_cached_and_never_on_pull_requests() -> None:
    wf = load("probe.yml")
    assert set(wf["on"]) == {"schedule", "workflow_dispatch"}
    (cron,) = [c["cron"] for c in wf["on"]["schedule"]]
    fields = cron.split()
    assert len(fields) == 5 and fields[2:4] == ["*", "*"] and fields[4].isdigit()  # weekly
    job = wf["jobs"]["probe"]
    assert job["permissions"] == {"contents": "read"}
    cache = step_using(job, "actions/cache")
    assert cache["with"]["path"] == "~/.cache/skillcheck"  # platformdirs' user cache on Linux
    assert "steps.week.outputs.week" in cache["with"]["key"]
    restore = cache["with"]["restore-keys"].split()
    assert restore[-1] == "skillcheck-probe-" and cache["with"]["key"].startswith(restore[0][:17])
    week = next(s for s in steps(job) if s.get("id") == "week")
    assert "%G-W%V" in week["run"]
    probe = step_running(job, "skillcheck probe")
    assert "--format github" in probe["run"]
    assert probe["env"]["GITHUB_TOKEN"] == "${{ secrets.GITHUB_TOKEN }}"
    assert steps(job).index(cache) < steps(job).index(probe)


def test_release_check_is_scheduled_and_reports_through_an_issue() -> None:
    wf = load("release-check.yml")
    assert set(wf["on"]) == {"schedule", "workflow_dispatch"}  # never on pull requests
    job = wf["jobs"]["release-check"]
    assert job["permissions"] == {"contents": "read", "issues": "write"}
    engines = {row["engine"]: row["package"] for row in job["strategy"]["matrix"]["include"]}
    assert engines == {"vllm": "vllm", "sglang": "sglang", "llama.cpp": "llama-cpp-python"}
    check = step_running(job, "python -m tools.manifests release-check")
    assert check["env"]["ENGINE"] == "${{ matrix.engine }}"
    assert check["env"]["ONLY"] == "${{ inputs.engine }}"
    assert "gh issue create" in check["run"] and "gh issue edit" in check["run"]


def test_release_builds_publishes_and_attaches_the_pack() -> None:
    wf = load("release.yml")
    assert wf["on"] == {"push": {"tags": ["v*"]}}
    jobs = wf["jobs"]
    assert jobs["build"]["permissions"] == {"contents": "read"}
    build = runs(jobs["build"])
    assert "python -m build" in build
    assert "skillcheck check --strict" in build
    assert "sha256sum" in build and "GITHUB_REF_NAME" in build
    uploaded = {
        s["with"]["name"]: s["with"]["path"]
        for s in steps(jobs["build"])
        if s.get("uses", "").startswith("actions/upload-artifact@")
    }
    packed = re.search(r"skillcheck pack --strict -o (\S+)", build)
    assert packed
    pack_dir = packed.group(1)
    assert uploaded == {"python-dist": "dist/", "skill": f"{pack_dir}/"}

    pypi = jobs["pypi"]
    assert pypi["needs"] == "build"
    assert pypi["permissions"] == {"id-token": "write"}  # trusted publishing
    assert pypi["environment"]["name"] == "pypi"
    assert uses(pypi)[-1] == "pypa/gh-action-pypi-publish"
    downloaded = [
        s["with"]["name"]
        for s in steps(pypi)
        if s.get("uses", "").startswith("actions/download-artifact@")
    ]
    assert downloaded == ["python-dist"]  # the zip is not a distribution: never sent to PyPI

    release = jobs["github-release"]
    assert release["needs"] == "build"
    assert release["permissions"] == {"contents": "write"}
    downloaded = [
        (s["with"]["name"], s["with"]["path"])
        for s in steps(release)
        if s.get("uses", "").startswith("actions/download-artifact@")
    ]
    assert downloaded == [("python-dist", "dist/"), ("skill", f"{pack_dir}/")]
    assert "softprops/action-gh-release" not in uses(release)
    gh = step_running(release, "gh release create")
    assert gh["env"] == {"GH_TOKEN": "${{ github.token }}", "GH_REPO": "${{ github.repository }}"}
    script = gh["run"]
    create = re.search(r"gh release create (.+?)(?<!\\)\n", script, re.S)
    assert create
    argv = create.group(1).replace("\\\n", " ").split()
    # the release of the tag, titled with it, notes generated, every file of both artifacts
    assert argv[0] == '"$GITHUB_REF_NAME"'
    assert {"--verify-tag", "--generate-notes"} <= set(argv)
    assert argv[argv.index("--title") + 1] == '"$GITHUB_REF_NAME"'
    assert argv[-2:] == ["dist/*", f"{pack_dir}/*"]
    # a re-run replaces the files of the release it created
    assert f'gh release upload "$GITHUB_REF_NAME" --clobber dist/* {pack_dir}/*' in script
    # an artifact with no file fails the job, as the action's fail_on_unmatched_files did
    assert f"for pattern in 'dist/*' '{pack_dir}/*'" in script and "exit 1" in script


def test_dependabot_updates_the_actions_and_the_python_dependencies() -> None:
    config = yaml.safe_load((ROOT / ".github" / "dependabot.yml").read_text(encoding="utf-8"))
    assert config["version"] == 2
    by_ecosystem = {u["package-ecosystem"]: u for u in config["updates"]}
    assert set(by_ecosystem) == {"github-actions", "pip"}
    for update in by_ecosystem.values():
        assert update["directory"] == "/"
        assert update["schedule"]["interval"] == "weekly"
        assert update["cooldown"]["default-days"] >= 1  # zizmor: dependabot-cooldown


def _zizmor() -> str | None:
    """zizmor on PATH, or beside this interpreter (a virtual environment not activated)."""
    path = os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])
    return shutil.which("zizmor", path=path)


def test_zizmor_finds_nothing_offline() -> None:
    zizmor = _zizmor()
    if zizmor is None:
        if os.environ.get("SKILLCHECK_REQUIRE_ZIZMOR") == "1":
            pytest.fail("SKILLCHECK_REQUIRE_ZIZMOR=1 but zizmor is not installed")
        pytest.skip("zizmor is not installed (pip install zizmor; the version is in ci.yml)")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("GH_TOKEN", "GITHUB_TOKEN", "ZIZMOR_GITHUB_TOKEN")
    }
    # the repository root: the workflows, dependabot.yml and the pre-commit files
    proc = subprocess.run(
        [zizmor, "--offline", "--no-progress", "--no-exit-codes", "--format", "json", "."],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    findings = json.loads(proc.stdout)
    assert isinstance(findings, list)
    serious = [
        f"{f['ident']} ({f['determinations']['severity']}): {f['desc']} at "
        f"{f['locations'][0]['concrete']['feature']!r}"
        for f in findings
        if f["determinations"]["severity"] != "Informational"
    ]
    assert not serious, "\n".join(serious)
