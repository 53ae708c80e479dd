"""Configuration: defaults < ``[tool.skillcheck]`` in pyproject.toml < command-line options."""

from __future__ import annotations

import dataclasses
import datetime as dt
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class ConfigError(Exception):
    """A usage or configuration error: the command exits 2."""


def _today() -> dt.date:
    from skillcheck import clock

    try:
        return clock.today()
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


@dataclass(frozen=True)
class Config:
    exclude: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    strict: bool = False
    max_skill_lines: int = 500
    max_skill_tokens: int = 5000
    toc_threshold_lines: int = 300
    max_file_bytes: int = 2_000_000
    source_max_age_days: int = 180
    url_allowlist: tuple[str, ...] = ()
    engine_pins: tuple[tuple[str, str], ...] = ()
    # glob (relative to the pyproject.toml's folder) -> codes, prefixes or names silenced there
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    cache: bool = True
    cache_dir: str | None = None
    jobs: int = 0
    snippets: str = "lenient"  # how code blocks are read: "lenient" or "strict" (SNIPPET_MODES)
    # the severity of SC208 (a file SKILL.md does not reach): "warning" or "error"
    orphans: str = "warning"
    # probe
    timeout: float = 10.0
    retries: int = 2
    concurrency: int = 32
    per_host: int = 4
    total_budget: float = 300.0
    max_redirects: int = 10
    max_retry_after: float = 30.0
    allow_private: bool = False
    blocked_hosts_error: tuple[str, ...] = ()
    head_unfriendly_hosts: tuple[str, ...] = ()
    success_ttl_hours: float = 24.0
    check_fragments: bool = False
    # the day freshness rules judge dates against (SC309); not a setting
    today: dt.date = field(default_factory=_today, metadata={"setting": False})

    def pins(self) -> dict[str, str]:
        return dict(self.engine_pins)


FIELDS = {f.name: f for f in dataclasses.fields(Config) if f.metadata.get("setting", True)}


def _key_name(field_name: str) -> str:
    return field_name.replace("_", "-")


ALLOWED_KEYS = sorted(_key_name(n) for n in FIELDS)
POSITIVE = {"timeout", "concurrency", "per_host"}  # zero would never finish a probe
SNIPPET_MODES = ("lenient", "strict")
# keys whose value is one of a few words
CHOICES = {"orphans": ("warning", "error"), "snippets": SNIPPET_MODES}


def _suggest(raw: str, rules: Mapping[str, Any]) -> str:
    """The closest rule codes or names to a selector that matches none, as a hint."""
    import difflib

    word = raw.strip()
    if word.upper().startswith("SC"):
        close = difflib.get_close_matches(word.upper(), list(rules), n=3, cutoff=0.6)
    else:
        names = [r.name for r in rules.values()]
        close = difflib.get_close_matches(word.lower(), names, n=3, cutoff=0.6)
    if not close:
        return "`skillcheck rules` lists them"
    return f"did you mean {' or '.join(close)}? `skillcheck rules` lists them all"


def resolve_selector(raw: str) -> tuple[str | None, str]:
    """A rule code, prefix or name as (the code or prefix upper-cased, ""), or (None, why it
    is none, with the closest codes or names): it must start at least one rule's code or be a
    rule's name. Shared by ``select``/``ignore``/``per-file-ignores`` and the suppression
    comments."""
    import re

    from skillcheck.registry import RULES, load_builtin_rules

    load_builtin_rules()
    by_name = {r.name: r.code for r in RULES.values()}
    code = by_name.get(raw.strip().lower(), raw.strip().upper())
    if not re.fullmatch(r"SC\d{1,3}", code):
        return None, (
            f"{raw!r} is not a rule code, prefix or name "
            f"(SC followed by 1 to 3 digits, e.g. SC2 or SC201); {_suggest(raw, RULES)}"
        )
    if not any(c.startswith(code) for c in RULES):
        return None, f"no rule code starts with {code!r}; {_suggest(raw, RULES)}"
    return code, ""


def _codes(value: tuple[str, ...], key: str, where: str) -> tuple[str, ...]:
    """Rule codes, prefixes or names, as codes or prefixes upper-cased; each must start at
    least one rule's code (or be a rule's name)."""
    out = []
    for raw in value:
        code, why = resolve_selector(raw)
        if code is None:
            raise ConfigError(f"{where}: '{key}': {why}")
        out.append(code)
    return tuple(out)


def _per_file_ignores(value: Any, key: str, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``{ "glob" = ["SC201", "broken-link"] }``: each glob a non-empty string, each list
    of valid codes, prefixes or names (a single string is a list of one)."""
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: '{key}' must be a table of \"glob\" = [codes]")
    out = []
    for pattern, codes in value.items():
        if isinstance(codes, str):
            codes = [codes]
        if not pattern.strip() or not isinstance(codes, list) or not codes:
            raise ConfigError(
                f"{where}: '{key}': {pattern!r} must be a non-empty glob with a non-empty "
                "list of codes"
            )
        if not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{where}: '{key}': {pattern!r} must map to a list of strings")
        try:
            out.append((pattern, _codes(tuple(codes), key, where)))
        except ConfigError as exc:
            raise ConfigError(
                str(exc).replace(f"'{key}': ", f"'{key}': {pattern!r}: ", 1)
            ) from None
    return tuple(sorted(out))


def _engine_pins(value: Any, key: str, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in value.items()
    ):
        raise ConfigError(f"{where}: '{key}' must be a table of engine = \"version\"")
    from skillcheck.engines import available

    known = sorted({e for e, _ in available()})
    for engine in value:
        if engine not in known:
            raise ConfigError(
                f"{where}: '{key}': unknown engine {engine!r}; known engines: {', '.join(known)}"
            )
    return tuple(sorted(value.items()))


def _coerce(name: str, value: Any, where: str) -> Any:
    import math

    default = FIELDS[name].default
    key = _key_name(name)
    if name == "engine_pins":
        return _engine_pins(value, key, where)
    if name in CHOICES:
        if value not in CHOICES[name]:
            raise ConfigError(
                f"{where}: '{key}' must be one of {', '.join(map(repr, CHOICES[name]))}, "
                f"not {value!r}"
            )
        return value
    if name == "per_file_ignores":
        return _per_file_ignores(value, key, where)
    if isinstance(default, tuple):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: '{key}' must be a list of strings")
        if not all(v.strip() for v in value):
            raise ConfigError(f"{where}: '{key}' must not hold an empty string")
        if name in ("select", "ignore"):
            return _codes(tuple(value), key, where)
        return tuple(value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: '{key}' must be true or false")
        return value
    least = "a positive" if name in POSITIVE else "a non-negative"
    if isinstance(default, int):
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < 0
            or (value == 0 and name in POSITIVE)
        ):
            raise ConfigError(f"{where}: '{key}' must be {least} integer")
        return value
    if isinstance(default, float):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or value < 0
            or (value == 0 and name in POSITIVE)
        ):
            raise ConfigError(f"{where}: '{key}' must be {least} finite number")
        return float(value)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(f"{where}: '{key}' must be a non-empty string")
    return value


def find_pyproject(start: Path) -> Path | None:
    p = start.resolve()
    if p.is_file():
        p = p.parent
    for d in (p, *p.parents):
        cand = d / "pyproject.toml"
        if cand.is_file():
            return cand
    return None


def read_table(pyproject: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{pyproject}: cannot read configuration: {exc}") from exc
    tool = data.get("tool", {})
    table = tool.get("skillcheck", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.skillcheck] must be a table")
    return table


def load_config(
    start: Path, overrides: Mapping[str, Any] | None = None
) -> tuple[Config, Path | None]:
    """Build the configuration for a run rooted at ``start``.

    Returns the config and the pyproject.toml it was read from (if any).
    """
    values: dict[str, Any] = {}
    pyproject = find_pyproject(start)
    if pyproject is not None:
        for key, value in read_table(pyproject).items():
            name = key.replace("-", "_")
            if name not in FIELDS:
                raise ConfigError(
                    f"{pyproject}: unknown key '{key}' in [tool.skillcheck]; "
                    f"allowed keys: {', '.join(ALLOWED_KEYS)}"
                )
            values[name] = _coerce(name, value, str(pyproject))
    for name, value in (overrides or {}).items():
        if value is None:
            continue
        values[name] = _coerce(name, value, "command line")
    return Config(**values), pyproject
