"""README's coverage table is what ``python -m tools.manifests coverage`` prints from the index,
and every option of the pinned releases is either explained or classified."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from skillcheck.engines.flagindex import INDEX_FILES, load_index
from tools.manifests.coverage import counts, coverage_main, table

REPO = Path(__file__).resolve().parents[2]


def test_readme_table_is_the_printed_table() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("<!-- coverage:start -->\n") + len("<!-- coverage:start -->\n")
    end = readme.index("<!-- coverage:end -->")
    assert readme[start:end] == table(), "paste `python -m tools.manifests coverage` into README"


def test_no_option_is_left_unclassified() -> None:
    for engine, name in INDEX_FILES.items():
        _total, _explained, _out, unclassified = counts(
            load_index(REPO / "data/engine-flags" / name)
        )
        assert unclassified == 0, engine


def test_the_command_prints_the_table() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "tools.manifests", "coverage"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert res.stdout == table()


def test_a_missing_index_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert coverage_main(["--index-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
