"""Generate the engine-flag index ``data/engine-flags/<engine>.tsv``.

``python -m tools.manifests index ENGINE`` (or ``--all``) joins the pinned manifest
(options, aliases, type, default), the history (releases, status, changes) and the
curated columns of the existing file (``meaning``, ``covered_by``, kept by option).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from skillcheck.engines import ConfigKey, Manifest, Option, load_manifest
from skillcheck.engines.flagindex import (
    INDEX_FILES,
    FlagIndexError,
    Row,
    option_cells,
    read_curated,
)
from tools.manifests.errors import GenerateError
from tools.manifests.history import (
    REPO,
    History,
    OptionHistory,
    load_history,
    ranges,
    successor_in,
)

INDEX_DIR = REPO / "data" / "engine-flags"


@dataclass(frozen=True)
class Generated:
    """The generated cells of one row (everything but the curated columns)."""

    option: str
    aliases: str
    type: str
    default: str
    status: str
    releases: str
    changes: str


def pinned_release(manifest: Manifest) -> str:
    """The release name the history uses for the pinned manifest."""
    if manifest.engine == "llama.cpp":
        package = str(manifest.provenance.get("package", ""))
        return package.partition("==")[2] or manifest.version
    return manifest.version


def _merge_same_name(options: Iterable[Option]) -> list[Option]:
    """One option per name (TensorRT-LLM registers ``--port`` on several subcommands)."""
    merged: dict[str, Option] = {}
    for opt in sorted(options, key=lambda o: (o.name, o.commands or ())):
        merged.setdefault(opt.name, opt)
    return list(merged.values())


def _status(name: str, status: str, successor: str | None) -> str:
    if status == "current":
        return "current"
    return f"{status} -> {successor}" if successor and successor != name else status


def _shown(default: str | None) -> str:
    return "unset" if default is None else default


def _version_changes(hist: OptionHistory, history: History) -> list[str]:
    changes: list[str] = []
    first = hist.releases[0]
    if first != history.releases[0]:
        changes.append(f"added in {first}")
    span = history.releases[
        history.releases.index(first) : history.releases.index(hist.releases[-1]) + 1
    ]
    gaps = [r for r in span if r not in hist.releases]
    if gaps:
        changes.append(f"absent in {', '.join(gaps)}")
    previous: str | None = None
    for release, value in hist.defaults.items():
        if release != first:
            changes.append(f"default {_shown(previous)} -> {_shown(value)} in {release}")
        previous = value
    for release, status in hist.status.items():
        if release != first:
            changes.append(f"{status} in {release}")
    return changes


def _renamed_from(name: str, history: History | None) -> list[str]:
    """``replaces --old`` for each option whose successor or alias is this one."""
    if history is None:
        return []
    out = []
    for other, hist in history.options.items():
        if other == name:
            continue
        if hist.successor == name or name in hist.alias_of.values():
            since = next(iter(sorted(hist.alias_of))) if hist.alias_of else None
            out.append(f"replaces {other}" + (f" (an alias since {since})" if since else ""))
    return out


def _option_row(opt: Option, manifest: Manifest, history: History | None) -> Generated:
    hist = history.option(opt.name) if history else None
    successor = hist.successor if hist else None
    if successor is None and opt.deprecated:
        spellings = {s: o.name for o in manifest.options for s in o.spellings}
        successor = successor_in(opt.deprecated, spellings)
    changes = _version_changes(hist, history) if hist and history else []
    changes += _renamed_from(opt.name, history)
    pin = pinned_release(manifest)
    cells = option_cells(opt)
    return Generated(
        option=opt.name,
        aliases=cells["aliases"],
        type=cells["type"],
        default=cells["default"],
        status=_status(opt.name, cells["status"], successor),
        releases=ranges(hist.releases, history.releases) if hist and history else pin,
        changes="; ".join(changes),
    )


def _removed_row(hist: OptionHistory, history: History) -> Generated:
    after = history.releases[history.releases.index(hist.releases[-1]) + 1]
    changes = [c for c in _version_changes(hist, history) if not c.startswith("absent")]
    changes.append(f"removed in {after}")
    changes += _renamed_from(hist.name, history)
    return Generated(
        option=hist.name,
        aliases=str(hist.last.get("aliases", "")),
        type=str(hist.last.get("type", "")),
        default="",
        status=f"removed -> {hist.successor}" if hist.successor else "removed",
        releases=ranges(hist.releases, history.releases),
        changes="; ".join(changes),
    )


def _config_key_row(name: str, key: ConfigKey, pin: str) -> Generated:
    deprecated = "deprecated" if key.deprecated else "current"
    return Generated(
        option=name,
        aliases=",".join(key.aliases),
        type="|".join(key.choices) if key.choices else key.type,
        default="",
        status=deprecated,
        releases=pin,
        changes="",
    )


def generated_rows(manifest: Manifest, history: History | None) -> list[Generated]:
    """Every generated row: the options of the pin, then the ones the history says left."""
    if history is not None and history.releases[-1] != pinned_release(manifest):
        raise GenerateError(
            f"the {manifest.engine} history ends at {history.releases[-1]}, the pinned "
            f"manifest is {pinned_release(manifest)}: regenerate the history"
        )
    rows = [_option_row(o, manifest, history) for o in _merge_same_name(manifest.options)]
    names = {r.option for r in rows}
    spellings = {s for o in manifest.options for s in o.spellings}
    if history is not None:
        for name, hist in history.options.items():
            if name not in names and name not in spellings:
                rows.append(_removed_row(hist, history))
    if manifest.config_keys:
        pin = pinned_release(manifest)
        for key_name, key in sorted(manifest.config_keys.items()):
            if key_name not in names:
                rows.append(_config_key_row(key_name, key, pin))
    return sorted(rows, key=lambda r: r.option)


def build_index(
    manifest: Manifest, history: History | None, curated: dict[str, tuple[str, str]]
) -> tuple[list[Row], list[str]]:
    """The rows of the index and the curated options that no longer have a row."""
    rows = []
    for gen in generated_rows(manifest, history):
        meaning, covered_by = curated.get(gen.option, ("", ""))
        rows.append(
            Row(
                option=gen.option,
                aliases=gen.aliases,
                type=gen.type,
                default=gen.default,
                meaning=meaning,
                status=gen.status,
                releases=gen.releases,
                changes=gen.changes,
                covered_by=covered_by,
            )
        )
    have = {r.option for r in rows}
    orphans = sorted(o for o, cells in curated.items() if o not in have and any(cells))
    return rows, orphans


def index_path(engine: str, directory: Path = INDEX_DIR) -> Path:
    return directory / INDEX_FILES[engine]


def generate_index(
    engine: str,
    directory: Path = INDEX_DIR,
    history_dir: Path | None = None,
    manifest: Manifest | None = None,
) -> tuple[list[Row], list[str]]:
    """Rows for ``engine`` from the committed inputs (or the ones given)."""
    manifest = manifest or load_manifest(engine)
    history = load_history(engine, history_dir or directory / "history")
    try:
        curated = read_curated(index_path(engine, directory))
    except FlagIndexError as exc:
        raise GenerateError(str(exc)) from exc
    return build_index(manifest, history, curated)
