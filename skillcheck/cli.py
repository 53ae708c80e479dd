"""Command line: parses options into a Config, runs the checks, reports, maps to an exit code.

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
    out = [c.strip() for v in values for c in v.split(",") if c.strip()]
    return out or None


def _fail_usage(message: str) -> None:
    click.echo(f"skillcheck: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _config_or_exit(paths: tuple[str, ...], overrides: dict[str, Any]) -> tuple[Any, Path]:
    from skillcheck.config import ConfigError, load_config

    start = Path(paths[0]) if paths else Path.cwd()
    try:
        cfg, pyproject = load_config(start, overrides)
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
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--select",
    multiple=True,
    help="Only these codes, prefixes or names (e.g. SC2,SC101,broken-link).",
)
@click.option("--ignore", multiple=True, help="Skip these codes, prefixes or names.")
@click.option("--strict/--no-strict", default=None, help="Warnings fail the run too.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the parse cache.")
@click.option(
    "--jobs",
    type=click.IntRange(min=0),
    default=None,
    help="Worker processes for parsing (0 = one per core).",
)
def check(
    paths: tuple[str, ...],
    fmt: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    strict: bool | None,
    no_cache: bool,
    jobs: int | None,
) -> None:
    """Check every skill under PATH (default: the current folder), offline."""
    from skillcheck.reporters import REPORTERS
    from skillcheck.runner import run

    overrides: dict[str, Any] = {
        "select": _codes(select),
        "ignore": _codes(ignore),
        "strict": strict,
        "jobs": jobs,
        "cache": False if no_cache else None,
    }
    cfg, base = _config_or_exit(paths, overrides)
    targets = [Path(p) for p in paths] or [Path.cwd()]
    result = run(targets, cfg, Path.cwd(), exclude_base=base)
    REPORTERS[fmt](result, sys.stdout, sys.stderr)
    failed = result.errors > 0 or (cfg.strict and result.warnings > 0)
    sys.exit(EXIT_FINDINGS if failed else EXIT_OK)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, file_okay=True, dir_okay=True))
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(("text", "json", "github")),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds per URL attempt: connect, read and the whole attempt. [default: 10]",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=None,
    help="Retries after a timeout, connection error, 429 or 5xx. [default: 2]",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=None,
    help="Requests in flight at most. [default: 32]",
)
@click.option(
    "--per-host",
    type=click.IntRange(min=1),
    default=None,
    help="Requests in flight per host at most. [default: 4]",
)
@click.option(
    "--allow-private",
    is_flag=True,
    default=False,
    help="Also fetch loopback, private and link-local addresses.",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option(
    "--check-fragments",
    is_flag=True,
    default=False,
    help="Check that an HTML page has the link's #fragment as an id or name.",
)
@click.option("--strict/--no-strict", default=None, help="Warnings fail the run too.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary table.")
def probe(
    paths: tuple[str, ...],
    fmt: str,
    timeout: float | None,
    retries: int | None,
    concurrency: int | None,
    per_host: int | None,
    allow_private: bool,
    no_cache: bool,
    check_fragments: bool,
    strict: bool | None,
    quiet: bool,
) -> None:
    """Check every external URL of the skills under PATH (network access)."""
    from collections.abc import Callable, Iterator
    from contextlib import contextmanager

    from skillcheck.probe.report import write
    from skillcheck.probe.runner import run

    overrides: dict[str, Any] = {
        "timeout": timeout,
        "retries": retries,
        "concurrency": concurrency,
        "per_host": per_host,
        "allow_private": True if allow_private else None,
        "check_fragments": True if check_fragments else None,
        "strict": strict,
        "cache": False if no_cache else None,
    }
    cfg, base = _config_or_exit(paths, overrides)

    @contextmanager
    def bar(total: int) -> Iterator[Callable[[int], None]]:
        with click.progressbar(length=total, label="probing", file=sys.stderr, show_pos=True) as pb:
            yield pb.update

    show_bar = not quiet and sys.stderr.isatty()
    targets = [Path(p) for p in paths] or [Path.cwd()]
    pr = run(targets, cfg, Path.cwd(), exclude_base=base, progress=bar if show_bar else None)
    write(fmt, pr, sys.stdout, sys.stderr, quiet=quiet)
    failed = pr.result.errors > 0 or (cfg.strict and pr.result.warnings > 0)
    sys.exit(EXIT_FINDINGS if failed else EXIT_OK)


@main.command("extract")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Folder to write the files to.",
)
@click.option("--force", is_flag=True, help="Replace files that already exist.")
def extract_cmd(file: Path, out_dir: Path, force: bool) -> None:
    """Write every code block of FILE that names a file (title="x.py") to a folder."""
    from skillcheck.extract import extract

    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail_usage(f"cannot read {file}: {exc}")
    results = extract(text, out_dir, force=force)
    if not results:
        click.echo(
            f'{file}: no code block names a file (add title="name" to its info string)', err=True
        )
        sys.exit(EXIT_FINDINGS)
    failed = False
    for r in results:
        if r.problem:
            failed = True
            click.echo(f"{file}:{r.line}: not written: {r.name}: {r.problem}", err=True)
        else:
            click.echo(f"wrote {r.path}")
    sys.exit(EXIT_FINDINGS if failed else EXIT_OK)


@main.command("pack")
@click.argument(
    "path",
    required=False,
    type=click.Path(exists=True, file_okay=False, dir_okay=True, path_type=Path),
)
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("dist"),
    show_default=True,
    help="Folder to write the zip to.",
)
@click.option("--strict/--no-strict", default=None, help="Warnings refuse the pack too.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the parse cache.")
def pack_cmd(path: Path | None, out_dir: Path, strict: bool | None, no_cache: bool) -> None:
    """Check the skill at PATH (default: the current folder), then write it alone to a
    reproducible zip and print the zip's path and SHA-256. Nothing is written when the check
    finds errors (or warnings, with --strict)."""
    import os

    from skillcheck.discover import display_path
    from skillcheck.pack import PackError, pack_skill, pick
    from skillcheck.reporters import text
    from skillcheck.runner import check_loaded, load_skills

    overrides: dict[str, Any] = {"strict": strict, "cache": False if no_cache else None}
    cfg, base = _config_or_exit((str(path),) if path is not None else (), overrides)
    target = path if path is not None else Path.cwd()
    cwd = Path.cwd()
    loaded = load_skills([target], cfg, cwd, exclude_base=base)
    skill = pick(loaded.skills, Path(os.path.abspath(target)))
    if skill is None and loaded.skills:
        roots = ", ".join(s.display_root for s in loaded.skills[:5])
        if len(loaded.skills) > 5:
            roots += f" and {len(loaded.skills) - 5} more"
        _fail_usage(
            f"{display_path(Path(os.path.abspath(target)), cwd)} holds "
            f"{len(loaded.skills)} skills ({roots}); pack them one at a time: name one "
            "skill's folder (skillcheck pack PATH/TO/SKILL)"
        )
    result = check_loaded(loaded, cfg, cwd)
    text(result, sys.stderr, sys.stderr)
    if result.errors > 0 or (cfg.strict and result.warnings > 0):
        found = f"{result.errors} error{'' if result.errors == 1 else 's'}"
        if cfg.strict and result.warnings > 0:
            found += f" and {result.warnings} warning{'' if result.warnings == 1 else 's'}"
        click.echo(f"skillcheck: not packed: the check found {found}", err=True)
        sys.exit(EXIT_FINDINGS)
    assert skill is not None  # no skill at all is an SC101 error, reported above
    docs = loaded.docs[loaded.skills.index(skill)]
    try:
        packed = pack_skill(skill, docs, out_dir)
    except PackError as exc:
        click.echo(f"skillcheck: not packed: {exc}", err=True)
        sys.exit(EXIT_FINDINGS)
    shown = display_path(Path(os.path.abspath(packed.path)), cwd)
    click.echo(
        f"wrote {shown} ({len(packed.members)} files in {packed.top}/, {packed.size:,} bytes)"
    )
    click.echo(f"{packed.sha256}  {shown}")
    sys.exit(EXIT_OK)


@main.command("rules")
@click.argument("rule", required=False)
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(("text", "json", "markdown")),
    default="text",
    show_default=True,
)
def rules_cmd(rule: str | None, fmt: str) -> None:
    """List every rule with its code, default severity and summary; with RULE (a code such as
    SC201, or a name such as broken-link), explain that rule: why it matters, an example that
    fails, and the fix."""
    import json

    from skillcheck.registry import RULES, load_builtin_rules

    load_builtin_rules()
    if rule is not None:
        _explain(rule, fmt)
        return
    rows = [RULES[c] for c in sorted(RULES)]
    if fmt == "json":
        click.echo(
            json.dumps(
                [
                    {
                        "code": r.code,
                        "name": r.name,
                        "severity": r.severity.value,
                        "summary": r.summary,
                    }
                    for r in rows
                ],
                indent=2,
            )
        )
    elif fmt == "markdown":
        click.echo("| Code | Name | Severity | What it reports |")
        click.echo("| --- | --- | --- | --- |")
        for r in rows:
            click.echo(f"| {r.code} | {r.name} | {r.severity.value} | {r.summary} |")
    else:
        for r in rows:
            click.echo(f"{r.code}  {r.severity.value:<7}  {r.name:<28} {r.summary}")


def _explain(word: str, fmt: str) -> None:
    """One rule, by code or name, explained in ``fmt``; exit 2 with the closest rules when
    ``word`` names none."""
    import json
    import textwrap

    from skillcheck.config import _suggest
    from skillcheck.registry import RULES
    from skillcheck.ruledocs import load

    by_name = {r.name: r.code for r in RULES.values()}
    code = by_name.get(word.strip().lower(), word.strip().upper())
    if code not in RULES:
        _fail_usage(f"no rule is called {word!r}; {_suggest(word, RULES)}")
    r, doc = RULES[code], load()[code]
    if fmt == "json":
        entry = {"code": r.code, "name": r.name, "severity": r.severity.value}
        entry |= {"summary": r.summary, "why": doc.why, "example": doc.example}
        click.echo(json.dumps(entry | {"fix": doc.fix, "fixed": doc.fixed}, indent=2))
        return
    if fmt == "markdown":
        fence = "````" if "```" in doc.example + doc.fixed else "```"
        click.echo(f"## {r.code} {r.name} ({r.severity.value})\n\n{r.summary}\n\n{doc.why}\n")
        click.echo(f"Fails:\n\n{fence}text\n{doc.example}\n{fence}\n")
        click.echo(f"Fix: {doc.fix}\n\n{fence}text\n{doc.fixed}\n{fence}")
        return
    wrap = textwrap.TextWrapper(width=88, initial_indent="  ", subsequent_indent="  ")
    click.echo(f"{r.code} {r.name} ({r.severity.value}): {r.summary}\n")
    click.echo("Why it matters:\n" + wrap.fill(doc.why) + "\n")
    click.echo("Fails:\n" + textwrap.indent(doc.example, "    ") + "\n")
    click.echo("Fix:\n" + wrap.fill(doc.fix) + "\n")
    click.echo(textwrap.indent(doc.fixed, "    "))
