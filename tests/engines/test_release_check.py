"""The release check: option changes between two releases, and the pack lines they break."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillcheck.engines import Manifest, Option
from tools.manifests.__main__ import main
from tools.manifests.release_check import EXIT_AFFECTED, EXIT_CLEAN, compare, report

SAMPLES = Path(__file__).resolve().parent / "samples"


def _manifest(version: str, *options: Option) -> Manifest:
    return Manifest(
        engine="vllm",
        version=version,
        commands=("vllm serve",),
        options=options,
        provenance={"source": f"wheel vllm-{version}"},
    )


OLD = _manifest(
    "1.0",
    Option("--gpu-memory-utilization", type="float", default="0.9"),
    Option("--old-flag", type="bool", takes_value=False, default="false"),
    Option("--renamed", default="x"),
    Option("--mode", choices=("a", "b", "c"), default="a"),
    Option("--quiet", type="bool", takes_value=False, default="false"),
    Option("--port", type="int", default="8000"),
    Option("--mmap", type="bool", takes_value=False, negations=("--no-mmap",), negatable=True),
)
NEW = _manifest(
    "1.1",
    Option("--gpu-memory-utilization", type="float", default="0.92"),
    Option("--new-name", aliases=("--renamed",), default="x"),
    Option("--mode", choices=("a", "b"), default="a"),
    Option(
        "--quiet",
        type="bool",
        takes_value=False,
        default="false",
        deprecated="--quiet is deprecated; use --port instead.",
    ),
    Option("--port", type="int", default="8000"),
    Option("--fresh", default=None),
    Option("--born-old", deprecated="Deprecated. Use --port instead."),
)


def _pack(root: Path) -> Path:
    (root / "references").mkdir(parents=True)
    (root / "references" / "memory.md").write_text(
        "# vLLM memory\n"
        "`--gpu-memory-utilization` defaults to 0.9 in vLLM 1.0.\n"
        "Raise `--gpu-memory-utilization` when the KV cache is short.\n"
        "Pass `--old-flag` and `--mode c` on old releases.\n"
        "Add `--no-mmap` on network disks.\n",
        encoding="utf-8",
    )
    (root / "references" / "other.md").write_text(
        "# SGLang only\n`--old-flag` means something else here.\n", encoding="utf-8"
    )
    (root / "SKILL.md").write_text("vllm serve --renamed x --quiet\n", encoding="utf-8")
    return root


def test_compare_lists_every_kind_of_change() -> None:
    changes, added = compare(OLD, NEW, "1.1")
    found = {(c.option, c.kind, c.detail) for c in changes}
    assert found == {
        ("--gpu-memory-utilization", "default", "default `0.9` -> `0.92` in 1.1"),
        ("--old-flag", "removed", "removed in 1.1"),
        ("--renamed", "renamed", "now an alias of `--new-name` in 1.1"),
        ("--mode", "choices", "choices `c` dropped in 1.1"),
        ("--quiet", "deprecated", "deprecated -> `--port` in 1.1"),
        ("--mmap", "removed", "removed in 1.1"),
    }
    assert added == ["`--born-old` (deprecated)", "`--fresh`", "`--new-name`"]


def test_report_groups_the_affected_lines_by_page(tmp_path: Path) -> None:
    text, code = report("vllm", OLD, NEW, "1.1", _pack(tmp_path))
    assert code == EXIT_AFFECTED
    assert "# Release check: vLLM 1.0 -> 1.1" in text
    assert "## Pages affected (2)" in text
    memory = text.split("### `references/memory.md`")[1].split("###")[0]
    # the line that states the old default is reported; the one that only names it is not
    assert "- [ ] line 2: `--gpu-memory-utilization` default `0.9` -> `0.92` in 1.1" in memory
    assert "line 3:" not in memory
    assert "- [ ] line 4: `--old-flag` removed in 1.1" in memory
    assert "- [ ] line 4: `--mode` choices `c` dropped in 1.1" in memory
    # a negation of a removed option is gone with it
    assert "- [ ] line 5: `--mmap` removed in 1.1: Add `--no-mmap` on network disks." in memory
    skill = text.split("### `SKILL.md`")[1]
    assert "line 1: `--renamed` now an alias of `--new-name` in 1.1" in skill
    assert "line 1: `--quiet` deprecated -> `--port` in 1.1" in skill
    # a page that never names the engine is not read
    assert "other.md" not in text
    assert "## Options added (3)" in text


def test_report_without_affected_pages(tmp_path: Path) -> None:
    root = tmp_path / "pack"
    root.mkdir()
    (root / "SKILL.md").write_text("vllm serve --port 8000\n", encoding="utf-8")
    text, code = report("vllm", OLD, NEW, "1.1", root)
    assert code == EXIT_CLEAN
    assert "## Pages affected (0)" in text
    assert "- `--old-flag`: removed in 1.1" in text


def test_cli_compares_two_sample_releases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old"
    shutil.copytree(SAMPLES / "vllm", old)
    cache = old / "vllm" / "config" / "cache.py"
    cache.write_text(
        cache.read_text(encoding="utf-8").replace("Field(default=0.92", "Field(default=0.9"),
        encoding="utf-8",
    )
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "SKILL.md").write_text(
        "vLLM: `--gpu-memory-utilization 0.9` is the default.\n", encoding="utf-8"
    )
    out = tmp_path / "report.md"
    work = tmp_path / "work"
    argv = ["release-check", "vllm", "9.9.9", "--source", str(SAMPLES / "vllm")]
    argv += ["--base", f"9.9.8={old}", "--pack", str(pack), "--output", str(out)]
    argv += ["--workdir", str(work)]
    assert main(argv) == EXIT_AFFECTED
    text = out.read_text(encoding="utf-8")
    assert "# Release check: vLLM 9.9.8 -> 9.9.9" in text
    assert "line 1: `--gpu-memory-utilization` default `0.9` -> `0.92` in 9.9.9" in text
    assert (work / "vllm-9.9.9.json").is_file()
    assert (work / "vllm.tsv").read_text(encoding="utf-8").startswith("option\taliases\t")


def test_cli_reports_an_unreadable_release(tmp_path: Path) -> None:
    argv = ["release-check", "vllm", "9.9.9", "--source", str(tmp_path), "--base", str(tmp_path)]
    assert main(argv) == 3
