"""Checks of option values shared by the command and config-file checks."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable

from skillcheck.engines.findings import BAD_CHOICE, BAD_JSON, UNKNOWN_OPTION, Finding
from skillcheck.engines.manifest import CHOICES_KNOWN, CHOICES_STRICT, Manifest, Option
from skillcheck.engines.shell import PLACEHOLDER, Token


def close_match(word: str, candidates: Iterable[str], cutoff: float = 0.75) -> str | None:
    """The closest candidate. Option names use a high cutoff (a wrong hint is worse
    than none); short choice values need a lower one."""
    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=cutoff)
    return matches[0] if matches else None


def normalize_flag(flag: str, manifest: Manifest) -> str:
    rules = manifest.parser
    if rules.kind == "llama.cpp" and rules.underscore_to_dash and flag.startswith("--"):
        return flag.replace("_", "-")
    if rules.underscore_to_dash and flag.startswith("--"):
        head, dot, tail = flag[2:].partition(".")
        return "--" + head.replace("_", "-") + dot + tail
    return flag


def _normalize_value(value: str, opt: Option) -> str:
    if not opt.normalize:
        return value
    if "lower" in opt.normalize:
        value = value.lower()
    if "dash-to-underscore" in opt.normalize:
        value = value.replace("-", "_")
    return value


def _is_number(text: str) -> bool:
    return re.fullmatch(r"[-+]?\d+(\.\d+)?([eE][-+]?\d+)?", text) is not None


def replacement_hint(message: str | None) -> str:
    """``use `--new` instead`` from a deprecation message that names a replacement."""
    if not message:
        return ""
    m = re.search(r"(?i)\buse\s+(.*?)(?:\s+instead\b|$)", message)
    if m is None:
        return ""
    flags = re.findall(r"--?[A-Za-z][\w{},.=+-]*(?:\s+<[\w-]+>)?", m.group(1))
    flags = [f.rstrip(".,") for f in flags]
    if not flags:
        return ""
    return "use " + " or ".join(f"`{f}`" for f in flags) + " instead"


def choice_problem(opt: Option, value: str, tok: Token, label: str) -> Finding | None:
    if opt.choices is None or opt.choices_kind not in (CHOICES_STRICT, CHOICES_KNOWN):
        return None
    normalized = _normalize_value(value, opt)
    if normalized in opt.choices or value in opt.choices:
        return None
    if opt.accepts_numbers and _is_number(value):
        return None
    shown = ", ".join(opt.choices[:12]) + (", ..." if len(opt.choices) > 12 else "")
    note = " (plugins can register more)" if opt.choices_kind == CHOICES_KNOWN else ""
    close = close_match(normalized, opt.choices, cutoff=0.6)
    hint = f"did you mean `{close}`? " if close else ""
    hint += f"allowed{note}: {shown}"
    if opt.accepts_numbers:
        hint += ", or a number"
    return Finding(
        tok.line, tok.column, BAD_CHOICE, f"`{value}` is not a valid value for {label}", hint
    )


_HUMAN_NUMBER = re.compile(r"\b(\d+(?:\.\d+)?)([kKmMgGtT])\b")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BARE_PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*")


def _outside_strings(text: str) -> list[tuple[int, str]]:
    """(offset, text) of the parts of a JSON text that are not inside strings."""
    parts: list[tuple[int, str]] = []
    pos = 0
    for m in _JSON_STRING.finditer(text):
        parts.append((pos, text[pos : m.start()]))
        pos = m.end()
    parts.append((pos, text[pos:]))
    return parts


def _expand_human_numbers(text: str) -> str:
    decimal = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
    binary = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}

    def repl(m: re.Match[str]) -> str:
        number, suffix = m.group(1), m.group(2)
        if suffix in decimal:
            return str(int(float(number) * decimal[suffix]))
        if "." in number:
            return m.group(0)
        return str(int(number) * binary[suffix])

    out: list[str] = []
    pos = 0
    for m in _JSON_STRING.finditer(text):
        out.append(_HUMAN_NUMBER.sub(repl, text[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_HUMAN_NUMBER.sub(repl, text[pos:]))
    return "".join(out)


def check_json(
    opt: Option, value: str, tok: Token, manifest: Manifest, label: str
) -> list[Finding]:
    text = value.strip()
    if opt.type == "json|str" and not text.startswith("{"):
        return []
    if PLACEHOLDER.fullmatch(text) or (tok.expands and not text.startswith(("{", "["))):
        return []  # the whole value is a placeholder or an expansion
    for _, part in _outside_strings(text):
        bare = _BARE_PLACEHOLDER.search(part)
        if bare:
            return [
                Finding(
                    tok.line,
                    tok.column,
                    BAD_JSON,
                    f"{label}: placeholder `{bare.group(0)}` outside a JSON string",
                    "quote the placeholder, or write a literal value",
                )
            ]
    if manifest.engine == "vllm":
        text = _expand_human_numbers(text)
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        return [
            Finding(
                tok.line,
                tok.column,
                BAD_JSON,
                f"{label} is not valid JSON: {exc.msg} at character {exc.pos}",
                "check quotes, commas and braces; wrap the whole value in single quotes",
            )
        ]
    except (ValueError, RecursionError):
        return [Finding(tok.line, tok.column, BAD_JSON, f"{label} is not valid JSON", "")]
    return check_json_keys(opt, parsed, tok, label)


def check_json_keys(opt: Option, parsed: object, tok: Token, label: str) -> list[Finding]:
    if not isinstance(parsed, dict) or opt.json_keys is None:
        return []
    problems: list[Finding] = []
    for key in parsed:
        if key not in opt.json_keys:
            close = close_match(str(key), opt.json_keys)
            problems.append(
                Finding(
                    tok.line,
                    tok.column,
                    UNKNOWN_OPTION,
                    f"unknown key `{key}` in {label}",
                    f"did you mean `{close}`?"
                    if close
                    else "known keys: " + ", ".join(opt.json_keys[:15]),
                )
            )
    return problems


def deprecation_message(written: str, opt: Option, engine: str) -> str:
    message = opt.deprecated or "deprecated"
    if any(message.startswith(s) for s in opt.spellings):
        return f"{message} ({engine})"
    return f"`{written}` is deprecated in {engine}: {message}"
