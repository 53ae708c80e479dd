"""``skillcheck pack``: contents, byte-for-byte reproducibility, refusal, and installing the zip
into a ``skills/`` folder where ``check --strict`` passes."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from skillcheck.config import load_config
from skillcheck.runner import Result, run

from .conftest import FIXTURES, ROOT
from .test_cli import invoke

FULL = FIXTURES / "pass" / "full"
FULL_MEMBERS = [
    "full/LICENSE",
    "full/SKILL.md",
    "full/assets/diagram.txt",
    "full/assets/template-config.md",
    "full/data/values.json",
    "full/extra/notes.txt",
    "full/reference.md",
    "full/references/guide.md",
]


def make_repo(base: Path, folder: str = "checkout-1234") -> Path:
    """The ``full`` fixture laid out as a skill at a repository root, cloned under a folder
    whose name differs from the skill's, next to the tooling a repository holds."""
    root = base / folder
    shutil.copytree(FULL, root)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "LICENSE").write_text("Apache License\nVersion 2.0, January 2004\n")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "tool"\n\n[tool.skillcheck]\nexclude = ["tests", "docs", "benchmarks"]\n'
    )
    (root / "README.md").write_text("# The repository\n\nSee [the skill](SKILL.md).\n")
    (root / ".gitignore").write_text("dist/\n")
    for rel, body in {
        ".github/workflows/ci.yml": "on: push\n",
        "tests/test_tool.py": "def test_x() -> None:\n    pass\n",
        "docs/notes.md": "# Notes\n",
        "benchmarks/bench.py": "print(1)\n",
        "skillcheck/__init__.py": "",
        "assets/__pycache__/x.cpython-311.pyc": "\0\0",
        "assets/.DS_Store": "\0",
        "references/.gitkeep": "",
        "dist/old.zip": "PK",
        "reference.md": "# More\n\nRaw notes: [notes](extra/notes.txt).\n",
        "extra/notes.txt": "linked from reference.md\n",
        "extra/unlinked.txt": "not linked: stays out\n",
    }.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(body)
    skill_md = root / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nMore in [reference.md](reference.md).\n")
    return root


def pack(path: Path, out: Path, *extra: str, cwd: Path | None = None) -> tuple[int, str, str]:
    return invoke("pack", "--no-cache", str(path), "-o", str(out), *extra, cwd=cwd)


def printed_zip(out: str) -> tuple[Path, str]:
    m = re.search(r"^([0-9a-f]{64})  (.+)$", out, re.M)
    assert m, out
    return Path(m.group(2)), m.group(1)


def test_pack_contents_and_folder_name(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    code, out, err = pack(root, tmp_path / "dist")
    assert code == 0, err
    zpath, digest = printed_zip(out)
    assert zpath == tmp_path / "dist" / "full-1.0.zip"  # <name>-<metadata.version>.zip
    assert out.startswith(f"wrote {zpath} (8 files in full/, ")
    assert digest == hashlib.sha256(zpath.read_bytes()).hexdigest()
    with zipfile.ZipFile(zpath) as zf:
        assert zf.namelist() == FULL_MEMBERS  # sorted, one top folder named after the skill
        assert zf.read("full/SKILL.md") == (root / "SKILL.md").read_bytes()
        assert zf.testzip() is None
    assert "0 errors, 0 warnings" in err


def test_pack_metadata_is_fixed(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    code, out, _ = pack(root, tmp_path / "dist")
    assert code == 0
    zpath = printed_zip(out)[0]
    # the zip itself is readable by all, as a release asset is (a temporary file is 0600)
    assert stat.S_IMODE(zpath.stat().st_mode) == 0o644
    with zipfile.ZipFile(zpath) as zf:
        assert zf.comment == b""
        assert [i.filename for i in zf.infolist() if i.filename.endswith("/")] == []
        for info in zf.infolist():
            assert info.date_time == (1980, 1, 1, 0, 0, 0)
            assert info.external_attr >> 16 == 0o100644  # S_IFREG | rw-r--r--
            assert stat.S_ISREG(info.external_attr >> 16)
            assert info.external_attr & 0xFFFF == 0  # no MS-DOS attributes (not a directory)
            assert info.create_system == 3
            assert info.compress_type == zipfile.ZIP_DEFLATED
            assert not info.is_dir()
            assert info.extra == b""


def test_pack_is_reproducible(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    assert pack(root, tmp_path / "a")[0] == 0
    assert pack(root, tmp_path / "b")[0] == 0
    first = (tmp_path / "a" / "full-1.0.zip").read_bytes()
    assert (tmp_path / "b" / "full-1.0.zip").read_bytes() == first
    # new mtimes, other permissions, files created in another order: the same bytes
    for i, p in enumerate(sorted(root.rglob("*"), reverse=True)):
        if p.is_file():
            os.utime(p, (1_700_000_000 + i * 7919, 1_700_000_000 + i * 7919))
            p.chmod(0o600 if i % 2 else 0o755)
    moved = tmp_path / "elsewhere" / "other-name"
    moved.parent.mkdir()
    shutil.copytree(root, moved, copy_function=shutil.copy)
    code, out, _ = pack(moved, tmp_path / "c")
    assert code == 0
    assert (tmp_path / "c" / "full-1.0.zip").read_bytes() == first
    assert printed_zip(out)[1] == hashlib.sha256(first).hexdigest()
    # overwriting an existing zip gives the same file
    assert pack(root, tmp_path / "a")[0] == 0
    assert (tmp_path / "a" / "full-1.0.zip").read_bytes() == first


def test_pack_from_inside_the_skill_with_default_output(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    code, out, _ = invoke("pack", "--no-cache", cwd=root)
    assert code == 0
    assert out.startswith("wrote dist/full-1.0.zip ")
    assert (root / "dist" / "full-1.0.zip").is_file()
    # the zip in dist/ is never packed itself
    code, _, _ = invoke("pack", "--no-cache", cwd=root)
    assert code == 0
    assert zipfile.ZipFile(root / "dist" / "full-1.0.zip").namelist() == FULL_MEMBERS


@pytest.mark.parametrize("case", ["link-broken", "orphan", "name-missing"])
def test_pack_refuses_a_skill_with_errors(tmp_path: Path, case: str) -> None:
    out_dir = tmp_path / "dist"
    code, out, err = pack(FIXTURES / "fail" / case, out_dir)
    assert code == 1
    assert out == ""
    assert "skillcheck: not packed: the check found 1 error" in err
    assert not out_dir.exists()


def test_pack_strict_refuses_warnings(tmp_path: Path) -> None:
    case = FIXTURES / "fail" / "desc-angle"  # one warning (SC116), no error
    code, _, err = pack(case, tmp_path / "strict", "--strict")
    assert code == 1
    assert "the check found 0 errors and 1 warning" in err
    assert not (tmp_path / "strict").exists()
    code, out, err = pack(case, tmp_path / "lenient")
    assert code == 0
    assert "SC116" in err  # the warning is still shown
    assert printed_zip(out)[0] == tmp_path / "lenient" / "desc-angle.zip"


def test_pack_refuses_a_link_to_a_file_it_cannot_pack(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    guide = root / "references" / "guide.md"
    guide.write_text(guide.read_text() + "\nBackground: [notes](../docs/notes.md).\n")
    code, out, err = pack(root, tmp_path / "dist")
    assert code == 1 and out == ""
    assert "references/guide.md:" in err and "links docs/notes.md" in err
    assert not (tmp_path / "dist").exists()


def test_pack_wants_one_skill(tmp_path: Path) -> None:
    for name in ("one", "two"):
        shutil.copytree(FIXTURES / "pass" / "minimal", tmp_path / "skills" / name)
        md = tmp_path / "skills" / name / "SKILL.md"
        md.write_text(md.read_text().replace("name: minimal", f"name: {name}"))
    code, _, err = pack(tmp_path / "skills", tmp_path / "dist")
    assert code == 2
    assert "holds 2 skills" in err and "pack them one at a time" in err
    code, out, _ = pack(tmp_path / "skills" / "two", tmp_path / "dist")
    assert code == 0
    assert zipfile.ZipFile(printed_zip(out)[0]).namelist() == ["two/SKILL.md"]


def test_pack_wants_one_skill_before_it_checks_them(tmp_path: Path) -> None:
    """A folder of several skills is a usage error (exit 2) even when some have errors: the
    check of the others is not the point."""
    for name in ("one", "two"):
        shutil.copytree(FIXTURES / "pass" / "minimal", tmp_path / "skills" / name)
    # both keep 'name: minimal', which differs from their folders: SC113 in each
    code, out, err = pack(tmp_path / "skills", tmp_path / "dist")
    assert (code, out) == (2, "")
    assert "holds 2 skills" in err and "name one skill's folder" in err
    assert "SC113" not in err and not (tmp_path / "dist").exists()


def install(zpath: Path, skills_dir: Path) -> Path:
    """What the install guide says: unzip the pack into a client's skills folder."""
    skills_dir.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zpath) as zf:
        tops = {n.split("/", 1)[0] for n in zf.namelist()}
        assert len(tops) == 1
        zf.extractall(skills_dir)
    return skills_dir / tops.pop()


def _name(skill_md: Path) -> str:
    m = re.search(r"^name:\s*(\S+)\s*$", skill_md.read_text(encoding="utf-8"), re.M)
    assert m
    return m.group(1)


def test_installed_pack_passes_strict_check(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    code, out, _ = pack(root, tmp_path / "dist")
    assert code == 0
    installed = install(printed_zip(out)[0], tmp_path / "home" / ".claude" / "skills")
    assert installed.name == _name(installed / "SKILL.md") == "full"
    assert not (installed / ".git").exists()  # so the name/folder rule (SC113) applies here
    code, out, err = invoke("check", "--no-cache", "--strict", cwd=installed.parent)
    assert code == 0, out + err
    assert out.startswith("0 errors, 0 warnings in 1 skill")


def _repo_result() -> Result:
    cfg, pyproject = load_config(ROOT, {"cache": False})
    return run([ROOT], cfg, ROOT, exclude_base=pyproject.parent if pyproject else ROOT)


def test_pack_this_repository(tmp_path: Path) -> None:
    before = _repo_result()
    if before.errors:
        code, out, err = pack(ROOT, tmp_path / "dist", cwd=ROOT)
        assert code == 1 and out == "" and not (tmp_path / "dist").exists()
        pytest.skip(
            f"the pack has {before.errors} error(s) (pages in progress): refused, as "
            "it must be; contents and installation are tested on a fixture"
        )
    code, out, err = pack(ROOT, tmp_path / "a", cwd=ROOT)
    assert code == 0, err
    zpath, _ = printed_zip(out)
    assert pack(ROOT, tmp_path / "b", cwd=ROOT)[0] == 0
    assert (tmp_path / "b" / zpath.name).read_bytes() == zpath.read_bytes()
    names = zipfile.ZipFile(zpath).namelist()
    top = _name(ROOT / "SKILL.md")
    assert zpath.name.startswith(top)
    assert f"{top}/SKILL.md" in names and f"{top}/LICENSE" in names
    for n in names:
        rel = n.split("/", 1)[1]
        assert rel in ("SKILL.md", "LICENSE") or rel.split("/", 1)[0] in (
            "references",
            "assets",
            "data",
            "scripts",
        ), n
        assert "__pycache__" not in n and "/." not in n
    installed = install(zpath, tmp_path / "skills")
    assert installed.name == top
    after = run([installed], load_config(installed, {"cache": False})[0], installed.parent)
    assert after.errors == 0, [str(d) for d in after.diagnostics]
    assert after.warnings <= before.warnings
    if before.warnings == 0:
        code, out, err = invoke("check", "--no-cache", "--strict", cwd=tmp_path / "skills")
        assert code == 0, out + err
