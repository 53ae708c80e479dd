"""docs/ is not part of the skill, so ``skillcheck check`` does not read it: its links, anchors
and code blocks are checked here. The install commands it gives are exercised by test_pack.py
(unzip into a skills folder, then ``check --strict``) and test_packaging.py (the wheel)."""

from __future__ import annotations

import posixpath
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from skillcheck.document import parse

from .conftest import ROOT

DOCS = sorted((ROOT / "docs").glob("*.md"))
INSTALL = ROOT / "docs" / "install.md"


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.name)
def test_docs_links_and_anchors_resolve(page: Path) -> None:
    doc = parse(page.read_text(encoding="utf-8"))
    rel_page = page.relative_to(ROOT).as_posix()
    for link in doc.links + doc.definitions:
        target = link.target
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or not target:
            continue
        path, _, frag = target.partition("#")
        rel = (
            posixpath.normpath(posixpath.join(posixpath.dirname(rel_page), path))
            if path
            else rel_page
        )
        assert not rel.startswith(".."), f"{page.name}:{link.line}: {target} leaves the repository"
        assert (ROOT / rel).exists(), f"{page.name}:{link.line}: {target} does not exist"
        if frag and rel.endswith(".md"):
            anchors = parse((ROOT / rel).read_text(encoding="utf-8")).anchors
            assert frag in anchors, f"{page.name}:{link.line}: no heading #{frag} in {rel}"


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.name)
def test_docs_code_blocks_parse(page: Path) -> None:
    bash = shutil.which("bash")
    for fence in parse(page.read_text(encoding="utf-8")).fences:
        if fence.lang in ("bash", "sh", "shell") and bash is not None:
            proc = subprocess.run(
                [bash, "-n"], input=fence.content, capture_output=True, text=True, check=False
            )
            assert proc.returncode == 0, f"{page.name}:{fence.line}: {proc.stderr}"
        elif fence.lang == "yaml":
            yaml.safe_load(fence.content)


def test_install_page_names_every_client_location_with_its_documentation() -> None:
    text = INSTALL.read_text(encoding="utf-8")
    table = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[3].startswith("<https://"):
            table[cells[0]] = cells
    assert {"Claude Code", "Gemini CLI", "Cursor"} <= table.keys()
    assert any(k.startswith("OpenAI Codex") for k in table)
    assert any(k.startswith("GitHub Copilot") for k in table)
    claude = table["Claude Code"]
    assert claude[1] == "`.claude/skills/`" and claude[2] == "`~/.claude/skills/`"
    for client, project, user, url in table.values():
        assert project.startswith("`.") and user.startswith("`~/"), client
        assert url.startswith("<https://") and "example" not in url, client
    # the commands the page gives unpack the zip into a skills folder
    assert "unzip -o ai-llm-inference-*.zip -d ~/.claude/skills/" in text
    assert "skillcheck pack -o dist" in text
