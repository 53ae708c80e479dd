"""How a link's destination becomes a file and a fragment, from CommonMark 0.31.2 (section 6.3
"Links": ``<...>`` destinations, backslash escapes, entity references) and RFC 3986 (the path
ends at '?' or '#'; percent-encoded octets are decoded after the split, so ``%23`` is a '#'
in the name and ``%3F`` a '?')."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from skillcheck.config import Config
from skillcheck.document import parse
from skillcheck.runner import run

FRONT = "---\nname: demo\ndescription: Demo skill. Use when testing.\n---\n\n# Demo\n\n"
FILES = ["my file.md", "a#b.md", "what?.md", "café.md", "100%.md", "plain.md"]
PAGE = "# Page\n\n## Café au lait\n\n## Straße\n"


def _skill(tmp_path: Path, links: list[str]) -> Path:
    d = tmp_path / "demo"
    (d / "references").mkdir(parents=True)
    for name in FILES:
        (d / "references" / name).write_text(PAGE, encoding="utf-8")
    body = "".join(f"- [l{i}]({t})\n" for i, t in enumerate(links))
    # a reading list so that no file is an orphan
    body += "".join(f"- [r{i}](references/{quote(n)})\n" for i, n in enumerate(FILES))
    (d / "SKILL.md").write_text(FRONT + body, encoding="utf-8")
    return d


def _findings(tmp_path: Path, links: list[str]) -> list[tuple[str, str]]:
    d = _skill(tmp_path, links)
    result = run([d], Config(cache=False), tmp_path, exclude_base=tmp_path)
    return [(x.code, x.message) for x in result.diagnostics]


@pytest.mark.parametrize(
    "target",
    [
        "references/my%20file.md",  # percent-encoded space
        "<references/my file.md>",  # a pointy-bracket destination may hold spaces
        "references/a%23b.md",  # %23 is a '#' of the name, not a fragment
        "references/what%3F.md",  # %3F is a '?' of the name, not a query
        "references/caf%C3%A9.md",  # UTF-8 octets, percent-encoded
        "references/café.md",
        "references/100%25.md",
        "references/plain.md?plain=1",  # a query is not part of the path
        "references/plain.md?x=1#caf%C3%A9-au-lait",  # query, then an encoded fragment
        "references/plain.md#caf%C3%A9-au-lait",
        "references/plain.md#straße",
        "references/plain\\.md",  # a backslash escape
        "<references/plain.md#café-au-lait>",
    ],
)
def test_target_resolves(tmp_path: Path, target: str) -> None:
    assert _findings(tmp_path, [target]) == []


@pytest.mark.parametrize(
    ("target", "code", "shown"),
    [
        ("references/my%2520file.md", "SC201", "references/my%20file.md"),  # decoded once only
        ("references/a#b.md", "SC201", "references/a"),  # an unencoded '#' starts the fragment
        ("references/what?.md", "SC201", "references/what"),  # an unencoded '?' starts the query
        ("references/plain.md#caf%C3%A9", "SC205", "café"),
        ("references/plain.md#Café-au-lait", "SC205", "Café-au-lait"),  # anchors are lowercase
        ("#nowhere%20here", "SC204", "nowhere here"),
    ],
)
def test_target_does_not_resolve(tmp_path: Path, target: str, code: str, shown: str) -> None:
    found = _findings(tmp_path, [target])
    assert [c for c, _ in found] == [code], found
    assert f"'{shown}'" in found[0][1]


def test_anchor_case_is_reported_with_the_right_spelling(tmp_path: Path) -> None:
    d = _skill(tmp_path, ["references/plain.md#Straße"])
    result = run([d], Config(cache=False), tmp_path, exclude_base=tmp_path)
    (diag,) = result.diagnostics
    assert diag.code == "SC205"
    assert diag.hint == "did you mean '#straße'? anchors are case-sensitive"


@pytest.mark.parametrize(
    ("line", "target"),
    [
        ("[a](<b c.md>)", "b c.md"),
        ("[a](b\\(c\\).md)", "b(c).md"),
        ("[a](b(c).md)", "b(c).md"),  # balanced parentheses belong to the destination
        ('[a](b.md "title")', "b.md"),
        ("[a](b.md 'title')", "b.md"),
        ("[a](<b.md> (title))", "b.md"),
        ("[a]( b.md )", "b.md"),
        ("![alt](img.png)", "img.png"),
    ],
)
def test_destination_is_read_as_commonmark_says(line: str, target: str) -> None:
    (link,) = parse(line + "\n").links
    assert link.target == target
