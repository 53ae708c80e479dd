"""The sources schema: every invalid shape is rejected; the repository's own file passes."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker

from skillcheck.datatables import load_registry, normalize_url, schema

from .conftest import ROOT

GOOD: dict[str, Any] = {
    "id": "paper-orca",
    "title": "Orca",
    "url": "https://example.org/orca",
    "publisher": "USENIX",
    "kind": "paper",
    "topics": ["batching"],
    "checked": "2026-11-30",
    "venue": "OSDI '22",
    "year": 2022,
    "authors": "Yu et al.",
    "note": "checked",
}


def errors(doc: Any) -> list[str]:
    v = Draft202012Validator(schema(), format_checker=FormatChecker())
    return [e.message for e in v.iter_errors(doc)]


def wrap(entry: Any) -> dict[str, Any]:
    return {"$schema": "../skillcheck/schemas/sources.schema.json", "sources": [entry]}


def test_schema_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(schema())


def test_good_entry_passes() -> None:
    assert errors(wrap(GOOD)) == []


def _without(key: str) -> dict[str, Any]:
    e = copy.deepcopy(GOOD)
    del e[key]
    return e


def _with(**kw: Any) -> dict[str, Any]:
    e = copy.deepcopy(GOOD)
    e.update(kw)
    return e


INVALID_ENTRIES = {
    "missing id": _without("id"),
    "missing title": _without("title"),
    "missing url": _without("url"),
    "missing publisher": _without("publisher"),
    "missing kind": _without("kind"),
    "missing topics": _without("topics"),
    "missing checked": _without("checked"),
    "paper without venue": _without("venue"),
    "paper without year": _without("year"),
    "id uppercase": _with(id="Paper-Orca"),
    "id underscore": _with(id="paper_orca"),
    "id double hyphen": _with(id="paper--orca"),
    "id trailing hyphen": _with(id="paper-"),
    "id too long": _with(id="a" * 81),
    "id not string": _with(id=5),
    "title empty": _with(title=""),
    "title blank": _with(title="   "),
    "url not http": _with(url="ftp://example.org/x"),
    "url relative": _with(url="/docs/x"),
    "url with space": _with(url="https://example.org/a b"),
    "kind unknown": _with(kind="video"),
    "topics empty": _with(topics=[]),
    "topics unknown": _with(topics=["gardening"]),
    "topics repeated": _with(topics=["batching", "batching"]),
    "topics string": _with(topics="batching"),
    "checked not a date": _with(checked="yesterday"),
    "checked wrong format": _with(checked="30/11/2026"),
    "checked impossible date": _with(checked="2026-02-30"),
    "year string": _with(year="2022"),
    "year too old": _with(year=1800),
    "year float": _with(year=2022.5),
    "version not string": _with(version=0.33),
    "unknown property": _with(extra="x"),
    "entry is a list": [GOOD],
    "entry is a string": "paper-orca",
}


@pytest.mark.parametrize("entry", list(INVALID_ENTRIES.values()), ids=list(INVALID_ENTRIES))
def test_invalid_entry_rejected(entry: Any) -> None:
    assert errors(wrap(entry)), "schema accepted an invalid entry"


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {},
        {"sources": []},
        {"$schema": "x"},
        {"$schema": "x", "sources": [], "x": 1},
        {"$schema": 1, "sources": [GOOD]},
        {"$schema": "x", "sources": {}},
    ],
    ids=[
        "list",
        "empty",
        "no-schema-key",
        "no-sources",
        "extra-key",
        "schema-not-string",
        "sources-object",
    ],
)
def test_invalid_document_rejected(doc: Any) -> None:
    assert errors(doc)


def test_repository_sources_file_passes() -> None:
    path = ROOT / "data" / "sources.json"
    reg = load_registry(path)
    assert reg.loaded
    assert [p.message for p in reg.problems] == []
    assert len(reg.entries) >= 80
    data = json.loads(path.read_text(encoding="utf-8"))
    ids = [e["id"] for e in data["sources"]]
    assert ids == sorted(ids), "keep data/sources.json sorted by id"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://Example.org/a/", "https://example.org/a"),
        ("https://example.org:443/a#frag", "https://example.org/a"),
        ("http://example.org", "http://example.org/"),
    ],
)
def test_normalize_url_equal(a: str, b: str) -> None:
    assert normalize_url(a) == normalize_url(b)


def test_normalize_url_keeps_query_and_case_of_path() -> None:
    assert normalize_url("https://e.org/A?x=1") != normalize_url("https://e.org/a?x=1")


def test_load_registry_never_raises(tmp_path: Any) -> None:
    for raw in (b"", b"\xff\xfe", b"[" * 100000, b'{"sources": [1, "x", null]}', b"null"):
        p = tmp_path / "sources.json"
        p.write_bytes(raw)
        reg = load_registry(p)
        assert reg.problems
