"""'Did you mean' hints in bounded time.

A hint compares the name that was not found with names that exist. Compared with all of them,
its cost grows with the skill: 600 broken links in a skill of 10,000 files make six million
comparisons. Here the candidates are indexed once (per skill for paths, per file for anchors)
and a hint compares the missing name only with a bounded set of them, whatever the number of
names:

- those with the same name, the same name up to case, or the same normalised stem (case,
  punctuation and extension ignored: ``Tuning_Guide.md`` ~ ``tuning-guide.markdown``);
- those whose normalised stem is one edit away (a letter missing, extra, changed, or two
  swapped), found by the deletions both share (symmetric-delete lookup);
- those in the same folder, and those whose stem starts with the same three characters;
- those in the three folders whose paths are most like the missing path's folder (itself
  found the same way among the skill's folders).

From each bucket only the ``WINDOW`` names nearest to the missing one in sorted order are
taken. The best of these candidates is chosen as before (``difflib.get_close_matches``), so a
set of names no larger than ``SMALL`` gives exactly the answer a comparison with every name
gives.
"""

from __future__ import annotations

import bisect
import difflib
import posixpath
import re
from collections.abc import Collection, Iterable, Sequence

SMALL = 64  # at most this many names: compare with all of them
WINDOW = 8  # names taken from each bucket, nearest to the missing one in sorted order
PREFIX = 3
NEAR_FOLDERS = 3  # folders most like a missing path's folder whose files are candidates too
_PUNCT = re.compile(r"[\W_]+")


def _stem(name: str) -> str:
    """The name without its extension, casefolded, with punctuation removed."""
    base, dot, _ = name.rpartition(".")
    return _PUNCT.sub("", (base if dot and base else name).casefold())


def _deletions(word: str) -> list[str]:
    return [word[:i] + word[i + 1 :] for i in range(len(word))]


def _near(bucket: list[str] | None, value: str) -> list[str]:
    """The ``WINDOW`` entries of a sorted bucket nearest to ``value`` in sorted order."""
    if not bucket:
        return []
    if len(bucket) <= WINDOW:
        return bucket
    i = bisect.bisect_left(bucket, value)
    lo = max(0, min(i - WINDOW // 2, len(bucket) - WINDOW))
    return bucket[lo : lo + WINDOW]


class NearIndex:
    """Candidates indexed for near misses: each value is filed under the buckets of its key
    (for a path, the key is its file name and its folder is a bucket too)."""

    def __init__(self, pairs: Iterable[tuple[str, str, str | None]]) -> None:
        """``pairs``: (key, value, folder or None)."""
        buckets: dict[tuple[str, str], list[str]] = {}
        self.size = 0
        for key, value, folder in pairs:
            self.size += 1
            stem = _stem(key)
            kinds = [("name", key), ("fold", key.casefold()), ("stem", stem)]
            kinds += [("prefix", stem[:PREFIX])] if len(stem) >= PREFIX else []
            kinds += [("del", d) for d in _deletions(stem)]
            kinds += [("folder", folder)] if folder is not None else []
            for kind in kinds:
                buckets.setdefault(kind, []).append(value)
        for values in buckets.values():
            values.sort()
        self._buckets = buckets

    def candidates(self, key: str, value: str, folder: str | None = None) -> list[str]:
        """At most a few dozen values near ``key`` (whose own value would be ``value``)."""
        stem = _stem(key)
        kinds = [("name", key), ("fold", key.casefold()), ("stem", stem), ("del", stem)]
        kinds += [("prefix", stem[:PREFIX])] if len(stem) >= PREFIX else []
        # one edit away: a deletion of the missing stem is a stem, or both lose a letter
        for d in _deletions(stem):
            kinds += [("stem", d), ("del", d)]
        if folder is not None:
            kinds.append(("folder", folder))
        found: set[str] = set()
        for kind in kinds:
            found.update(_near(self._buckets.get(kind), value))
        return sorted(found)

    def in_folder(self, folder: str, value: str) -> list[str]:
        """The values filed under ``folder`` nearest to ``value`` in sorted order."""
        return _near(self._buckets.get(("folder", folder)), value)


def closest(word: str, candidates: Iterable[str], cutoff: float) -> str | None:
    """The candidate most like ``word``: what ``difflib.get_close_matches(word, candidates,
    n=1, cutoff=cutoff)`` returns (the highest ratio, the greater string on a tie), with the
    costly ratio computed only while a candidate's upper bound (its quick ratio) can still
    beat the best found."""
    sm = difflib.SequenceMatcher()
    sm.set_seq2(word)
    bounded: list[tuple[float, str]] = []
    for x in candidates:
        sm.set_seq1(x)
        if sm.real_quick_ratio() >= cutoff:
            bound = sm.quick_ratio()
            if bound >= cutoff:
                bounded.append((bound, x))
    bounded.sort(reverse=True)
    best: tuple[float, str] | None = None
    for bound, x in bounded:
        if best is not None and bound < best[0]:
            break
        sm.set_seq1(x)
        score = sm.ratio()
        if score >= cutoff and (best is None or (score, x) > best):
            best = (score, x)
    return best[1] if best else None


class PathHints:
    """The files of one skill, indexed once for hints about paths that do not exist."""

    def __init__(self, files: Sequence[str]) -> None:
        self.files = files
        self.index: NearIndex | None = None
        self.folders: NearIndex | None = None
        if len(files) > SMALL:
            self.index = NearIndex((posixpath.basename(f), f, posixpath.dirname(f)) for f in files)
            self.folders = NearIndex(
                (posixpath.basename(d), d, posixpath.dirname(d))
                for d in sorted({posixpath.dirname(f) for f in files})
            )

    def closest(self, missing: str, cutoff: float = 0.7) -> str | None:
        """The existing path most like ``missing`` (both from the skill root)."""
        if self.index is None or self.folders is None:
            return closest(missing, self.files, cutoff)
        name, folder = posixpath.basename(missing), posixpath.dirname(missing)
        found = set(self.index.candidates(name, missing, folder))
        # a folder misspelt: the files of the NEAR_FOLDERS folders most like it
        near = self.folders.candidates(
            posixpath.basename(folder), folder, posixpath.dirname(folder)
        )
        for d in difflib.get_close_matches(folder, near, n=NEAR_FOLDERS, cutoff=0.6):
            found.update(self.index.in_folder(d, d + "/" + name if d else name))
        return closest(missing, sorted(found), cutoff)


_LAST: list[PathHints] = []  # the index of the skill being checked (skills come one by one)


def closest_path(files: Sequence[str], missing: str, cutoff: float = 0.7) -> str | None:
    """The file of ``files`` (one skill's, from its root) most like ``missing``; the index is
    built on the first hint a skill needs and kept while the same list of files is asked."""
    if not _LAST or _LAST[0].files is not files or len(_LAST[0].files) != len(files):
        _LAST[:] = [PathHints(files)]
    return _LAST[0].closest(missing, cutoff)


_NAMES: dict[int, tuple[Collection[str], NearIndex]] = {}  # id -> (the names, their index)


def closest_name(word: str, names: Collection[str], cutoff: float = 0.6) -> str | None:
    """The name most like ``word`` (the heading anchors of one file): compared with all of them
    when they are few, else with the bounded candidates of an index built once per collection
    (kept while the collection is, so ask with the same object each time)."""
    if len(names) <= SMALL:
        return closest(word, sorted(names), cutoff)
    got = _NAMES.get(id(names))
    if got is None or got[0] is not names or got[1].size != len(names):
        if len(_NAMES) >= 256:
            _NAMES.clear()
        got = _NAMES[id(names)] = (names, NearIndex((n, n, None) for n in sorted(names)))
    return closest(word, got[1].candidates(word, word), cutoff)
