"""SC62x: the engine flag index agrees with the pinned manifest and lands on a section that
names each option. The manifest is replaced by a three-option stand-in so each case is small."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcheck.config import Config
from skillcheck.rules import flagindex
from skillcheck.runner import run

HEADER = "\t".join(flagindex.COLUMNS)
PAGE = """# Options

Intro.

## Memory

| Option | Default |
| --- | --- |
| `--gpu-memory-utilization` | 0.92 |

## Batching

Nothing here yet.
"""


def row(
    option: str,
    cover: str,
    meaning: str = "what it does",
    status: str = "current",
    default: str = "0.92",
) -> str:
    return "\t".join([option, "", "float", default, meaning, status, "0.33.0", "", cover])


@pytest.fixture(autouse=True)
def small_manifest(monkeypatch: pytest.MonkeyPatch) -> None:
    cells = {"aliases": "", "type": "float", "default": "0.92", "status": "current"}
    names = ("--gpu-memory-utilization", "--max-num-seqs", "--seed")
    monkeypatch.setattr(
        flagindex, "_manifest_cells", lambda engine, pinned: {n: dict(cells) for n in names}
    )


def findings(tmp_path: Path, rows: list[str], name: str = "vllm.tsv") -> list[tuple[str, int, str]]:
    skill = tmp_path / "demo"
    (skill / "references").mkdir(parents=True)
    (skill / "data" / "engine-flags").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: demo\ndescription: Demo skill. Use in tests.\n---\n\n"
        "Read [options](references/options.md); grep `data/engine-flags/" + name + "`.\n",
        encoding="utf-8",
    )
    (skill / "references" / "options.md").write_text(PAGE, encoding="utf-8")
    (skill / "data" / "engine-flags" / name).write_text(
        "\n".join([HEADER, *rows]) + "\n", encoding="utf-8"
    )
    result = run([skill], Config(cache=False, select=("SC62",)), tmp_path, exclude_base=tmp_path)
    return [(d.code, d.line, d.message) for d in result.diagnostics]


def test_complete_index_is_clean(tmp_path: Path) -> None:
    rows = [
        row("--gpu-memory-utilization", "references/options.md#memory"),
        row("--max-num-seqs", "out-of-scope: debugging"),
        row("--seed", "out-of-scope: development/testing"),
        row("--swap-space", "out-of-scope: removed", status="removed"),
    ]
    assert findings(tmp_path, rows) == []


def test_missing_unknown_and_unclassified_rows(tmp_path: Path) -> None:
    rows = [
        row("--gpu-memory-utilization", ""),
        row("--not-an-option", "out-of-scope: debugging", meaning=""),
    ]
    assert findings(tmp_path, rows) == [
        ("SC620", 1, "2 options of the pinned vllm have no row: --max-num-seqs, --seed"),
        (
            "SC623",
            2,
            "--gpu-memory-utilization is neither covered by a page nor classified out of scope",
        ),
        ("SC621", 3, "--not-an-option is not an option of the pinned vllm"),
        ("SC624", 3, "--not-an-option has no meaning"),
    ]


def test_cover_must_land_on_a_section_naming_the_option(tmp_path: Path) -> None:
    rows = [
        row("--gpu-memory-utilization", "references/options.md#batching"),
        row("--max-num-seqs", "references/options.md#scheduling"),
        row("--seed", "references/missing.md#memory"),
    ]
    assert findings(tmp_path, rows) == [
        (
            "SC625",
            2,
            "--gpu-memory-utilization: section references/options.md#batching does not name "
            "the option",
        ),
        ("SC625", 3, "--max-num-seqs: references/options.md has no heading #scheduling"),
        ("SC625", 4, "--seed: covered_by page references/missing.md does not exist"),
    ]


def test_cover_that_is_neither_form(tmp_path: Path) -> None:
    rows = [
        row("--gpu-memory-utilization", "see the memory page"),
        row("--max-num-seqs", "out-of-scope: debugging"),
        row("--seed", "out-of-scope: debugging"),
    ]
    assert findings(tmp_path, rows) == [
        ("SC623", 2, "--gpu-memory-utilization: covered_by is 'see the memory page'"),
    ]


def test_malformed_header_and_rows(tmp_path: Path) -> None:
    skill_rows = ["--seed\tonly two"]
    assert ("SC626", 2, "row has 2 cells, not 9") in findings(tmp_path, skill_rows)
    (tmp_path / "demo" / "data" / "engine-flags" / "vllm.tsv").write_text("option\tmeaning\n")
    result = run(
        [tmp_path / "demo"], Config(cache=False, select=("SC62",)), tmp_path, exclude_base=tmp_path
    )
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("SC626", "the header is not the documented columns")
    ]


def test_unknown_engine_file(tmp_path: Path) -> None:
    assert findings(tmp_path, [], name="tgi.tsv") == [
        ("SC626", 1, "tgi.tsv names no engine skillcheck knows")
    ]


def test_generated_columns_must_match_the_manifest(tmp_path: Path) -> None:
    rows = [
        row("--gpu-memory-utilization", "out-of-scope: debugging", default="0.9"),
        row("--max-num-seqs", "out-of-scope: debugging", status="deprecated -> --seed"),
        row("--seed", "out-of-scope: debugging"),
    ]
    assert findings(tmp_path, rows) == [
        ("SC622", 2, "--gpu-memory-utilization: default is '0.9', the manifest says '0.92'"),
        ("SC622", 3, "--max-num-seqs: status is 'deprecated', the manifest says 'current'"),
    ]
