"""Find engine commands in shell text and check their options against manifests.

Pure functions; nothing here raises on any input. Positions are 1-based and
relative to the text handed in (line 1 is its first line), so a caller adds the
line offset of the code block.

Problem kinds: ``unknown-option``, ``deprecated-option``, ``bad-choice``,
``bad-json``, ``missing-value``, plus ``unexpected-value`` (a value given to a
flag, or a positional argument the command does not take) and ``bad-quoting``
(shell quoting that does not close).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from skillcheck.engines import (
    CHOICES_KNOWN,
    CHOICES_STRICT,
    ConfigKey,
    Manifest,
    Option,
)

__all__ = [
    "Invocation",
    "OptionUse",
    "Problem",
    "Token",
    "check_config_keys",
    "check_invocation",
    "find_invocations",
    "tokenize",
]

UNKNOWN_OPTION = "unknown-option"
DEPRECATED_OPTION = "deprecated-option"
BAD_CHOICE = "bad-choice"
BAD_JSON = "bad-json"
MISSING_VALUE = "missing-value"
UNEXPECTED_VALUE = "unexpected-value"
BAD_QUOTING = "bad-quoting"


@dataclass(frozen=True)
class Problem:
    """One finding. ``line``/``column`` are 1-based; 0 means "no position" (config keys)."""

    line: int
    column: int
    kind: str
    message: str
    hint: str = ""


@dataclass(frozen=True)
class Token:
    """A shell word after quote removal, with where it starts."""

    text: str
    line: int
    column: int
    quoted: bool = False
    expands: bool = False  # holds a $-expansion or a {{placeholder}}


@dataclass(frozen=True)
class OptionUse:
    """An option as written: ``flag`` (before any ``=``) and its value, if any."""

    flag: str
    value: str | None
    line: int
    column: int


@dataclass(frozen=True)
class Invocation:
    """One engine command found in shell text."""

    engine: str
    command: str
    line: int
    column: int
    args: tuple[Token, ...]
    options: tuple[OptionUse, ...]
    problems: tuple[Problem, ...] = ()


# ==========================================================================
# Tokenizer
# ==========================================================================

_OPERATOR_CHARS = ";&|()"
_PLACEHOLDER = re.compile(r"\{\{.*?\}\}")


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.line = 1
        self.col = 1
        self.commands: list[list[Token]] = []
        self.current: list[Token] = []
        self.problems: list[Problem] = []
        self.heredocs: list[tuple[str, bool]] = []

    # -- low level ----------------------------------------------------

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.text[j] if j < len(self.text) else ""

    def advance(self, n: int = 1) -> None:
        for _ in range(n):
            if self.i >= len(self.text):
                return
            if self.text[self.i] == "\n":
                self.line += 1
                self.col = 1
            else:
                self.col += 1
            self.i += 1

    def end_command(self) -> None:
        if self.current:
            self.commands.append(self.current)
        self.current = []

    # -- scanning -----------------------------------------------------

    def run(self) -> None:
        while self.i < len(self.text):
            c = self.peek()
            if c == "\\" and self.peek(1) == "\n":
                self.advance(2)
            elif c == "\n":
                self.advance()
                self.end_command()
                self.skip_heredocs()
            elif c in " \t\r":
                self.advance()
            elif c == "#":
                while self.i < len(self.text) and self.peek() != "\n":
                    self.advance()
            elif c in _OPERATOR_CHARS:
                if c == "&" and self.peek(1) == ">":
                    self.redirection()
                    continue
                self.advance()
                self.end_command()
            elif c in "<>":
                self.redirection()
            else:
                token = self.word()
                if token is not None:
                    self.current.append(token)
        self.end_command()

    def word(self) -> Token | None:
        line, col = self.line, self.col
        parts: list[str] = []
        quoted = expands = False
        while self.i < len(self.text):
            c = self.peek()
            if c in " \t\r\n" or c in _OPERATOR_CHARS:
                break
            if c in "<>":
                if parts and not quoted and "".join(parts).isdigit():
                    self.redirection()  # `2>file`: a file-descriptor redirection
                    return None
                break
            if c == "\\":
                if self.peek(1) == "\n":
                    self.advance(2)
                    continue
                if self.peek(1):
                    parts.append(self.peek(1))
                self.advance(2)
                continue
            if c == "'":
                quoted = True
                parts.append(self.single_quoted())
                continue
            if c == "$" and self.peek(1) == "'":
                quoted = True
                self.advance()
                parts.append(self.single_quoted(ansi=True))
                continue
            if c == '"':
                quoted = True
                text, exp = self.double_quoted()
                parts.append(text)
                expands = expands or exp
                continue
            if c == "$" and self.peek(1) == "(":
                expands = True
                parts.append(self.balanced("(", ")", skip=1))
                continue
            if c == "$":
                expands = True
            if c == "`":
                expands = True
                parts.append(self.backticks())
                continue
            parts.append(c)
            self.advance()
        text = "".join(parts)
        if _PLACEHOLDER.search(text):
            expands = True
        if not parts:
            return None
        return Token(text, line, col, quoted, expands)

    def single_quoted(self, ansi: bool = False) -> str:
        line, col = self.line, self.col
        self.advance()
        out: list[str] = []
        while self.i < len(self.text) and self.peek() != "'":
            if ansi and self.peek() == "\\" and self.peek(1):
                out.append(self.peek(1))
                self.advance(2)
                continue
            out.append(self.peek())
            self.advance()
        if self.i >= len(self.text):
            self.problems.append(Problem(line, col, BAD_QUOTING, "unterminated single quote",
                                         "close the quote with '"))
        else:
            self.advance()
        return "".join(out)

    def double_quoted(self) -> tuple[str, bool]:
        line, col = self.line, self.col
        self.advance()
        out: list[str] = []
        expands = False
        while self.i < len(self.text) and self.peek() != '"':
            c = self.peek()
            if c == "\\" and self.peek(1) in ('"', "\\", "$", "`", "\n"):
                if self.peek(1) != "\n":
                    out.append(self.peek(1))
                self.advance(2)
                continue
            if c == "$" and self.peek(1) == "(":
                expands = True
                out.append(self.balanced("(", ")", skip=1))
                continue
            if c == "$" or c == "`":
                expands = True
            out.append(c)
            self.advance()
        if self.i >= len(self.text):
            self.problems.append(Problem(line, col, BAD_QUOTING, "unterminated double quote",
                                         'close the quote with "'))
        else:
            self.advance()
        return "".join(out), expands

    def balanced(self, open_: str, close: str, skip: int = 0) -> str:
        start = self.i
        self.advance(skip)
        depth = 0
        while self.i < len(self.text):
            c = self.peek()
            if c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    self.advance()
                    break
            self.advance()
        return self.text[start : self.i]

    def backticks(self) -> str:
        start = self.i
        self.advance()
        while self.i < len(self.text) and self.peek() != "`":
            self.advance()
        self.advance()
        return self.text[start : self.i]

    def redirection(self) -> str | None:
        """Consume a redirection operator and its target; they are not arguments."""
        op = ""
        while self.peek() and self.peek() in "<>&|" and len(op) < 3:
            if self.peek() == "&" and op and op[-1] == "&":
                break
            op += self.peek()
            self.advance()
            if op in (">&", "<&") and (self.peek().isdigit() or self.peek() == "-"):
                while self.peek().isdigit() or self.peek() == "-":
                    self.advance()
                return op
        while self.peek() and self.peek() in " \t":
            self.advance()
        if op in ("<<", "<<-"):
            target = self.word()
            if target is not None:
                self.heredocs.append((target.text, op == "<<-"))
            return op
        if op == "<<<" or op.startswith(("<", ">", "&>")):
            self.word()
        return op

    def skip_heredocs(self) -> None:
        while self.heredocs:
            delimiter, strip_tabs = self.heredocs.pop(0)
            while self.i < len(self.text):
                end = self.text.find("\n", self.i)
                end = len(self.text) if end < 0 else end
                content = self.text[self.i : end]
                if (content.lstrip("\t") if strip_tabs else content) == delimiter:
                    self.advance(end - self.i + 1)
                    break
                self.advance(end - self.i + 1)


def tokenize(shell_text: str) -> tuple[list[list[Token]], list[Problem]]:
    """Split shell text into simple commands (lists of words). Never raises."""
    scanner = _Scanner(shell_text)
    try:
        scanner.run()
    except (IndexError, ValueError, RecursionError):  # pragma: no cover - defensive
        scanner.end_command()
    return scanner.commands, scanner.problems


# ==========================================================================
# Finding invocations
# ==========================================================================

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_UV_VALUE_OPTIONS = {
    "--with", "--with-editable", "--with-requirements", "--python", "-p", "--project",
    "--directory", "--env-file", "--extra", "--group", "--index", "--index-url",
    "--extra-index-url", "--package", "--from", "--only-group", "--no-group",
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
            while i < len(words) and (words[i].text.startswith("-") or (
                    base == "env" and _ASSIGNMENT.match(words[i].text))):
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
    if _PYTHON.match(first) and nxt == "-m" and i + 2 < len(words) and \
            words[i + 2].text == "sglang.launch_server":
        return "sglang", "python -m sglang.launch_server", i + 3
    if first == "llama-server":
        return "llama.cpp", "llama-server", i + 1
    if first == "trtllm-serve":
        return "tensorrt-llm", "trtllm-serve", i + 1
    return None


def _looks_like_option(tok: Token) -> bool:
    text = tok.text
    return len(text) > 1 and text.startswith("-") and not re.fullmatch(r"-\d+(\.\d+)?", text)


def _guess_options(args: Sequence[Token]) -> tuple[OptionUse, ...]:
    uses: list[OptionUse] = []
    i = 0
    while i < len(args):
        tok = args[i]
        if _looks_like_option(tok):
            if "=" in tok.text and tok.text.startswith("--"):
                flag, value = tok.text.split("=", 1)
                uses.append(OptionUse(flag, value, tok.line, tok.column))
            elif i + 1 < len(args) and not _looks_like_option(args[i + 1]):
                uses.append(OptionUse(tok.text, args[i + 1].text, tok.line, tok.column))
                i += 1
            else:
                uses.append(OptionUse(tok.text, None, tok.line, tok.column))
        i += 1
    return tuple(uses)


def find_invocations(shell_text: str) -> list[Invocation]:
    """Every ``vllm serve``, ``python -m sglang.launch_server`` / ``sglang serve``,
    ``llama-server`` and ``trtllm-serve`` command in ``shell_text``.

    ``options`` pairs each option with the word after it when that word is not
    an option itself; it is a guess made without a manifest, which
    :func:`check_invocation` redoes with the engine's parsing rules.
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
            p for p in problems
            if (head.line, head.column) <= (p.line, p.column)
            and p.line <= max(last.line, head.line)
        )
        args = tuple(words[first_arg:])
        found.append(
            Invocation(engine, command, head.line, head.column, args, _guess_options(args), own)
        )
    return found


# ==========================================================================
# Checking an invocation
# ==========================================================================


def _close(word: str, candidates: Iterable[str], cutoff: float = 0.75) -> str | None:
    """The closest candidate. Option names use a high cutoff (a wrong hint is worse
    than none); short choice values need a lower one."""
    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=cutoff)
    return matches[0] if matches else None


def _normalize_flag(flag: str, manifest: Manifest) -> str:
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


def _replacement_hint(message: str | None) -> str:
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


def _choice_problem(opt: Option, value: str, tok: Token, label: str) -> Problem | None:
    if opt.choices is None or opt.choices_kind not in (CHOICES_STRICT, CHOICES_KNOWN):
        return None
    normalized = _normalize_value(value, opt)
    if normalized in opt.choices or value in opt.choices:
        return None
    if opt.accepts_numbers and _is_number(value):
        return None
    shown = ", ".join(opt.choices[:12]) + (", ..." if len(opt.choices) > 12 else "")
    note = " (plugins can register more)" if opt.choices_kind == CHOICES_KNOWN else ""
    close = _close(normalized, opt.choices, cutoff=0.6)
    hint = f"did you mean `{close}`? " if close else ""
    hint += f"allowed{note}: {shown}"
    if opt.accepts_numbers:
        hint += ", or a number"
    return Problem(tok.line, tok.column, BAD_CHOICE,
                   f"`{value}` is not a valid value for {label}", hint)


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


def _check_json(opt: Option, value: str, tok: Token, manifest: Manifest,
                label: str) -> list[Problem]:
    text = value.strip()
    if opt.type == "json|str" and not text.startswith("{"):
        return []
    if _PLACEHOLDER.fullmatch(text) or (tok.expands and not text.startswith(("{", "["))):
        return []  # the whole value is a placeholder or an expansion
    for _, part in _outside_strings(text):
        bare = _BARE_PLACEHOLDER.search(part)
        if bare:
            return [Problem(tok.line, tok.column, BAD_JSON,
                            f"{label}: placeholder `{bare.group(0)}` outside a JSON string",
                            "quote the placeholder, or write a literal value")]
    if manifest.engine == "vllm":
        text = _expand_human_numbers(text)
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        return [Problem(tok.line, tok.column, BAD_JSON,
                        f"{label} is not valid JSON: {exc.msg} at character {exc.pos}",
                        "check quotes, commas and braces; wrap the whole value in single quotes")]
    except (ValueError, RecursionError):
        return [Problem(tok.line, tok.column, BAD_JSON, f"{label} is not valid JSON", "")]
    return _check_json_keys(opt, parsed, tok, label)


def _check_json_keys(opt: Option, parsed: object, tok: Token, label: str) -> list[Problem]:
    if not isinstance(parsed, dict) or opt.json_keys is None:
        return []
    problems: list[Problem] = []
    for key in parsed:
        if key not in opt.json_keys:
            close = _close(str(key), opt.json_keys)
            problems.append(Problem(
                tok.line, tok.column, UNKNOWN_OPTION,
                f"unknown key `{key}` in {label}",
                f"did you mean `{close}`?" if close else
                "known keys: " + ", ".join(opt.json_keys[:15]),
            ))
    return problems


def _deprecation_message(written: str, opt: Option, engine: str) -> str:
    message = opt.deprecated or "deprecated"
    if any(message.startswith(s) for s in opt.spellings):
        return f"{message} ({engine})"
    return f"`{written}` is deprecated in {engine}: {message}"


class _Checker:
    def __init__(self, inv: Invocation, manifest: Manifest) -> None:
        self.inv = inv
        self.manifest = manifest
        self.problems: list[Problem] = list(inv.problems)
        self.command = inv.command
        self.args = list(inv.args)
        self.spellings: tuple[str, ...] = ()

    def run(self) -> list[Problem]:
        manifest = self.manifest
        if self.args and f"{self.command} {self.args[0].text}" in manifest.commands:
            self.command = f"{self.command} {self.args[0].text}"
            self.args = self.args[1:]
        self.spellings = manifest.spellings(self.command)
        positionals = [p for p in manifest.positionals if p.applies_to(self.command)]
        seen_positional = 0
        only_positional = False
        i = 0
        while i < len(self.args):
            tok = self.args[i]
            if only_positional or not _looks_like_option(tok) or tok.text == "--":
                if tok.text == "--" and not only_positional:
                    only_positional = True
                    i += 1
                    continue
                if not (tok.expands and not tok.quoted):
                    seen_positional += 1
                    if seen_positional > len(positionals):
                        self.problems.append(Problem(
                            tok.line, tok.column, UNEXPECTED_VALUE,
                            f"unexpected argument `{tok.text}` for `{self.command}`",
                            "it takes no positional arguments" if not positionals else
                            "is an option missing before it?"))
                i += 1
                continue
            i = self.option(i)
        return self.problems

    # ------------------------------------------------------------------

    def option(self, i: int) -> int:
        tok = self.args[i]
        text = tok.text
        rules = self.manifest.parser
        inline: str | None = None
        name = text
        if "=" in text and text.startswith("-"):
            name, inline = text.split("=", 1)
        if _PLACEHOLDER.search(name) or "$" in name:
            return i + 1
        norm = _normalize_flag(name, self.manifest)
        opt = self.manifest.option(norm, self.command)
        if inline is not None and not rules.equals_form:
            if opt is not None:
                self.problems.append(Problem(
                    tok.line, tok.column, UNKNOWN_OPTION,
                    f"`{self.command}` does not accept `{name}={inline}`",
                    f"write `{name} {inline}`"))
                return i + 1
            # not an option spelling with '=': treat the whole word as unknown
            name, inline, norm = text, None, text
        if opt is None:
            handled = self.special(i, name, norm, inline)
            if handled is not None:
                return handled
            return self.unknown(i, name, norm, inline)
        return self.known(i, opt, name, inline)

    def special(self, i: int, name: str, norm: str, inline: str | None) -> int | None:
        """Dotted JSON keys and shorthands such as ``-O3``."""
        rules = self.manifest.parser
        tok = self.args[i]
        if rules.dotted_json_keys and norm.startswith("-") and "." in norm:
            base, key = norm.split(".", 1)
            base_opt = self.manifest.option(base, self.command)
            if base_opt is not None and base_opt.type.startswith("json"):
                first = key.split(".")[0].rstrip("+")
                if base_opt.json_keys is not None and first not in base_opt.json_keys:
                    close = _close(first, base_opt.json_keys)
                    self.problems.append(Problem(
                        tok.line, tok.column, UNKNOWN_OPTION,
                        f"unknown key `{first}` in `{base_opt.name}`",
                        f"did you mean `{base_opt.name}.{close}`?" if close else ""))
                self.deprecation(base_opt, tok, base_opt.name)
                if inline is not None:
                    return i + 1
                if i + 1 >= len(self.args):
                    self.problems.append(Problem(tok.line, tok.column, MISSING_VALUE,
                                                 f"`{name}` needs a value", ""))
                    return i + 1
                return i + 2
        for prefix, target in rules.shorthands.items():
            if name.startswith(prefix):
                target_opt = self.manifest.option(target, self.command)
                if target_opt is None:
                    break
                if name != prefix:
                    return i + 1
                nxt = self.args[i + 1] if i + 1 < len(self.args) else None
                if nxt is not None and not _looks_like_option(nxt):
                    return i + 2
                self.problems.append(Problem(tok.line, tok.column, MISSING_VALUE,
                                             f"`{prefix}` needs a level, as in `{prefix}3`", ""))
                return i + 1
        return None

    def unknown(self, i: int, name: str, norm: str, inline: str | None) -> int:
        tok = self.args[i]
        rules = self.manifest.parser
        nxt_index = i + 1
        if rules.abbreviations and norm.startswith("--"):
            matches = {self.manifest.option(s, self.command) for s in self.spellings
                       if s.startswith(norm)}
            matches.discard(None)
            if len(matches) == 1:
                full = next(iter(matches))
                assert full is not None
                self.problems.append(Problem(
                    tok.line, tok.column, UNKNOWN_OPTION,
                    f"`{name}` is not an option of `{self.command}`; the parser would "
                    f"take it as an abbreviation of `{full.name}`",
                    f"spell it out: `{full.name}`"))
                if inline is None and full.takes_value and nxt_index < len(self.args):
                    return nxt_index + 1
                return nxt_index
        close = _close(norm, self.spellings)
        if close is None and rules.underscore_to_dash is False and "_" in norm:
            close = _close(norm.replace("_", "-"), self.spellings)
        if close is None and "-" in norm[2:]:
            close = _close("--" + norm[2:].replace("-", "_"), self.spellings)
        hint = f"did you mean `{close}`?" if close else ""
        self.problems.append(Problem(
            tok.line, tok.column, UNKNOWN_OPTION,
            f"unknown option `{name}` for `{self.command}` ({self.manifest.engine} "
            f"{self.manifest.version})", hint))
        if inline is None and nxt_index < len(self.args) and not _looks_like_option(
                self.args[nxt_index]):
            guess = self.manifest.option(close, self.command) if close else None
            if guess is None or guess.takes_value:
                return nxt_index + 1
        return nxt_index

    def deprecation(self, opt: Option, tok: Token, written: str) -> bool:
        """Report a removed or deprecated option; True when it was removed."""
        engine = f"{self.manifest.engine} {self.manifest.version}"
        if opt.removed:
            self.problems.append(Problem(
                tok.line, tok.column, UNKNOWN_OPTION,
                f"`{written}` was removed in {engine}: {opt.deprecated or 'removed'}",
                _replacement_hint(opt.deprecated)))
            return True
        if opt.deprecated:
            self.problems.append(Problem(
                tok.line, tok.column, DEPRECATED_OPTION, _deprecation_message(
                    written, opt, engine), _replacement_hint(opt.deprecated)))
        return False

    def known(self, i: int, opt: Option, name: str, inline: str | None) -> int:
        tok = self.args[i]
        self.deprecation(opt, tok, name)
        if name in opt.negations or not opt.takes_value:
            if inline is not None:
                self.problems.append(Problem(
                    tok.line, tok.column, UNEXPECTED_VALUE,
                    f"`{name}` is a flag and takes no value", f"write `{name}` alone"))
            return i + 1
        values: list[Token] = []
        j = i + 1
        nargs = opt.nargs
        takes_anything = self.manifest.parser.kind in ("llama.cpp", "click")
        if inline is not None:
            values.append(Token(inline, tok.line, tok.column, tok.quoted, tok.expands))
        elif nargs in (None, 1) or isinstance(nargs, int):
            count = nargs if isinstance(nargs, int) else 1
            while len(values) < count and j < len(self.args):
                nxt = self.args[j]
                if _looks_like_option(nxt) and (nxt.text.startswith("--") or not takes_anything):
                    break
                values.append(nxt)
                j += 1
            if len(values) < count:
                self.problems.append(Problem(
                    tok.line, tok.column, MISSING_VALUE,
                    f"`{name}` needs {'a value' if count == 1 else f'{count} values'}",
                    f"write `{name} <value>`"))
                return j
        else:
            while j < len(self.args) and not _looks_like_option(self.args[j]):
                values.append(self.args[j])
                j += 1
                if nargs == "?":
                    break
            if nargs == "+" and not values:
                self.problems.append(Problem(
                    tok.line, tok.column, MISSING_VALUE,
                    f"`{name}` needs at least one value", f"write `{name} <value>`"))
        for value_tok in values:
            self.check_value(opt, value_tok, name)
        return j

    def check_value(self, opt: Option, tok: Token, label: str) -> None:
        value = tok.text
        placeholder = tok.expands or bool(_PLACEHOLDER.search(value))
        if opt.type in ("json", "json|str"):
            self.problems.extend(_check_json(opt, value, tok, self.manifest, f"`{label}`"))
            return
        if placeholder:
            return
        problem = _choice_problem(opt, value, tok, f"`{label}`")
        if problem is not None:
            self.problems.append(problem)


def check_invocation(inv: Invocation, manifest: Manifest) -> list[Problem]:
    """Problems with the options of ``inv`` under ``manifest``'s rules. Never raises."""
    if inv.engine != manifest.engine:
        return list(inv.problems)
    try:
        return _Checker(inv, manifest).run()
    except Exception as exc:  # pragma: no cover - a checker bug must not stop a run
        return [*inv.problems, Problem(inv.line, inv.column, UNKNOWN_OPTION,
                                       f"could not check this command: {exc!r}", "")]


# ==========================================================================
# YAML configuration files
# ==========================================================================


def _is_placeholder_value(value: object) -> bool:
    return isinstance(value, str) and (bool(_PLACEHOLDER.search(value)) or "$" in value)


def _config_problem(kind: str, message: str, hint: str = "") -> Problem:
    return Problem(0, 0, kind, message, hint)


def _scalar_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _check_flag_config(mapping: Mapping[object, object], manifest: Manifest) -> list[Problem]:
    """vLLM / SGLang: keys are option names passed on as ``--<key>``."""
    problems: list[Problem] = []
    rules = manifest.parser
    command = manifest.commands[0] if manifest.commands else None
    long_spellings = [s for s in manifest.spellings(command) if s.startswith("--")]
    config_option = (manifest.config_file or {}).get("option")
    for key, value in mapping.items():
        if not isinstance(key, str):
            problems.append(_config_problem(UNKNOWN_OPTION, f"config key {key!r} is not a string"))
            continue
        flag = _normalize_flag("--" + key, manifest)
        opt = manifest.option(flag, command)
        if opt is None or not flag.startswith("--") or flag == config_option:
            close = _close(flag, long_spellings)
            if close is None and "_" in flag and not rules.underscore_to_dash:
                close = _close(flag.replace("_", "-"), long_spellings)
            problems.append(_config_problem(
                UNKNOWN_OPTION, f"unknown config key `{key}` ({manifest.engine} "
                f"{manifest.version})", f"did you mean `{close[2:]}`?" if close else ""))
            continue
        if not opt.config_ok:
            problems.append(_config_problem(
                UNKNOWN_OPTION, f"config key `{key}` is refused by the config-file loader",
                f"pass `{opt.name}` on the command line instead"))
            continue
        if opt.removed:
            problems.append(_config_problem(
                UNKNOWN_OPTION, f"config key `{key}` was removed: {opt.deprecated}",
                _replacement_hint(opt.deprecated)))
            continue
        if opt.deprecated:
            problems.append(_config_problem(
                DEPRECATED_OPTION, f"config key `{key}` is deprecated: {opt.deprecated}",
                _replacement_hint(opt.deprecated)))
        problems.extend(_check_flag_config_value(key, value, opt, manifest))
    return problems


def _check_flag_config_value(key: str, value: object, opt: Option,
                             manifest: Manifest) -> list[Problem]:
    label = f"config key `{key}`"
    pseudo = Token(_scalar_text(value), 0, 0)
    if value is None or _is_placeholder_value(value):
        return []
    if isinstance(value, bool):
        if value and opt.takes_value and opt.nargs not in ("?", "*"):
            return [_config_problem(MISSING_VALUE, f"{label} is `true` but the option needs a "
                                    "value", "give the value instead of `true`")]
        if not value and opt.negatable and manifest.engine == "vllm":
            # `vllm serve --config` is read by the top-level `vllm` parser, whose option
            # table holds none of the serve options, so `--no-<key>` is never found and
            # `false` is dropped whatever the spelling.
            return [_config_problem(
                UNEXPECTED_VALUE, f"{label}: `false` is dropped by `vllm serve --config`",
                f"write `no-{key.replace('_', '-')}: true`")]
        if not opt.takes_value or value:
            return []
        if manifest.engine == "vllm":
            return []  # `false` drops a flag that has no --no- form
        problem = _choice_problem(opt, pseudo.text, pseudo, label)
        return [problem] if problem else []
    if not opt.takes_value:
        return [_config_problem(UNEXPECTED_VALUE, f"{label} is a flag; give `true` or `false`",
                                "")]
    if isinstance(value, Mapping):
        if not opt.type.startswith("json"):
            return [_config_problem(UNEXPECTED_VALUE, f"{label} takes a single value, not a "
                                    "mapping", "")]
        return _check_json_keys(opt, dict(value), pseudo, label)
    if isinstance(value, list):
        if opt.nargs in (None, "?") and len(value) != 1:
            return [_config_problem(UNEXPECTED_VALUE, f"{label} takes one value, not a list",
                                    "")]
        out: list[Problem] = []
        for item in value:
            if _is_placeholder_value(item):
                continue
            problem = _choice_problem(opt, _scalar_text(item), pseudo, label)
            if problem:
                out.append(problem)
        return out
    if opt.type.startswith("json") and isinstance(value, str):
        return _check_json(opt, value, pseudo, manifest, label)
    problem = _choice_problem(opt, pseudo.text, pseudo, label)
    return [problem] if problem else []


def _cli_alias_key(key: str, names: Mapping[str, str], manifest: Manifest) -> str | None:
    """The config key of the command-line option spelled ``--<key>`` (``tp_size``)."""
    for command in manifest.commands:
        opt = manifest.option("--" + key, command)
        if opt is not None:
            candidate = opt.name.lstrip("-").replace("-", "_")
            if candidate in names:
                return candidate
    return None


def _check_tree(mapping: Mapping[object, object], tree: Mapping[str, ConfigKey],
                path: str, manifest: Manifest) -> list[Problem]:
    problems: list[Problem] = []
    names: dict[str, str] = {}
    for name, node in tree.items():
        names[name] = name
        for alias in node.aliases:
            names.setdefault(alias, name)
    for key, value in mapping.items():
        dotted = f"{path}.{key}" if path else str(key)
        if not isinstance(key, str) or key not in names:
            close = _close(str(key), list(names))
            if not path and isinstance(key, str):
                close = _cli_alias_key(key, names, manifest) or close
            problems.append(_config_problem(
                UNKNOWN_OPTION, f"unknown config key `{dotted}` ({manifest.engine} "
                f"{manifest.version})", f"did you mean `{close}`?" if close else ""))
            continue
        node = tree[names[key]]
        if node.deprecated:
            problems.append(_config_problem(
                DEPRECATED_OPTION, f"config key `{dotted}` is deprecated: {node.deprecated}",
                _replacement_hint(node.deprecated)))
        if value is None or _is_placeholder_value(value):
            continue
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and \
                node.choices is not None and _scalar_text(value) not in node.choices:
            close = _close(_scalar_text(value), node.choices, cutoff=0.6)
            problems.append(_config_problem(
                BAD_CHOICE, f"`{value}` is not a valid value for config key `{dotted}`",
                (f"did you mean `{close}`? " if close else "") + "allowed: " +
                ", ".join(node.choices)))
        if isinstance(value, Mapping) and node.keys is not None:
            keys: Mapping[str, ConfigKey] = node.keys
            if node.discriminator and node.variants:
                tag = value.get(node.discriminator)
                if isinstance(tag, str) and tag in node.variants:
                    allowed = set(node.variants[tag]) | {node.discriminator}
                    keys = {k: v for k, v in node.keys.items() if k in allowed}
            problems.extend(_check_tree(value, keys, dotted, manifest))
    return problems


def check_config_keys(mapping: object, manifest: Manifest) -> list[Problem]:
    """Problems with a YAML configuration mapping (already parsed) for ``manifest``.

    vLLM and SGLang: the top-level keys of a ``--config`` file. TensorRT-LLM:
    the nested keys of an ``--extra_llm_api_options`` / ``--config`` file.
    Problems carry line and column 0; the message names the key path.
    """
    try:
        if mapping is None:
            return []
        if not isinstance(mapping, Mapping):
            return [_config_problem(UNKNOWN_OPTION, "a config file must hold a mapping of keys",
                                    "")]
        if manifest.config_keys is not None:
            return _check_tree(mapping, manifest.config_keys, "", manifest)
        if (manifest.config_file or {}).get("option"):
            return _check_flag_config(mapping, manifest)
        return [_config_problem(UNKNOWN_OPTION,
                                f"{manifest.engine} reads no YAML configuration file", "")]
    except Exception as exc:  # pragma: no cover - must not raise
        return [_config_problem(UNKNOWN_OPTION, f"could not check the config: {exc!r}", "")]
