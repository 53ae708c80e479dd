"""The pack's data files, read and schema-checked: the source registry (``data/sources.json``,
with URL normalising) and the cited data tables (``data/<stem>.json`` beside it).

Each table is an object with ``$schema`` and one array of entries; every entry has an ``id``
and a ``sources`` list of ids from ``data/sources.json``. A table is checked only when its
schema ships with skillcheck (``skillcheck/schemas/<stem>.schema.json``).

Shared by the citation rules (SC3xx) and by ``skillcheck probe``; loaded once per skill (through
the parse cache) by the runner.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit, urlunsplit

from skillcheck.jsonpos import JsonDoc, pointer

SOURCES_REL = "data/sources.json"
T = TypeVar("T")


def normalize_url(url: str) -> str:
    """Compare URLs as a browser would: scheme and host lowercased, default port and fragment
    dropped, an empty path as '/', a trailing slash ignored."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host
    if port and not ((scheme == "http" and port == 80) or (scheme == "https" and port == 443)):
        netloc = f"{host}:{port}"
    path = parts.path or "/"
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    return urlunsplit((scheme, netloc, path, parts.query, ""))


_EXAMPLE_SUFFIXES = (
    ".example",
    ".invalid",
    ".test",
    ".localhost",
    ".local",
    ".internal",
    ".svc.cluster.local",
    "example.com",
    "example.org",
    "example.net",
)


def is_example_url(url: str) -> bool:
    """True for addresses that name no public source: placeholders, localhost, reserved example
    domains (RFC 2606, RFC 6761) and private or loopback IP literals (RFC 1918, RFC 4193)."""
    import ipaddress

    if "{{" in url or "$" in url or "<" in url:
        return True
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    if not host or host == "localhost" or host.endswith(_EXAMPLE_SUFFIXES):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_unspecified


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    text = (
        resources.files("skillcheck")
        .joinpath("schemas/sources.schema.json")
        .read_text(encoding="utf-8")
    )
    data: dict[str, Any] = json.loads(text)
    return data


@dataclass
class DataProblem:
    code: str
    line: int
    column: int
    message: str
    hint: str = ""


@dataclass
class SourceRegistry:
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    columns: dict[str, int] = field(default_factory=dict)  # where each entry's '{' is
    by_url: dict[str, str] = field(default_factory=dict)  # normalised url -> id
    problems: list[DataProblem] = field(default_factory=list)
    loaded: bool = False
    urls: list[tuple[str, int, int]] = field(default_factory=list)  # every 'url': where it is


def read_json(
    path: Path,
    schema_doc: dict[str, Any],
    schema_rel: str,
    codes: tuple[str, str, str],
    raw: bytes | None = None,
    declared: str | None = None,
) -> tuple[JsonDoc | None, list[DataProblem]]:
    """Read (unless ``raw`` holds the bytes already), parse and schema-check one JSON data
    file; problems never raise.

    ``codes`` are the codes for (unreadable or invalid JSON, schema error, repeated key).
    With ``declared`` (a schema file name), a file whose ``$schema`` does not end with it is
    someone else's format: it is neither checked nor reported ((None, [])). The document is
    None when it could not be parsed."""
    invalid, schema_code, dup = codes
    problems: list[DataProblem] = []
    if raw is None:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            problems.append(DataProblem(invalid, 0, 0, f"cannot read: {exc.strerror or exc}"))
            return None, problems
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.append(DataProblem(invalid, 0, 0, f"not valid UTF-8 at byte offset {exc.start}"))
        return None, problems
    try:
        doc = JsonDoc(text)
    except json.JSONDecodeError as exc:
        problems.append(
            DataProblem(
                invalid,
                exc.lineno,
                exc.colno,
                f"invalid JSON: {exc.msg}",
                "fix the syntax; a trailing comma is a common cause",
            )
        )
        return None, problems
    except RecursionError:
        problems.append(DataProblem(invalid, 1, 1, "invalid JSON: nesting too deep"))
        return None, problems
    if declared is not None and not _declares(doc.value, declared):
        return None, []
    for dpath, (line, col) in doc.duplicates:
        problems.append(
            DataProblem(dup, line, col, f"duplicate key at {pointer(dpath)}", "keep one")
        )
    from jsonschema import Draft202012Validator, FormatChecker

    validator = Draft202012Validator(schema_doc, format_checker=FormatChecker())
    for err in sorted(validator.iter_errors(doc.value), key=lambda e: list(map(str, e.path))):
        line, col = doc.where(tuple(err.path))
        msg = err.message if len(err.message) <= 200 else err.message[:197] + "..."
        problems.append(
            DataProblem(
                schema_code, line, col, f"{pointer(tuple(err.path))}: {msg}", f"see {schema_rel}"
            )
        )
    return doc, problems


def _declares(value: Any, schema_name: str) -> bool:
    """Whether a JSON document names ``schema_name`` as its ``$schema`` (a relative path or
    URL ending with that file name)."""
    declared = value.get("$schema") if isinstance(value, dict) else None
    return isinstance(declared, str) and declared.rsplit("/", 1)[-1] == schema_name


def load_registry(path: Path, raw: bytes | None = None) -> SourceRegistry:
    """Read and validate a sources.json; problems never raise. Unlike a data table, the
    registry is judged whatever its ``$schema`` says (no ``declared``): the citation rules
    depend on it."""
    reg = SourceRegistry()
    doc, reg.problems = read_json(
        path, schema(), "skillcheck/schemas/sources.schema.json", ("SC301", "SC302", "SC303"), raw
    )
    if doc is None:
        return reg
    data = doc.value
    items = data.get("sources") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return reg
    reg.loaded = True
    for i, entry in enumerate(items):
        if not isinstance(entry, dict):
            continue
        sid, url = entry.get("id"), entry.get("url")
        if isinstance(url, str):
            reg.urls.append((url, *doc.where(("sources", i, "url"))))
        line, col = doc.where(("sources", i))
        if not isinstance(sid, str):
            continue
        if sid in reg.entries:
            reg.problems.append(
                DataProblem(
                    "SC303",
                    line,
                    col,
                    f"duplicate source id '{sid}'",
                    f"first defined on line {reg.lines[sid]}",
                )
            )
            continue
        reg.entries[sid] = entry
        reg.lines[sid] = line
        reg.columns[sid] = col
        if isinstance(url, str):
            key = normalize_url(url)
            if key in reg.by_url:
                reg.problems.append(
                    DataProblem(
                        "SC304",
                        line,
                        col,
                        f"'{sid}' repeats the URL of '{reg.by_url[key]}'",
                        "one source, one entry: cite the existing id",
                    )
                )
            else:
                reg.by_url[key] = sid
    return reg


# stem of data/<stem>.json -> the key of its array of entries
DATA_TABLES: dict[str, str] = {"gpus": "gpus", "models": "models"}

INVALID, SCHEMA, DUPLICATE, UNKNOWN_SOURCE = "SC311", "SC312", "SC313", "SC314"


def data_rel(stem: str) -> str:
    return f"data/{stem}.json"


def schema_rel(stem: str) -> str:
    return f"skillcheck/schemas/{stem}.schema.json"


@cache
def data_schema(stem: str) -> dict[str, Any] | None:
    """The packaged schema of a table, or None when this skillcheck does not ship one."""
    res = resources.files("skillcheck").joinpath(f"schemas/{stem}.schema.json")
    if not res.is_file():
        return None
    data: dict[str, Any] = json.loads(res.read_text(encoding="utf-8"))
    return data


@dataclass
class Citation:
    source_id: str
    line: int
    column: int
    pointer: str


@dataclass
class DataTable:
    rel: str
    problems: list[DataProblem] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)


def load_table(path: Path, stem: str, raw: bytes | None = None) -> DataTable | None:
    """Read and validate one table; None when its schema is not packaged, or when the file
    does not declare that schema in ``$schema`` (another project's file of the same name is
    not ours to judge; broken JSON is still reported). Never raises."""
    schema_doc = data_schema(stem)
    if schema_doc is None:
        return None
    table = DataTable(data_rel(stem))
    doc, table.problems = read_json(
        path,
        schema_doc,
        schema_rel(stem),
        (INVALID, SCHEMA, DUPLICATE),
        raw,
        declared=f"{stem}.schema.json",
    )
    if doc is None:
        return table if table.problems else None
    key = DATA_TABLES.get(stem, stem)
    items = doc.value.get(key) if isinstance(doc.value, dict) else None
    if not isinstance(items, list):
        return table
    first: dict[str, int] = {}
    for i, entry in enumerate(items):
        if not isinstance(entry, dict):
            continue
        eid = entry.get("id")
        if isinstance(eid, str):
            line, col = doc.where((key, i, "id"))
            if eid in first:
                table.problems.append(
                    DataProblem(
                        DUPLICATE,
                        line,
                        col,
                        f"duplicate id '{eid}' in $.{key}",
                        f"first defined on line {first[eid]}",
                    )
                )
            else:
                first[eid] = line
        sources = entry.get("sources")
        if not isinstance(sources, list):
            continue
        for j, sid in enumerate(sources):
            if isinstance(sid, str):
                line, col = doc.where((key, i, "sources", j))
                table.citations.append(Citation(sid, line, col, f"$.{key}[{i}].sources[{j}]"))
    return table


@dataclass
class SkillData:
    """A skill's data files, each read and validated once per run (and kept in the parse cache
    by content): the source registry (None without ``data/sources.json``) and the tables whose
    schema ships with skillcheck, by stem."""

    registry: SourceRegistry | None = None
    tables: list[DataTable] = field(default_factory=list)


class Store(Protocol):
    def get(self, key: str) -> Any: ...
    def put(self, key: str, value: Any) -> None: ...


@cache
def _schema_key(stem: str) -> str:
    """Changes with the packaged schema, so a stored result follows a new skillcheck."""
    import hashlib

    doc = schema() if stem == "sources" else data_schema(stem)
    return hashlib.blake2b(json.dumps(doc, sort_keys=True).encode(), digest_size=8).hexdigest()


def _stored(
    store: Store | None,
    path: Path,
    stem: str,
    kind: type[T],
    load: Callable[[Path, bytes | None], T | None],
) -> T | None:
    """``load`` the file, through ``store`` keyed by its bytes and its schema."""
    if store is None:
        return load(path, None)
    try:
        raw = path.read_bytes()
    except OSError:
        return load(path, None)  # reports why it cannot be read
    import hashlib

    key = f"data-{stem}:{_schema_key(stem)}:{hashlib.blake2b(raw, digest_size=16).hexdigest()}"
    got = store.get(key)
    if isinstance(got, kind):
        return got
    got = load(path, raw)
    if got is not None:
        store.put(key, got)
    return got


def _table_loader(stem: str) -> Callable[[Path, bytes | None], DataTable | None]:
    def load(path: Path, raw: bytes | None) -> DataTable | None:
        return load_table(path, stem, raw)

    return load


def load_skill_data(root: Path, files: Iterable[str], store: Store | None) -> SkillData:
    """The data files of the skill at ``root`` (``files``: its files, relative)."""
    present = set(files)
    data = SkillData()
    for stem in sorted(DATA_TABLES):
        if data_rel(stem) in present:
            table = _stored(store, root / data_rel(stem), stem, DataTable, _table_loader(stem))
            if table is not None:
                data.tables.append(table)
    if SOURCES_REL in present:
        data.registry = _stored(store, root / SOURCES_REL, "sources", SourceRegistry, load_registry)
    return data
