"""GitHub's heading anchors (the rules of github-slugger 2.0.0, ``script/generate-regex.js``)."""

from __future__ import annotations

import unicodedata

# Kept whole: letters, marks, decimal and letter numbers, connector punctuation ('_' and its
# kin), '-' and ' ' (which becomes '-'). Removed: other numbers (superscripts, fractions,
# circled digits), every other punctuation, symbols, separators, controls, format characters,
# private use and unassigned code points.
_KEEP_CATEGORIES = {"Nd", "Nl", "Pc"}
# Symbols that Unicode also counts as letters (Other_Alphabetic, category So): circled,
# parenthesised and squared Latin letters. github-slugger keeps them.
_ALPHABETIC_SYMBOLS = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))


def _kept(ch: str) -> bool:
    cat = unicodedata.category(ch)
    if cat[0] in "LM" or cat in _KEEP_CATEGORIES:
        return True
    if cat == "So":
        cp = ord(ch)
        return any(lo <= cp <= hi for lo, hi in _ALPHABETIC_SYMBOLS)
    return False


def slug(text: str) -> str:
    """Lowercase, drop what is neither a letter, a mark, a digit nor '_'-like, spaces to
    hyphens. Leading, trailing and repeated hyphens are kept, as GitHub keeps them."""
    out = []
    for ch in text.lower():
        if ch == " ":
            out.append("-")
        elif ch == "-" or _kept(ch):
            out.append(ch)
    return "".join(out)


class Slugger:
    """Gives each heading its anchor; duplicates get ``-1``, ``-2`` ... (a base's counter
    goes on from where it stopped, skipping anchors already taken)."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, text: str) -> str:
        base = slug(text)
        s = base
        while s in self._seen:
            self._seen[base] += 1
            s = f"{base}-{self._seen[base]}"
        self._seen[s] = 0
        return s
