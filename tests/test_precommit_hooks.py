"""``.pre-commit-hooks.yaml``: valid for pre-commit's hook schema, and the ``skillcheck`` hook's
entry, run as pre-commit runs it (no file names, from the repository root), passes on a clean
skill and fails on a broken one. ``.pre-commit-config.yaml``, the hooks this repository runs on
itself: ruff check and format, mypy, zizmor, and skillcheck on the pack; each remote one pinned to
the commit of a tag, and all able to pass without the repository installed."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

from skillcheck.config import load_config
from skillcheck.runner import run

from .conftest import FIXTURES, ROOT

HOOKS_FILE = ROOT / ".pre-commit-hooks.yaml"
CONFIG_FILE = ROOT / ".pre-commit-config.yaml"
FROZEN_REV = re.compile(r"^\s+rev: ([0-9a-f]{40})\s+# frozen: v\d+\.\d+\.\d+$", re.M)
REQUIRED = {"id", "name", "entry", "language"}
# the keys of a hook definition in pre-commit's manifest schema (pre_commit/clientlib.py)
ALLOWED = REQUIRED | {
    "alias",
    "files",
    "exclude",
    "types",
    "types_or",
    "exclude_types",
    "additional_dependencies",
    "args",
    "always_run",
    "fail_fast",
    "pass_filenames",
    "description",
    "language_version",
    "log_file",
    "require_serial",
    "stages",
    "verbose",
    "minimum_pre_commit_version",
}
STAGES = {
    "commit-msg",
    "post-checkout",
    "post-commit",
    "post-merge",
    "post-rewrite",
    "pre-commit",
    "pre-merge-commit",
    "pre-push",
    "pre-rebase",
    "prepare-commit-msg",
    "manual",
}


def hooks() -> dict[str, dict[str, Any]]:
    data = yaml.safe_load(HOOKS_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    by_id = {h["id"]: h for h in data}
    assert len(by_id) == len(data), "hook ids must be unique"
    return by_id


def test_hook_definitions_follow_the_schema() -> None:
    for hook in hooks().values():
        assert hook.keys() >= REQUIRED, hook
        assert hook.keys() <= ALLOWED, hook.keys() - ALLOWED
        assert all(isinstance(hook[k], str) and hook[k].strip() for k in REQUIRED)
        assert hook["language"] == "python"  # pre-commit pip-installs this repository
        for key in ("files", "exclude"):
            if key in hook:
                re.compile(hook[key])
        assert set(hook.get("stages", [])) <= STAGES
        for key in ("pass_filenames", "always_run", "require_serial"):
            assert isinstance(hook.get(key, False), bool)


def test_the_check_hook_is_offline_and_whole_tree() -> None:
    hook = hooks()["skillcheck"]
    argv = shlex.split(hook["entry"])
    assert argv[:2] == ["skillcheck", "check"]
    assert "probe" not in argv
    assert hook["pass_filenames"] is False  # skillcheck finds the skills itself
    assert hook.get("always_run") is True or "md" in hook.get("files", "")
    assert "stages" not in hook or "pre-commit" in hook["stages"]


def test_the_probe_hook_runs_only_on_demand() -> None:
    hook = hooks()["skillcheck-probe"]
    assert shlex.split(hook["entry"])[:2] == ["skillcheck", "probe"]
    assert hook["stages"] == ["manual"]
    assert hook["pass_filenames"] is False


def run_hook(hook: dict[str, Any], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The hook as pre-commit runs it: its entry and args, no file names, in ``cwd``; the
    ``skillcheck`` console script is this interpreter's ``-m skillcheck``."""
    argv = shlex.split(hook["entry"]) + list(hook.get("args", []))
    assert argv[0] == "skillcheck"
    env = dict(os.environ, NO_COLOR="1")
    env.pop("GITHUB_TOKEN", None)
    return subprocess.run(
        [sys.executable, "-m", "skillcheck", *argv[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _repository_is_clean() -> bool:
    cfg, pyproject = load_config(ROOT, {"cache": False})
    result = run([ROOT], cfg, ROOT, exclude_base=pyproject.parent if pyproject else ROOT)
    return result.errors == 0


def test_check_hook_passes_on_this_repository() -> None:
    # The repository's own pages are written alongside the tooling; until they pass the check,
    # the hook is run in a clean fixture skill instead (where the repository's configuration
    # still applies, as it would to a skill kept in a subfolder).
    where = ROOT if _repository_is_clean() else FIXTURES / "pass" / "full"
    proc = run_hook(hooks()["skillcheck"], where)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"^0 errors, \d+ warnings? in \d+ skills?", proc.stdout, re.M), proc.stdout


def test_check_hook_blocks_a_broken_skill() -> None:
    proc = run_hook(hooks()["skillcheck"], FIXTURES / "fail" / "link-broken")
    assert proc.returncode == 1
    assert "SC201" in proc.stdout


@pytest.mark.parametrize("hook_id", ["skillcheck", "skillcheck-probe"])
def test_hook_entry_is_a_real_command(hook_id: str) -> None:
    argv = shlex.split(hooks()[hook_id]["entry"])
    proc = subprocess.run(
        [sys.executable, "-m", "skillcheck", *argv[1:], "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"Usage: python -m skillcheck {argv[1]} ")


def config_hooks() -> dict[str, dict[str, Any]]:
    data = yaml.safe_load(CONFIG_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data["repos"], list)
    by_id: dict[str, dict[str, Any]] = {}
    for repo in data["repos"]:
        local = repo["repo"] == "local"
        assert local or repo["repo"].startswith("https://github.com/"), repo["repo"]
        assert local != ("rev" in repo), repo["repo"]
        for hook in repo["hooks"]:
            assert hook["id"] not in by_id
            by_id[hook["id"]] = {**hook, "repo": repo["repo"], "rev": repo.get("rev")}
    return by_id


def test_config_pins_every_hook_repository_to_a_tagged_commit() -> None:
    text = CONFIG_FILE.read_text(encoding="utf-8")
    revs = [str(r["rev"]) for r in yaml.safe_load(text)["repos"] if r["repo"] != "local"]
    assert revs and sorted(revs) == sorted(FROZEN_REV.findall(text))  # rev: <commit>  # frozen: vX


def test_config_runs_zizmor_ruff_mypy_and_skillcheck() -> None:
    by_id = config_hooks()
    assert set(by_id) == {"zizmor", "ruff-check", "ruff-format", "mypy", "skillcheck"}
    assert by_id["zizmor"]["repo"].endswith("/zizmorcore/zizmor-pre-commit")
    assert "--offline" in by_id["zizmor"]["args"]  # a commit needs no network or token
    for ruff in ("ruff-check", "ruff-format"):  # one ruff release for both
        assert by_id[ruff]["repo"].endswith("/astral-sh/ruff-pre-commit")
        assert "args" not in by_id[ruff]  # the configuration of [tool.ruff], as in CI
    assert by_id["ruff-check"]["rev"] == by_id["ruff-format"]["rev"]


def test_ci_runs_the_ruff_of_the_pre_commit_config() -> None:
    """CI's ``ruff check`` and ``ruff format --check`` are the hooks' checks: the same commands
    with the same configuration (CI's ruff comes from the test extra)."""
    ci = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert "run: ruff check ." in ci
    assert "run: ruff format --check ." in ci


def test_skillcheck_hook_checks_the_pack_from_this_checkout() -> None:
    hook = config_hooks()["skillcheck"]
    assert hook["repo"] == "local" and hook["language"] == "python"
    argv = shlex.split(hook["entry"])
    assert argv == ["python", "-m", "skillcheck", "check", "--strict"] and "args" not in hook
    assert hook["pass_filenames"] is False  # skillcheck finds the skills itself
    for path in (
        "SKILL.md",
        "references/kv-cache.md",
        "assets/serving/template-x.md",
        "data/sources.json",
        "skillcheck/rules/links.py",
        "pyproject.toml",
    ):
        assert re.search(hook["files"], path), path
    for path in ("CHANGELOG.md", "tests/test_cli.py", "docs/install.md", "pyproject.toml.bak"):
        assert not re.search(hook["files"], path), path
    # pre-commit's environment holds only these and the checkout: every runtime dependency
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    installed = {distribution(r) for r in hook["additional_dependencies"]}
    assert {distribution(r) for r in project["dependencies"]} <= installed


def test_skillcheck_hook_passes_on_this_repository() -> None:
    """The hook's command, run as pre-commit runs it: from the repository root, with the
    package found in the checkout."""
    if not _repository_is_clean():
        pytest.skip("the repository's pages do not pass skillcheck yet")
    argv = shlex.split(config_hooks()["skillcheck"]["entry"])
    env = dict(os.environ, NO_COLOR="1")
    env.pop("GITHUB_TOKEN", None)
    proc = subprocess.run(
        [sys.executable, *argv[1:]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def distribution(requirement: str) -> str:
    """The normalised distribution name of a requirement: ``PyYAML>=6.0`` -> ``pyyaml``."""
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def test_mypy_hook_checks_the_package_as_ci_does() -> None:
    hook = config_hooks()["mypy"]
    assert hook["repo"].endswith("/pre-commit/mirrors-mypy")
    # no file names and no extra flags: `mypy` with [tool.mypy] (strict, packages = skillcheck)
    assert hook["args"] == [] and hook["pass_filenames"] is False
    assert re.search(hook["files"], "skillcheck/runner.py")
    assert re.search(hook["files"], "pyproject.toml")
    # pre-commit's environment holds only these: every runtime dependency must be among them
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    installed = {distribution(r) for r in hook["additional_dependencies"]}
    assert {distribution(r) for r in project["dependencies"]} <= installed
    assert "types-pyyaml" in installed
