"""The readings of ``snippets = "lenient"``: each rewriting keeps lines and maps columns, rewrites
only the convention it names, and leaves a real error to be told at its own place."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from skillcheck.config import Config, load_config
from skillcheck.document import parse
from skillcheck.rules import snippets
from skillcheck.runner import run

from .conftest import FIXTURES

CHECKED = {"python", "json", "yaml", "toml", "bash", "sh"}


# -- the column map ----------------------------------------------------------------------


def test_a_replacement_maps_later_columns_back() -> None:
    text = snippets.Text.of("a…b\nc")
    text.replace(0, 1, 2, "...")  # 'a...b'
    assert text.lines == ["a...b", "c"]
    assert text.place(1, 5) == (1, 3)  # 'b'
    assert text.place(1, 1) == (1, 1)
    assert text.place(2, 1) == (2, 1)


def test_an_added_line_maps_to_the_next_original_one() -> None:
    text = snippets.Text.of("x\ny")
    text.insert_line(0, "def _():")
    text.replace(1, 0, 0, "    ")
    assert text.place(1, 1) == (1, 1)
    assert text.place(2, 5) == (1, 1)
    assert text.place(3, 1) == (2, 1)
    text.lines.append("def _(): ...")  # as the decorator reading adds one at the end
    text.origin.append(0)
    text.cols.append([(0, 0)])
    assert text.place(4, 9) == (2, 1)


def test_decorators_without_a_function_then_a_real_error() -> None:
    assert snippets.python("@settings(max_examples=10)\n@settings(max_examples=\n") == (
        2,
        10,
        "'(' was never closed",
    )


# -- Python ------------------------------------------------------------------------------


def test_python_base_rewrites_each_convention_in_place() -> None:
    base = snippets._python_base(
        "f(a=1, ...)\nx = [1, …]\nrun(<model-id>, $KEY)\n%time g()\nk((b,), (args...))"
    )
    assert base.lines == [
        "f(a=1,    )",
        "x = [1,    ]",
        "run(_model_id_, _KEY)",
        "#time g()",
        "k((b,), (args   ))",
    ]


def test_python_session_drops_prompts_and_output() -> None:
    base = snippets._python_base(">>> x = 1\n>>> if x:\n...     x\n...\n1\n")
    assert base.lines == ["x = 1", "if x:", "    x", "", "", ""]


def test_python_reads_a_comment_only_body_but_not_a_missing_one() -> None:
    assert snippets.python("if a:  # then this\nif b:  # or that\n") is None
    assert snippets.python("for r in rows:\n    # each row\n") is None
    assert snippets.python("for r in rows:\nprint(r)\n") == (
        2,
        1,
        "expected an indented block after 'for' statement on line 1",
    )


@pytest.mark.parametrize(
    "src",
    [
        "return {...}",
        "    def close(self):\n        self.sock.close()\n",
        "return await client.complete('hi')",
        "continue",
        "except ValueError as e:\n    raise",
        "else:\n    x = 1",
        "@settings(max_examples=10)\n@settings(max_examples=1000)",
        "rule_of_five(mol: Union[str, Mol]) -> bool",
        "a.b.fit(\n    x: int,\n    y: int = 1,  # or 2\n) -> None",
    ],
)
def test_python_fragments_parse(src: str) -> None:
    assert snippets.python(src) is None


def test_python_error_after_a_wrapper_is_told_in_block_lines() -> None:
    # the wrapper adds two lines and four columns; the error is where the reader sees it
    assert snippets.python("x = 1\nreturn (1,\n") == (2, 8, "'(' was never closed")


def test_python_warnings_are_not_syntax() -> None:
    # "is" with a literal warns at compile time; under filterwarnings=error it must not leak
    assert snippets.python("if x is 1:  # wrong\nif x == 1:  # right\n") is None


# -- JSON --------------------------------------------------------------------------------


def test_json_blank_keeps_lengths_and_strings() -> None:
    src = '{"u": "a//b", /* c */ "v": [1, ...], "w": …, "x": {{y}}, "z": [..., 2],}'
    out = snippets._json_blank(src)
    assert len(out) == len(src)
    assert out == '{"u": "a//b",         "v": [1     ], "w": 0, "x": "xxx", "z": [     2] }'


def test_json_line_comment_keeps_the_newline() -> None:
    assert snippets._json_blank('{"a": 1 // x\n}') == '{"a": 1     \n}'


def test_json_doubled_comma_is_still_an_error() -> None:
    assert snippets.json_('{"a": 1,, "b": 2}') == (
        1,
        9,
        "Expecting property name enclosed in double quotes",
    )


@pytest.mark.parametrize(
    "src",
    [
        '// a.json\n{"a": 1}\n\n// b.json\n{"b": 2}\n',
        '"x",\n"y"\n',
        '"k": 1  // one\n"k": 2  // other\n',
        "{ANALYSIS_PARAMETERS}",
        '{"value": [{ ... one observation ... }, { ... }]}',
        '{"key": <your-key>}',
    ],
)
def test_json_runs_documents_and_slots_parse(src: str) -> None:
    assert snippets.json_(src) is None


# -- YAML and TOML -----------------------------------------------------------------------


def test_yaml_repeated_key_is_an_alternative_only_when_a_comment_says_so() -> None:
    assert snippets.yaml_("# BAD\nk: 1\n# GOOD\nk: 2\n") is None
    assert snippets.yaml_("k: 1  # default\nk: 2  # stronger\n") is None
    assert snippets.yaml_("k: 1\nj: 2\nk: 3\n") == (3, 1, "duplicate key 'k'")


def test_yaml_unquoted_template_slot_is_a_value() -> None:
    assert snippets.yaml_("model: {{model_name}}\n") is None
    assert snippets._quote_braces('a: "{{x}}"') == 'a: "{{x}}"'


def test_toml_alternatives_are_read_one_by_one() -> None:
    assert snippets.toml_("# one\n[t]\na = 1\n# two\n[t]\na = 2\n") is None
    # after the alternatives, an array left open is told at the end of its line
    assert snippets.toml_("# one\n[t]\na = 1\n# two\n[t]\na = [\n") == (6, 6, "Invalid value")
    assert snippets.toml_("[t]\n[t]\n") == (2, 3, "Cannot declare ('t',) twice")


# -- shell -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src", "out"),
    [
        ("cd <dir>", "cd _dir_"),
        ("x -- <build step 1>", "x -- _build_step_1_"),
        ("a < <name>.yaml", "a < _name_.yaml"),
        ("cat <<EOF\nx\nEOF", "cat <<EOF\nx\nEOF"),  # a here-document is not a placeholder
        ("sort < in.txt > out.txt 2>&1", "sort < in.txt > out.txt 2>&1"),
        ("diff <(ls a) <(ls b)", "diff <(ls a) <(ls b)"),
        ("$ ls \\\n  -l\ntotal 0\n$ pwd\n/", "  ls \\\n  -l\n\n  pwd\n"),
        ("$ make &&\n  make install\nok", "  make &&\n  make install\n"),
        (
            "$ for i in 1 2; do\n> echo $i\n> done\n1\n2",
            "  for i in 1 2; do\n  echo $i\n  done\n\n",
        ),
    ],
)
def test_shell_rewrites_keep_lines_and_lengths(src: str, out: str) -> None:
    assert snippets.shell(src) == out


def test_shell_without_a_prompt_first_is_not_a_transcript() -> None:
    src = "echo start\n$ not a prompt here\noutput?"
    assert snippets.shell(src) == src


# -- the fixtures mean something; the memo keeps the modes apart -------------------------


@pytest.mark.parametrize(
    "case",
    sorted(p for p in (FIXTURES / "pass").iterdir() if p.name.startswith("snippet-")),
    ids=lambda p: p.name,
)
def test_every_block_of_a_snippet_pass_case_fails_strict(case: Path) -> None:
    cfg, _ = load_config(case, {"cache": False})
    assert cfg.snippets == "lenient"
    strict = run([case], dataclasses.replace(cfg, snippets="strict"), case, exclude_base=case)
    fences = [f for f in parse((case / "SKILL.md").read_text("utf-8")).fences]
    lines = [d.line for d in strict.diagnostics]
    for fence in fences:
        if fence.lang in CHECKED:
            assert any(fence.line < n <= fence.end_line for n in lines), fence.line


def test_memo_keeps_strict_and_lenient_verdicts_apart(tmp_path: Path) -> None:
    import skillcheck.resultmemo as memo_mod

    skill = tmp_path / "s"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        '---\nname: s\ndescription: A block. Use in tests.\n---\n\n```json\n{"a": 1,}\n```\n',
        encoding="utf-8",
    )
    cache = str(tmp_path / "cache")
    try:
        lenient = run([skill], Config(cache=True, cache_dir=cache), tmp_path)
        strict = run([skill], Config(cache=True, cache_dir=cache, snippets="strict"), tmp_path)
        again = run([skill], Config(cache=True, cache_dir=cache), tmp_path)
    finally:
        memo_mod._ACTIVE = None
    assert [d.code for d in lenient.diagnostics] == []
    assert [d.code for d in strict.diagnostics] == ["SC602"]
    assert [d.code for d in again.diagnostics] == []


def test_a_shell_block_that_passes_plainly_is_not_rewritten(tmp_path: Path) -> None:
    # read as a transcript, the second line would be output and the quote would not close
    skill = tmp_path / "s"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: s\ndescription: A block. Use in tests.\n---\n\n"
        '```bash\n$ echo "first\nsecond"\n```\n',
        encoding="utf-8",
    )
    assert snippets.shell('$ echo "first\nsecond"\n') == '  echo "first\n\n'
    assert run([skill], Config(cache=False), tmp_path).diagnostics == []


def test_every_line_a_python_message_names_is_a_block_line() -> None:
    text = snippets.Text.of("f(a,\n  b]")
    text.insert_line(0, "def _():")  # a reading that added a line above the block
    err = SyntaxError("closing parenthesis ']' does not match opening parenthesis '(' on line 2")
    err.lineno, err.offset = 3, 4
    assert snippets._told(text, err) == (
        2,
        4,
        "closing parenthesis ']' does not match opening parenthesis '(' on line 1",
    )


def test_a_build_marker_line_reads_as_blank() -> None:
    src = "<!--skill-flavor:start-->\necho hi\n<!--skill-flavor:end-->"
    assert snippets.shell(src) == "\necho hi\n"
