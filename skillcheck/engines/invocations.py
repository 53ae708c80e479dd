"""The engine commands of a shell block: ``vllm serve``, ``python -m sglang.launch_server``,
``sglang serve``, ``llama-server`` and ``trtllm-serve``, behind any wrappers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from skillcheck.engines.findings import Finding
from skillcheck.engines.shell import Token, tokenize


@dataclass(frozen=True)
class Invocation:
    """One engine command found in shell text."""

    engine: str
    command: str
    line: int
    column: int
    args: tuple[Token, ...]
    problems: tuple[Finding, ...] = ()


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_UV_VALUE_OPTIONS = {
    "--with",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--project",
    "--directory",
    "--env-file",
    "--extra",
    "--group",
    "--index",
    "--index-url",
    "--extra-index-url",
    "--package",
    "--from",
    "--only-group",
    "--no-group",
}
_PREFIX_OPTIONS = {
    "sudo": {"-u", "-g", "-C", "-D"},
    "nice": {"-n"},
    "taskset": set(),
    "numactl": set(),
    "env": {"-u", "-C", "-S"},
    "timeout": {"-k", "-s"},
    "stdbuf": set(),
}


_PLAIN_PREFIXES = ("exec", "nohup", "time", "command", "builtin", "trtllm-llmapi-launch")


def _basename(text: str) -> str:
    return text.rsplit("/", 1)[-1]


def _skip_prefixes(words: Sequence[Token]) -> int:
    """Index of the first word after env assignments and wrapper commands."""
    i = 0
    while i < len(words):
        word = words[i].text
        base = _basename(word)
        if (_ASSIGNMENT.match(word) and not words[i].quoted) or base in _PLAIN_PREFIXES:
            i += 1
        elif base in _PREFIX_OPTIONS:
            i += 1
            value_opts = _PREFIX_OPTIONS[base]
            while i < len(words) and (
                words[i].text.startswith("-")
                or (base == "env" and _ASSIGNMENT.match(words[i].text))
            ):
                i += 2 if words[i].text in value_opts else 1
            if base == "timeout" and i < len(words):
                i += 1  # the duration
            if base == "taskset" and i < len(words) and not words[i].text.startswith("-"):
                i += 1  # the CPU mask
        elif base in ("uv", "uvx"):
            i += 2 if base == "uv" and i + 1 < len(words) and words[i + 1].text == "run" else 1
            while i < len(words) and words[i].text.startswith("-"):
                i += 2 if words[i].text in _UV_VALUE_OPTIONS else 1
            if i < len(words) and words[i].text == "--":
                i += 1
        else:
            return i
    return i


def _match_command(words: Sequence[Token], i: int) -> tuple[str, str, int] | None:
    """(engine, command, index of first argument) when an engine command starts at ``i``."""
    if i >= len(words):
        return None
    first = _basename(words[i].text)
    nxt = words[i + 1].text if i + 1 < len(words) else ""
    if first == "vllm" and nxt == "serve":
        return "vllm", "vllm serve", i + 2
    if first == "sglang" and nxt == "serve":
        return "sglang", "sglang serve", i + 2
    if (
        _PYTHON.match(first)
        and nxt == "-m"
        and i + 2 < len(words)
        and words[i + 2].text == "sglang.launch_server"
    ):
        return "sglang", "python -m sglang.launch_server", i + 3
    if first == "llama-server":
        return "llama.cpp", "llama-server", i + 1
    if first == "trtllm-serve":
        return "tensorrt-llm", "trtllm-serve", i + 1
    return None


def looks_like_option(tok: Token) -> bool:
    text = tok.text
    return len(text) > 1 and text.startswith("-") and not re.fullmatch(r"-\d+(\.\d+)?", text)


def find_invocations(shell_text: str) -> list[Invocation]:
    """Every ``vllm serve``, ``python -m sglang.launch_server`` / ``sglang serve``,
    ``llama-server`` and ``trtllm-serve`` command in ``shell_text``.

    ``args`` are the words after the command; which of them are options and which
    are values is decided by :func:`skillcheck.engines.options.check_invocation`,
    with the engine's parsing rules.
    """
    try:
        commands, problems = tokenize(shell_text)
    except Exception:  # pragma: no cover - tokenize is defensive already
        return []
    found: list[Invocation] = []
    for words in commands:
        start = _skip_prefixes(words)
        match = _match_command(words, start)
        if match is None:
            continue
        engine, command, first_arg = match
        head = words[start]
        last = words[-1]
        own = tuple(
            p
            for p in problems
            if (head.line, head.column) <= (p.line, p.column)
            and p.line <= max(last.line, head.line)
        )
        args = tuple(words[first_arg:])
        found.append(Invocation(engine, command, head.line, head.column, args, own))
    return found
