"""GitHub's heading anchors (the rules of github-slugger)."""

from __future__ import annotations

import unicodedata

_KEEP = {"-", "_", " "}


def slug(text: str) -> str:
    """Lowercase, drop punctuation and symbols (keep letters, marks, numbers, '-', '_'),
    spaces to hyphens. Repeated hyphens are kept, as GitHub keeps them."""
    out = []
    for ch in text.lower():
        if ch in _KEEP:
            out.append("-" if ch == " " else ch)
            continue
        cat = unicodedata.category(ch)
        if cat[0] in "LNM":
            out.append(ch)
    return "".join(out)


class Slugger:
    """Gives each heading its anchor; duplicates get ``-1``, ``-2`` ..."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, text: str) -> str:
        base = slug(text.strip())
        s = base
        n = self._seen.get(base, 0)
        while s in self._seen:
            n += 1
            s = f"{base}-{n}"
        self._seen[base] = n
        self._seen.setdefault(s, 0)
        return s
