"""skillcheck extract: named blocks are written; escapes and overwrites are refused."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from skillcheck.cli import main
from skillcheck.extract import named_blocks, safe_target

PAGE = """# Template

```python title="loadgen.py"
print("hi")
```

```yaml file="conf/app.yaml"
a: 1
```

```bash
echo unnamed
```

```bash title="../escape.sh"
echo no
```
"""


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


def test_named_blocks() -> None:
    names = [n for n, _, _ in named_blocks(PAGE)]
    assert names == ["loadgen.py", "conf/app.yaml", "../escape.sh"]


def test_extract_writes_and_refuses_escape(tmp_path: Path) -> None:
    page = tmp_path / "t.md"
    page.write_text(PAGE)
    out = tmp_path / "out"
    code, _, stderr = run("extract", str(page), "-o", str(out))
    assert code == 1  # the escaping block is refused
    assert (out / "loadgen.py").read_text() == 'print("hi")\n'
    assert (out / "conf" / "app.yaml").read_text() == "a: 1\n"
    assert not (tmp_path / "escape.sh").exists()
    assert "path leaves the output folder" in stderr


def test_extract_refuses_overwrite_unless_forced(tmp_path: Path) -> None:
    page = tmp_path / "t.md"
    page.write_text('```python title="a.py"\nx = 1\n```\n')
    out = tmp_path / "out"
    assert run("extract", str(page), "-o", str(out))[0] == 0
    (out / "a.py").write_text("mine")
    code, _, stderr = run("extract", str(page), "-o", str(out))
    assert code == 1 and "file exists" in stderr and (out / "a.py").read_text() == "mine"
    assert run("extract", str(page), "-o", str(out), "--force")[0] == 0
    assert (out / "a.py").read_text() == "x = 1\n"


def test_extract_nothing_named(tmp_path: Path) -> None:
    page = tmp_path / "t.md"
    page.write_text("```bash\necho\n```\n")
    code, _, stderr = run("extract", str(page), "-o", str(tmp_path))
    assert code == 1 and "no code block names a file" in stderr


def test_safe_target_rejects_absolute_and_parent(tmp_path: Path) -> None:
    for bad in ("/etc/passwd", "../x", "a/../../x", "C:\\x", ""):
        assert safe_target(tmp_path, bad) is None, bad
    assert safe_target(tmp_path, "a/b.py") == (tmp_path / "a" / "b.py").resolve()
