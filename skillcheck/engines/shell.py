"""A shell tokenizer: words after quote removal, with their positions, split into commands.

Never raises. Positions are 1-based and relative to the text handed in (line 1
is its first line), so a caller adds the line offset of the code block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skillcheck.engines.findings import BAD_QUOTING, Finding


@dataclass(frozen=True)
class Token:
    """A shell word after quote removal, with where it starts."""

    text: str
    line: int
    column: int
    quoted: bool = False
    expands: bool = False  # holds a $-expansion or a {{placeholder}}


_OPERATOR_CHARS = ";&|()"
PLACEHOLDER = re.compile(r"\{\{.*?\}\}")


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.line = 1
        self.col = 1
        self.commands: list[list[Token]] = []
        self.current: list[Token] = []
        self.problems: list[Finding] = []
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
            part = self.quoted_part(c)
            if part is not None:
                parts.append(part[0])
                quoted, expands = quoted or part[1], expands or part[2]
                continue
            if c == "$":
                expands = True
            parts.append(c)
            self.advance()
        text = "".join(parts)
        if PLACEHOLDER.search(text):
            expands = True
        if not parts:
            return None
        return Token(text, line, col, quoted, expands)

    def quoted_part(self, c: str) -> tuple[str, bool, bool] | None:
        """(text, quoted, expands) of a quoted string or a command substitution starting
        at ``c``; None when ``c`` starts neither."""
        if c == "'":
            return self.single_quoted(), True, False
        if c == "$" and self.peek(1) == "'":
            self.advance()
            return self.single_quoted(ansi=True), True, False
        if c == '"':
            text, expands = self.double_quoted()
            return text, True, expands
        if c == "$" and self.peek(1) == "(":
            return self.balanced("(", ")", skip=1), False, True
        if c == "`":
            return self.backticks(), False, True
        return None

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
            self.problems.append(
                Finding(
                    line, col, BAD_QUOTING, "unterminated single quote", "close the quote with '"
                )
            )
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
            self.problems.append(
                Finding(
                    line, col, BAD_QUOTING, "unterminated double quote", 'close the quote with "'
                )
            )
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


def tokenize(shell_text: str) -> tuple[list[list[Token]], list[Finding]]:
    """Split shell text into simple commands (lists of words). Never raises."""
    scanner = _Scanner(shell_text)
    try:
        scanner.run()
    except (IndexError, ValueError, RecursionError):  # pragma: no cover - defensive
        scanner.end_command()
    return scanner.commands, scanner.problems
