"""SKILL.md's "What your training data likely has wrong" table agrees with the flag index.

Each row that names an engine option is read the way an agent reads it, and checked against
``data/engine-flags/<engine>.tsv``: every option named exists (as an option or an alias); an
option the row calls deprecated is deprecated there, and the replacement it names is current;
a default the row states ("0.92 in vLLM 0.33.0") is the index's default.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
HEADING = "## What your training data likely has wrong"
ENGINES = {"vLLM": "vllm", "vllm": "vllm", "SGLang": "sglang"}


def table_rows() -> list[tuple[int, list[str]]]:
    lines = (REPO / "SKILL.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(HEADING))
    rows = []
    for n, line in enumerate(lines[start + 1 :], start=start + 2):
        if line.startswith("## "):
            break
        if line.startswith("|") and not line.startswith("| ---") and "Belief" not in line:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows.append((n, cells))
    return rows


def index(engine: str) -> dict[str, dict[str, str]]:
    lines = (REPO / "data" / "engine-flags" / f"{engine}.tsv").read_text("utf-8").splitlines()
    header = lines[0].split("\t")
    out: dict[str, dict[str, str]] = {}
    for line in lines[1:]:
        row = dict(zip(header, line.split("\t"), strict=True))
        out[row["option"]] = row
        for alias in filter(None, row["aliases"].split(",")):
            out.setdefault(alias, row)
    return out


def options(cell: str) -> list[str]:
    """Options a cell names: `--flag ...` spans and `key: value` config-file spans."""
    found = []
    for stem, alternatives in re.findall(r"`(--[a-z0-9][a-z0-9-]*)(?:\{([a-z0-9,-]+)\})?", cell):
        found += [stem + alt for alt in alternatives.split(",")] if alternatives else [stem]
    found += [f"--{key}" for key in re.findall(r"`([a-z][a-z0-9-]+): [^`]+`", cell)]
    return found


def engine_of(cells: list[str]) -> str | None:
    text = " ".join(cells[:2])
    for word, engine in ENGINES.items():
        if word in text:
            return engine
    return None


ROWS = [(n, cells) for n, cells in table_rows() if options(cells[0] + cells[1])]


def test_the_table_names_options() -> None:
    assert len(ROWS) >= 4, "the table's option rows were not found"


@pytest.mark.parametrize(("line", "cells"), ROWS, ids=[f"SKILL.md:{n}" for n, _ in ROWS])
def test_row_agrees_with_the_flag_index(line: int, cells: list[str]) -> None:
    belief, now = cells[0], cells[1]
    engine = engine_of(cells)
    assert engine, f"SKILL.md:{line} names options but no engine"
    known = index(engine)
    for option in options(belief + " " + now):
        assert option in known, f"SKILL.md:{line}: {option} is not in {engine}.tsv"
    if now.startswith("deprecated"):
        for option in options(belief):
            assert known[option]["status"].startswith("deprecated"), (line, option)
        for option in options(now):
            assert known[option]["status"] == "current", (line, option)
    stated = re.match(r"([0-9.]+) in ", now)
    if stated:
        (option,) = options(belief)
        assert known[option]["default"] == stated.group(1), (line, option)
