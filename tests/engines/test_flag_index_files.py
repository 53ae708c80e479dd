"""The committed flag index: every file regenerates, byte for byte, from the committed inputs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillcheck.engines import load_manifest
from skillcheck.engines.flagindex import INDEX_FILES, dumps_index, load_index
from tools.manifests.__main__ import main
from tools.manifests.history import default_at, load_history
from tools.manifests.index import INDEX_DIR, generate_index, pinned_release


@pytest.mark.parametrize("engine", sorted(INDEX_FILES))
def test_index_is_in_sync_with_its_inputs(engine: str) -> None:
    path = INDEX_DIR / INDEX_FILES[engine]
    rows, orphans = generate_index(engine)
    assert orphans == []
    assert path.read_text(encoding="utf-8") == dumps_index(rows), (
        f"run: python -m tools.manifests index {engine}"
    )


@pytest.mark.parametrize("engine", sorted(INDEX_FILES))
def test_every_option_of_the_pin_has_a_row(engine: str) -> None:
    rows = {r.option: r for r in load_index(INDEX_DIR / INDEX_FILES[engine])}
    manifest = load_manifest(engine)
    for opt in manifest.options:
        assert opt.name in rows
        assert rows[opt.name].default == (opt.default or "")
    for key in manifest.config_keys or {}:
        assert key in rows


@pytest.mark.parametrize("engine", ["vllm", "sglang", "llama.cpp"])
def test_history_tracks_six_releases_ending_at_the_pin(engine: str) -> None:
    history = load_history(engine)
    assert history is not None
    assert len(history.releases) == 6
    assert history.releases[-1] == pinned_release(load_manifest(engine))


def test_index_check_finds_the_files_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", "--all", "--check"]) == 0
    assert capsys.readouterr().out == ""


def test_index_check_reports_a_stale_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(INDEX_DIR, tmp_path / "engine-flags")
    stale = tmp_path / "engine-flags" / "vllm.tsv"
    stale.write_text(stale.read_text(encoding="utf-8").replace("\t8000\t", "\t8001\t"), "utf-8")
    assert main(["index", "vllm", "--check", "--dir", str(tmp_path / "engine-flags")]) == 1
    assert "vllm.tsv: out of date" in capsys.readouterr().out


def test_index_keeps_curated_cells_from_a_seed_file(tmp_path: Path) -> None:
    folder = tmp_path / "engine-flags"
    shutil.copytree(INDEX_DIR / "history", folder / "history")
    (folder / "vllm.tsv").write_text(
        "option\tmeaning\tcovered_by\n--port\tHTTP port.\tout-of-scope: test\n", "utf-8"
    )
    assert main(["index", "vllm", "--dir", str(folder)]) == 0
    rows = {r.option: r for r in load_index(folder / "vllm.tsv")}
    assert (rows["--port"].meaning, rows["--port"].covered_by) == (
        "HTTP port.",
        "out-of-scope: test",
    )
    (folder / "vllm.tsv").write_text("option\tmeaning\tcovered_by\n--gone\tOld.\t\n", "utf-8")
    assert main(["index", "vllm", "--dir", str(folder)]) == 1
    assert main(["index", "vllm", "--dir", str(folder), "--prune"]) == 0


def test_index_needs_one_engine_or_all() -> None:
    with pytest.raises(SystemExit):
        main(["index"])


@pytest.mark.parametrize("engine", ["vllm", "sglang", "llama.cpp"])
def test_history_agrees_with_the_pinned_manifest(engine: str) -> None:
    history = load_history(engine)
    assert history is not None
    manifest = load_manifest(engine)
    pin = pinned_release(manifest)
    at_pin = {n for n, h in history.options.items() if h.releases[-1] == pin}
    by_name = {o.name: o for o in sorted(manifest.options, key=lambda o: o.commands or ())}
    assert at_pin == set(by_name)
    for name in sorted(at_pin):
        assert default_at(history.options[name], pin) == by_name[name].default, name
