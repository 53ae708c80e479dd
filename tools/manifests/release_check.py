"""``python -m tools.manifests release-check ENGINE VERSION``: what a new release breaks.

Generates the release's manifest (from ``--source`` or PyPI) and its index rows in a
work directory, compares the manifest with the pinned one (or with ``--base``), and
reports, grouped by page, each line of the pack that names an option the release
removed, renamed or deprecated, or that states a default the release changed. The
report is Markdown, written to stdout or ``--output``, ready for an issue body.

Exit codes: 0 no page is affected, 1 at least one page is affected (the report lists
them), 2 bad arguments (argparse), 3 a release could not be read.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from skillcheck.engines import Manifest, Option, dumps, load_manifest
from skillcheck.engines.flagindex import dumps_index, read_curated
from tools.manifests.build import ENGINES, build, manifest_filename
from tools.manifests.errors import READ_ERRORS
from tools.manifests.history import (
    REPO,
    extend_history,
    load_history,
    parse_release,
    successor_in,
    version_key,
)
from tools.manifests.index import build_index, index_path, pinned_release

EXIT_CLEAN, EXIT_AFFECTED, EXIT_UNREADABLE = 0, 1, 3

# The parts of the pack whose text is checked (the flag index itself is generated).
PACK_GLOBS = ("SKILL.md", "references/**/*", "assets/**/*")
_TEXT_SUFFIXES = {".md", ".yaml", ".yml", ".sh", ".json", ".toml", ".txt", ".py", ".env"}
# A page is read for an engine when it names the engine somewhere.
_ENGINE_WORDS = {
    "vllm": r"vllm",
    "sglang": r"sglang",
    "llama.cpp": r"llama[.-]?(cpp|server)",
    "tensorrt-llm": r"tensorrt|trtllm|trt-llm",
}
_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "llama.cpp": "llama.cpp", "tensorrt-llm": "TRT-LLM"}


@dataclass(frozen=True)
class Change:
    """One change of an option between the base and the new release."""

    option: str
    kind: str  # removed | renamed | deprecated | default | choices
    detail: str
    old_default: str | None = None
    values: tuple[str, ...] = ()  # the dropped choices of a "choices" change
    spellings: tuple[str, ...] = ()  # the spellings a page may use for the option


@dataclass(frozen=True)
class Hit:
    page: str
    line: int
    text: str
    change: Change


def _spellings(manifest: Manifest) -> dict[str, Option]:
    found: dict[str, Option] = {}
    for opt in manifest.options:
        for spelling in opt.spellings:
            found.setdefault(spelling, opt)
    return found


def _by_name(manifest: Manifest) -> dict[str, Option]:
    found: dict[str, Option] = {}
    for opt in sorted(manifest.options, key=lambda o: (o.name, o.commands or ())):
        found.setdefault(opt.name, opt)
    return found


def _gone(opt: Option, new: Manifest, new_spell: dict[str, Option], version: str) -> Change:
    """An option the new release no longer registers under its name."""
    if opt.name in new_spell:
        target = new_spell[opt.name].name
        return Change(opt.name, "renamed", f"now an alias of `{target}` in {version}")
    successor = successor_in(opt.deprecated, {s: o.name for s, o in new_spell.items()})
    then = f"; its deprecation named `{successor}`" if successor else ""
    return Change(opt.name, "removed", f"removed in {version}{then}")


def _changed(old: Option, new: Option, version: str, new_spell: dict[str, Option]) -> list[Change]:
    changes: list[Change] = []
    if new.removed and not old.removed:
        changes.append(Change(old.name, "removed", f"rejected (still parsed) in {version}"))
    elif new.deprecated and not old.deprecated:
        successor = successor_in(new.deprecated, {s: o.name for s, o in new_spell.items()})
        then = f" -> `{successor}`" if successor else ""
        changes.append(Change(old.name, "deprecated", f"deprecated{then} in {version}"))
    if old.default != new.default:
        detail = f"default {_shown(old.default)} -> {_shown(new.default)} in {version}"
        changes.append(Change(old.name, "default", detail, old.default))
    if old.choices and new.choices is not None:
        dropped = [c for c in old.choices if c not in new.choices]
        if dropped:
            gone = ", ".join(f"`{c}`" for c in dropped)
            detail = f"choices {gone} dropped in {version}"
            changes.append(Change(old.name, "choices", detail, values=tuple(dropped)))
    return changes


def _shown(default: str | None) -> str:
    return "unset" if default is None else f"`{default}`"


def compare(old: Manifest, new: Manifest, version: str) -> tuple[list[Change], list[str]]:
    """(changes of the base's options, options the new release added), sorted."""
    new_spell = _spellings(new)
    new_names = _by_name(new)
    changes: list[Change] = []
    for name, opt in sorted(_by_name(old).items()):
        if name not in new_names:
            found = [_gone(opt, new, new_spell, version)]
        else:
            found = _changed(opt, new_names[name], version, new_spell)
        for change in found:
            if change.kind in ("default", "choices"):
                spellings = (opt.name, *opt.aliases)  # a negation sets no value
            else:
                spellings = opt.spellings
            changes.append(replace(change, spellings=spellings))
    old_spell = _spellings(old)
    added = sorted(
        f"`{n}` (deprecated)" if new_names[n].deprecated else f"`{n}`"
        for n in new_names
        if n not in old_spell
    )
    return changes, added


def pack_files(root: Path) -> Iterator[Path]:
    seen: set[Path] = set()
    for pattern in PACK_GLOBS:
        for path in sorted(root.glob(pattern)):
            if path.is_file() and path.suffix in _TEXT_SUFFIXES and path not in seen:
                seen.add(path)
                yield path


def _mentions(names: Sequence[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(r"(?<![\w-])(?:" + alternatives + r")(?![\w-])")


def _value(value: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.-])" + re.escape(value) + r"(?![\w.-]|\.\d)")


def find_hits(root: Path, engine: str, changes: Sequence[Change]) -> list[Hit]:
    """Lines of the pack that an option change affects, on pages that name the engine."""
    word = re.compile(_ENGINE_WORDS[engine], re.I)
    patterns = [(c, _mentions(c.spellings or (c.option,))) for c in changes]
    hits: list[Hit] = []
    for path in pack_files(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        if not word.search(text):
            continue
        page = path.relative_to(root).as_posix()
        for number, line in enumerate(text.splitlines(), start=1):
            for change, pattern in patterns:
                if not pattern.search(line):
                    continue
                if change.kind == "default" and not (
                    change.old_default and _value(change.old_default).search(line)
                ):
                    continue
                if change.kind == "choices" and not any(
                    _value(v).search(line) for v in change.values
                ):
                    continue
                hits.append(Hit(page, number, line.strip(), change))
    return hits


def _cell(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _heading(engine: str, old: Manifest, new: Manifest, version: str) -> list[str]:
    name = _NAMES[engine]
    base = pinned_release(old)
    lines = [
        f"# Release check: {name} {base} -> {version}",
        "",
        f"Generated by `python -m tools.manifests release-check {engine} {version}` from "
        f"{new.provenance.get('source', 'the release source')}, compared with "
        f"{old.provenance.get('source', 'the pinned manifest')} ({len(old.options)} -> "
        f"{len(new.options)} options).",
        "",
    ]
    return lines


def report(
    engine: str,
    old: Manifest,
    new: Manifest,
    version: str,
    root: Path,
) -> tuple[str, int]:
    """The Markdown report and the exit code."""
    changes, added = compare(old, new, version)
    hits = find_hits(root, engine, changes)
    lines = _heading(engine, old, new, version)
    by_page: dict[str, list[Hit]] = {}
    for hit in hits:
        by_page.setdefault(hit.page, []).append(hit)
    lines.append(f"## Pages affected ({len(by_page)})")
    lines.append("")
    if not by_page:
        lines += [
            "No page names a removed, renamed or deprecated option, or a changed default.",
            "",
        ]
    for page, page_hits in sorted(by_page.items()):
        lines.append(f"### `{page}`")
        lines.append("")
        for hit in sorted(page_hits, key=lambda h: (h.line, h.change.option, h.change.kind)):
            lines.append(
                f"- [ ] line {hit.line}: `{hit.change.option}` {hit.change.detail}: "
                f"{_cell(hit.text)}"
            )
        lines.append("")
    used = {h.change for h in hits}
    others = [c for c in changes if c not in used]
    lines.append(f"## Other changes ({len(others)}, named on no page)")
    lines.append("")
    lines += [f"- `{c.option}`: {c.detail}" for c in others] or ["None."]
    lines.append("")
    lines.append(f"## Options added ({len(added)})")
    lines.append("")
    lines.append(", ".join(added) if added else "None.")
    lines.append("")
    return "\n".join(lines), EXIT_AFFECTED if by_page else EXIT_CLEAN


def write_work(engine: str, new: Manifest, version: str, workdir: Path) -> Path:
    """The new release's manifest and index rows, written under ``workdir``."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / manifest_filename(new)).write_text(dumps(new), encoding="utf-8")
    history = load_history(engine)
    if history is not None and version not in history.releases:
        if version_key(version) > version_key(history.releases[-1]):
            extend_history(history, version, new)
        else:
            history = None  # an older release than the tracked ones: no history
    elif history is not None and history.releases[-1] != version:
        history = None
    rows, _ = build_index(new, history, read_curated(index_path(engine)))
    target = workdir / index_path(engine).name
    target.write_text(dumps_index(rows), encoding="utf-8")
    return target


def _base(engine: str, base: str | None) -> Manifest:
    if base is None:
        return load_manifest(engine)
    rel = parse_release(base)
    return build(engine, rel.version, rel.path, "")


def release_check_main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tools.manifests release-check",
        description="Report what in the pack a new engine release breaks.",
    )
    ap.add_argument("engine", choices=ENGINES)
    ap.add_argument("version", help="the new release (llama.cpp: the llama-cpp-python release)")
    ap.add_argument("--source", type=Path, help="the release's archive or tree (default: PyPI)")
    ap.add_argument(
        "--base", help="compare with this release (PATH or VERSION=PATH) instead of the pin"
    )
    ap.add_argument("--pack", type=Path, default=REPO, help="the pack's root (default: here)")
    ap.add_argument("--output", type=Path, help="write the report here instead of stdout")
    ap.add_argument("--workdir", type=Path, help="keep the new manifest and index rows here")
    args = ap.parse_args(argv)
    try:
        old = _base(args.engine, args.base)
        new = build(args.engine, args.version, args.source, "")
        text, code = report(args.engine, old, new, args.version, args.pack)
        with tempfile.TemporaryDirectory(prefix="release-check-") as tmp:
            written = write_work(args.engine, new, args.version, args.workdir or Path(tmp))
            rows = written.read_text(encoding="utf-8").count("\n") - 1
    except READ_ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    text += f"\nIndex rows regenerated for {args.version}: {rows}.\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return code
