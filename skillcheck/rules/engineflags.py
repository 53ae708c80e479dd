"""SC61x: engine commands and engine config blocks, checked against the pinned manifests.

A page declares the engine versions it describes on its ``Applies to:`` line
(``Applies to: vLLM 0.33.0, SGLang 0.5.23 ...``); otherwise the ``engine-pins`` setting, and
then the newest committed manifest, apply. A YAML block is an engine config file when its info
string says so: ```` ```yaml engine="vllm" ```` (optionally ``engine="vllm@0.33.0"``).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

from skillcheck.context import Context
from skillcheck.diagnostics import Diagnostic
from skillcheck.registry import checker, declare
from skillcheck.rules.codeblocks import SHELLS, SKIP_ATTR

if TYPE_CHECKING:
    from skillcheck.document import Fence
    from skillcheck.engines import Manifest

# A config key's path -> its (0-based line, 0-based column) in the block.
KeyPositions = dict[tuple[str, ...], tuple[int, int]]

declare(
    "SC610",
    "engine-unknown-option",
    "error",
    "An engine command uses an option the pinned engine version does not have.",
)
declare(
    "SC611", "engine-deprecated-option", "warning", "An engine command uses a deprecated option."
)
declare(
    "SC612",
    "engine-bad-choice",
    "error",
    "An engine option's value is not one of its declared choices.",
)
declare("SC613", "engine-bad-json", "error", "A JSON-valued engine option does not parse.")
declare("SC614", "engine-missing-value", "error", "An engine option that takes a value has none.")
declare(
    "SC615",
    "engine-version-unknown",
    "warning",
    "A page declares an engine version that has no manifest; the nearest one is used.",
)
declare(
    "SC616",
    "engine-unexpected-value",
    "error",
    "An engine option or command is given a value it does not take.",
)
declare(
    "SC617", "engine-bad-quoting", "error", "Shell quoting around an engine command does not close."
)
declare(
    "SC618",
    "engine-config-key",
    "error",
    'A key of an engine config block (yaml engine="...") is not accepted by the engine.',
)

KIND_CODES = {
    "unknown-option": "SC610",
    "deprecated-option": "SC611",
    "bad-choice": "SC612",
    "bad-json": "SC613",
    "missing-value": "SC614",
    "unexpected-value": "SC616",
    "bad-quoting": "SC617",
}


@cache
def _manifest(engine: str, version: str | None) -> Manifest | None:
    from skillcheck.engines import ManifestError, load_manifest

    try:
        return load_manifest(engine, version)
    except (ManifestError, OSError, ValueError, KeyError):
        return None


def _resolve(
    ctx: Context,
    rel: str,
    engine: str,
    declared: dict[str, str],
    warned: set[tuple[str, str]],
    line: int,
) -> tuple[Manifest | None, list[Diagnostic]]:
    from skillcheck.engines.pins import match_version, versions

    diags: list[Diagnostic] = []
    want = declared.get(engine) or ctx.config.pins().get(engine)
    version = None
    if want:
        version = match_version(engine, want)
        if version is None and (engine, want) not in warned:
            warned.add((engine, want))
            have = ", ".join(versions(engine)) or "none"
            diags.append(
                ctx.diag(
                    rel,
                    line,
                    1,
                    "SC615",
                    f"no {engine} manifest for version {want}; checked against the "
                    f"newest committed one ({have})",
                    "generate one in the skillcheck repository: python -m tools.manifests "
                    f"{engine} {want}",
                )
            )
    return _manifest(engine, version), diags


@cache
def _manifests_fingerprint() -> str:
    """Changes whenever a committed manifest changes, so memoised results follow them."""
    import os

    import skillcheck.engines as engines_pkg

    folder = os.path.join(os.path.dirname(engines_pkg.__file__), "manifests")
    try:
        names = sorted(os.listdir(folder))
        return ";".join(
            f"{n}:{os.stat(os.path.join(folder, n)).st_size}:"
            f"{os.stat(os.path.join(folder, n)).st_mtime_ns}"
            for n in names
        )
    except OSError:
        return "unknown"


def _is_relevant(fence: Fence) -> bool:
    """A shell block that names an engine command, or a block with an engine attribute."""
    if SKIP_ATTR in fence.attrs:
        return False
    if fence.lang in SHELLS and any(
        k in fence.content for k in ("vllm", "sglang", "llama-server", "trtllm-serve")
    ):
        return True
    return "engine" in fence.attrs


@checker("SC61")
def check_engine_flags(ctx: Context) -> Iterator[Diagnostic]:
    for rel, doc in sorted(ctx.docs.items()):
        relevant = [f for f in doc.fences if _is_relevant(f)]
        if not relevant:
            continue
        declared = dict(doc.applies_to)  # read by the parser (document.applies_to)
        warned: set[tuple[str, str]] = set()
        for fence in relevant:
            if fence.lang in SHELLS:
                yield from _check_shell_block(ctx, rel, fence, declared, warned)
            else:
                yield from _check_config_block(ctx, rel, fence, declared, warned)


def _check_shell_block(
    ctx: Context, rel: str, fence: Fence, declared: dict[str, str], warned: set[tuple[str, str]]
) -> Iterator[Diagnostic]:
    """The engine commands of a shell block, memoised by the block's text and the pins."""
    from skillcheck import resultmemo as memo_mod
    from skillcheck.engines.invocations import find_invocations
    from skillcheck.engines.options import check_invocation

    memo = memo_mod.for_config(ctx.config)
    mkey = memo_mod.key(
        "engine-shell",
        "\0".join(
            [
                fence.content,
                repr(sorted(declared.items())),
                repr(ctx.config.engine_pins),
                _manifests_fingerprint(),
            ]
        ),
    )
    cached = memo.get(mkey) if memo is not None else None
    if isinstance(cached, list):
        for line, col, code, msg, hint in cached:
            yield ctx.diag(rel, fence.body_line + line - 1, col, code, msg, hint)
        return
    found: list[tuple[int, int, str, str, str]] = []
    for inv in find_invocations(fence.content):
        manifest, extra = _resolve(ctx, rel, inv.engine, declared, warned, fence.line)
        yield from extra
        if manifest is None:
            continue
        for p in (*inv.problems, *check_invocation(inv, manifest)):
            found.append(
                (
                    max(p.line, 1),
                    max(p.column, 1),
                    KIND_CODES.get(p.kind, "SC610"),
                    p.message,
                    p.hint,
                )
            )
    # A page that declared a version without a manifest is not memoised (its SC615
    # warning is emitted while resolving, once per page).
    if memo is not None and not warned:
        memo.put(mkey, found)
    for line, col, code, msg, hint in found:
        yield ctx.diag(rel, fence.body_line + line - 1, col, code, msg, hint)


def _check_config_block(
    ctx: Context, rel: str, fence: Fence, declared: dict[str, str], warned: set[tuple[str, str]]
) -> Iterator[Diagnostic]:
    """An engine config block (```` ```yaml engine="vllm" ````): its keys, each reported
    where the key is written (the block's opening line when the finding names no key)."""
    from skillcheck.document import ENGINE_NAMES
    from skillcheck.engines.config_keys import check_config_keys
    from skillcheck.safeyaml import load_yaml_stream

    spec = fence.attrs.get("engine", "")
    name, _, version = spec.partition("@")
    engine = ENGINE_NAMES.get(name.strip().lower())
    if engine is None:
        yield ctx.diag(
            rel,
            fence.line,
            1,
            "SC618",
            f"unknown engine {name!r} in the block's engine attribute",
            "use one of: vllm, sglang, tensorrt-llm, llama.cpp",
        )
        return
    decl = dict(declared)
    if version:
        decl[engine] = version
    manifest, extra = _resolve(ctx, rel, engine, decl, warned, fence.line)
    yield from extra
    if manifest is None:
        return
    values, problems = load_yaml_stream(fence.content)
    if problems:
        return  # SC603 reports it
    keys_at = _key_positions(fence.content)
    for n, value in enumerate(values):
        if value is None:
            continue
        positions = keys_at[n] if n < len(keys_at) else {}
        for p in check_config_keys(value, manifest):
            code = "SC611" if p.kind == "deprecated-option" else "SC618"
            line, col = fence.line, 1
            at = positions.get(p.key)
            if at is not None:
                line, col = fence.body_line + at[0], at[1] + 1
            yield ctx.diag(rel, line, col, code, p.message, p.hint)


def _key_positions(text: str) -> list[KeyPositions]:
    """For each document of a YAML stream (as ``load_yaml_stream`` returns them), where each
    mapping key is written; the first occurrence of a path wins."""
    import yaml

    out: list[KeyPositions] = []
    try:
        for node in yaml.compose_all(text, Loader=yaml.SafeLoader):
            if node is None:
                continue
            positions: KeyPositions = {}
            _walk_keys(node, (), positions)
            out.append(positions)
    except yaml.YAMLError:  # pragma: no cover - the stream was loaded already
        pass
    return out


def _walk_keys(node: object, path: tuple[str, ...], positions: KeyPositions) -> None:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode):
            at = (*path, str(key.value))
            positions.setdefault(at, (key.start_mark.line, key.start_mark.column))
            _walk_keys(value, at, positions)
