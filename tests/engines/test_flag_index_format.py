"""The flag-index file format (skillcheck.engines.flagindex), against its written spec."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcheck.engines.flagindex import (
    COLUMNS,
    HEADER,
    FlagIndexError,
    Row,
    dumps_index,
    load_index,
    parse_index,
    read_curated,
)


def _row(option: str, **cells: str) -> Row:
    values = {c: "" for c in COLUMNS}
    values.update({"option": option, "status": "current"})
    values.update(cells)
    return Row(**values)


def test_header_and_column_order() -> None:
    assert HEADER == (
        "option\taliases\ttype\tdefault\tmeaning\tstatus\treleases\tchanges\tcovered_by\n"
    )


def test_dumps_sorts_rows_and_round_trips(tmp_path: Path) -> None:
    rows = [
        _row("--port", type="int", default="8000", releases="0.28.0-0.33.0"),
        _row("--old", status="removed -> --new", releases="0.28.0-0.30.0"),
    ]
    text = dumps_index(rows)
    assert text.splitlines()[1].startswith("--old\t")
    path = tmp_path / "x.tsv"
    path.write_bytes(text.encode("utf-8"))
    loaded = load_index(path)
    assert [r.option for r in loaded] == ["--old", "--port"]
    assert loaded[0].successor == "--new"
    assert loaded[1].line == 3
    assert loaded[1].default == "8000"


@pytest.mark.parametrize("bad", ["a\tb", "a\nb", "a\rb"])
def test_a_tab_or_line_break_in_a_cell_is_rejected(bad: str) -> None:
    with pytest.raises(FlagIndexError, match="--x: the meaning cell holds a tab or a line break"):
        dumps_index([_row("--x", meaning=bad)])


def test_duplicate_options_are_rejected() -> None:
    with pytest.raises(FlagIndexError, match="two rows"):
        dumps_index([_row("--x"), _row("--x")])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("option\tmeaning\n", "x.tsv:1: the header must be"),
        (HEADER + "--a\tb\n", "x.tsv:2: 2 cells, expected 9"),
        (
            HEADER + "--b" + "\t" * 5 + "current\t\t\t\n--a" + "\t" * 5 + "current\t\t\t\n",
            "x.tsv:3: --a is out of order",
        ),
        (HEADER + "--a" + "\t" * 5 + "gone\t\t\t\n", "x.tsv:2: bad status 'gone'"),
        (HEADER.replace("\n", "\r\n"), "carriage return"),
    ],
)
def test_format_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(FlagIndexError, match=message):
        parse_index(text, "x.tsv")


def test_status_cells() -> None:
    for ok in ("current", "deprecated", "deprecated -> --new", "removed", "removed -> --n"):
        parse_index(HEADER + "--a" + "\t" * 5 + ok + "\t\t\t\n")


def test_read_curated_takes_a_seed_file(tmp_path: Path) -> None:
    seed = tmp_path / "vllm.tsv"
    seed.write_text(
        "option\tmeaning\tcovered_by\n--port\tHTTP port.\treferences/serving.md#port\n",
        encoding="utf-8",
    )
    assert read_curated(seed) == {"--port": ("HTTP port.", "references/serving.md#port")}
    full = tmp_path / "full.tsv"
    full.write_text(dumps_index([_row("--port", meaning="HTTP port.")]), encoding="utf-8")
    assert read_curated(full) == {"--port": ("HTTP port.", "")}
    assert read_curated(tmp_path / "missing.tsv") == {}


def test_not_utf8_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "x.tsv"
    path.write_bytes(HEADER.encode() + b"--a\xff\n")
    with pytest.raises(FlagIndexError, match="not UTF-8"):
        load_index(path)
