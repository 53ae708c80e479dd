"""'Did you mean' hints in bounded time (skillcheck/hints.py): the same answer as a comparison
with every name for the near misses people make, from a candidate set whose size does not
grow with the skill."""

from __future__ import annotations

import difflib
import time
from pathlib import Path

import pytest

from skillcheck import hints
from skillcheck.config import Config
from skillcheck.hints import NearIndex, PathHints, closest_name, closest_path
from skillcheck.runner import run


def tree(folders: int, pages: int) -> list[str]:
    files = ["SKILL.md"]
    for f in range(folders):
        files += [f"references/topic-{f:02d}/page-{p:03d}.md" for p in range(pages)]
    files += [f"references/topic-{f:02d}/tuning_guide.md" for f in range(0, folders, 7)]
    return files


def everything(missing: str, files: list[str]) -> str | None:
    """The answer of a comparison with every file (what skillcheck did before the index)."""
    close = difflib.get_close_matches(missing, files, n=1, cutoff=0.7)
    return close[0] if close else None


NEAR_MISSES = [
    "references/topic-03/pgae-012.md",  # two letters swapped
    "references/topic-03/page-12.md",  # a letter missing
    "references/topic-03/page-0012.md",  # a letter too many
    "references/topic-03/paje-012.md",  # a letter changed
    "references/topic-03/Page-012.md",  # case
    "references/topic-03/page-012.markdown",  # extension
    "references/topics-03/page-012.md",  # a folder that does not exist
    "reference/topic-03/page-012.md",  # a top folder that does not exist
    "references/topic-07/tuning-guide.md",  # punctuation
    "references/topic-07/Tuning_Guide.md",
    "references/topic-07/tunning_guide.md",
    "references/topic-03/retired.md",  # nothing like it: no hint either way
    "scripts/run.py",
]


@pytest.mark.parametrize("missing", NEAR_MISSES)
def test_a_near_miss_gets_the_answer_of_a_full_comparison(missing: str) -> None:
    files = tree(40, 100)
    assert PathHints(files).index is not None  # the indexed path, not the small one
    assert PathHints(files).closest(missing) == everything(missing, files)


def test_the_expected_answers_are_found() -> None:
    # written from the names, not from either implementation
    files = tree(40, 100)
    ph = PathHints(files)
    assert ph.closest("references/topic-03/pgae-012.md") == "references/topic-03/page-012.md"
    assert ph.closest("references/topics-03/page-012.md") == "references/topic-03/page-012.md"
    assert ph.closest("references/topic-07/tunning_guide.md") == (
        "references/topic-07/tuning_guide.md"
    )
    assert ph.closest("scripts/run.py") is None


def test_the_candidate_set_does_not_grow_with_the_skill() -> None:
    small, large = tree(10, 100), tree(40, 1000)  # 1,000 and 40,000 files
    a = NearIndex((f.rsplit("/", 1)[-1], f, f.rpartition("/")[0]) for f in small)
    b = NearIndex((f.rsplit("/", 1)[-1], f, f.rpartition("/")[0]) for f in large)
    for missing in NEAR_MISSES:
        folder, name = missing.rsplit("/", 1)
        bound = hints.WINDOW * (6 + 2 * len(name))
        assert len(a.candidates(name, missing, folder)) <= bound
        assert len(b.candidates(name, missing, folder)) <= bound


def test_few_files_are_all_compared() -> None:
    files = [f"references/p{i}.md" for i in range(hints.SMALL)]
    ph = PathHints(files)
    assert ph.index is None
    assert ph.closest("references/p7.mdx") == everything("references/p7.mdx", files)


def test_the_index_is_built_once_per_skill_and_rebuilt_for_another() -> None:
    files = tree(5, 100)
    closest_path(files, "references/topic-01/pgae-001.md")
    first = hints._LAST[0]
    closest_path(files, "references/topic-02/pgae-002.md")
    assert hints._LAST[0] is first
    other = tree(6, 100)
    assert closest_path(other, "references/topic-05/pgae-001.md") == (
        "references/topic-05/page-001.md"
    )
    assert hints._LAST[0] is not first


def test_anchor_hints_among_many_headings() -> None:
    anchors = {f"step-{i}-configure-the-server" for i in range(500)} | {"pitfalls", "sources"}
    assert closest_name("pitfals", anchors) == "pitfalls"
    assert closest_name("step-17-configure-the-sever", anchors) == "step-17-configure-the-server"
    assert closest_name("nothing-alike-at-all-here", anchors) is None
    few = {"overview", "pitfalls"}
    assert closest_name("pitfal", few) == "pitfalls"


def test_many_broken_links_in_a_large_skill_are_quick(tmp_path: Path) -> None:
    """300 broken links in a skill of 3,000 files: each hinted, the whole check in seconds
    (comparing each with every file took about as long as parsing the tree several times)."""
    root = tmp_path / "big"
    (root / "references").mkdir(parents=True)
    lines = ["---\nname: big\ndescription: A large skill. Use in tests.\n---\n\n```text\n"]
    lines.append("references/p-*.md\n```\n\n")
    for i in range(3000):
        (root / "references" / f"p-{i:04d}.md").write_text(f"# Page {i}\n", encoding="utf-8")
    lines += [f"- [x](references/p-{i:04d}-old.md)\n" for i in range(0, 3000, 10)]
    (root / "SKILL.md").write_text("".join(lines), encoding="utf-8")
    t0 = time.perf_counter()
    result = run([root], Config(cache=False, jobs=1), tmp_path)
    elapsed = time.perf_counter() - t0
    assert [d.code for d in result.diagnostics] == ["SC201"] * 300
    first = result.diagnostics[0]
    assert first.hint == "did you mean 'references/p-0000.md' (from the skill root)?"
    assert elapsed < 60  # generous: the machine may be shared; about 1 s on one idle core


@pytest.mark.parametrize("cutoff", [0.0, 0.6, 0.7, 0.9])
def test_closest_is_get_close_matches(cutoff: float) -> None:
    import random

    rng = random.Random(7)
    words = ["".join(rng.choice("abcde-/") for _ in range(rng.randint(0, 12))) for _ in range(300)]
    for word in words[:60]:
        want = difflib.get_close_matches(word, words, n=1, cutoff=cutoff)
        assert hints.closest(word, words, cutoff) == (want[0] if want else None), word


def test_check_ranges_balance_the_files() -> None:
    from skillcheck.runner import _balanced

    assert _balanced([10] * 8 + [80], 2) == [(0, 8), (8, 9)]  # the large skill alone
    assert _balanced([1] * 10, 4) == [(0, 3), (3, 5), (5, 8), (8, 10)]
    assert _balanced([5], 8) == [(0, 1)]
    assert _balanced([], 2) == []
    ranges = _balanced([3, 1, 4, 1, 5, 9, 2, 6], 3)
    assert [i for a, b in ranges for i in range(a, b)] == list(range(8))  # each once, in order


def test_strip_prefix_reads_the_table_in_order() -> None:
    """One compiled pattern gives what matching each SKILL_DIR_PREFIXES entry in turn gives."""
    import re

    from skillcheck.mentions import SKILL_DIR_PREFIXES, strip_prefix

    def one_by_one(path: str, name: str) -> tuple[str, str] | None:
        for pattern, _ in SKILL_DIR_PREFIXES:
            m = re.match(pattern.replace("{name}", re.escape(name)), path)
            if m:
                return m.group(0), path[m.end() :]
        return None

    paths = ["{baseDir}/x.md", "${CLAUDE_SKILL_DIR}/a", "$CLAUDE_SKILL_DIR/a", "$SKILL_DIR/b"]
    paths += ["${SKILL_DIR}/b", "<skill-dir>/c", "<path-to-skill>/y", "{baseDir}x", "skills/demo"]
    for name in ("demo", "de.mo", "a+b", "other"):
        for where in ("~/.claude/skills/", ".claude/skills/", "skills/"):
            paths += [f"{where}{name}/f.md", f"{where}{name}x/f.md", f"{where}{name}/"]
    for name in ("demo", "de.mo", "a+b"):
        for path in [*paths, "references/a.md", "skills/demo.x/f", "~/.claude/skills/de.mo/z"]:
            assert strip_prefix(path, name) == one_by_one(path, name), (path, name)
    assert strip_prefix("skills/demo/scripts/run.py", "demo") == ("skills/demo/", "scripts/run.py")
