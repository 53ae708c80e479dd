"""The result memo: one store per checked tree, correct under --jobs N (the entries that forked
workers make are written by the parent), and old entries pruned at write."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

import skillcheck.resultmemo as memo_mod
import skillcheck.runner as runner
from skillcheck.config import Config
from skillcheck.runner import run

SKILL = """---
name: {name}
description: Demo skill {n}. Use when testing.
---

# Demo

```python
print({n})
```
"""


@pytest.fixture
def cache_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "cache"
    memo_mod._ACTIVE = None


def _tree(base: Path, count: int, offset: int = 0) -> Path:
    for n in range(count):
        d = base / f"skill-{n}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "SKILL.md").write_text(SKILL.format(name=d.name, n=n + offset), encoding="utf-8")
    return base


def _entries(cache_dir: Path) -> dict[str, object]:
    (store,) = cache_dir.glob("memo-v*-*.pickle")
    data = pickle.loads(store.read_bytes())
    assert isinstance(data, dict)
    return data


def _blocks(cache_dir: Path) -> set[str]:
    return {k for k in _entries(cache_dir) if k.startswith("block-python:")}


def test_entries_made_in_forked_workers_are_written(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "PARALLEL_SKILLS", 2)
    forked: list[int] = []
    real = runner.fork_map

    def counting(*args: object) -> object:
        forked.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "fork_map", counting)
    tree = _tree(tmp_path / "tree", 6)
    run([tree], Config(cache=True, cache_dir=str(cache_dir), jobs=2), tmp_path)
    assert forked, "the checkers did not run on forked workers"
    assert len(_blocks(cache_dir)) == 6  # one per skill's block, all made in the workers
    # the next run (forked again) reads them: nothing is compiled a second time
    memo_mod._ACTIVE = None
    compiled: list[int] = []
    from skillcheck.rules import codeblocks

    lang, check = codeblocks.CHECKS["python"]
    monkeypatch.setitem(
        codeblocks.CHECKS, "python", (lang, lambda fence: compiled.append(1) or check(fence))
    )
    run([tree], Config(cache=True, cache_dir=str(cache_dir), jobs=1), tmp_path)
    assert compiled == []
    assert len(_blocks(cache_dir)) == 6


def test_one_store_per_checked_tree(tmp_path: Path, cache_dir: Path) -> None:
    tree = _tree(tmp_path / "tree", 5)
    run([tree], Config(cache=True, cache_dir=str(cache_dir)), tmp_path)
    assert len(list(cache_dir.glob("memo-v*-*.pickle"))) == 1
    assert len(_blocks(cache_dir)) == 5
    other = _tree(tmp_path / "other", 2)
    run([other], Config(cache=True, cache_dir=str(cache_dir)), tmp_path)
    assert len(list(cache_dir.glob("memo-v*-*.pickle"))) == 2  # a second tree, a second store


def test_old_entries_are_pruned(tmp_path: Path, cache_dir: Path) -> None:
    tree = _tree(tmp_path / "tree", 3)
    cache_dir.mkdir()
    stale = cache_dir / "memo-v1-0123456789abcdef.pickle"  # an older skillcheck's store
    stale.write_bytes(pickle.dumps({"x": 1}))
    run([tree], Config(cache=True, cache_dir=str(cache_dir)), tmp_path)
    before = _blocks(cache_dir)
    assert len(before) == 3 and not stale.exists()
    _tree(tmp_path / "tree", 3, offset=100)  # every block changes
    run([tree], Config(cache=True, cache_dir=str(cache_dir)), tmp_path)
    after = _blocks(cache_dir)
    assert len(after) == 3 and not before & after  # the old results are gone, not kept


def test_no_store_without_the_cache(tmp_path: Path, cache_dir: Path) -> None:
    run([_tree(tmp_path / "tree", 2)], Config(cache=False, cache_dir=str(cache_dir)), tmp_path)
    assert not cache_dir.exists() or not list(cache_dir.glob("memo-*"))
