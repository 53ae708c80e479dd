"""Heading anchors against GitHub's own: the cases of github-slugger 2.0.0
(https://github.com/Flet/github-slugger/blob/v2.0.0/test/fixtures.json, copied as data into
tests/data/github-slugger-cases.json). Each expectation there is the anchor GitHub rendered for
the heading, read from a gist; none is computed by the code under test."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from skillcheck.document import parse
from skillcheck.slugs import Slugger, slug

DATA = Path(__file__).resolve().parent / "data" / "github-slugger-cases.json"
CASES: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))["cases"]


def _input(case: dict[str, Any]) -> str:
    text: str = case["input"]
    if case["name"] == "Unassigned":
        # code points unassigned in Unicode 13 that a newer Python assigns: GitHub dropped
        # them (they add nothing to the expectation), so leave them out of the input
        text = "".join(
            ch
            for ch in text
            if ch in " ab" or ch in case["expected"] or unicodedata.category(ch) == "Cn"
        )
    return text


def test_every_case_in_order_through_one_slugger() -> None:
    """The cases run in file order through one slugger, as github-slugger's own test does:
    duplicates are numbered across the list ('b-1', 'b-2' ... for the symbol categories)."""
    slugger = Slugger()
    failures = [
        (c["name"], got, c["expected"])
        for c in CASES
        if (got := slugger(_input(c))) != c["expected"]
    ]
    assert failures == []


@pytest.mark.parametrize(
    "name",
    [
        "Mark",
        "Nonspacing_Mark",
        "Spacing_Mark",
        "Enclosing_Mark",  # marks are kept
        "Connector_Punctuation",  # '_' and its kin are kept
        "Dash_Punctuation",  # only '-' is kept
        "Decimal_Number",
        "Letter_Number",  # kept
        "Titlecase_Letter",
        "Uppercase_Letter",
        "Cased_Letter",  # lowercased
        "Initial_Punctuation",
        "Final_Punctuation",
        "Open_Punctuation",
        "Close_Punctuation",
        "Space_Separator",
        "Line_Separator",
    ],
)
def test_category_alone(name: str) -> None:
    """Each category case on a fresh slugger (none of these is a duplicate in the list)."""
    (case,) = [c for c in CASES if c["name"] == name]
    assert Slugger()(case["input"]) == case["expected"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # cases of the list, and short pieces of its category cases, for a readable failure
        ("heading with a - dash", "heading-with-a---dash"),  # repeated hyphens are kept
        ("-a-", "-a-"),  # leading and trailing hyphens are kept
        ("I ♥ unicode", "i--unicode"),  # a symbol goes, its spaces stay
        ("apostrophe\u2019s should be trimmed", "apostrophes-should-be-trimmed"),
        (
            "exchange.bind_headers(exchange, routing [, bindCallback])",
            "exchangebind_headersexchange-routing--bindcallback",
        ),
        ("Привет non-latin 你好", "привет-non-latin-你好"),
        ("😄_😄 unicode emoji", "_-unicode-emoji"),
        ("a² ¹ ½b", "a--b"),  # other numbers (superscripts, fractions) go
        ("aⒺ Ⓣb", "aⓔ-ⓣb"),  # circled letters are letters: kept, lowercased
        ("A\u0300 e\u20dd", "a\u0300-e\u20dd"),  # combining and enclosing marks are kept
    ],
)
def test_slug(text: str, expected: str) -> None:
    assert slug(text) == expected


def test_duplicates_are_numbered_like_github() -> None:
    s = Slugger()
    # from the list: 'echo', 'echo', 'echo 1', 'echo-1', 'echo'
    assert [s(t) for t in ("echo", "echo", "echo 1", "echo-1", "echo")] == [
        "echo",
        "echo-1",
        "echo-1-1",
        "echo-1-2",
        "echo-2",
    ]
    s = Slugger()
    assert [s(t) for t in ("foxtrot-1", "foxtrot", "foxtrot")] == [
        "foxtrot-1",
        "foxtrot",
        "foxtrot-2",
    ]


@pytest.mark.parametrize(
    "case", [c for c in CASES if "markdownOverwrite" in c], ids=lambda c: c["name"]
)
def test_spaces_written_as_entities_count(case: dict[str, Any]) -> None:
    """A heading's spaces written as ``&#x20;`` survive Markdown and become hyphens."""
    doc = parse(case["markdownOverwrite"] + "\n")
    assert [h.slug for h in doc.headings] == [case["expected"]]


def test_headings_of_a_page_get_githubs_anchors() -> None:
    """Through the parser: inline markup is dropped, its text kept; duplicates numbered."""
    doc = parse(
        "# Knobs and defaults\n\n## `--max-num-seqs` (vLLM 0.33.0)\n\n"
        "## Knobs and defaults\n\n### Café *au* lait\n\n## Knobs and defaults\n"
    )
    assert [h.slug for h in doc.headings] == [
        "knobs-and-defaults",
        "--max-num-seqs-vllm-0330",
        "knobs-and-defaults-1",
        "café-au-lait",
        "knobs-and-defaults-2",
    ]
