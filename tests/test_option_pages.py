"""The defaults the engine-option pages state agree with the flag index, which is generated
from the engines' sources: a row ``| `--option` | default | ...`` whose option has a literal
default in ``data/engine-flags/<engine>.tsv`` must state that default (booleans may be written
on/off or enabled/disabled, an empty string or list as "empty", "none" or "unset")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skillcheck.engines.flagindex import load_index

REPO = Path(__file__).resolve().parent.parent
PAGES = {
    "vllm": "engine-options-vllm.md",
    "sglang": "engine-options-sglang.md",
    "llama.cpp": "engine-options-llama-cpp.md",
}
ROW = re.compile(r"\| `(--[\w-]+)`[^|]*\| ([^|]+) \|")
SAME = {
    "true": {"true", "on", "enabled", "yes"},
    "false": {"false", "off", "disabled", "no", "unset"},
    '""': {"empty", "none", "unset"},
    "[]": {"empty", "none", "unset"},
    "{}": {"empty", "none", "unset"},
}


def stated(default: str, cell: str) -> bool:
    text = cell.replace("`", "").strip().lower()
    words = set(re.findall(r"[\w.+-]+", text))
    whole = re.search(rf"(?<![\w.]){re.escape(default.lower())}(?![\w.])", text)
    return whole is not None or bool(words & SAME.get(default.lower(), set()))


@pytest.mark.parametrize("engine", sorted(PAGES))
def test_page_defaults_agree_with_the_index(engine: str) -> None:
    defaults = {
        r.option: r.default for r in load_index(REPO / "data/engine-flags" / f"{engine}.tsv")
    }
    page = REPO / "references" / PAGES[engine]
    compared, wrong = 0, []
    for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        m = ROW.match(line)
        if m is None or not defaults.get(m.group(1)) or defaults[m.group(1)].startswith("("):
            continue
        compared += 1
        if not stated(defaults[m.group(1)], m.group(2)):
            wrong.append(f"{page.name}:{n} {m.group(1)}: index {defaults[m.group(1)]!r}")
    assert compared >= 5, "no comparable rows found: has the table layout changed?"
    assert wrong == []


def test_a_wrong_default_is_caught() -> None:
    assert not stated("0.92", "0.9 (vLLM 0.32)")
    assert not stated("8", "128")
    assert stated("true", "on")
    assert not stated("true", "off")
