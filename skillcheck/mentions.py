"""Files a skill's text names without linking them, and the places where its text shows paths
as examples rather than as files of the skill.

Parse time (from a page's text alone, so cached with the page): every path-like word of the
body (:func:`scan_mentions`), the regions that present paths as examples
(:func:`example_regions`) and whether the page holds fill-in fields (:func:`has_fill_in`).
Check time: :func:`strip_prefix` reads the placeholders for the skill's own folder.
"""

from __future__ import annotations

import re
from typing import Any

# How skills write "this skill's folder" before a path. Each pattern, at the start of a path,
# stands for the skill root; ``{name}`` is the skill's folder name. A path behind one of them
# is read from the skill root, whatever page it is written in.
SKILL_DIR_PREFIXES: tuple[tuple[str, str], ...] = (
    (r"\{baseDir\}/", "{baseDir}: the skill folder, filled in by the client"),
    (r"\$\{?CLAUDE_SKILL_DIR\}?/", "$CLAUDE_SKILL_DIR: Claude Code's name for the skill folder"),
    (r"\$\{?SKILL_DIR\}?/", "$SKILL_DIR: a shell variable set to the skill folder"),
    (r"<(?:path-to-skill|skill-dir|skill_dir|skill-path|skill-root)>/", "a placeholder for it"),
    (r"~/\.claude/skills/{name}/", "where Claude Code installs a personal skill"),
    (r"\.claude/skills/{name}/", "where Claude Code installs a project skill"),
    (r"skills/{name}/", "the skill's folder in a repository of skills"),
)

_TOKEN = re.compile(
    r"(?<![\w./\\:$~%=?&-])"  # not inside another syntax: %ASSETS/x%, src=a/b, ?f=a/b
    r"((?:\{\w+\}/|\$\{?\w+\}?/|<[\w-]+>/|~/)?(?:[\w.*@+-]+/)*[\w.*@+-]*[\w*/])"
)
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
_TRAILING_LINE = re.compile(r":\d+(?::\d+)?$")
_BOLD = re.compile(r"^\*\*+(?!/)|(?<!/)\*\*+$")  # emphasis around a word, not a pattern


# SKILL_DIR_PREFIXES as one pattern, the skill's name as a group to compare: the alternatives
# are tried in order, and those with a name start differently from all the others, so the one
# that matches is the one the table's order would pick.
_PREFIXES = re.compile(
    "|".join(
        f"(?:{p.replace('{name}', f'(?P<name{i}>[^/]+)')})"
        for i, (p, _) in enumerate(SKILL_DIR_PREFIXES)
    )
)


def strip_prefix(path: str, skill_name: str) -> tuple[str, str] | None:
    """(prefix as written, the rest) when ``path`` starts with a placeholder for the skill's
    own folder; None otherwise."""
    m = _PREFIXES.match(path)
    if m is None or any(v not in (None, skill_name) for v in m.groupdict().values()):
        return None
    return m.group(0), path[m.end() :]


def scan_mentions(lines: list[str], first: int) -> list[tuple[str, int, int]]:
    """Every word of ``lines[first:]`` that may name a file: a path (it has a '/') or a file
    name (it ends in an extension), as (text, line, column), 1-based. Whether it names a file of
    the skill is decided at check time."""
    out: list[tuple[str, int, int]] = []
    for i in range(first, len(lines)):
        line = lines[i]
        if "/" not in line and "." not in line:
            continue
        for m in _TOKEN.finditer(line):
            raw = m.group(1)
            text = _TRAILING_LINE.sub("", _BOLD.sub("", raw).rstrip("."))
            pathlike = "/" in text or _EXTENSION.search(text)
            if pathlike and text.strip("./*") and "//" not in text:
                lead = len(raw) - len(raw.lstrip("*")) if raw.startswith("**") else 0
                out.append((text, i + 1, m.start(1) + lead + 1))
    return out


# -- paths presented as examples ---------------------------------------------------------------

# a word that introduces examples; "like" only right before the path
_LEAD = re.compile(
    r"(?i)(?:\be\.\s?g\.|\bfor example\b|\bfor instance\b|\bsuch as\b|\bexamples?\b\W{0,3}:)"
)
_LIKE = re.compile(r"(?i)\blike\s+[`'\"]?")
# a line that says the file it names is not written yet
_ANNOUNCED = re.compile(r"(?i)\((?:coming soon|planned|forthcoming|not yet written|tbd|to ?do)\)")
# a line that labels what follows as a good or bad example: "✓ Good: ...", "- Bad: ..."
_VERDICT = re.compile(
    r"(?i)^\W{0,4}(?:[✓✗✔✘✅❌]\s*)?(?:(?:good|bad|correct|incorrect|wrong|right)\b\W{0,3}:"
    r"|[✓✗✔✘✅❌])"
)
_SENTENCE_END = re.compile(r"[.!?]\s+(?=[A-Z])")
_INTRO_START = re.compile(r"(?i)^\W*(?:examples?\b|for example\b|for instance\b|e\.\s?g\.)")
_INTRO_END = re.compile(
    r"(?i)(?:examples?|for example|for instance|e\.\s?g\.|such as|like)\W*:\s*$"
)
_EXAMPLE_HEADING = re.compile(r"(?i)^\W*(?:\d+[.)]?\s*)?examples?\b")
_TREE_ROOT = re.compile(r"^\s*[\w.{}<>-]+/\s*(?:#.*)?$")
_TREE_BRANCH = re.compile(r"(?:├──|└──|\|--|`--)")
WHOLE_LINE = 10**9  # an end column past any line


def inline_examples(line: str) -> list[tuple[int, int]]:
    """Column ranges (1-based, end exclusive) of ``line`` that follow a word introducing
    examples ("e.g.", "for example", "for instance", "such as", "Example:"), up to the end of
    the sentence; the word right after "like"; and a line labelled as a good or bad example
    ("✓ Good: ...", "Bad: ..."); and a line that marks what it names as not written yet
    ("(coming soon)", "(planned)")."""
    out: list[tuple[int, int]] = []
    for m in _LEAD.finditer(line):
        end = _SENTENCE_END.search(line, m.end())
        out.append((m.end() + 1, (end.start() if end else len(line)) + 1))
    verdict = _VERDICT.match(line)
    if verdict:
        out.append((verdict.end() + 1, len(line) + 1))
    if _ANNOUNCED.search(line):  # "`references/x.md` (coming soon)": the author knows
        out.append((1, len(line) + 1))
    for m in _LIKE.finditer(line):
        word = re.match(r"\S+", line[m.end() :])
        if word:
            out.append((m.end() + 1, m.end() + len(word.group(0)) + 1))
    return out


def _intro_text(tokens: list[Any], i: int) -> tuple[str, str] | None:
    """(kind, text) of the block just before token ``i``: a paragraph or a heading."""
    if i < 2 or tokens[i - 1].type not in ("paragraph_close", "heading_close"):
        return None
    kind = "heading" if tokens[i - 1].type == "heading_close" else "paragraph"
    return kind, str(tokens[i - 2].content)


def example_regions(tokens: list[Any], lines: list[str]) -> list[tuple[int, int, int]]:
    """(line, first column, end column) of the text that presents paths as examples:

    - after a word that introduces examples, to the end of its sentence (:func:`inline_examples`),
      in text outside code blocks;
    - a list whose introducing paragraph starts with "Example", "Examples", "For example",
      "For instance" or "e.g.", or ends with one of these or "such as" or "like" and a colon,
      or whose heading starts with "Example" or "Examples": every line of the list;
    - a text block drawn as a folder tree (its first line a folder name ending in '/', and
      branches drawn with '├──' or '└──'), which illustrates a layout: every line of it.
    """
    out: list[tuple[int, int, int]] = []
    in_code: set[int] = set()
    for i, tok in enumerate(tokens):
        if tok.type in ("fence", "code_block") and tok.map:
            in_code.update(range(tok.map[0], tok.map[1]))
            body = tok.content.split("\n")
            first = next((s for s in body if s.strip()), "")
            info = tok.info.strip().split(" ", 1)[0].lower() if tok.type == "fence" else ""
            if (
                info in ("text", "txt", "plain", "plaintext", "")
                and _TREE_ROOT.match(first)
                and _TREE_BRANCH.search(tok.content)
            ):
                out += [(n + 1, 1, WHOLE_LINE) for n in range(tok.map[0], tok.map[1])]
        elif tok.type in ("bullet_list_open", "ordered_list_open") and tok.map:
            intro = _intro_text(tokens, i)
            if intro is None:
                continue
            kind, text = intro
            hit = (
                _EXAMPLE_HEADING.match(text)
                if kind == "heading"
                else (_INTRO_START.match(text) or _INTRO_END.search(text))
            )
            if hit:
                out += [(n + 1, 1, WHOLE_LINE) for n in range(tok.map[0], tok.map[1])]
    for n, line in enumerate(lines):
        if n not in in_code:
            out += [(n + 1, a, b) for a, b in inline_examples(line)]
    return sorted(set(out))


_FILL_IN = re.compile(r"\{\{\s*[A-Za-z_][\w.-]*\s*\}\}|\[TODO\b")


def has_fill_in(text: str) -> bool:
    """Whether a page holds fill-in fields: ``{{placeholder}}`` or ``[TODO``."""
    return bool(_FILL_IN.search(text))
