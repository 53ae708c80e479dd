"""SC6xx: fenced code blocks that work.

``python`` compiles; ``json``, ``yaml``, ``toml`` parse; ``bash``/``sh``/``shell`` pass
``bash -n`` (where bash exists). A block that is deliberately partial opts out with an
info-string attribute that says why: ```` ```python skip="continues the block above" ````.

By default (``snippets = "lenient"``) a block that fails is read again the way its readers read
it (:mod:`skillcheck.rules.snippets`): ``...`` for what is left out, JSON comments, placeholders,
prompts, fragments. ``snippets = "strict"``, and any block that names a file (``title=`` or
``file=``, the blocks that ``skillcheck extract`` writes and the template tests run), get the
plain parsers only.
Engine commands and engine config blocks are checked by :mod:`skillcheck.rules.engineflags`.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator

from skillcheck.context import Context
from skillcheck.diagnostics import Diagnostic
from skillcheck.document import Fence
from skillcheck.extract import NAME_ATTRS
from skillcheck.registry import checker, declare
from skillcheck.rules import snippets

SHELLS = {"bash", "sh", "shell"}
SKIP_ATTR = "skip"

# Errors in both modes: once the conventions of documentation are allowed, what fails is what
# an agent that copies the block into a file, a request or a terminal trips on (README.md).
declare(
    "SC601", "python-syntax", "error", "A python block does not compile, even read as a snippet."
)
declare("SC602", "json-syntax", "error", "A json block does not parse, even read as a snippet.")
declare("SC603", "yaml-syntax", "error", "A yaml block does not parse, even read as a snippet.")
declare("SC604", "toml-syntax", "error", "A toml block does not parse, even read as a snippet.")
declare(
    "SC605",
    "shell-syntax",
    "error",
    "A bash/sh/shell block fails 'bash -n', even read as a snippet.",
)
declare(
    "SC607",
    "snippet-syntax",
    "warning",
    "A python, json, yaml or toml snippet still does not parse once the conventions of documentation are allowed.",
)
declare(
    "SC606",
    "skip-without-reason",
    "error",
    'A block opts out of checks without saying why (skip="...").',
)


def skipped(fence: Fence) -> bool:
    return SKIP_ATTR in fence.attrs


def _python(fence: Fence) -> tuple[int, int, str] | None:
    import ast

    try:  # top-level await is accepted: examples are often written for an async REPL
        compile(
            fence.content,
            "<block>",
            "exec",
            dont_inherit=True,
            flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
        )
    except SyntaxError as exc:
        return exc.lineno or 1, exc.offset or 1, exc.msg
    except (ValueError, RecursionError, MemoryError) as exc:
        return 1, 1, str(exc)
    return None


def _json(fence: Fence) -> tuple[int, int, str] | None:
    """A JSON document; also accepted: JSON Lines (one document per line, as in event
    streams) and a run of object members shown on their own (``"key": value, ...``)."""
    try:
        json.loads(fence.content)
        return None
    except json.JSONDecodeError as exc:
        first = (exc.lineno, exc.colno, exc.msg)
    except RecursionError:
        return 1, 1, "nesting too deep"
    lines = [ln for ln in fence.content.splitlines() if ln.strip()]
    try:
        if len(lines) > 1:
            for ln in lines:
                json.loads(ln)
            return None
    except (json.JSONDecodeError, RecursionError):
        pass
    if fence.content.lstrip().startswith('"'):
        try:
            json.loads("{" + fence.content.strip().rstrip(",") + "}")
            return None
        except (json.JSONDecodeError, RecursionError):
            pass
    return first


def _yaml(fence: Fence) -> tuple[int, int, str] | None:
    from skillcheck.safeyaml import load_yaml_stream

    for _code, msg, line0, col0 in load_yaml_stream(fence.content)[1]:
        return line0 + 1, col0 + 1, msg
    return None


def _toml(fence: Fence) -> tuple[int, int, str] | None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        tomllib.loads(fence.content)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        # "Invalid value (at line 1, column 5)"
        m = re.search(r"\(at line (\d+), column (\d+)\)$", msg)
        return (int(m.group(1)), int(m.group(2)), msg) if m else (1, 1, msg)
    return None


def lenient(ctx: Context, fence: Fence) -> bool:
    """Whether a block is read as a snippet: not in strict mode, not a block that names the
    file it is written to (those are run as they are), and not an engine config file
    (``engine="vllm"``: the engine loads it as written)."""
    if ctx.config.snippets == "strict":
        return False
    if fence.attrs.get("engine", "").strip():
        return False
    return not any(fence.attrs.get(a, "").strip() for a in NAME_ATTRS)


def _judge(
    fence: Fence, fn: Callable[[Fence], tuple[int, int, str] | None], as_snippet: bool
) -> tuple[int, int, str] | None:
    """The plain parser's verdict; for a snippet that fails it, the verdict of the reading that
    allows the conventions of documentation."""
    result = fn(fence)
    if result is None or not as_snippet:
        return result
    return LENIENT[fence.lang](fence.content)


def _memoised(
    ctx: Context, fence: Fence, fn: Callable[[Fence], tuple[int, int, str] | None]
) -> tuple[int, int, str] | None:
    from skillcheck import resultmemo as memo_mod

    as_snippet = lenient(ctx, fence)
    memo = memo_mod.for_config(ctx.config)
    if memo is None:
        return _judge(fence, fn, as_snippet)
    mode = "\0snippet\0" if as_snippet else ""  # a strict verdict keeps its old key
    k = memo_mod.key("block-" + fence.lang, mode + fence.content)
    hit = memo.get(k)
    if hit is not None:
        return None if hit == "ok" else (int(hit[0]), int(hit[1]), str(hit[2]))
    result = _judge(fence, fn, as_snippet)
    memo.put(k, "ok" if result is None else list(result))
    return result


CHECKS = {
    "python": ("SC601", _python),
    "py": ("SC601", _python),
    "json": ("SC602", _json),
    "yaml": ("SC603", _yaml),
    "yml": ("SC603", _yaml),
    "toml": ("SC604", _toml),
}
LENIENT: dict[str, Callable[[str], tuple[int, int, str] | None]] = {
    "python": snippets.python,
    "py": snippets.python,
    "json": snippets.json_,
    "yaml": snippets.yaml_,
    "yml": snippets.yaml_,
    "toml": snippets.toml_,
}


def _page_lines(msg: str, fence: Fence) -> str:
    """A Python snippet's message names lines of the page, not of the block ("... on line 12")."""
    return snippets.ON_LINE.sub(lambda m: f"on line {fence.body_line + int(m[1]) - 1}", msg)


def _bash_errors(blocks: list[str]) -> dict[int, tuple[int, str]]:
    """Run ``bash -n`` once over all blocks (each in its own function body); only when that
    fails, once per block to find which. Returns index -> (line in block, message)."""
    bash = shutil.which("bash")
    if bash is None or not blocks:
        return {}

    def run(script: str) -> tuple[bool, str]:
        try:
            proc = subprocess.run(
                [bash, "-n"], input=script, capture_output=True, text=True, timeout=20, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return True, str(exc)  # cannot judge: do not report
        return proc.returncode == 0, proc.stderr

    combined = "".join(f"__skillcheck_{i}() {{\n:\n{c}\n}}\n" for i, c in enumerate(blocks))
    ok, _ = run(combined)
    if ok:
        return {}
    out: dict[int, tuple[int, str]] = {}
    for i, content in enumerate(blocks):
        ok, err = run(content)
        if not ok:
            line, msg = 1, err.strip().splitlines()[0] if err.strip() else "syntax error"
            # "bash: line 3: syntax error near unexpected token `fi'"
            if ": line " in msg:
                try:
                    line = int(msg.split(": line ", 1)[1].split(":", 1)[0])
                    msg = msg.split(": line ", 1)[1].split(":", 1)[1].strip()
                except (ValueError, IndexError):
                    pass
            out[i] = (line, msg)
    return out


def _shell_errors(ctx: Context, fences: list[Fence]) -> dict[int, tuple[int, str]]:
    """``bash -n`` on every block; a snippet that fails is tried again as the reader reads it
    (placeholders, a transcript's commands), so what passes plainly is never re-judged."""
    errors = _bash_errors([f.content for f in fences])
    again = [i for i in sorted(errors) if lenient(ctx, fences[i])]
    if again:
        second = _bash_errors([snippets.shell(fences[i].content) for i in again])
        for k, i in enumerate(again):
            if k in second:
                errors[i] = second[k]
            else:
                del errors[i]
    return errors


@checker("SC6")
def check_blocks(ctx: Context) -> Iterator[Diagnostic]:
    shells: list[tuple[str, Fence]] = []
    for rel, doc in sorted(ctx.docs.items()):
        for fence in doc.fences:
            if SKIP_ATTR in fence.attrs:
                if not fence.attrs[SKIP_ATTR].strip():
                    yield ctx.diag(
                        rel,
                        fence.line,
                        1,
                        "SC606",
                        "block opts out of checks without a reason",
                        'say why: skip="fragment of the block above"',
                    )
                continue
            if fence.lang in SHELLS:
                shells.append((rel, fence))
                continue
            entry = CHECKS.get(fence.lang)
            if entry is None:
                continue
            code, fn = entry
            problem = _memoised(ctx, fence, fn)
            if problem is not None:
                line, col, msg = problem
                if code == "SC601" and lenient(ctx, fence):
                    msg = _page_lines(msg, fence)
                if lenient(ctx, fence):
                    code = "SC607"
                yield ctx.diag(
                    rel,
                    fence.body_line + line - 1,
                    col,
                    code,
                    f"{fence.lang} block does not parse: {msg}",
                    'fix it, or mark a deliberate fragment with skip="why"',
                )
    for i, (line, msg) in sorted(_shell_errors(ctx, [f for _, f in shells]).items()):
        rel, fence = shells[i]
        yield ctx.diag(
            rel,
            fence.body_line + line - 1,
            1,
            "SC605",
            f"{fence.lang} block fails 'bash -n': {msg}",
            'fix it, or mark a deliberate fragment with skip="why"',
        )
