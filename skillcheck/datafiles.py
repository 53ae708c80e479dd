"""The pack's cited data tables (``data/<stem>.json`` beside ``data/sources.json``).

Each table is an object with ``$schema`` and one array of entries; every entry has an ``id``
and a ``sources`` list of ids from ``data/sources.json``. A table is checked only when its
schema ships with skillcheck (``skillcheck/schemas/<stem>.schema.json``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from skillcheck.sources import Problem, read_json

# stem of data/<stem>.json -> the key of its array of entries
DATA_TABLES: dict[str, str] = {"gpus": "gpus", "models": "models"}

INVALID, SCHEMA, DUPLICATE, UNKNOWN_SOURCE = "SC311", "SC312", "SC313", "SC314"


def data_rel(stem: str) -> str:
    return f"data/{stem}.json"


def schema_rel(stem: str) -> str:
    return f"skillcheck/schemas/{stem}.schema.json"


@cache
def data_schema(stem: str) -> dict[str, Any] | None:
    """The packaged schema of a table, or None when this skillcheck does not ship one."""
    res = resources.files("skillcheck").joinpath(f"schemas/{stem}.schema.json")
    if not res.is_file():
        return None
    data: dict[str, Any] = json.loads(res.read_text(encoding="utf-8"))
    return data


@dataclass
class Citation:
    source_id: str
    line: int
    column: int
    pointer: str


@dataclass
class DataTable:
    rel: str
    problems: list[Problem] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)


def load_table(path: Path, stem: str) -> DataTable | None:
    """Read and validate one table; None when its schema is not packaged. Never raises."""
    schema_doc = data_schema(stem)
    if schema_doc is None:
        return None
    table = DataTable(data_rel(stem))
    doc, table.problems = read_json(path, schema_doc, schema_rel(stem),
                                    (INVALID, SCHEMA, DUPLICATE))
    if doc is None:
        return table
    key = DATA_TABLES.get(stem, stem)
    items = doc.value.get(key) if isinstance(doc.value, dict) else None
    if not isinstance(items, list):
        return table
    first: dict[str, int] = {}
    for i, entry in enumerate(items):
        if not isinstance(entry, dict):
            continue
        eid = entry.get("id")
        if isinstance(eid, str):
            line, col = doc.where((key, i, "id"))
            if eid in first:
                table.problems.append(Problem(DUPLICATE, line, col, f"duplicate id '{eid}' in "
                                              f"$.{key}", f"first defined on line {first[eid]}"))
            else:
                first[eid] = line
        sources = entry.get("sources")
        if not isinstance(sources, list):
            continue
        for j, sid in enumerate(sources):
            if isinstance(sid, str):
                line, col = doc.where((key, i, "sources", j))
                table.citations.append(Citation(sid, line, col, f"$.{key}[{i}].sources[{j}]"))
    return table
