"""Which URLs to probe, and where each one appears.

Every external URL of every skill: Markdown links and images, autolinks, reference definitions,
``href``/``src`` in raw HTML, bare URLs in prose (GitHub renders them as links; URLs in code
blocks, code spans and HTML comments are examples, not links) and every ``url`` of
``data/sources.json``. URLs are grouped by a request key (scheme and host lowercased, default
port and fragment dropped), so each is requested once however often it is written.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from skillcheck.config import Config
from skillcheck.datatables import SOURCES_REL, is_example_url
from skillcheck.diagnostics import Diagnostic
from skillcheck.discover import Skill
from skillcheck.document import ParsedDoc

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_LABEL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$")
_BAD_CHARS = re.compile(r"[\s<>\"\\^`{|}\x00-\x1f\x7f]")
LINK_KINDS = ("inline", "image", "autolink", "html")


@dataclass(frozen=True, order=True)
class Use:
    """One place a URL is written."""

    path: str  # display path of the file
    line: int
    column: int
    url: str  # as written


@dataclass
class Target:
    """One URL to request, with every place it is used."""

    key: str  # what is requested: no fragment, scheme and host lowercased, default port dropped
    host: str  # host[:port], the unit of per-host concurrency
    uses: list[Use] = field(default_factory=list)
    fragments: dict[str, list[Use]] = field(default_factory=dict)
    problem: tuple[str, str] | None = None  # (outcome class, detail) known without a request

    @property
    def first(self) -> Use:
        return min(self.uses)


@dataclass
class Collected:
    targets: dict[str, Target]
    skills: list[Skill]
    files: int
    problems: list[Diagnostic]  # discovery problems (no skill found)
    skipped: int  # places skipped: example addresses and url-allowlist
    skipped_private: int = 0  # of those, localhost and private addresses (--allow-private)
    docs: list[dict[str, ParsedDoc]] = field(default_factory=list)  # per skill, as loaded
    base: Path | None = None  # the configuration's folder (per-file-ignores)


class BadURL(ValueError):
    """A URL that cannot be requested; ``kind`` is the outcome class (invalid or scheme)."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def is_external(target: str) -> bool:
    return bool(_SCHEME.match(target)) or target.startswith("//")


def _valid_host(host: str) -> bool:
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return False
        return True
    labels = (host[:-1] if host.endswith(".") else host).split(".")
    if len(host) > 253 or not all(_LABEL.match(label) for label in labels):
        return False
    if all(label.isdigit() for label in labels):  # looks like an IPv4 address: must be one
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return False
    return True


def request_key(url: str) -> tuple[str, str, str]:
    """(request key, host[:port], fragment) of a URL, or :class:`BadURL`.

    Unlike :func:`skillcheck.datatables.normalize_url`, a trailing slash is kept: ``/a`` and
    ``/a/`` may be different resources, and the probe must request what the link names.
    """
    raw = url.strip()
    if raw.startswith("//"):
        raw = "https:" + raw
    m = _SCHEME.match(raw)
    if not m:
        raise BadURL("invalid", "not an absolute URL")
    scheme = m.group(1).lower()
    if scheme not in ("http", "https"):
        raise BadURL("scheme", f"scheme '{scheme}' is not probed (only http and https)")
    if _BAD_CHARS.search(raw):
        raise BadURL("invalid", "the URL holds spaces or characters that must be escaped")
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError as exc:
        raise BadURL("invalid", str(exc)) from exc
    host = (parts.hostname or "").lower()
    if not host:
        raise BadURL("invalid", "the URL has no host")
    shown = f"[{host}]" if ":" in host else host
    ascii_host = shown
    if not shown.isascii():
        try:
            ascii_host = shown.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise BadURL("invalid", f"the host '{host}' is not a valid name") from exc
    if not _valid_host(ascii_host):
        raise BadURL("invalid", f"the host '{host}' is not a valid name")
    netloc = shown
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        netloc = f"{shown}:{port}"
    key = urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))
    return key, netloc, parts.fragment


_RESERVED = (".example", ".invalid", ".test", "example.com", "example.org", "example.net")


def skip_reason(url: str, config: Config) -> str | None:
    """Why an address names nothing to probe, as ``check`` sees them (SC307): "allowlist" (a
    prefix in url-allowlist), "example" (placeholders, reserved example domains) or "private"
    (localhost, intranet names, private IP literals: probed with --allow-private); None when
    it is probed."""
    if any(url.startswith(prefix) for prefix in config.url_allowlist):
        return "allowlist"
    if "{{" in url or "$" in url or "<" in url:
        return "example"
    try:
        host = (urlsplit(url.strip()).hostname or "").lower().rstrip(".")
    except ValueError:
        host = None
    if host is not None and (not host or host.endswith(_RESERVED)):
        return "example"
    if not config.allow_private and is_example_url(url):
        return "private"
    return None


def is_skipped(url: str, config: Config) -> bool:
    """Whether an address is not probed (see :func:`skip_reason`)."""
    return skip_reason(url, config) is not None


def _in_code(doc: ParsedDoc, url: str, line: int) -> bool:
    if any(f.line <= line <= f.end_line for f in doc.fences):
        return True
    if any(s.line == line and url in s.text for s in doc.code_spans):
        return True
    return any(url in text for text, _ in doc.html_comments)


def doc_urls(doc: ParsedDoc) -> list[tuple[str, int, int]]:
    """(url, line, column) of every external URL in a parsed Markdown file, in file order."""
    out: list[tuple[str, int, int]] = []
    by_line: dict[int, list[str]] = {}
    for lk in [*doc.links, *doc.definitions]:
        if lk.kind not in (*LINK_KINDS, "definition") or not is_external(lk.target):
            continue
        out.append((lk.target, lk.line, lk.column))
        by_line.setdefault(lk.line, []).append(lk.target)
    for url, line, col in doc.urls:
        # a bare URL that is (a prefix of) a link target on its line is that link, seen twice
        if any(t.startswith(url) for t in by_line.get(line, ())):
            continue
        if _in_code(doc, url, line):
            continue
        out.append((url, line, col))
    return sorted(set(out), key=lambda u: (u[1], u[2], u[0]))


def add_use(targets: dict[str, Target], use: Use) -> None:
    try:
        key, host, fragment = request_key(use.url)
        problem = None
    except BadURL as exc:
        key, host, fragment = use.url.split("#", 1)[0].strip(), "", ""
        problem = (exc.kind, exc.detail)
    t = targets.get(key)
    if t is None:
        t = targets[key] = Target(key, host, problem=problem)
    t.uses.append(use)
    if fragment:
        t.fragments.setdefault(fragment, []).append(use)


def collect(
    paths: list[Path], config: Config, cwd: Path, exclude_base: Path | None = None
) -> Collected:
    """Find the skills under ``paths`` (as ``check`` does) and every URL they hold. A PATH
    that is a file stands for the skill around it, as in ``check``: only the URLs of the files
    named are probed (``Skill.focus``), ``data/sources.json`` among them when it is named."""
    from skillcheck.runner import load_skills

    loaded = load_skills(paths, config, cwd, exclude_base)
    targets: dict[str, Target] = {}
    skipped = private = 0
    for skill, docs, data in zip(loaded.skills, loaded.docs, loaded.data, strict=True):
        focus = skill.focus
        found: list[Use] = []
        for rel, doc in sorted(docs.items()):
            if focus is None or rel in focus:
                found += [Use(skill.display(rel), ln, col, u) for u, ln, col in doc_urls(doc)]
        # sources.json, read once when the skill was loaded
        if data.registry is not None and (focus is None or SOURCES_REL in focus):
            found += [
                Use(skill.display(SOURCES_REL), ln, col, u) for u, ln, col in data.registry.urls
            ]
        for use in found:
            why = skip_reason(use.url, config)
            if why is not None:
                skipped += 1
                private += why == "private"
                continue
            add_use(targets, use)
    problems = [d for d in loaded.problems if d.code == "SC101"]
    return Collected(
        targets, loaded.skills, loaded.files, problems, skipped, private, loaded.docs, loaded.base
    )
