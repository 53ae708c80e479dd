"""Parsing: each Markdown file is read once into a :class:`ParsedDoc` shared by every rule.

The parsed document holds what the rules and ``pack`` read: links, headings, code, URLs, the
front-matter (raw, loaded, with its problems and key lines) and the engine versions the page
declares on its ``Applies to:`` line. A ParsedDoc depends only on the file's text, so it can be
cached by content hash.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from skillcheck.mentions import example_regions, has_fill_in, scan_mentions
from skillcheck.slugs import Slugger

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

PARSER_VERSION = "13"


@dataclass
class Link:
    """A link target as written. ``kind``: inline, image, reference, autolink, html, definition;
    footnote and footnote-definition (``[^label]`` and ``[^label]: text``, whose target is the
    label as written)."""

    target: str
    line: int
    column: int
    kind: str
    label: str | None = None


@dataclass
class Heading:
    text: str
    slug: str
    level: int
    line: int


@dataclass
class Fence:
    lang: str
    info: str
    attrs: dict[str, str]
    content: str
    line: int  # line of the opening fence
    end_line: int

    @property
    def body_line(self) -> int:
        """Line of the first content line."""
        return self.line + 1


@dataclass
class CodeSpan:
    text: str
    line: int
    column: int


@dataclass
class Suppression:
    """A ``<!-- skillcheck: ignore CODES -->`` comment (``ignore-file`` for the whole file).
    ``words`` are the codes, prefixes or rule names as written (resolved against the registry
    by :mod:`skillcheck.suppress`); ``first``..``last`` are the lines it covers: the block that
    starts on the line after a comment standing alone on its lines (just that line when no
    block starts there), the comment's own lines when it shares them with text, 0..0 for
    ``ignore-file``. ``problem`` says why a malformed comment is not one."""

    kind: str  # "ignore", "ignore-file", or "" when malformed
    words: list[str]
    line: int
    column: int
    first: int = 0
    last: int = 0
    problem: str = ""


_DIRECTIVE = re.compile(r"skillcheck\s*:\s*(\S*)\s*([\s\S]*)$")
DIRECTIVES = ("ignore", "ignore-file")


@dataclass
class ParsedDoc:
    line_count: int
    has_bom: bool
    frontmatter: str | None  # raw YAML between the delimiters
    frontmatter_state: str  # "none", "closed", "unclosed"
    frontmatter_end: int  # line of the closing delimiter (0 when none)
    # the front-matter loaded (closed blocks only): value, problems (code, message, 0-based
    # line in the YAML) and the 0-based line of each top-level key
    frontmatter_value: Any = None
    frontmatter_problems: list[tuple[str, str, int, int]] = field(default_factory=list)
    frontmatter_lines: dict[str, int] = field(default_factory=dict)
    applies_to: dict[str, str] = field(default_factory=dict)  # engine id -> declared version
    body_chars: int = 0
    body_words: int = 0
    links: list[Link] = field(default_factory=list)
    definitions: list[Link] = field(default_factory=list)
    footnotes: list[Link] = field(default_factory=list)  # [^label] uses and definitions
    headings: list[Heading] = field(default_factory=list)
    html_anchors: list[tuple[str, int]] = field(default_factory=list)
    fences: list[Fence] = field(default_factory=list)
    code_spans: list[CodeSpan] = field(default_factory=list)
    html_comments: list[tuple[str, int]] = field(default_factory=list)
    urls: list[tuple[str, int, int]] = field(default_factory=list)  # every http(s) URL in text
    # words that may name a file (text, line, column), the regions that present paths as
    # examples (line, first column, end column), and whether the page has fill-in fields
    mentions: list[tuple[str, int, int]] = field(default_factory=list)
    examples: list[tuple[int, int, int]] = field(default_factory=list)
    fill_in: bool = False
    suppressions: list[Suppression] = field(default_factory=list)

    @property
    def anchors(self) -> set[str]:
        return {h.slug for h in self.headings} | {a for a, _ in self.html_anchors}

    def is_example(self, line: int, column: int) -> bool:
        """Whether the text at ``line:column`` is presented as an example (see
        :func:`skillcheck.mentions.example_regions`)."""
        k = bisect.bisect_right(self.examples, (line, column, 10**9))
        while k > 0 and self.examples[k - 1][0] == line:
            k -= 1
            if self.examples[k][1] <= column < self.examples[k][2]:
                return True
        return False


@lru_cache(maxsize=1)
def _md_inline() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table")


@lru_cache(maxsize=1)
def _md() -> MarkdownIt:
    """The block parser: inline content is scanned by this module (``_scan_inline``), so
    markdown-it's own inline pass runs only on headings (``_plain_heading_text``)."""
    return _md_inline().__class__("commonmark", {"html": True}).enable("table").disable("inline")


_BRACKET = r"(?:[^\[\]\\]|\\.|\[(?:[^\[\]\\]|\\.)*\])*"
_INLINE_LINK = re.compile(
    r"(!?)\[(" + _BRACKET + r")\]\(\s*(<[^>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
_REF_LINK = re.compile(r"(!?)\[(" + _BRACKET + r")\]\[([^\[\]]*)\]")
# a GitHub footnote: ``[^label]`` in text, ``[^label]: text`` at the start of a line
_FOOTNOTE = re.compile(r"(?<!\\)\[\^([^\]\s]+)\](:?)")
_SHORTCUT = re.compile(r"(?<![\]\\])(!?)\[(" + _BRACKET + r")\](?![\[(:])")
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*)>")
_HTML_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9-]*)\b([^<>]*)>")
_LINK_TAGS = {"a", "img", "source", "link", "iframe", "script"}
_TAG_ATTR = re.compile(r"\b(href|src|id|name)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.IGNORECASE)
_HTML_COMMENT = re.compile(r"<!--([\s\S]*?)-->")
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`|\\]+")
_DEF_DEST = re.compile(r"\]:[ \t]*")  # a link definition's destination follows
_ATTR = re.compile(r"([A-Za-z_][\w-]*)\s*=\s*(\"[^\"]*\"|'[^']*'|\S+)")

ENGINE_NAMES = {  # how pages name engines -> manifest engine ids
    "vllm": "vllm",
    "sglang": "sglang",
    "tensorrt-llm": "tensorrt-llm",
    "trt-llm": "tensorrt-llm",
    "trtllm": "tensorrt-llm",
    "llama.cpp": "llama.cpp",
    "llamacpp": "llama.cpp",
}
APPLIES_LINES = 40  # the "Applies to:" line is looked for in a page's first lines
_APPLIES = re.compile(r"Applies to:?\**\s*(.+)", re.IGNORECASE)
_DECL = re.compile(
    r"(vLLM|SGLang|TensorRT-LLM|TRT-LLM|llama\.cpp)\s+(?:v(?=\d))?(b?\d+(?:\.\d+)*)", re.IGNORECASE
)


def applies_to(lines: list[str]) -> dict[str, str]:
    """The engine versions a page declares (``Applies to: vLLM 0.33.0, SGLang 0.5.23``):
    engine id -> version as written, the first mention of each engine winning."""
    out: dict[str, str] = {}
    for line in lines[:APPLIES_LINES]:
        m = _APPLIES.search(line)
        if not m:
            continue
        for d in _DECL.finditer(m.group(1)):
            engine = ENGINE_NAMES.get(d.group(1).lower())
            if engine and engine not in out:
                out[engine] = d.group(2)
    return out


def normalize_label(label: str) -> str:
    return " ".join(label.split()).casefold()


def _unquote(v: str) -> str:
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1]
    return v


def parse_info(info: str) -> tuple[str, dict[str, str]]:
    """``python title="x.py" skillcheck-skip="why"`` -> ("python", {...})."""
    info = info.strip()
    if not info:
        return "", {}
    lang, _, rest = info.partition(" ")
    lang = lang.strip("{}").lower()
    attrs = {m.group(1): _unquote(m.group(2)) for m in _ATTR.finditer(rest)}
    return lang, attrs


_BACKTICKS = re.compile(r"`+")


def _mask_code_spans(s: str) -> tuple[str, list[tuple[int, str]]]:
    """Blank out code spans (CommonMark: a run of N backticks closes at the next run of exactly
    N). Linear in the text: each run length keeps a pointer to its next candidate closer."""
    if "`" not in s:
        return s, []
    runs = [(m.start(), m.end() - m.start()) for m in _BACKTICKS.finditer(s)]
    by_len: dict[int, list[int]] = {}
    for idx, (_, n) in enumerate(runs):
        by_len.setdefault(n, []).append(idx)
    cursor = {n: 0 for n in by_len}
    spans: list[tuple[int, str]] = []
    pieces: list[str] = []
    last = 0
    i = 0
    while i < len(runs):
        start, n = runs[i]
        same = by_len[n]
        k = cursor[n]
        while k < len(same) and same[k] <= i:
            k += 1
        cursor[n] = k
        if k >= len(same):
            i += 1
            continue
        j = same[k]
        end_start = runs[j][0]
        body = s[start + n : end_start]
        spans.append((start + n, body))
        pieces.append(s[last:start])
        pieces.append(" " * (end_start + n - start))
        last = end_start + n
        i = j + 1
    pieces.append(s[last:])
    return "".join(pieces), spans


_NEWLINE = re.compile("\n")


class _Locator:
    """Maps an offset inside an inline token's content to (line, column) in the file."""

    def __init__(self, lines: list[str], start_line: int, content: str) -> None:
        self.lines = lines
        self.start_line = start_line  # 0-based
        self.content = content
        self._nl: list[int] | None = None

    @property
    def nl(self) -> list[int]:
        """Offsets of the line breaks in the content (found on first use: most inline
        tokens hold nothing to locate)."""
        if self._nl is None:
            self._nl = [m.start() for m in _NEWLINE.finditer(self.content)]
        return self._nl

    def at(self, offset: int, needle: str) -> tuple[int, int]:
        k = bisect.bisect_left(self.nl, offset)
        line0 = self.start_line + k
        in_line = offset - (self.nl[k - 1] + 1 if k else 0)
        col = 1
        if 0 <= line0 < len(self.lines):
            src = self.lines[line0]
            found = src.find(needle, in_line) if needle else -1
            if found < 0 and needle:
                found = src.find(needle)
            col = found + 1 if found >= 0 else len(src) - len(src.lstrip()) + 1
        return line0 + 1, col


def _plain_heading_text(inline: Any, env: dict[str, Any]) -> str:
    if not inline.children and inline.content:  # the block parser left it unparsed
        parsed = _md_inline().parseInline(inline.content, env)
        inline = parsed[0] if parsed else inline
    parts: list[str] = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            continue
    return "".join(parts)


def _scan_html(doc: ParsedDoc, text: str, start_line0: int, lines: list[str]) -> None:
    loc = _Locator(lines, start_line0, text)
    stripped = text
    pos = text.find("<!--")
    while pos != -1:  # a scan, not a regex: an unclosed comment must not cost O(n^2)
        end = text.find("-->", pos + 4)
        if end == -1:
            break
        line, col = loc.at(pos, "<!--")
        body = text[pos + 4 : end].strip()
        doc.html_comments.append((body, line))
        if body.startswith("skillcheck"):
            _suppression(doc, body, line, col, loc.at(end, "-->")[0], lines)
        stripped = stripped[:pos] + " " * (end + 3 - pos) + stripped[end + 3 :]
        pos = text.find("<!--", end + 3)
    for tag in _HTML_TAG.finditer(stripped):
        name = tag.group(1).lower()
        for m in _TAG_ATTR.finditer(tag.group(2)):
            attr = m.group(1).lower()
            value = _unquote(m.group(2))
            pos = tag.start(2) + m.start(2)
            if attr in ("href", "src"):
                if name in _LINK_TAGS:
                    quoted = value != m.group(2)
                    line, col = loc.at(pos + quoted, value or m.group(2))
                    doc.links.append(Link(value, line, col, "html"))
            else:
                line, _ = loc.at(pos, m.group(2))
                doc.html_anchors.append((value, line))


def _suppression(
    doc: ParsedDoc, body: str, line: int, col: int, end_line: int, lines: list[str]
) -> None:
    """Record a ``skillcheck:`` comment; its scope is settled by :func:`_scopes` once the
    blocks are known. ``first`` is 0 for a comment alone on its lines (the scope starts
    after it), else the comment's own lines."""
    m = _DIRECTIVE.match(body)
    if m is None:
        return
    kind, words = m.group(1), [w for w in re.split(r"[,\s]+", m.group(2)) if w]
    s = Suppression(kind, words, line, col)
    if kind not in DIRECTIVES:
        s.kind, s.problem = "", f"unknown skillcheck directive '{kind}'"
    elif not words:
        s.kind, s.problem = "", f"'skillcheck: {kind}' names no rule code"
    before = lines[line - 1][: col - 1] if 0 < line <= len(lines) else ""
    after = lines[end_line - 1] if 0 < end_line <= len(lines) else ""
    alone = not before.strip() and not after[after.rfind("-->") + 3 :].strip()
    s.first, s.last = (0, end_line) if alone else (line, end_line)
    doc.suppressions.append(s)


_COMMENTS_ONLY = re.compile(r"(?:<!--[\s\S]*?-->\s*)+")


def _scopes(doc: ParsedDoc, tokens: list[Any]) -> None:
    """Settle the lines each suppression covers: after a comment alone on its lines, the
    outermost block that starts on the next line (a list, a table, a fence, a paragraph),
    or that one line. Comments stacked on the lines between are passed over, so several
    suppression comments can stand above one block."""
    if not doc.suppressions:
        return
    blocks: dict[int, int] = {}  # first line -> last line of the outermost block there
    comments: set[int] = set()  # first lines of blocks made of HTML comments alone
    for tok in tokens:
        if tok.map and tok.nesting >= 0 and tok.map[0] + 1 not in blocks:
            blocks[tok.map[0] + 1] = tok.map[1]
            if tok.type == "html_block" and _COMMENTS_ONLY.fullmatch(tok.content.strip()):
                comments.add(tok.map[0] + 1)
    for s in doc.suppressions:
        if s.kind == "ignore-file":
            s.first = s.last = 0
        elif s.first == 0:
            nxt = s.last + 1
            while nxt in comments:
                nxt = blocks[nxt] + 1
            s.first, s.last = nxt, max(nxt, blocks.get(nxt, nxt))


def _scan_urls(doc: ParsedDoc, content: str, loc: _Locator) -> None:
    for m in _URL.finditer(content):
        url = m.group(0).rstrip(".,;:!?*_~")
        line, col = loc.at(m.start(), url)
        doc.urls.append((url, line, col))


def _scan_inline(
    doc: ParsedDoc, content: str, start_line0: int, lines: list[str], labels: set[str]
) -> None:
    masked, spans = _mask_code_spans(content)
    loc = _Locator(lines, start_line0, content)
    if "://" in content:
        _scan_urls(doc, content, loc)
    for off, text in spans:
        line, col = loc.at(off, text.split("\n", 1)[0])
        doc.code_spans.append(CodeSpan(text, line, col))
    taken: list[tuple[int, int]] = []
    for m in _INLINE_LINK.finditer(masked):
        dest = m.group(3)
        if dest.startswith("<") and dest.endswith(">"):
            dest = dest[1:-1]
        dest = re.sub(r"\\(.)", r"\1", dest)
        kind = "image" if m.group(1) else "inline"
        line, col = loc.at(m.start(3), m.group(3) or "](")
        doc.links.append(Link(dest, line, col, kind))
        taken.append((m.start(), m.end()))
        # links nested in the text of an image link ([![alt](img)](target))
        inner = m.group(2)
        if "](" in inner:
            _scan_inline(
                doc,
                content[m.start(2) : m.end(2)],
                start_line0 + content.count("\n", 0, m.start(2)),
                lines,
                labels,
            )

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    if "[^" in masked:
        taken += _scan_footnotes(doc, masked, loc)
    for m in _REF_LINK.finditer(masked):
        if not free(m.start(), m.end()):
            continue
        label = m.group(3) if m.group(3).strip() else m.group(2)
        if not label.strip():  # a label needs a non-blank character: `Task[][]` is no link
            continue
        line, col = loc.at(m.start(), m.group(0).split("\n", 1)[0])
        doc.links.append(Link("", line, col, "reference", normalize_label(label)))
        taken.append((m.start(), m.end()))
    for m in _SHORTCUT.finditer(masked):
        if not free(m.start(), m.end()):
            continue
        label = normalize_label(m.group(2))
        if label in labels:
            line, col = loc.at(m.start(), m.group(0).split("\n", 1)[0])
            doc.links.append(Link("", line, col, "reference", label))
    for m in _AUTOLINK.finditer(masked):
        line, col = loc.at(m.start(1), m.group(1))
        doc.links.append(Link(m.group(1), line, col, "autolink"))
    if "<" in masked:
        _scan_html(doc, masked, start_line0, lines)


def _scan_footnotes(doc: ParsedDoc, masked: str, loc: _Locator) -> list[tuple[int, int]]:
    """GitHub footnotes in a paragraph: a ``[^label]:`` that starts a line defines one, any
    other ``[^label]`` uses one. Both go to ``doc.footnotes``; returns the spans they take,
    which are no reference links."""
    spans = []
    for m in _FOOTNOTE.finditer(masked):
        line_start = masked.rfind("\n", 0, m.start()) + 1
        defines = m.group(2) == ":" and not masked[line_start : m.start()].strip()
        line, col = loc.at(m.start(), m.group(0))
        kind = "footnote-definition" if defines else "footnote"
        doc.footnotes.append(Link(m.group(1), line, col, kind, normalize_label(m.group(1))))
        spans.append((m.start(), m.start() + len(m.group(1)) + 3))
    return spans


def _link_definitions(doc: ParsedDoc, refs: dict[str, Any], lines: list[str]) -> None:
    """The link definitions markdown-it found; a label starting with ``^`` is a GitHub
    footnote's definition (``[^1]: https://example.com``), whose text is no link target."""
    for key, ref in refs.items():
        mp = ref.get("map") or [0, 1]
        line0 = mp[0]
        col = 1
        if 0 <= line0 < len(lines):
            dest = _DEF_DEST.search(lines[line0])
            col = dest.end() + 1 if dest else 1
        label = normalize_label(key)
        if label.startswith("^"):
            written = _FOOTNOTE.search(lines[line0]) if 0 <= line0 < len(lines) else None
            doc.footnotes.append(
                Link(
                    written.group(1) if written else key[1:],
                    line0 + 1,
                    written.start() + 1 if written else 1,
                    "footnote-definition",
                    label[1:],
                )
            )
            href = ref.get("href", "")
            if _URL.fullmatch(href):
                doc.urls.append((href, line0 + 1, col))
            continue
        doc.definitions.append(Link(ref.get("href", ""), line0 + 1, col, "definition", label))


def _frontmatter_block(lines: list[str]) -> tuple[str | None, str, int]:
    """(raw YAML, state, line of the closing delimiter) of a page's front-matter block;
    state is "none", "closed" or "unclosed"."""
    if not lines or lines[0].rstrip() != "---":
        return None, "none", 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return "\n".join(lines[1:i]), "closed", i + 1
    return None, "unclosed", 0


def parse(text: str) -> ParsedDoc:
    """Parse a Markdown file's decoded text (BOM already removed, any line endings)."""
    has_bom = text.startswith("\ufeff")
    if has_bom:
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    fm, state, fm_end = _frontmatter_block(lines)
    body_lines = [""] * fm_end + lines[fm_end:] if state == "closed" else lines
    doc = ParsedDoc(
        line_count=len(lines) - (1 if text.endswith("\n") else 0),
        has_bom=has_bom,
        frontmatter=fm,
        frontmatter_state=state,
        frontmatter_end=fm_end,
        applies_to=applies_to(lines),
    )
    if fm is not None:
        from skillcheck.safeyaml import key_lines, load_frontmatter

        doc.frontmatter_value, node, doc.frontmatter_problems = load_frontmatter(fm)
        doc.frontmatter_lines = key_lines(node)
    if state == "unclosed":
        return doc
    body = "\n".join(lines[fm_end:])
    doc.body_chars = len(body)
    doc.body_words = len(body.split())
    env: dict[str, Any] = {}
    tokens = _md().parse("\n".join(body_lines), env)
    refs: dict[str, Any] = env.get("references", {})
    doc.mentions = scan_mentions(lines, fm_end)
    doc.examples = example_regions(tokens, lines)
    doc.fill_in = has_fill_in(body)
    _link_definitions(doc, refs, lines)
    labels = {d.label for d in doc.definitions if d.label is not None}
    slugger = Slugger()
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        ttype = tok.type
        if ttype == "heading_open" and i + 1 < n:
            inline = tokens[i + 1]
            htext = _plain_heading_text(inline, env)
            line0 = tok.map[0] if tok.map else 0
            doc.headings.append(Heading(htext, slugger(htext), int(tok.tag[1]), line0 + 1))
            _scan_inline(doc, inline.content, line0, lines, labels)
            i += 2
            continue
        if ttype == "inline":
            line0 = tok.map[0] if tok.map else 0
            _scan_inline(doc, tok.content, line0, lines, labels)
        elif ttype in ("fence", "code_block"):
            mp = tok.map or [0, 0]
            if "://" in tok.content:
                _scan_urls(
                    doc, tok.content, _Locator(lines, mp[0] + (ttype == "fence"), tok.content)
                )
            if ttype == "code_block":
                i += 1
                continue
            lang, attrs = parse_info(tok.info)
            doc.fences.append(Fence(lang, tok.info.strip(), attrs, tok.content, mp[0] + 1, mp[1]))
        elif ttype == "html_block":
            line0 = tok.map[0] if tok.map else 0
            _scan_html(doc, tok.content, line0, lines)
            if "://" in tok.content:
                _scan_urls(doc, tok.content, _Locator(lines, line0, tok.content))
        i += 1
    _scopes(doc, tokens)
    return doc
