"""The command line of the manifest generator: ``python -m tools.manifests``.

``python -m tools.manifests ENGINE VERSION`` writes a manifest; the subcommands
``history``, ``index`` and ``release-check`` (first word) build the flag index and
check a new release against the pack (:mod:`.commands`, :mod:`.release_check`).

Exit codes: 0 the manifest was written (or printed), 1 the source could not be
read or lacks what the generator expects, 2 bad arguments (argparse).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from skillcheck import clock
from skillcheck.engines import dumps
from tools.manifests.build import ENGINES, MANIFEST_DIR, build, manifest_filename
from tools.manifests.commands import history_main, index_main
from tools.manifests.coverage import coverage_main
from tools.manifests.errors import READ_ERRORS
from tools.manifests.release_check import release_check_main

SUBCOMMANDS = {
    "history": history_main,
    "index": index_main,
    "release-check": release_check_main,
    "coverage": coverage_main,
}


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in SUBCOMMANDS:
        return SUBCOMMANDS[args_list[0]](args_list[1:])
    return manifest_main(args_list)


def manifest_main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tools.manifests",
        description="Generate an engine-flag manifest from a released engine source.",
    )
    ap.add_argument("engine", choices=ENGINES)
    ap.add_argument("version", help="release to pin (llama.cpp: the llama-cpp-python release)")
    ap.add_argument(
        "--source",
        type=Path,
        default=None,
        help="unpacked source tree, wheel or sdist (default: pip download)",
    )
    ap.add_argument(
        "--output",
        type=Path,
        default=MANIFEST_DIR,
        help="directory for the manifest (default: the package's manifests/)",
    )
    ap.add_argument("--date", default=None, help="ISO date recorded as `generated`")
    ap.add_argument(
        "--origin", default=None, help="description of the source recorded in the provenance"
    )
    ap.add_argument(
        "--build",
        default=None,
        dest="build_tag",
        help="llama.cpp only: the build tag (bNNNN) of the vendored commit",
    )
    ap.add_argument("--stdout", action="store_true", help="print the manifest instead")
    args = ap.parse_args(argv)
    generated = args.date or clock.today().isoformat()
    try:
        manifest = build(
            args.engine,
            args.version,
            args.source,
            generated,
            origin=args.origin,
            build_tag=args.build_tag,
        )
    except READ_ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    text = dumps(manifest)
    if args.stdout:
        sys.stdout.write(text)
        return 0
    args.output.mkdir(parents=True, exist_ok=True)
    target = args.output / manifest_filename(manifest)
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target} ({len(manifest.options)} options)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
