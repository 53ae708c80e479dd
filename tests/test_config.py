"""Every key of ``[tool.skillcheck]``, from README.md's configuration table: a valid value is
read, a wrong type, a negative number, a non-boolean, an empty string or an unknown name is a
usage error (exit 2) whose message names the key."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from skillcheck.config import ALLOWED_KEYS, ConfigError, load_config

from .conftest import FIXTURES
from .test_cli import invoke

# key -> (a valid TOML value, what it reads as, invalid TOML values)
KEYS: dict[str, tuple[str, Any, list[str]]] = {
    "exclude": ('["a", "b/c"]', ("a", "b/c"), ["[1]", "true", '[""]', "{ a = 1 }"]),
    "select": (
        '["sc2", "SC101", "broken-link"]',
        ("SC2", "SC101", "SC201"),
        ['["2"]', '["SC"]', '["SC9"]', '["SC2x"]', '[""]', "[2]", '["E501"]'],
    ),
    "ignore": ('"SC209"', ("SC209",), ['["SC8"]', '[" "]', "1", '["SC1234"]']),
    "strict": ("true", True, ['"true"', "1", "0", '"yes"', "[]"]),
    "max-skill-lines": ("0", 0, ["-1", "1.5", '"500"', "true", "nan"]),
    "max-skill-tokens": ("5000", 5000, ["-5000", "5e3", '"x"', "false"]),
    "toc-threshold-lines": ("300", 300, ["-300", "300.0", "[300]"]),
    "max-file-bytes": ("2000000", 2_000_000, ["-1", "2e6", "true"]),
    "source-max-age-days": ("180", 180, ["-180", "180.5", '"180"', "false"]),
    "url-allowlist": (
        '["https://internal.example/"]',
        ("https://internal.example/",),
        ['[""]', "[1]", "true"],
    ),
    "engine-pins": (
        '{ vllm = "0.33.0", sglang = "0.5.23" }',
        (("sglang", "0.5.23"), ("vllm", "0.33.0")),
        [
            "{ vllm = 0.33 }",
            '{ nosuchengine = "1.0" }',
            '["vllm"]',
            '{ vllm = "" }',
            '"vllm=0.33.0"',
        ],
    ),
    "per-file-ignores": (
        '{ "references/legacy/*.md" = ["SC201", "orphan-file"], "x.md" = "sc2" }',
        (("references/legacy/*.md", ("SC201", "SC208")), ("x.md", ("SC2",))),
        [
            '["SC201"]',
            '{ "a.md" = [] }',
            '{ "a.md" = [201] }',
            '{ "" = ["SC201"] }',
            '{ "a.md" = ["SC9"] }',
            '{ "a.md" = ["broken-links"] }',
        ],
    ),
    "cache": ("false", False, ['"false"', "0"]),
    "cache-dir": ('"/tmp/x"', "/tmp/x", ['""', "1", "true", '["/tmp"]']),
    "jobs": ("0", 0, ["-1", "1.0", '"4"', "true"]),
    "snippets": ('"strict"', "strict", ['"Strict"', '"loose"', '""', "true", '["strict"]']),
    "orphans": ('"error"', "error", ['"errors"', '"Error"', '""', "true", '["error"]']),
    "timeout": ("0.5", 0.5, ["0", "-1", "nan", "inf", '"10"', "true"]),
    "retries": ("0", 0, ["-1", "2.5", '"2"', "false"]),
    "concurrency": ("1", 1, ["0", "-1", "1.5", "true"]),
    "per-host": ("1", 1, ["0", "-4", "2.0", "false"]),
    "total-budget": ("0", 0.0, ["-1", "nan", "-inf", '"300"']),
    "max-redirects": ("0", 0, ["-1", "10.5", '"10"']),
    "max-retry-after": ("30", 30.0, ["-30", "inf", "true"]),
    "allow-private": ("true", True, ['"true"', "1"]),
    "blocked-hosts-error": ('["x.example"]', ("x.example",), ["[1]", '[""]', "true"]),
    "head-unfriendly-hosts": ('"x.example"', ("x.example",), ["[1]", "1"]),
    "success-ttl-hours": ("24", 24.0, ["-1", "nan", '"24"', "false"]),
    "check-fragments": ("true", True, ['"on"', "1"]),
}


def test_every_key_has_cases() -> None:
    assert sorted(KEYS) == ALLOWED_KEYS, "add the new key to KEYS with valid and invalid values"


def _write(tmp_path: Path, key: str, value: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.skillcheck]\n{key} = {value}\n", encoding="utf-8"
    )
    return tmp_path


@pytest.mark.parametrize("key", sorted(KEYS))
def test_valid_value_is_read(tmp_path: Path, key: str) -> None:
    text, expected, _ = KEYS[key]
    cfg, where = load_config(_write(tmp_path, key, text))
    assert where == tmp_path / "pyproject.toml"
    assert getattr(cfg, key.replace("-", "_")) == expected


@pytest.mark.parametrize(("key", "text"), [(k, bad) for k in sorted(KEYS) for bad in KEYS[k][2]])
def test_invalid_value_is_a_config_error(tmp_path: Path, key: str, text: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(_write(tmp_path, key, text))
    assert f"'{key}'" in str(err.value)
    assert str(tmp_path / "pyproject.toml") in str(err.value)


@pytest.mark.parametrize(
    ("key", "text", "words"),
    [
        ("max-skill-lines", "-1", "must be a non-negative integer"),
        ("strict", '"true"', "must be true or false"),
        ("timeout", "0", "must be a positive finite number"),
        ("concurrency", "0", "must be a positive integer"),
        ("select", '["SC9"]', "no rule code starts with 'SC9'; did you mean SC409 or SC309"),
        ("ignore", '["orphan"]', "'orphan' is not a rule code, prefix or name"),
        ("ignore", '[""]', "must not hold an empty string"),
        ("engine-pins", '{ vlm = "0.33.0" }', "unknown engine 'vlm'; known engines: "),
        ("exclude", "[1]", "must be a list of strings"),
        ("orphans", '"fatal"', "must be one of 'warning', 'error', not 'fatal'"),
        (
            "per-file-ignores",
            '{ "docs/*.md" = ["broken-links"] }',
            "'docs/*.md': 'broken-links' is not a rule code, prefix or name (SC followed by 1 to "
            "3 digits, e.g. SC2 or SC201); did you mean broken-link?",
        ),
        ("snippets", '"loose"', "must be one of 'lenient', 'strict', not 'loose'"),
    ],
)
def test_cli_reports_a_bad_value_as_a_usage_error(
    tmp_path: Path, key: str, text: str, words: str
) -> None:
    shutil.copytree(FIXTURES / "pass" / "minimal", tmp_path / "minimal")
    _write(tmp_path, key, text)
    for command in ("check", "probe", "pack"):
        code, out, err = invoke(command, str(tmp_path / "minimal"))
        assert code == 2, (command, out, err)
        assert words in err and f"'{key}'" in err and "Traceback" not in err + out


def test_defaults_without_a_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    cfg, _ = load_config(tmp_path)
    assert (
        cfg.max_skill_lines,
        cfg.max_skill_tokens,
        cfg.toc_threshold_lines,
        cfg.max_file_bytes,
        cfg.source_max_age_days,
        cfg.strict,
        cfg.cache,
        cfg.jobs,
        cfg.snippets,
    ) == (500, 5000, 300, 2_000_000, 180, False, True, 0, "lenient")


def test_table_that_is_not_a_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool]\nskillcheck = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[tool.skillcheck\] must be a table"):
        load_config(tmp_path)


def test_command_line_overrides_the_file(tmp_path: Path) -> None:
    _write(tmp_path, "jobs", "3")
    cfg, _ = load_config(tmp_path, {"jobs": 1, "strict": None})
    assert cfg.jobs == 1 and cfg.strict is False
    with pytest.raises(ConfigError, match="command line: 'jobs'"):
        load_config(tmp_path, {"jobs": -1})


def test_nearest_pyproject_wins(tmp_path: Path) -> None:
    _write(tmp_path, "jobs", "3")
    inner = tmp_path / "inner"
    (inner / "deeper").mkdir(parents=True)
    _write(inner, "jobs", "5")
    assert load_config(inner / "deeper")[0].jobs == 5
    assert load_config(tmp_path)[0].jobs == 3
