"""Bounded, safe YAML loading for front-matter and YAML code blocks.

YAML 1.2 booleans, duplicate keys reported, alias expansion bounded (billion laughs), size
capped; problems are returned, never raised. Used by the parser (a page's front-matter is
loaded once, when the page is parsed) and by the rules that read YAML blocks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml

MAX_FRONTMATTER_CHARS = 65_536
MAX_EXPANDED_NODES = 10_000


class _Loader(yaml.SafeLoader):
    """Safe loader; duplicate keys and alias expansion are checked on the node graph.

    Booleans follow YAML 1.2 (only true/false), as the JavaScript clients read them: under
    YAML 1.1 rules ``name: no`` would become ``False``."""


_Loader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
MAX_EXPANDED_CHARS = 1_000_000


def _expanded_size(node: yaml.Node, memo: dict[int, int], depth: int = 0) -> int:
    """Nodes after alias expansion, with long scalars weighted by their length (one node per
    100 characters), so that a few aliases of a long string also count as a bomb."""
    key = id(node)
    if key in memo:
        return memo[key]
    if depth > 200:
        return MAX_EXPANDED_NODES + 1
    memo[key] = 1  # guards against recursive structures
    total = 1
    if isinstance(node, yaml.ScalarNode):
        total += len(str(node.value)) * MAX_EXPANDED_NODES // MAX_EXPANDED_CHARS
    if isinstance(node, yaml.SequenceNode):
        for child in node.value:
            total += _expanded_size(child, memo, depth + 1)
            if total > MAX_EXPANDED_NODES:
                break
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            total += _expanded_size(k, memo, depth + 1) + _expanded_size(v, memo, depth + 1)
            if total > MAX_EXPANDED_NODES:
                break
    memo[key] = total
    return total


def _duplicates(
    node: yaml.Node, seen_nodes: set[int] | None = None
) -> Iterator[tuple[str, yaml.Mark]]:
    seen_nodes = set() if seen_nodes is None else seen_nodes
    if id(node) in seen_nodes:
        return
    seen_nodes.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode):
                if k.value in seen:
                    yield k.value, k.start_mark
                seen.add(k.value)
            yield from _duplicates(v, seen_nodes)
    elif isinstance(node, yaml.SequenceNode):
        for child in node.value:
            yield from _duplicates(child, seen_nodes)


def error_at(exc: yaml.YAMLError) -> tuple[str, int, int]:
    """The message and 0-based line and column of a YAML error, at its cause: PyYAML's
    problem mark, or the context mark when an opener (a bracket, a brace, a quote) is never
    closed and the problem surfaces on a later line or at the end."""
    problem = getattr(exc, "problem", None)
    msg = str(problem or exc).strip()
    mark = getattr(exc, "problem_mark", None)
    context = getattr(exc, "context", None) or ""
    opener = getattr(exc, "context_mark", None)
    if (
        opener is not None
        and context.startswith(("while parsing a flow", "while scanning a quoted"))
        and (
            mark is None
            or mark.line > opener.line
            or "end of stream" in msg
            or "<stream end>" in msg
        )
    ):
        what = context.split(" a ", 1)[-1]
        return f"the {what} that starts here is not closed ({msg})", opener.line, opener.column
    if mark is None:
        return msg, 0, 0
    return msg, mark.line, mark.column


def load_frontmatter(
    raw: str,
) -> tuple[Any, yaml.Node | None, list[tuple[str, str, int, int]]]:
    """Return (value, root node, problems) where problems are (code, message, 0-based line,
    0-based column); a syntax error sits where PyYAML places its cause (:func:`error_at`)."""
    problems: list[tuple[str, str, int, int]] = []
    if len(raw) > MAX_FRONTMATTER_CHARS:
        return (
            None,
            None,
            [
                (
                    "SC104",
                    f"front-matter is {len(raw):,} characters, over the "
                    f"{MAX_FRONTMATTER_CHARS:,} cap",
                    0,
                    0,
                )
            ],
        )
    loader = _Loader(_frontmatter_text(raw))
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None, problems
        for key, at in _duplicates(node):
            problems.append(("SC105", f"duplicate key '{key}'", at.line, 0))
        if _expanded_size(node, {}) > MAX_EXPANDED_NODES:
            problems.append(
                (
                    "SC106",
                    f"aliases expand to more than {MAX_EXPANDED_NODES:,} nodes",
                    node.start_mark.line,
                    0,
                )
            )
            return None, node, problems
        value = loader.construct_document(node)
    except yaml.YAMLError as exc:
        msg, line, column = error_at(exc)
        problems.append(("SC104", f"invalid YAML: {msg}", line, column))
        return None, None, problems
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        problems.append(("SC104", f"invalid YAML: {exc}", 0, 0))
        return None, None, problems
    finally:
        loader.dispose()
    return value, node, problems


def _frontmatter_text(raw: str) -> str:
    # PyYAML refuses a tab after a plain scalar (yaml/pyyaml#306); trailing blanks carry no
    # meaning in front-matter, so they are dropped (line numbers are kept).
    return "\n".join(line.rstrip(" \t") for line in raw.split("\n"))


def load_yaml_stream(text: str) -> tuple[list[Any], list[tuple[str, str, int, int]]]:
    """Every document of a YAML stream, with the front-matter's bounds (duplicate keys and
    alias bombs are problems too). Returns (values, problems); a problem is (code, message,
    0-based line, 0-based column)."""
    values: list[Any] = []
    problems: list[tuple[str, str, int, int]] = []
    if len(text) > 4 * MAX_FRONTMATTER_CHARS:
        return values, [("SC104", "YAML block too large to check", 0, 0)]
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            for key, at in _duplicates(node):
                problems.append(("SC105", f"duplicate key '{key}'", at.line, at.column))
            if _expanded_size(node, {}) > MAX_EXPANDED_NODES:
                problems.append(
                    (
                        "SC106",
                        "aliases expand past the bound",
                        node.start_mark.line,
                        node.start_mark.column,
                    )
                )
                break
            values.append(loader.construct_document(node))
    except yaml.YAMLError as exc:
        msg, line, column = error_at(exc)
        problems.append(("SC104", f"invalid YAML: {msg}", line, column))
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        problems.append(("SC104", f"invalid YAML: {exc}", 0, 0))
    finally:
        loader.dispose()
    return values, problems


def kind(value: Any) -> str:
    """What a loaded YAML value is, with its article, in YAML's words: 'an integer',
    'a list', 'a mapping'."""
    import datetime as dt

    if value is None:
        return "null"
    for types, words in (
        (bool, "a boolean"),
        (int, "an integer"),
        (float, "a number"),
        (str, "a string"),
        (dict, "a mapping"),
        (list, "a list"),
        (dt.datetime, "a timestamp"),
        (dt.date, "a date"),
        (bytes, "binary data"),
        (set, "a set"),
    ):
        if isinstance(value, types):
            return words
    return f"a {type(value).__name__}"


def key_lines(node: yaml.Node | None) -> dict[str, int]:
    out: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for k, _v in node.value:
            if isinstance(k, yaml.ScalarNode):
                out.setdefault(str(k.value), k.start_mark.line)
    return out
