"""A small C++ scanner: comments, literals, brackets and top-level commas."""

from __future__ import annotations

import re

from tools.manifests.errors import GenerateError


def blank_comments(text: str) -> str:
    """Replace comments by spaces, keeping string and char literals and offsets."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            i = skip_literal(text, i)
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        i += 1
    return "".join(out)


def skip_literal(text: str, i: int) -> int:
    quote = text[i]
    if quote == '"' and i > 0 and text[i - 1] == "R":
        m = re.match(r'"([^(\s]*)\(', text[i:])
        if m:
            end = text.find(")" + m.group(1) + '"', i)
            return len(text) if end < 0 else end + len(m.group(1)) + 2
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        if text[j] == "\n":
            return j
        j += 1
    return j


def match_bracket(text: str, i: int) -> int:
    """Index just past the bracket closing the one at ``i``."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = [pairs[text[i]]]
    j = i + 1
    while j < len(text) and stack:
        c = text[j]
        if c in "\"'":
            j = skip_literal(text, j)
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")}]":
            if c != stack[-1]:
                raise GenerateError(f"unbalanced brackets near offset {j}")
            stack.pop()
        j += 1
    if stack:
        raise GenerateError(f"unclosed bracket at offset {i}")
    return j


def split_commas(text: str) -> list[str]:
    """Split on top-level commas."""
    parts: list[str] = []
    depth, start, j = 0, 0, 0
    while j < len(text):
        c = text[j]
        if c in "\"'":
            j = skip_literal(text, j)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:j].strip())
            start = j + 1
        j += 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "r": "\r", "0": "\0"}


def string_literals(text: str) -> list[str]:
    """Every ordinary string literal in ``text``, decoded."""
    found: list[str] = []
    j = 0
    while j < len(text):
        if text[j] == '"':
            end = skip_literal(text, j)
            raw = text[j + 1 : end - 1]
            found.append(re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), raw))
            j = end
        elif text[j] == "'":
            j = skip_literal(text, j)
        else:
            j += 1
    return found


def only_strings(text: str) -> str | None:
    """The value of ``text`` when it is nothing but adjacent string literals."""
    rest = re.sub(r'"(?:[^"\\]|\\.)*"', "", text)
    if rest.strip():
        return None
    return "".join(string_literals(text))


def function_body(text: str, signature: str) -> str:
    m = re.search(signature, text)
    if m is None:
        raise GenerateError(f"function {signature!r} not found")
    brace = text.index("{", m.end())
    return text[brace + 1 : match_bracket(text, brace) - 1]


def skip_statement(body: str, i: int) -> int:
    starts_block = re.match(r"(for|while|switch|do|else)\b", body[i:]) is not None
    j = i
    while j < len(body):
        c = body[j]
        if c in "\"'":
            j = skip_literal(body, j)
            continue
        if c in "([":
            j = match_bracket(body, j)
            continue
        if c == "{":
            j = match_bracket(body, j)
            if starts_block:
                return j
            continue
        if c == ";":
            return j + 1
        j += 1
    return j
