"""``skillcheck pack``: the skill alone, as a reproducible zip.

What goes in: ``SKILL.md``, the license file, every file under ``references/``, ``assets/``,
``data/`` and ``scripts/`` that the check sees as part of the skill, and any other file of the
skill that a packed Markdown file links to (a top-level ``reference.md``, say). What never goes
in: dotfiles, ``__pycache__`` and compiled Python, and everything else at the skill root (the
tooling, tests, benchmarks, ``docs/``, ``pyproject.toml`` ...), unless a packed page links it.

The archive's single top folder is the skill's ``name``, so that a skill kept at a repository
root (cloned under any folder name) unpacks into a folder that matches its name, as the
specification requires. Entries are sorted, dated 1980-01-01 00:00:00, marked 0644 and
deflated at level 9, with no directory entries, comment or extra fields: the same tree gives
the same bytes (with the same zlib).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import unicodedata
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillcheck.discover import Skill
from skillcheck.document import ParsedDoc
from skillcheck.linktargets import local_file

PACK_DIRS = ("references", "assets", "data", "scripts")
LICENSE_NAMES = (
    "LICENSE",
    "LICENSE.txt",
    "LICENSE.md",
    "LICENCE",
    "LICENCE.txt",
    "LICENCE.md",
    "COPYING",
)
NEVER_DIRS = {"__pycache__", "node_modules"}
NEVER_SUFFIXES = (".pyc", ".pyo")
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
FILE_MODE = 0o100644  # a regular file, rw-r--r--
COMPRESS_LEVEL = 9
_VERSION = re.compile(r"^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$")
LINK_KINDS = ("inline", "image", "reference", "definition", "html")


class PackError(Exception):
    """The skill cannot be packed (no usable name, nothing to write, an unwritable folder)."""


@dataclass(frozen=True)
class Packed:
    path: Path
    sha256: str
    top: str  # the archive's top folder: the skill's name
    members: tuple[str, ...]  # archive names, sorted
    size: int


def _never(rel: str) -> bool:
    parts = rel.split("/")
    return (
        any(p.startswith(".") for p in parts)
        or any(p in NEVER_DIRS for p in parts)
        or rel.endswith(NEVER_SUFFIXES)
    )


def select_files(skill: Skill, docs: Mapping[str, ParsedDoc]) -> list[str]:
    """The files of ``skill`` that belong in its pack, sorted, relative to the skill root."""
    if skill.skill_md is None:
        raise PackError(f"{skill.display_root}: no SKILL.md")
    files = set(skill.files)
    chosen = {skill.skill_md}
    chosen.update(n for n in LICENSE_NAMES if n in files)
    chosen.update(f for f in files if f.split("/", 1)[0] in PACK_DIRS and "/" in f)
    # any other file of the skill that a packed page links to comes along, so no link breaks
    queue = [f for f in sorted(chosen) if f in docs]
    seen = set(queue)
    left_out: list[str] = []
    while queue:
        rel = queue.pop()
        for link in docs[rel].links + docs[rel].definitions:
            if link.kind not in LINK_KINDS:
                continue
            target = local_file(rel, link.target)
            if target is None:
                continue
            if target not in files or _never(target):
                if (skill.root / target).is_file():
                    left_out.append(f"{rel}:{link.line} links {target}")
                continue
            chosen.add(target)
            if target in docs and target not in seen:
                seen.add(target)
                queue.append(target)
    if left_out:
        raise PackError(
            "a packed page links a file that cannot be packed (excluded from the "
            "check, or a dotfile or cache): " + "; ".join(sorted(set(left_out)))
        )
    return sorted(f for f in chosen if not _never(f))


def skill_name(frontmatter: object) -> str:
    """The pack's top folder: the front-matter ``name`` (normalised as the name rules do)."""
    name = frontmatter.get("name") if isinstance(frontmatter, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise PackError("SKILL.md has no 'name': the archive's top folder is named after it")
    name = unicodedata.normalize("NFKC", name.strip())
    if name in (".", "..") or any(c in name for c in "/\\:\0") or len(name) > 64:
        raise PackError(f"'name' {name!r} cannot name a folder")
    return name


def archive_name(frontmatter: object, name: str) -> str:
    """``<name>-<metadata.version>.zip``, or ``<name>.zip`` without a usable version."""
    meta = frontmatter.get("metadata") if isinstance(frontmatter, dict) else None
    version = meta.get("version") if isinstance(meta, dict) else None
    if isinstance(version, str) and _VERSION.match(version):
        return f"{name}-{version}.zip"
    return f"{name}.zip"


def build_zip(root: Path, top: str, files: Sequence[str]) -> bytes:
    """The archive's bytes: ``top/<file>`` for each file, in sorted order, fixed metadata."""
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for rel in sorted(files):
            info = zipfile.ZipInfo(f"{top}/{rel}", date_time=ZIP_DATE)
            info.create_system = 3  # unix, so that the mode bits are read
            info.external_attr = FILE_MODE << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            try:
                data = (root / rel).read_bytes()
            except OSError as exc:
                raise PackError(f"cannot read {rel}: {exc.strerror or exc}") from exc
            zf.writestr(info, data, compresslevel=COMPRESS_LEVEL)
    return buf.getvalue()


def write_atomic(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise PackError(f"cannot write to {path.parent}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise PackError(f"cannot write {path}: {exc.strerror or exc}") from exc


def pack_skill(skill: Skill, docs: Mapping[str, ParsedDoc], out_dir: Path) -> Packed:
    """Write the pack of one skill (already checked) into ``out_dir``."""
    doc = docs.get(skill.skill_md or "")
    frontmatter = doc.frontmatter_value if doc is not None else None  # loaded by the parser
    top = skill_name(frontmatter)
    files = select_files(skill, docs)
    data = build_zip(skill.root, top, files)
    path = out_dir / archive_name(frontmatter, top)
    write_atomic(path, data)
    return Packed(
        path, hashlib.sha256(data).hexdigest(), top, tuple(f"{top}/{f}" for f in files), len(data)
    )


def pick(skills: Iterable[Skill], root: Path) -> Skill | None:
    """The skill whose folder is ``root``, else the only skill found, else None."""
    found = list(skills)
    for s in found:
        if s.root == root:
            return s
    return found[0] if len(found) == 1 else None
