"""Command line: parses options into a Config, runs the engine, reports, maps to an exit code.

Exit codes: 0 clean or warnings only, 1 errors (or warnings with --strict), 2 usage or
configuration error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from skillcheck import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _codes(values: tuple[str, ...]) -> list[str] | None:
    out = [c.strip().upper() for v in values for c in v.split(",") if c.strip()]
    return out or None


def _fail_usage(message: str) -> None:
    click.echo(f"skillcheck: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def load_config(paths: tuple[str, ...], overrides: dict[str, Any]) -> tuple[Any, Path]:
    from skillcheck.config import ConfigError, load

    start = Path(paths[0]) if paths else Path.cwd()
    try:
        cfg, pyproject = load(start, overrides)
    except ConfigError as exc:
        _fail_usage(str(exc))
        raise AssertionError from exc  # unreachable
    base = pyproject.parent.resolve() if pyproject is not None else Path.cwd()
    return cfg, base


FORMATS = ("text", "json", "github", "sarif")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="skillcheck")
def main() -> None:
    """Validate Agent Skills folders."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, file_okay=True, dir_okay=True))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Output format.")
@click.option("--select", multiple=True, help="Only these codes or prefixes (e.g. SC2,SC101).")
@click.option("--ignore", multiple=True, help="Skip these codes or prefixes.")
@click.option("--strict/--no-strict", default=None, help="Warnings fail the run too.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the parse cache.")
@click.option("--jobs", type=click.IntRange(min=0), default=None,
              help="Worker processes for parsing (0 = one per core).")
def check(paths: tuple[str, ...], fmt: str, select: tuple[str, ...], ignore: tuple[str, ...],
          strict: bool | None, no_cache: bool, jobs: int | None) -> None:
    """Check every skill under PATH (default: the current folder), offline."""
    from skillcheck.engine import run
    from skillcheck.reporters import REPORTERS

    overrides: dict[str, Any] = {"select": _codes(select), "ignore": _codes(ignore),
                                 "strict": strict, "jobs": jobs,
                                 "cache": False if no_cache else None}
    cfg, base = load_config(paths, overrides)
    targets = [Path(p) for p in paths] or [Path.cwd()]
    result = run(targets, cfg, Path.cwd(), exclude_base=base)
    REPORTERS[fmt](result, sys.stdout, sys.stderr)
    failed = result.errors > 0 or (cfg.strict and result.warnings > 0)
    sys.exit(EXIT_FINDINGS if failed else EXIT_OK)


@main.command("rules")
@click.option("--format", "-f", "fmt", type=click.Choice(("text", "json", "markdown")),
              default="text", show_default=True)
def rules_cmd(fmt: str) -> None:
    """List every rule with its code, default severity and summary."""
    import json

    from skillcheck.registry import RULES, load_builtin_rules

    load_builtin_rules()
    rows = [RULES[c] for c in sorted(RULES)]
    if fmt == "json":
        click.echo(json.dumps([{"code": r.code, "name": r.name, "severity": r.severity.value,
                                "summary": r.summary} for r in rows], indent=2))
    elif fmt == "markdown":
        click.echo("| Code | Name | Severity | What it reports |")
        click.echo("| --- | --- | --- | --- |")
        for r in rows:
            click.echo(f"| {r.code} | {r.name} | {r.severity.value} | {r.summary} |")
    else:
        for r in rows:
            click.echo(f"{r.code}  {r.severity.value:<7}  {r.name:<28} {r.summary}")
