"""JSON with positions: the line and column where every value starts, keyed by its path.

The standard library gives values only; schema errors need to point at a line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, cast

Path = tuple[str | int, ...]
scanstring = cast(Callable[[str, int], tuple[str, int]], json.decoder.scanstring)  # type: ignore[attr-defined]

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_MAX_DEPTH = 200


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.positions: dict[Path, int] = {}
        self.duplicates: list[tuple[Path, int]] = []

    def ws(self, i: int) -> int:
        m = _WS.match(self.text, i)
        return m.end() if m else i

    def err(self, msg: str, i: int) -> json.JSONDecodeError:
        return json.JSONDecodeError(msg, self.text, i)

    def value(self, i: int, path: Path, depth: int) -> tuple[Any, int]:
        if depth > _MAX_DEPTH:
            raise self.err("nesting too deep", i)
        i = self.ws(i)
        self.positions[path] = i
        if i >= len(self.text):
            raise self.err("Expecting value", i)
        c = self.text[i]
        if c == "{":
            obj: dict[str, Any] = {}
            i = self.ws(i + 1)
            if self.text.startswith("}", i):
                return obj, i + 1
            while True:
                i = self.ws(i)
                if not self.text.startswith('"', i):
                    raise self.err("Expecting property name enclosed in double quotes", i)
                key_pos = i
                key, i = scanstring(self.text, i + 1)
                i = self.ws(i)
                if not self.text.startswith(":", i):
                    raise self.err("Expecting ':' delimiter", i)
                if key in obj:
                    self.duplicates.append(((*path, key), key_pos))
                obj[key], i = self.value(i + 1, (*path, key), depth + 1)
                i = self.ws(i)
                if self.text.startswith(",", i):
                    i += 1
                    continue
                if self.text.startswith("}", i):
                    return obj, i + 1
                raise self.err("Expecting ',' delimiter", i)
        if c == "[":
            arr: list[Any] = []
            i = self.ws(i + 1)
            if self.text.startswith("]", i):
                return arr, i + 1
            while True:
                item, i = self.value(i, (*path, len(arr)), depth + 1)
                arr.append(item)
                i = self.ws(i)
                if self.text.startswith(",", i):
                    i += 1
                    continue
                if self.text.startswith("]", i):
                    return arr, i + 1
                raise self.err("Expecting ',' delimiter", i)
        if c == '"':
            return scanstring(self.text, i + 1)
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, i):
                return val, i + len(word)
        m = _NUMBER.match(self.text, i)
        if m:
            s = m.group(0)
            return (float(s) if any(ch in s for ch in ".eE") else int(s)), m.end()
        raise self.err("Expecting value", i)


class JsonDoc:
    def __init__(self, text: str) -> None:
        p = _Parser(text)
        value, end = p.value(0, (), 0)
        end = p.ws(end)
        if end != len(text):
            raise p.err("Extra data", end)
        self.value = value
        self.text = text
        self._pos = p.positions
        self.duplicates = [(path, self.line_col(off)) for path, off in p.duplicates]

    def line_col(self, offset: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, offset) + 1
        col = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return line, col

    def where(self, path: Path) -> tuple[int, int]:
        """Position of the value at ``path``, or of its nearest existing ancestor."""
        p = tuple(path)
        while p and p not in self._pos:
            p = p[:-1]
        return self.line_col(self._pos.get(p, 0))


def pointer(path: Path) -> str:
    """JSON path for messages: $.sources[3].url"""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out
