"""Every rule has an explanation (skillcheck/ruledocs.toml) and no explanation names an unknown
rule; where the example is a Markdown skill, it fails with exactly its rule and its fixed form
is clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillcheck.config import Config
from skillcheck.registry import RULES, load_builtin_rules
from skillcheck.ruledocs import SKILL_FOLDER, example_files, load
from skillcheck.runner import run

load_builtin_rules()

# Rules whose example is not a skill that can be written as text, with the reason.
NOT_WRITTEN = {
    "SC000": "a checker bug: no input should trigger it",
    "SC126": "needs a symlink",
    "SC220": "needs a file that cannot be read",
    "SC221": "needs bytes that are not UTF-8",
    "SC223": "needs a file over 2 MB",
    "SC224": "needs a symlink",
    "SC226": "needs a symlink",
    "SC501": "an 800-line example",
    "SC502": "a 9,000-token example",
    "SC503": "a 450-line example",
}
# Families whose examples are fragments (registry entries, URLs, probe outcomes, flag-index
# rows), checked by the fixtures and the probe tests rather than here.
FRAGMENTS = ("SC3", "SC4", "SC62")


def test_every_rule_has_an_explanation_and_every_explanation_a_rule() -> None:
    docs = load()
    assert sorted(docs) == sorted(RULES)
    for code, doc in docs.items():
        assert doc.why and doc.example and doc.fix and doc.fixed, code
        assert doc.why != RULES[code].summary, code


def test_the_explanations_are_package_data() -> None:
    from importlib import resources

    assert resources.files("skillcheck").joinpath("ruledocs.toml").is_file()


def written(code: str) -> bool:
    return code not in NOT_WRITTEN and not code.startswith(FRAGMENTS)


def check(tmp_path: Path, example: str, bare: bool, folder: str = SKILL_FOLDER) -> list[str]:
    root = tmp_path / folder
    root.mkdir(parents=True)
    for rel, text in example_files(example, bare, folder).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    result = run([root], Config(cache=False, jobs=1), tmp_path)
    return sorted(f"{d.code} {d.path}:{d.line}:{d.column} {d.message}" for d in result.diagnostics)


@pytest.mark.parametrize("code", sorted(c for c in RULES if written(c)))
def test_the_example_fails_with_its_rule_alone_and_the_fix_is_clean(
    code: str, tmp_path: Path
) -> None:
    doc = load()[code]
    found = check(tmp_path / "fails", doc.example, doc.bare, doc.folder)
    assert found and {f.split()[0] for f in found} == {code, *doc.also}, found
    assert check(tmp_path / "fixed", doc.fixed, doc.bare) == []


def test_example_files() -> None:
    assert example_files("Read [x](y.md).") == {
        "SKILL.md": "---\nname: demo\ndescription: Serving notes. Use when tuning a server."
        "\n---\n\nRead [x](y.md).\n"
    }
    two = example_files("==> SKILL.md <==\n---\nname: x\n---\n\n==> references/a.md <==\n# A\n")
    assert two == {"SKILL.md": "---\nname: x\n---\n", "references/a.md": "# A\n"}
    assert example_files("==> SKILL.md <==\n# Bare\n", bare=True) == {"SKILL.md": "# Bare\n"}
    assert example_files("==> empty.md <==\n") == {"empty.md": ""}


def test_example_files_refuses_text_outside_a_file() -> None:
    with pytest.raises(ValueError, match="before the first"):
        example_files("stray\n==> SKILL.md <==\n# A\n")


def invoke(*args: str) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from skillcheck.cli import main

    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


def test_rules_code_explains_the_rule() -> None:
    code, out, err = invoke("rules", "SC204")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == (
        "SC204 missing-anchor (error): A '#fragment' names no heading or id in the same file."
    )
    assert "Why it matters:" in lines and "Fails:" in lines and "Fix:" in lines
    assert "    See [the pitfalls](#pitfals)." in lines  # the failing example, indented
    assert "    See [the pitfalls](#pitfalls)." in lines  # and the fixed one
    assert not [line for line in lines if line != line.rstrip()]


def test_rules_accepts_a_name_in_any_case_and_a_lowercase_code() -> None:
    by_code = invoke("rules", "SC201")
    assert invoke("rules", "broken-link") == by_code
    assert invoke("rules", "Broken-Link") == by_code
    assert invoke("rules", "sc201") == by_code


@pytest.mark.parametrize(
    ("word", "hint"),
    [
        ("broken-links", "did you mean broken-link?"),
        ("SC2011", "did you mean SC211 or SC201 or"),
        ("SC2", "did you mean"),
    ],
)
def test_an_unknown_rule_exits_2_with_a_suggestion(word: str, hint: str) -> None:
    code, out, err = invoke("rules", word)
    assert code == 2 and out == ""
    assert err.startswith(f"skillcheck: error: no rule is called {word!r}; ")
    assert hint in err


def test_rules_code_in_json_holds_the_explanation() -> None:
    code, out, _ = invoke("rules", "-f", "json", "SC606")
    data = json.loads(out)
    doc = load()["SC606"]
    assert code == 0 and data == {
        "code": "SC606",
        "name": "skip-without-reason",
        "severity": "error",
        "summary": RULES["SC606"].summary,
        "why": doc.why,
        "example": doc.example,
        "fix": doc.fix,
        "fixed": doc.fixed,
    }


def test_rules_code_in_markdown_fences_examples_that_hold_fences() -> None:
    code, out, _ = invoke("rules", "--format", "markdown", "SC601")
    assert code == 0 and out.startswith("## SC601 python-syntax (error)\n")
    assert '````text\n```python title="fetch.py"\ndef ready(url)\n' in out


def test_rules_without_a_code_still_lists_them_all() -> None:
    code, out, _ = invoke("rules")
    assert code == 0 and len(out.splitlines()) == len(RULES)
