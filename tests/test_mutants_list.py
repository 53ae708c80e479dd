"""benchmarks/mutants.py stays runnable: every mutant's snippet is in its file exactly once and
every test it names exists (running the mutants themselves takes minutes: run the script)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from .conftest import ROOT


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutants", ROOT / "benchmarks" / "mutants.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutants"] = module
    spec.loader.exec_module(module)
    return module


def test_every_snippet_is_found_once() -> None:
    mutants = _script()
    assert mutants.check_snippets(mutants.MUTANTS) == []


def test_names_are_unique_and_tests_exist() -> None:
    mutants = _script()
    names = [m.name for m in mutants.MUTANTS]
    assert len(names) == len(set(names))
    for m in mutants.MUTANTS:
        assert m.original != m.replacement and m.description and m.tests, m.name
        for test in m.tests:
            path, _, node = test.partition("::")
            assert (ROOT / path).is_file(), (m.name, test)
            if node:
                assert f"def {node}(" in (ROOT / path).read_text(encoding="utf-8"), (m.name, test)


def test_bad_arguments_exit_2() -> None:
    assert _script().main(["--only", "no-such-mutant"]) == 2
