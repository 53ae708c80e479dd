"""Parse once: the parsed document carries what the rules and ``pack`` read (the front-matter
loaded, the ``Applies to:`` pins), so nothing opens or parses a page a second time."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skillcheck import safeyaml
from skillcheck.document import parse

from .conftest import FIXTURES, ROOT


def test_the_front_matter_is_loaded_with_the_page() -> None:
    doc = parse("---\nname: demo\ndescription: Demo.\nname: again\n---\n# Demo\n")
    assert doc.frontmatter_value == {"name": "again", "description": "Demo."}
    assert doc.frontmatter_problems == [("SC105", "duplicate key 'name'", 2, 0)]
    assert doc.frontmatter_lines == {"name": 0, "description": 1}
    unclosed = parse("---\nname: demo\n")
    assert unclosed.frontmatter_value is None and unclosed.frontmatter_lines == {}


def test_pack_does_not_parse_the_front_matter_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillcheck.config import Config
    from skillcheck.pack import pack_skill
    from skillcheck.runner import load_skills

    skill = FIXTURES / "pass" / "full"
    loaded = load_skills([skill], Config(cache=False), tmp_path)

    def refuse(raw: str) -> object:
        raise AssertionError("the front-matter was parsed a second time")

    monkeypatch.setattr(safeyaml, "load_frontmatter", refuse)
    monkeypatch.setattr("yaml.SafeLoader.get_single_node", refuse)
    packed = pack_skill(loaded.skills[0], loaded.docs[0], tmp_path / "out")
    assert packed.top == "full" and packed.path.name == "full-1.0.zip"


_APPLIES = re.compile(r"Applies to:?\**\s*(.+)", re.IGNORECASE)
_DECL = re.compile(
    r"(vLLM|SGLang|TensorRT-LLM|TRT-LLM|llama\.cpp)\s+(?:v(?=\d))?(b?\d+(?:\.\d+)*)", re.IGNORECASE
)
_NAMES = {
    "vllm": "vllm",
    "sglang": "sglang",
    "tensorrt-llm": "tensorrt-llm",
    "trt-llm": "tensorrt-llm",
    "llama.cpp": "llama.cpp",
}


def declared_versions(lines: list[str]) -> dict[str, str]:
    """The oracle: how the engine rule read a page's first 40 lines (opening the file again)
    before the parser kept the pins."""
    out: dict[str, str] = {}
    for line in lines[:40]:
        m = _APPLIES.search(line)
        for d in _DECL.finditer(m.group(1)) if m else ():
            engine = _NAMES.get(d.group(1).lower())
            if engine and engine not in out:
                out[engine] = d.group(2)
    return out


def _pages() -> list[Path]:
    return sorted(
        p
        for p in ROOT.rglob("*.md")
        if p.is_file() and ".venv" not in p.parts and ".git" not in p.parts
    )


def test_applies_to_is_what_the_engine_rule_reads() -> None:
    """doc.applies_to equals engineflags' own reading of a page's first lines, on every page of
    the repository (and some lines written for it)."""
    seen = 0
    for page in _pages():
        text = page.read_text(encoding="utf-8", errors="replace")
        doc = parse(text)
        first = [line + "\n" for line in text.replace("\r\n", "\n").split("\n")[:40]]
        assert doc.applies_to == declared_versions(first), page
        seen += bool(doc.applies_to)
    assert seen > 0
    doc = parse("# x\n\n**Applies to:** vLLM v0.33.0, SGLang 0.5.23 and llama.cpp b6000; vLLM 1\n")
    assert doc.applies_to == {"vllm": "0.33.0", "sglang": "0.5.23", "llama.cpp": "b6000"}


def test_sources_json_is_read_once_per_skill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check reads and validates data/sources.json once (the rules use what was loaded), and
    probe's URL list comes from that same reading, with the same positions."""
    from skillcheck import datatables
    from skillcheck.config import Config
    from skillcheck.probe.collect import collect
    from skillcheck.runner import run

    skill = FIXTURES / "pass" / "sources-ok"
    reads: list[Path] = []
    real = Path.read_bytes

    def counting(self: Path) -> bytes:
        if self.name == "sources.json":
            reads.append(self)
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    registry = datatables.load_registry(skill / "data" / "sources.json")
    assert registry.urls and len(reads) == 1
    reads.clear()
    result = run([skill], Config(cache=False), tmp_path)
    assert result.errors == 0 and len(reads) == 1
    reads.clear()
    found = collect([skill], Config(cache=False), tmp_path)
    assert len(reads) == 1
    uses = sorted(
        (u.line, u.column, u.url)
        for t in found.targets.values()
        for u in t.uses
        if u.path.endswith("data/sources.json")
    )
    assert uses == sorted((line, col, url) for url, line, col in registry.urls)
