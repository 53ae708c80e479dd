"""The ``history`` and ``index`` subcommands of ``python -m tools.manifests``.

Exit codes: 0 written (or, with ``--check``, up to date), 1 an error or (``--check``) a
file that differs from what the inputs generate, 2 bad arguments (argparse).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from skillcheck.engines.flagindex import FlagIndexError, dumps_index
from tools.manifests.build import ENGINES
from tools.manifests.errors import READ_ERRORS, GenerateError
from tools.manifests.history import (
    HISTORY_DIR,
    build_history,
    history_to_json,
    parse_release,
    read_releases,
)
from tools.manifests.index import INDEX_DIR, generate_index, index_path

HISTORY_ENGINES = ("vllm", "sglang", "llama.cpp")


def history_main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tools.manifests history",
        description="Read several releases of an engine and write its option history.",
    )
    ap.add_argument("engine", choices=HISTORY_ENGINES)
    ap.add_argument(
        "--releases",
        nargs="+",
        required=True,
        metavar="PATH",
        help="release archives, directories holding one, or VERSION=PATH (a source tree)",
    )
    ap.add_argument("--output", type=Path, default=HISTORY_DIR, help="directory to write to")
    ap.add_argument("--stdout", action="store_true", help="print instead of writing")
    args = ap.parse_args(argv)
    try:
        releases = [parse_release(r) for r in args.releases]
        manifests = read_releases(args.engine, releases)
    except READ_ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    history = build_history(args.engine, manifests)
    versions = " ".join(history.releases)
    command = f"python -m tools.manifests history {args.engine} --releases ... ({versions})"
    text = history_to_json(history, command)
    if args.stdout:
        sys.stdout.write(text)
        return 0
    args.output.mkdir(parents=True, exist_ok=True)
    target = args.output / f"{args.engine}.json"
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target} ({len(history.options)} options, {len(history.releases)} releases)")
    return 0


def index_main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tools.manifests index",
        description="Generate data/engine-flags/<engine>.tsv from the pinned manifest, "
        "the history and the curated columns of the existing file.",
    )
    ap.add_argument("engine", nargs="?", choices=ENGINES)
    ap.add_argument("--all", action="store_true", help="every engine")
    ap.add_argument("--dir", type=Path, default=INDEX_DIR, help="the engine-flags directory")
    ap.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 when a file is out of date"
    )
    ap.add_argument(
        "--prune",
        action="store_true",
        help="drop curated cells of options that no longer have a row (default: refuse)",
    )
    args = ap.parse_args(argv)
    if bool(args.engine) == args.all:
        ap.error("give one ENGINE or --all")
    engines = list(ENGINES) if args.all else [args.engine]
    status = 0
    for engine in engines:
        try:
            rows, orphans = generate_index(engine, args.dir)
            if orphans and not args.prune:
                raise GenerateError(
                    f"{engine}: curated cells for options without a row: {', '.join(orphans)} "
                    "(move them to the new option, or pass --prune)"
                )
            text = dumps_index(rows)
        except (GenerateError, FlagIndexError, OSError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        target = index_path(engine, args.dir)
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if args.check:
            if current != text:
                print(f"{target}: out of date; run python -m tools.manifests index {engine}")
                status = 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target} ({len(rows)} rows)")
    return status
