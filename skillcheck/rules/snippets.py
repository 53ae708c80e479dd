"""Code blocks read the way their readers read them (``snippets = "lenient"``, the default).

A page shows people code with conventions that no parser accepts: ``...`` or ``…`` for what is
left out, ``// comments`` and trailing commas in JSON, ``<placeholder>`` words in commands,
``$ `` prompts and output in transcripts, ``>>>`` in Python sessions, a function body or an API
signature on its own, a YAML or TOML block that lists alternatives with the same key. Each
function here is asked only about a block that failed the strict check: it rewrites those
conventions (keeping every line where it was, and every column through a map) and parses again.
What still fails is reported at its own place, in the original block's lines and columns.
"""

from __future__ import annotations

import bisect
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

Problem = tuple[int, int, str]  # 1-based line and column in the block, message


@dataclass
class Text:
    """A block being rewritten: its lines, and for each line the original line (0 for a line
    added) and column breakpoints (rewritten 0-based column, original 0-based column)."""

    lines: list[str]
    origin: list[int] = field(default_factory=list)
    cols: list[list[tuple[int, int]]] = field(default_factory=list)

    @classmethod
    def of(cls, src: str) -> Text:
        lines = src.split("\n")
        return cls(lines, list(range(1, len(lines) + 1)), [[(0, 0)] for _ in lines])

    def copy(self) -> Text:
        return Text(list(self.lines), list(self.origin), [list(c) for c in self.cols])

    @property
    def source(self) -> str:
        return "\n".join(self.lines)

    def _orig_col(self, i: int, col0: int) -> int:
        points = self.cols[i]
        k = bisect.bisect_right([p[0] for p in points], col0) - 1
        start, orig = points[max(k, 0)]
        return orig + (col0 - start)

    def replace(self, i: int, start: int, end: int, new: str) -> None:
        """Replace columns [start, end) of line i (0-based) with ``new``."""
        line = self.lines[i]
        before, after = self._orig_col(i, start), self._orig_col(i, end)
        delta = len(new) - (end - start)
        kept = [p for p in self.cols[i] if p[0] < start]
        moved = [(p[0] + delta, p[1]) for p in self.cols[i] if p[0] > end]
        self.cols[i] = [*kept, (start, before), (start + len(new), after), *moved]
        self.lines[i] = line[:start] + new + line[end:]

    def insert_line(self, i: int, text: str) -> None:
        self.lines.insert(i, text)
        self.origin.insert(i, 0)
        self.cols.insert(i, [(0, 0)])

    def place(self, line: int, col: int) -> tuple[int, int]:
        """The original (line, column), 1-based, of a 1-based place in the rewritten text."""
        i = min(max(line, 1), len(self.lines)) - 1
        if self.origin[i]:
            return self.origin[i], max(self._orig_col(i, max(col, 1) - 1) + 1, 1)
        # a line the reading added: the original line after it, else the one before it
        after = [o for o in self.origin[i:] if o]
        before = [o for o in self.origin[:i] if o]
        return (after[0] if after else before[-1] if before else 1), 1


def _code_end(line: str) -> int:
    """Where the code of a line ends: before a '#' comment outside quotes, spaces trimmed."""
    quote = ""
    for k, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return len(line[:k].rstrip())
    return len(line.rstrip())


def _sub_all(text: Text, pattern: re.Pattern[str], make: Callable[[re.Match[str]], str]) -> None:
    for i, line in enumerate(text.lines):
        for m in reversed(list(pattern.finditer(line))):
            text.replace(i, m.start(), m.end(), make(m))


# -- Python ------------------------------------------------------------------------------

_PROMPT = re.compile(r"^(>>>|\.\.\.)( |$)")
_UNICODE_ELLIPSIS = re.compile("…")
_MAGIC = re.compile(r"^\s*[%!]")
# ``...`` standing for items of a call, list or dict: followed by a comma, or the last one
_ELLIPSIS_ITEM = re.compile(r"(?<=[(\[{,])\s*\.\.\.\s*,|(?<=[(\[{,])\s*\.\.\.(?=\s*[)\]}]|\s*$)")
# ``args...`` : "the rest of the arguments"
_NAMED_REST = re.compile(r"(?<=\w)\.\.\.(?=\s*[,)\]])")
_ELLIPSIS_LINE = re.compile(r"^\s*\.\.\.\s*,?")
_ANGLE = re.compile(r"(?<![\w)\]<])<([A-Za-z][\w.-]*)>")
_DOLLAR = re.compile(r"\$(?=[A-Za-z_{])")
_INDENT_AFTER = re.compile(r"expected an indented block after .* on line (\d+)")
ON_LINE = re.compile(r"\bon line (\d+)")  # "... does not match opening parenthesis '(' on line 2"
_WRAP = (
    "outside function",
    "outside async function",
    "not properly in loop",
    "outside loop",
    "unexpected indent",
)
_CLAUSE = re.compile(r"^\s*(except\b|finally\b|elif\b|else\b)")
_SIGNATURE = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*\s*\(")


def _python_base(src: str) -> Text:
    """Prompts, notebook magics, ``…`` and ellipsis items, ``<placeholder>`` and ``$NAME``."""
    text = Text.of(src)
    code = [ln for ln in text.lines if ln.strip() and not ln.lstrip().startswith("#")]
    if code and code[0].startswith(">>>"):
        for i, line in enumerate(text.lines):
            m = _PROMPT.match(line)
            if m:
                text.replace(i, 0, m.end(), "")
            elif line.strip():
                text.replace(i, 0, len(line), "")  # the output of the line above
    for i, line in enumerate(text.lines):
        if _MAGIC.match(line):
            k = len(line) - len(line.lstrip())
            text.replace(i, k, k + 1, "#")
    _sub_all(text, _UNICODE_ELLIPSIS, lambda m: "...")
    _sub_all(text, _ELLIPSIS_ITEM, lambda m: " " * len(m.group(0)))
    _sub_all(text, _NAMED_REST, lambda m: " " * len(m.group(0)))
    last = ""
    for i, line in enumerate(text.lines):
        m = _ELLIPSIS_LINE.match(line)
        if m and last.endswith(("(", "[", "{", ",")):
            text.replace(i, 0, m.end(), " " * m.end())
        elif line.strip() and not line.lstrip().startswith("#"):
            last = line[: _code_end(line)]
    _sub_all(text, _ANGLE, lambda m: "_" + m.group(1).replace(".", "_").replace("-", "_") + "_")
    _sub_all(text, _DOLLAR, lambda m: "_")
    return text


def _compile(src: str) -> SyntaxError | None:
    import ast
    import warnings

    try:
        with warnings.catch_warnings():  # '"is" with a literal' and the like are not syntax
            warnings.simplefilter("ignore")
            compile(src, "<block>", "exec", dont_inherit=True, flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as exc:
        return exc
    except (ValueError, RecursionError, MemoryError) as exc:
        return SyntaxError(str(exc))
    return None


def _empty_body(text: Text, header: int) -> bool:
    """Give the compound statement that starts on rewritten line ``header`` a ``...`` body
    (its body is only comments: the words stand for the code)."""
    lines = text.lines
    for i in range(header - 1, min(header + 20, len(lines))):
        end = _code_end(lines[i])
        if lines[i][:end].endswith(":"):
            break
    else:
        return False
    said = lines[i][end:].strip().startswith("#")
    for k in range(i + 1, len(lines)):
        stripped = lines[k].strip()
        if stripped.startswith("#"):
            said = True
        elif stripped:
            break
    else:
        said = True  # the block ends: the body is left out
    if said:
        text.replace(i, end, end, " ...")
    return said


def _wrap(text: Text) -> None:
    """Read the block as the body of a function (and of a loop): a fragment taken out of one."""
    asynchronous = any(re.search(r"\b(await|async)\b", ln) for ln in text.lines)
    for i in range(len(text.lines)):
        if text.lines[i].strip():
            text.replace(i, 0, 0, "    ")
    text.insert_line(0, "  for _ in _:")
    text.insert_line(0, ("async " if asynchronous else "") + "def _():")


def _clause_head(text: Text) -> bool:
    """A block that starts with ``except``/``else``... continues a statement above it."""
    for i, line in enumerate(text.lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _CLAUSE.match(line)
        if not m:
            return False
        pad = line[: len(line) - len(line.lstrip())]
        head = "try: ..." if m.group(1) in ("except", "finally") else "if _: ..."
        text.insert_line(i, pad + head)
        return True
    return False


def _decorators_alone(text: Text) -> bool:
    """Decorators shown without the function they decorate (the last code line is one)."""
    code = [ln for ln in text.lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not code or not code[-1].lstrip().startswith("@"):
        return False
    pad = code[-1][: len(code[-1]) - len(code[-1].lstrip())]
    text.insert_line(len(text.lines), pad + "def _(): ...")
    return True


def _settle(text: Text) -> tuple[Text, SyntaxError | None]:
    """Compile, giving comment-only bodies a body and fragments a function around them."""
    wrapped = headed = decorated = False
    err = _compile(text.source)
    for _ in range(50):
        if err is None:
            break
        msg, line = err.msg or "", err.lineno or 1
        m = _INDENT_AFTER.search(msg)
        if m and _empty_body(text, int(m.group(1))):
            pass
        elif not wrapped and any(w in msg for w in _WRAP):
            _wrap(text)
            wrapped = True
        elif not headed and line <= 3 and _clause_head(text):
            headed = True
        elif not decorated and _decorators_alone(text):
            decorated = True
        else:
            break
        err = _compile(text.source)
    return text, err


def _signatures(base: Text) -> Text:
    """Lines such as ``name(a: int, b=1) -> X`` or ``mod.fn(...)``: read them as ``def``."""
    text = base.copy()
    i, n = 0, len(text.lines)
    while i < n:
        line = text.lines[i]
        if not _SIGNATURE.match(line) or line.startswith(("print(", "assert")):
            i += 1
            continue
        depth, j = 0, i
        while j < n:
            seg = text.lines[j][: _code_end(text.lines[j])]
            depth += seg.count("(") + seg.count("[") - seg.count(")") - seg.count("]")
            if depth <= 0:
                break
            j += 1
        if j >= n:
            break
        end = _code_end(text.lines[j])
        text.replace(j, end, end, ": ...")
        dots = [k for k, ch in enumerate(line[: line.index("(")]) if ch == "."]
        for k in dots:
            text.replace(i, k, k + 1, "_")
        text.replace(i, 0, 0, "def ")
        i = j + 1
    return text


def _told(text: Text, err: SyntaxError) -> Problem:
    """The error's place and message in the original block's lines."""
    line, col = text.place(err.lineno or 1, err.offset or 1)

    def block_line(m: re.Match[str]) -> str:
        return f"on line {text.place(int(m[1]), 1)[0]}"

    return line, col, ON_LINE.sub(block_line, err.msg or "invalid syntax")


def _furthest(found: list[tuple[Text, SyntaxError]]) -> Problem:
    """Of several readings that all fail, the one that got furthest explains the block best
    (the first of equals)."""
    told = [_told(text, err) for text, err in found]
    return max(told, key=lambda p: (p[0], p[1], -told.index(p)))


def python(src: str) -> Problem | None:
    base = _python_base(src)
    found: list[tuple[Text, SyntaxError]] = []
    for reading in (base, _signatures(base)):
        settled, err = _settle(reading.copy())
        if err is None:
            return None
        found.append((settled, err))
    return _furthest(found)


# -- JSON --------------------------------------------------------------------------------


def _eol(src: str, i: int) -> int:
    j = src.find("\n", i)
    return len(src) if j < 0 else j


_JSON_ELIDED = re.compile(r"\.\.\.[^\"{}\[\],:\n]*?\.\.\.")
# a template's slot where a value goes: {{name}}, {NAME}
_JSON_SLOT = re.compile(r"\{\{[^{}\n]*\}\}|\{[A-Z][A-Z0-9_]*\}")


def _json_blank(src: str) -> str:
    """Comments (``//``, ``/* */``), ``...``/``…`` and ``{{placeholder}}``/``<placeholder>``
    values outside strings, rewritten in place with the same length (newlines kept)."""
    out = list(src)
    i, n, last = 0, len(src), ""
    while i < n:
        ch = src[i]
        if ch == '"':
            j = i + 1
            while j < n and src[j] not in '"\n':
                j += 2 if src[j] == "\\" else 1
            i, last = j + 1, '"'
            continue
        two = src[i : i + 2]
        if two == "//":
            j = _eol(src, i)
        elif two == "/*":
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif src.startswith("...", i) or ch == "…":
            prose = _JSON_ELIDED.match(src, i)  # "{ ... one object per row ... }"
            j = prose.end() if prose else i + (1 if ch == "…" else 3)
            if last == ":":
                out[i] = "0"
                i += 1
            elif (m := re.match(r"\s*,", src[j:])) is not None:
                j += m.end()  # an item left out, with its comma
        elif (m := _JSON_SLOT.match(src, i)) is not None:
            j = m.end()
            out[i:j] = '"' + "x" * (j - i - 2) + '"'
            i, last = j, '"'
            continue
        elif ch == "<" and last == ":" and (m := re.match(r"<[A-Za-z][^<>\n]*>", src[i:])):
            j = i + m.end()
            out[i:j] = '"' + "x" * (j - i - 2) + '"'
            i, last = j, '"'
            continue
        else:
            if not ch.isspace():
                last = ch
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return _json_commas("".join(out))


def _json_commas(src: str) -> str:
    """Trailing commas (before a closing bracket or the end) become spaces."""
    out = list(src)
    sig = []  # (index, char) of significant characters outside strings
    i, n = 0, len(src)
    while i < n:
        ch = src[i]
        if ch == '"':
            j = i + 1
            while j < n and src[j] not in '"\n':
                j += 2 if src[j] == "\\" else 1
            sig.append((i, '"'))
            i = j + 1
            continue
        if not ch.isspace():
            sig.append((i, ch))
        i += 1
    for k, (at, ch) in enumerate(sig):
        nxt = sig[k + 1][1] if k + 1 < len(sig) else ""
        if ch == "," and nxt in ("]", "}", ""):
            out[at] = " "
    return "".join(out)


def _json_error(src: str, shift: int = 0) -> Problem | None:
    import json

    try:
        json.loads(src)
    except json.JSONDecodeError as exc:
        col = exc.colno - shift if exc.lineno == 1 else exc.colno
        return exc.lineno, max(col, 1), exc.msg
    except RecursionError:
        return 1, 1, "nesting too deep"
    return None


def _json_line(line: str) -> Problem | None:
    """A line of JSON Lines, or one member shown on its own line (a list of alternatives)."""
    if _json_error(line) is None:
        return None
    if line.lstrip().startswith('"') and _json_error("{" + line.rstrip().rstrip(",") + "}") is None:
        return None
    return _json_error(line)


def _json_documents(src: str) -> Problem | None:
    """Several documents one after the other (files, each under its own ``// name``)."""
    import json

    decoder = json.JSONDecoder()
    i, n = 0, len(src)
    while True:
        while i < n and src[i].isspace():
            i += 1
        if i >= n:
            return None
        try:
            _, i = decoder.raw_decode(src, i)
        except json.JSONDecodeError as exc:
            return exc.lineno, exc.colno, exc.msg
        except RecursionError:
            return 1, 1, "nesting too deep"


def json_(src: str) -> Problem | None:
    """JSONC/JSON5 comments, trailing commas, ellipses and placeholders; then the document,
    JSON Lines, a run of members or a run of items. The reading that got furthest is told."""
    text = _json_blank(src)
    found = [_json_error(text), _json_documents(text)]
    lines = text.split("\n")
    if sum(1 for ln in lines if ln.strip()) > 1:
        bad = [(n, _json_line(ln)) for n, ln in enumerate(lines, 1) if ln.strip()]
        first = next(((n, p) for n, p in bad if p is not None), None)
        if first is None:
            return None
        found.append((first[0], first[1][1], first[1][2]))
    if text.lstrip().startswith('"'):
        found += [_json_error("{" + text + "}", 1), _json_error("[" + text + "]", 1)]
    if any(p is None for p in found):
        return None
    return max((p for p in found if p is not None), key=lambda p: (p[0], p[1]))


# -- YAML and TOML -----------------------------------------------------------------------

_BRACES = re.compile(r"(?<![\"'\w{])\{\{[^{}\n]*\}\}(?![\"'}])")


def _quote_braces(src: str) -> str:
    return _BRACES.sub(lambda m: '"' + "x" * (len(m.group(0)) - 2) + '"', src)


def _annotated(lines: list[str], i: int) -> bool:
    """Line i (0-based) or the lines just above it carry a comment: a listed alternative."""
    if "#" in lines[i][_code_end(lines[i]) :]:
        return True
    for k in range(i - 1, max(i - 4, -1), -1):
        stripped = lines[k].strip()
        if stripped.startswith("#"):
            return True
        if stripped:
            return False
    return False


def _alternative(lines: list[str], i: int, key: str) -> bool:
    """A repeated key at line i is one of several alternatives the block lists (it, or the
    occurrence before it, is introduced by a comment)."""
    if _annotated(lines, i):
        return True
    indent = len(lines[i]) - len(lines[i].lstrip())
    head = re.compile(rf"^\s{{{indent}}}{re.escape(key)}\s*:")
    for k in range(i - 1, -1, -1):
        if head.match(lines[k]):
            return _annotated(lines, k)
    return False


def yaml_(src: str) -> Problem | None:
    from skillcheck.safeyaml import load_yaml_stream

    text = _quote_braces(src)
    lines = text.split("\n")
    for code, msg, line0, col0 in load_yaml_stream(text)[1]:
        m = re.fullmatch(r"duplicate key '(.*)'", msg)
        if code == "SC105" and m and line0 < len(lines) and _alternative(lines, line0, m[1]):
            continue
        return line0 + 1, col0 + 1, msg
    return None


def _toml_place(msg: str, lines: list[str]) -> tuple[str, int, int]:
    """tomllib's message without its place, and the place: "(at line 3, column 5)", or "(at
    end of document)" for the end of the last line."""
    m = re.search(r" \(at line (\d+), column (\d+)\)$", msg)
    if m:
        return msg[: m.start()], int(m.group(1)), int(m.group(2))
    if msg.endswith(" (at end of document)"):
        last = len(lines) - 1 if len(lines) > 1 and not lines[-1] else len(lines)
        return msg[: -len(" (at end of document)")], last, len(lines[last - 1]) + 1
    return msg, 1, 1


def toml_(src: str) -> Problem | None:
    """Placeholders quoted, ``= ...`` values, and a table or key declared again as an
    alternative (a comment introduces it): each alternative is read on its own."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    text = re.sub(r"(=\s*)(\.\.\.|…)", lambda m: m.group(1) + "0".ljust(len(m.group(2))), src)
    lines = _quote_braces(text).split("\n")
    for _ in range(len(lines) + 1):
        try:
            tomllib.loads("\n".join(lines))
            return None
        except tomllib.TOMLDecodeError as exc:
            msg, line, col = _toml_place(str(exc), lines)
            again = msg.startswith(("Cannot declare", "Cannot overwrite"))
            if not (again and 1 < line <= len(lines) and _annotated(lines, line - 1)):
                return line, col, msg
            lines[: line - 1] = [""] * (line - 1)
    return None  # pragma: no cover


# -- shell -------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"(?<![<\w])<([A-Za-z][\w./:@+=,-]*(?: [\w./:@+=,-]+)*)>")
_SHELL_PROMPT = re.compile(r"^(\s*)\$ ")
_SHELL_MORE = re.compile(r"^> ")  # the prompt of a command's next line


def shell(src: str) -> str:
    """``<placeholder>`` words made plain words; a transcript (``$ `` prompts) reduced to its
    commands. Same lines, same lengths: bash's line numbers stay true."""
    lines = src.split("\n")
    code = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if code and _SHELL_PROMPT.match(code[0]):
        typed = going = False  # a command line above; it goes on (\, &&, ||, |)
        for i, line in enumerate(lines):
            m = _SHELL_PROMPT.match(line) or (typed and _SHELL_MORE.match(line))
            if m:
                lines[i] = " " * m.end() + line[m.end() :]
            elif not going:
                lines[i] = ""  # output
            typed = bool(m) or going
            going = typed and lines[i].rstrip().endswith(("\\", "&&", "||", "|"))
    lines = ["" if _MARKER_LINE.match(ln) else ln for ln in lines]
    return "\n".join(
        _PLACEHOLDER.sub(lambda m: "_" + re.sub(r"\s", "_", m.group(1)) + "_", ln) for ln in lines
    )


# a line that is only an HTML comment: a marker that a build step strips (<!-- flavor:x -->)
_MARKER_LINE = re.compile(r"^\s*<!--.*-->\s*$")
