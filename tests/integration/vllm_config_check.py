"""Run inside the vLLM environment: for each ``vllm serve`` argument list read as JSON from
stdin, do what ``vllm serve`` does before it starts an engine (parse the arguments,
``validate_parsed_serve_args``, build the engine configuration) and write one JSON line
per command to RESULTS: its id, the stage reached (``parse``, ``validate``, ``config`` or
``ok``) and, when it stopped earlier, the error. Nothing is loaded onto a device and no
port is bound.

    <vllm venv>/bin/python vllm_config_check.py RESULTS.jsonl < commands.json

(results go to a file: vLLM itself prints to stdout and stderr).

Input: ``[{"id": "...", "argv": ["MODEL", "--flag", ...]}, ...]``. With ``"namespace": true``
a command is only parsed, and the result carries the parsed arguments (``args``, each as
its ``repr``): two launch forms can then be compared. With ``"resolve": ["scheduler_config.
max_num_seqs", ...]`` the result carries those attributes of the engine configuration
(``resolved``, each as its ``repr``). ``"env": {...}`` sets environment variables for that
command only.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import sys
from typing import Any


def _parser() -> argparse.ArgumentParser:
    from vllm.entrypoints.cli.serve import ServeSubcommand
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    top = FlexibleArgumentParser(prog="vllm")
    subparsers = top.add_subparsers(dest="subparser")
    ServeSubcommand().subparser_init(subparsers)
    return top


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _resolve(config: Any, path: str) -> str:
    value = config
    for part in path.split("."):
        value = getattr(value, part)
    return repr(value)


def check(
    parser: argparse.ArgumentParser,
    argv: list[str],
    namespace: bool = False,
    resolve: tuple[str, ...] = (),
) -> dict[str, Any]:
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.entrypoints.cli.serve import ServeSubcommand
    from vllm.usage.usage_lib import UsageContext

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            args = parser.parse_args(["serve", *argv])
    except SystemExit:
        return {"stage": "parse", "error": _last_line(err.getvalue())}
    except Exception as exc:  # e.g. a --config file that cannot be read
        return {"stage": "parse", "error": f"{type(exc).__name__}: {exc}"}
    if namespace:
        return {"stage": "parsed", "error": "", "args": {k: repr(v) for k, v in vars(args).items()}}
    try:
        ServeSubcommand().validate(args)
    except Exception as exc:  # each command's failure is a result
        return {"stage": "validate", "error": f"{type(exc).__name__}: {exc}"}
    if getattr(args, "model_tag", None) is not None:
        args.model = args.model_tag
    try:
        engine_args = AsyncEngineArgs.from_cli_args(args)
        config = engine_args.create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER)
    except Exception as exc:
        return {"stage": "config", "error": f"{type(exc).__name__}: {exc}"}
    return {"stage": "ok", "error": "", "resolved": {p: _resolve(config, p) for p in resolve}}


def main() -> int:
    logging.disable(logging.WARNING)
    commands = json.load(sys.stdin)
    parser = _parser()
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        for command in commands:
            saved = dict(os.environ)
            os.environ.update(command.get("env", {}))
            try:
                result = check(
                    parser,
                    list(command["argv"]),
                    bool(command.get("namespace")),
                    tuple(command.get("resolve", ())),
                )
            finally:
                os.environ.clear()
                os.environ.update(saved)
            out.write(json.dumps({"id": command["id"], **result}) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
