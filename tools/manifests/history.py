"""The option history of an engine across releases, read from each release's source.

``python -m tools.manifests history ENGINE --releases PATH...`` generates the manifest of
every release (as the manifest generator does: the archive is unpacked, nothing is
imported) and keeps only what the flag index needs, in
``data/engine-flags/history/<engine>.json``: per option, the releases where it exists,
its default where it changed, its status (current / deprecated / removed) where it
changed, the last deprecation message, and the successor that message names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillcheck.engines import Manifest
from skillcheck.engines.flagindex import option_cells
from tools.manifests.build import build
from tools.manifests.errors import GenerateError

REPO = Path(__file__).resolve().parents[2]
HISTORY_DIR = REPO / "data" / "engine-flags" / "history"

# The archive names PyPI gives each engine's releases.
_ARCHIVE = re.compile(
    r"^(?:vllm|sglang|llama_cpp_python)-(?P<version>\d[\w.]*?)(?:-|\.tar\.gz$|\.zip$)"
)
# A replacement named in a deprecation message: "use --x", "replaced by --x", ...
_SUCCESSOR = re.compile(
    r"(?i)\b(?:use|using|replaced\s+by|in\s+favou?r\s+of|renamed\s+to|superseded\s+by|"
    r"moved\s+to|migrate\s+to|alias\s+(?:for|of))\s+[`'\"]?(--[A-Za-z0-9][\w.-]*)"
)


def version_key(version: str) -> tuple[tuple[int, Any], ...]:
    parts = re.split(r"[.\-+]", version)
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)


@dataclass(frozen=True)
class Release:
    """One release to read: its version and where its source is."""

    version: str
    path: Path


def parse_release(arg: str) -> Release:
    """``VERSION=PATH``, or a PATH whose archive name (or the one archive inside) says it."""
    if "=" in arg:
        version, _, where = arg.partition("=")
        return Release(version, Path(where))
    path = Path(arg)
    archive = path
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and _ARCHIVE.match(p.name))
        if len(files) != 1:
            raise GenerateError(f"{path}: expected one release archive, or give VERSION={path}")
        archive = files[0]
    m = _ARCHIVE.match(archive.name)
    if m is None:
        raise GenerateError(f"cannot tell the version of {arg}; give VERSION={arg}")
    return Release(m.group("version"), archive)


@dataclass
class OptionHistory:
    """What the index needs to know about one option across the tracked releases."""

    name: str
    releases: list[str] = field(default_factory=list)
    defaults: dict[str, str | None] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)
    message: str | None = None
    successor: str | None = None
    alias_of: dict[str, str] = field(default_factory=dict)
    last: dict[str, Any] = field(default_factory=dict)


@dataclass
class History:
    engine: str
    releases: list[str]
    sources: dict[str, dict[str, Any]]
    options: dict[str, OptionHistory]

    def option(self, name: str) -> OptionHistory | None:
        return self.options.get(name)


def successor_in(message: str | None, spellings: dict[str, str]) -> str | None:
    """The option a deprecation message names as the replacement, when it is one.

    ``spellings`` maps every spelling of the release (and later ones) to its option;
    a dotted key (``--logging-config.level``) counts when its option does. Never guessed.
    """
    if not message:
        return None
    for m in _SUCCESSOR.finditer(message):
        candidate = m.group(1).rstrip(".-")
        base = candidate.split(".", 1)[0].split("=", 1)[0]
        if base in spellings:
            return spellings[base] + candidate[len(base) :] if "." in candidate else spellings[base]
    return None


def _spelling_map(manifest: Manifest) -> dict[str, str]:
    found: dict[str, str] = {}
    for opt in manifest.options:
        for spelling in opt.spellings:
            found.setdefault(spelling, opt.name)
    return found


def _source_info(manifest: Manifest) -> dict[str, Any]:
    prov = manifest.provenance
    info = {k: prov[k] for k in ("source", "sha256", "llama_cpp_commit") if prov.get(k)}
    info["options"] = len(manifest.options)
    return info


def build_history(engine: str, manifests: Sequence[tuple[str, Manifest]]) -> History:
    """Fold the manifests of consecutive releases (oldest first) into a history."""
    ordered = sorted(manifests, key=lambda vm: version_key(vm[0]))
    history = History(engine, [], {}, {})
    later: dict[str, str] = {}
    for _, manifest in reversed(ordered):
        for spelling, name in _spelling_map(manifest).items():
            later.setdefault(spelling, name)
    for version, manifest in ordered:
        extend_history(history, version, manifest, later)
    history.options = dict(sorted(history.options.items()))
    return history


def extend_history(
    history: History, version: str, manifest: Manifest, later: dict[str, str] | None = None
) -> History:
    """Add one release, newer than the others, to ``history`` (in place)."""
    spellings = _spelling_map(manifest)
    known = {**(later or {}), **spellings}
    history.releases.append(version)
    history.sources[version] = _source_info(manifest)
    for opt in sorted(manifest.options, key=lambda o: o.name):
        hist = history.options.setdefault(opt.name, OptionHistory(opt.name))
        if hist.releases and hist.releases[-1] == version:
            continue  # a second registration of the name (another subcommand)
        hist.releases.append(version)
        if not hist.defaults or list(hist.defaults.values())[-1] != opt.default:
            hist.defaults[version] = opt.default
        cells = option_cells(opt)
        status = cells["status"]
        if not hist.status or list(hist.status.values())[-1] != status:
            hist.status[version] = status
        if opt.deprecated:
            hist.message = " ".join(opt.deprecated.split())
            found = successor_in(opt.deprecated, known)
            if found and found != opt.name:
                hist.successor = found
        hist.last = {"type": cells["type"], "aliases": cells["aliases"], "in": version}
    for name, hist in history.options.items():
        if version not in hist.releases and name in spellings and spellings[name] != name:
            hist.alias_of.setdefault(version, spellings[name])
    return history


def ranges(present: Iterable[str], releases: Sequence[str]) -> str:
    """``0.28.0-0.31.0,0.33.0``: runs of consecutive tracked releases."""
    have = set(present)
    runs: list[list[str]] = []
    previous = False
    for version in releases:
        if version in have:
            if previous:
                runs[-1].append(version)
            else:
                runs.append([version])
        previous = version in have
    return ",".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def expand(text: str, releases: Sequence[str]) -> list[str]:
    """The releases a :func:`ranges` string covers."""
    out: list[str] = []
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        last = last or first
        if first not in releases or last not in releases:
            raise GenerateError(f"release range {part!r} names an untracked release")
        out.extend(releases[releases.index(first) : releases.index(last) + 1])
    return out


def history_to_json(history: History, command: str) -> str:
    """Stable JSON: sorted keys, one option per line."""
    head = {
        "engine": history.engine,
        "generator": command,
        "releases": history.releases,
        "sources": history.sources,
    }
    lines = []
    for name, hist in history.options.items():
        row: dict[str, Any] = {"in": ranges(hist.releases, history.releases)}
        if len(hist.defaults) > 1 or next(iter(hist.defaults.values()), None) is not None:
            row["default"] = hist.defaults
        if list(hist.status.values()) != ["current"]:
            row["status"] = hist.status
        if hist.message:
            row["message"] = hist.message
        if hist.successor:
            row["successor"] = hist.successor
        if hist.alias_of:
            row["alias_of"] = hist.alias_of
        if hist.releases[-1] != history.releases[-1]:
            row["last"] = hist.last
        lines.append(f"  {json.dumps(name)}: {json.dumps(row, sort_keys=True, ensure_ascii=False)}")
    text = json.dumps(head, indent=1, sort_keys=True, ensure_ascii=False)
    body = ",\n".join(lines)
    return text[:-2] + ',\n "options": {\n' + body + "\n }\n}\n"


def history_from_json(text: str) -> History:
    raw = json.loads(text)
    releases = [str(v) for v in raw["releases"]]
    options: dict[str, OptionHistory] = {}
    for name, row in raw["options"].items():
        hist = OptionHistory(name, expand(row["in"], releases))
        hist.defaults = dict(row.get("default") or {hist.releases[0]: None})
        hist.status = dict(row.get("status") or {hist.releases[0]: "current"})
        hist.message = row.get("message")
        hist.successor = row.get("successor")
        hist.alias_of = dict(row.get("alias_of") or {})
        hist.last = dict(row.get("last") or {})
        options[name] = hist
    return History(str(raw["engine"]), releases, dict(raw.get("sources") or {}), options)


def load_history(engine: str, directory: Path = HISTORY_DIR) -> History | None:
    path = directory / f"{engine}.json"
    if not path.is_file():
        return None
    return history_from_json(path.read_text(encoding="utf-8"))


def read_releases(engine: str, releases: Sequence[Release]) -> list[tuple[str, Manifest]]:
    """The manifest of each release, generated from its archive or tree."""
    out = []
    for rel in releases:
        out.append((rel.version, build(engine, rel.version, rel.path, "")))
    return out


def default_at(hist: OptionHistory, version: str) -> str | None:
    """The option's default at ``version`` (the last change at or before it)."""
    found: str | None = None
    for release, value in hist.defaults.items():
        if release in hist.releases and hist.releases.index(release) <= _position(hist, version):
            found = value
    return found


def status_at(hist: OptionHistory, version: str) -> str:
    found = "current"
    for release, value in hist.status.items():
        if hist.releases.index(release) <= _position(hist, version):
            found = value
    return found


def _position(hist: OptionHistory, version: str) -> int:
    """Index of the last release of the option at or before ``version``."""
    keyed = [i for i, r in enumerate(hist.releases) if version_key(r) <= version_key(version)]
    return keyed[-1] if keyed else -1
