"""Finding skills and their files, and reading files defensively (bad input never raises)."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

from skillcheck.diagnostics import Diagnostic
from skillcheck.registry import declare, diagnostic

# Folders never searched for skills nor read as part of one: version control, dependencies,
# virtual environments, tool caches and build output. Other hidden folders are searched
# (.claude/skills, .github/skills, a collection's .curated or .system).
SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    ".jj",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    ".direnv",
    "build",
    "dist",
    ".eggs",
}
MARKDOWN_SUFFIXES = {".md", ".markdown"}

declare("SC101", "no-skill", "error", "No SKILL.md under the given path.")
declare("SC220", "unreadable-file", "error", "A file cannot be read (permissions, I/O error).")
declare(
    "SC221", "not-utf8", "error", "A Markdown file is not valid UTF-8 (the byte offset is given)."
)
declare("SC222", "binary-file", "error", "A Markdown file holds binary data (NUL bytes).")
declare(
    "SC223", "file-too-large", "error", "A Markdown file is over the size cap (max-file-bytes)."
)
declare("SC224", "bad-symlink", "error", "A symlink is broken or loops.")
declare("SC126", "skill-md-symlink", "error", "SKILL.md is a symlink pointing outside the skill.")
declare("SC225", "empty-file", "warning", "A Markdown file is empty.")
declare(
    "SC226", "symlink-escapes", "error", "A file in the skill is a symlink to a place outside it."
)


@dataclass
class Skill:
    root: Path  # absolute, resolved
    display_root: str
    skill_md: str | None  # relative name of the SKILL.md file ("SKILL.md" or "skill.md")
    files: list[str] = field(default_factory=list)  # every file, posix, relative to root
    dirs: set[str] = field(default_factory=set)
    markdown: list[str] = field(default_factory=list)
    is_repo_root: bool = False
    excludes: tuple[str, ...] = ()
    symlinks: set[str] = field(default_factory=set)  # files and folders that are symlinks
    problems: list[Diagnostic] = field(default_factory=list)
    # the files whose findings are reported, when files were named rather than the skill
    # (the rules still read the whole skill); None reports every finding
    focus: set[str] | None = None

    def display(self, rel: str) -> str:
        if self.display_root in ("", "."):
            return rel
        return f"{self.display_root}/{rel}" if rel else self.display_root


def display_path(p: Path, cwd: Path) -> str:
    try:
        return p.relative_to(cwd).as_posix() or "."
    except ValueError:
        return p.as_posix()


def _excluded(rel: str, patterns: tuple[str, ...]) -> bool:
    for pat in patterns:
        pat = pat.rstrip("/")
        if rel == pat or rel.startswith(pat + "/") or fnmatch.fnmatchcase(rel, pat):
            return True
    return False


def _rel_to(p: Path, base: Path) -> str | None:
    try:
        return p.relative_to(base).as_posix()
    except ValueError:
        return None


def active_excludes(patterns: tuple[str, ...], start: Path, base: Path) -> tuple[str, ...]:
    """Exclude patterns that apply below ``start``: a path named on the command line is
    always checked, even when it lies inside an excluded folder."""
    start_abs = Path(os.path.abspath(start))
    rel = _rel_to(start_abs, base)
    if rel is None or rel == ".":
        return patterns
    parts = rel.split("/")
    ancestors = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return tuple(p for p in patterns if not any(_excluded(a, (p,)) for a in ancestors))


def _skill_md_name(names: list[str] | set[str]) -> str | None:
    if "SKILL.md" in names:
        return "SKILL.md"
    for n in names:
        if n.lower() == "skill.md":
            return n
    return None


def enclosing_skill(path: Path, cwd: Path) -> Path | None:
    """The folder of the nearest SKILL.md at or above the folder that holds the file ``path``.
    The search goes up to the root of the repository around the file (the first folder with
    ``.git``); outside a repository, up to ``cwd`` when the file lies below it, else not past
    the file's own folder. None when there is no SKILL.md in that range."""
    start = Path(os.path.abspath(path)).parent
    here = Path(os.path.abspath(cwd))
    folders = [start, *start.parents]
    ceiling = next((d for d in folders if (d / ".git").exists()), None)
    if ceiling is None:
        ceiling = here if here in folders else start
    for d in folders:
        try:
            names = [e.name for e in os.scandir(d) if not e.is_dir()]
        except OSError:
            return None
        if _skill_md_name(names) is not None:
            return d
        if d == ceiling:
            return None
    return None


def find_skills(
    start: Path, exclude: tuple[str, ...], cwd: Path, base: Path | None = None
) -> tuple[list[Skill], list[Diagnostic]]:
    """Every folder holding a SKILL.md under ``start`` (which may itself be one).
    ``exclude`` patterns are relative to ``base`` (the config file's folder)."""
    problems: list[Diagnostic] = []
    start_abs = Path(os.path.abspath(start))
    if start_abs.is_file():
        start_abs = start_abs.parent
    skills: list[Skill] = []
    base = Path(os.path.abspath(base)) if base is not None else start_abs
    stack = [start_abs]
    seen: set[tuple[int, int]] = set()
    while stack:
        d = stack.pop()
        entries = _list_new_dir(d, seen, cwd, problems)
        if entries is None:
            continue
        md = _skill_md_name(_file_names(entries, cwd, problems))
        if md is not None:
            skills.append(
                Skill(
                    root=d,
                    display_root=display_path(d, cwd),
                    skill_md=md,
                    is_repo_root=(d / ".git").exists(),
                )
            )
        stack.extend(_subfolders(entries, exclude, base, start_abs))
    if not skills:
        problems.append(
            diagnostic(
                display_path(start_abs, cwd),
                0,
                0,
                "SC101",
                "no SKILL.md found here or in any folder below",
                "a skill is a folder with a SKILL.md file at its top",
            )
        )
    skills.sort(key=lambda s: s.root.as_posix())
    return skills, problems


def _list_new_dir(
    d: Path, seen: set[tuple[int, int]], cwd: Path, problems: list[Diagnostic]
) -> list[os.DirEntry[str]] | None:
    """The entries of folder ``d``; None when it was listed already (by device and inode:
    symlink loops) or cannot be listed (SC220, appended to ``problems``)."""
    try:
        st = d.stat()
        key = (st.st_dev, st.st_ino)
        if key in seen:
            return None
        seen.add(key)
        return list(os.scandir(d))
    except OSError as exc:
        problems.append(
            diagnostic(
                display_path(d, cwd),
                0,
                0,
                "SC220",
                f"cannot list directory: {exc.strerror or exc}",
                "check permissions",
            )
        )
        return None


def _file_names(entries: list[os.DirEntry[str]], cwd: Path, problems: list[Diagnostic]) -> set[str]:
    """Names of the entries that are not folders (or cannot be told apart); a folder named
    SKILL.md in any case is a problem (SC101, appended to ``problems``)."""
    file_names = set()
    for e in entries:
        try:
            if not e.is_dir():
                file_names.add(e.name)
            elif e.name.lower() == "skill.md":
                problems.append(
                    diagnostic(
                        display_path(Path(e.path), cwd),
                        0,
                        0,
                        "SC101",
                        f"{e.name} is a folder, not a file",
                        "SKILL.md must be a Markdown file",
                    )
                )
        except OSError:
            file_names.add(e.name)
    return file_names


def _subfolders(
    entries: list[os.DirEntry[str]], exclude: tuple[str, ...], base: Path, start_abs: Path
) -> list[Path]:
    """The folders to walk next, in reverse name order (the stack pops them in name order):
    not skipped (hidden ones are walked but for those in SKIP_DIRS), not symlinks, not
    excluded."""
    out: list[Path] = []
    for e in sorted(entries, key=lambda e: e.name, reverse=True):
        if e.name in SKIP_DIRS:
            continue
        try:
            if not e.is_dir(follow_symlinks=False):
                continue
        except OSError:
            continue
        rel = _rel_to(Path(e.path), base) or Path(e.path).relative_to(start_abs).as_posix()
        if _excluded(rel, exclude):
            continue
        out.append(Path(e.path))
    return out


def collect_files(
    skill: Skill, other_roots: set[Path], exclude: tuple[str, ...], exclude_base: Path
) -> None:
    """Fill ``skill.files``: everything below the skill but nested skills and skipped folders.
    Folders are walked depth first in name order, each folder's files before its subfolders
    (the order ``os.walk`` gives); a folder that cannot be listed is passed over."""
    root = skill.root
    stack: list[tuple[str, str]] = [(os.fspath(root), "")]  # (folder, its path from root)
    while stack:
        folder, rel_dir = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        dirs: list[os.DirEntry[str]] = []
        files: list[os.DirEntry[str]] = []
        for e in entries:
            try:
                is_dir = e.is_dir()
            except OSError:
                is_dir = False
            (dirs if is_dir else files).append(e)
        keep = [
            (e.path, rel_dir + e.name)
            for e in dirs
            if _walk_into(skill, Path(e.path), other_roots, exclude, exclude_base)
        ]
        stack.extend(reversed([(path, rel + "/") for path, rel in keep]))
        for e in files:
            fn = e.name
            if fn.startswith(".") and fn != ".gitkeep":
                continue
            rel = rel_dir + fn
            if e.is_symlink():
                skill.symlinks.add(rel)
                if not _check_symlink(skill, Path(e.path)):
                    continue
            skill.files.append(rel)
            if os.path.splitext(fn)[1].lower() in MARKDOWN_SUFFIXES:
                skill.markdown.append(rel)


def _walk_into(
    skill: Skill, sub: Path, other_roots: set[Path], exclude: tuple[str, ...], exclude_base: Path
) -> bool:
    """Whether ``collect_files`` walks into the folder ``sub``: not skipped, hidden, a nested
    skill or excluded; a symlink to a folder is recorded (and checked) but not walked."""
    dn = sub.name
    if dn in SKIP_DIRS or dn.startswith(".") or sub in other_roots:
        return False
    rel_ex = _rel_to(sub, exclude_base) or ""
    if rel_ex and _excluded(rel_ex, exclude):
        return False
    rel = sub.relative_to(skill.root).as_posix()
    skill.dirs.add(rel)
    if sub.is_symlink():
        skill.symlinks.add(rel)
        _check_symlink(skill, sub)
        return False
    return True


def _check_symlink(skill: Skill, p: Path) -> bool:
    """Report a broken, looping or escaping symlink; True when it is usable."""
    rel = p.relative_to(skill.root).as_posix()
    try:
        target = p.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        msg = (
            "symlink loops"
            if "loop" in str(exc).lower() or isinstance(exc, RuntimeError)
            else "symlink is broken"
        )
        skill.problems.append(
            diagnostic(
                skill.display(rel),
                0,
                0,
                "SC224",
                f"{msg}: {rel} -> {os.readlink(p)}",
                "fix or remove the link",
            )
        )
        return False
    try:
        target.relative_to(skill.root)
    except ValueError:
        code = "SC126" if rel.lower() == "skill.md" else "SC226"
        skill.problems.append(
            diagnostic(
                skill.display(rel),
                0,
                0,
                code,
                f"{rel} is a symlink to {target}, outside the skill",
                "copy the file into the skill: a packed or installed skill does not carry the target",
            )
        )
        return False
    return True


@dataclass
class ReadResult:
    text: str | None
    data: bytes | None
    problem: Diagnostic | None


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters, as every other position) of a byte offset."""
    start = data.rfind(b"\n", 0, offset) + 1
    return (
        data.count(b"\n", 0, offset) + 1,
        len(data[start:offset].decode("utf-8", errors="replace")) + 1,
    )


def _unreadable(display: str, exc: OSError) -> ReadResult:
    """A file that cannot be read (SC220): reported, never raised."""
    return ReadResult(
        None,
        None,
        diagnostic(
            display, 1, 1, "SC220", f"cannot read file: {exc.strerror or exc}", "check permissions"
        ),
    )


def read_markdown(path: Path, display: str, max_bytes: int) -> ReadResult:
    try:
        size = path.stat().st_size
    except OSError as exc:
        return _unreadable(display, exc)
    if size > max_bytes:
        return ReadResult(
            None,
            None,
            diagnostic(
                display,
                0,
                0,
                "SC223",
                f"file is {size:,} bytes, over the {max_bytes:,}-byte cap",
                "split the file, or raise max-file-bytes in [tool.skillcheck]",
            ),
        )
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        return _unreadable(display, exc)
    if b"\x00" in data:
        off = data.index(b"\x00")
        line, col = _position(data, off)
        return ReadResult(
            None,
            data,
            diagnostic(
                display,
                line,
                col,
                "SC222",
                f"binary data (NUL byte at byte offset {off})",
                "Markdown files must be text; move binary files out of the Markdown",
            ),
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _position(data, exc.start)
        return ReadResult(
            None,
            data,
            diagnostic(
                display,
                line,
                col,
                "SC221",
                f"not valid UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start}",
                "re-save the file as UTF-8",
            ),
        )
    return ReadResult(text, data, None)
