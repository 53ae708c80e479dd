"""Where a local link points: one resolver for the link rules (SC20x), the rule context and
``pack``.

A target is split at its first '#' (the fragment), a query is dropped, percent-escapes are
decoded after the split (so '%23' stays in the file name), and the path is joined to the folder
of the file that holds the link and normalised, relative to the skill root.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_WINDOWS_ABSOLUTE = re.compile(r"^[A-Za-z]:[\\/]")


def is_external(target: str) -> bool:
    """A URL (any scheme) or a protocol-relative '//host' address: not a file of the skill."""
    return bool(_SCHEME.match(target)) or target.startswith("//")


def split_target(target: str) -> tuple[str, str | None]:
    """(path, fragment) of a link target as written; the fragment is None without a '#'."""
    path, sharp, frag = target.partition("#")
    if "?" in path:
        path = path.split("?", 1)[0]
    if "%" in target:
        return unquote(path), (unquote(frag) if sharp else None)
    return path, (frag if sharp else None)


def is_absolute(path: str) -> bool:
    return path.startswith("/") or bool(_WINDOWS_ABSOLUTE.match(path))


def join(base: str, path: str) -> str | None:
    """``path`` joined to the skill-relative folder ``base``, normalised ('' = the skill root);
    None when it leaves the skill."""
    joined = posixpath.normpath(posixpath.join(base, path))
    if joined == ".":
        return ""
    if joined == ".." or joined.startswith("../") or joined.startswith("/"):
        return None
    return joined


def local_file(from_rel: str, target: str) -> str | None:
    """The skill-relative file a local link in ``from_rel`` names, or None: external, anchor
    only, absolute, the skill root itself, or leaving the skill."""
    target = target.strip()
    if not target or target.startswith(("#", "\\")) or is_external(target):
        return None
    path, _ = split_target(target)
    if not path or is_absolute(path):
        return None
    return join(posixpath.dirname(from_rel), path) or None
