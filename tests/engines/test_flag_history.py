"""Option history and index rows, from small hand-made manifests of three releases."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillcheck.engines import Manifest, Option
from skillcheck.engines.flagindex import dumps_index
from tools.manifests.__main__ import main
from tools.manifests.history import (
    build_history,
    expand,
    history_from_json,
    history_to_json,
    parse_release,
    ranges,
    successor_in,
)
from tools.manifests.index import build_index

RELEASES = ["1.0", "1.1", "1.2"]
SAMPLES = Path(__file__).resolve().parent / "samples"


def _manifest(version: str, *options: Option) -> Manifest:
    return Manifest(engine="vllm", version=version, commands=("vllm serve",), options=options)


def _history_manifests() -> list[tuple[str, Manifest]]:
    port = Option("--port", type="int", default="8000")
    return [
        (
            "1.0",
            _manifest(
                "1.0",
                port,
                Option("--gpu-mem", type="float", default="0.9"),
                Option("--old-flag", type="bool", takes_value=False, default="false"),
                Option("--short-lived", default="x"),
            ),
        ),
        (
            "1.1",
            _manifest(
                "1.1",
                port,
                Option("--gpu-mem", type="float", default="0.92"),
                Option(
                    "--old-flag",
                    type="bool",
                    takes_value=False,
                    default="false",
                    deprecated="--old-flag is deprecated; use --new-flag instead.",
                ),
                Option("--new-flag", type="bool", takes_value=False, default="false"),
            ),
        ),
        (
            "1.2",
            _manifest(
                "1.2",
                port,
                Option("--gpu-mem", type="float", default="0.92", aliases=("--gpu-memory",)),
                Option("--new-flag", type="bool", takes_value=False, default="false"),
                Option("--mode", choices=("a", "b"), default="a"),
            ),
        ),
    ]


def test_ranges_and_expand() -> None:
    releases = ["1", "2", "3", "4", "5"]
    assert ranges(["1", "2", "4"], releases) == "1-2,4"
    assert ranges(["5"], releases) == "5"
    assert expand("1-2,4", releases) == ["1", "2", "4"]


def test_successor_is_read_from_the_message_only_when_it_is_an_option() -> None:
    spellings = {"--new": "--new", "--alias": "--new", "--cfg": "--cfg"}
    assert successor_in("deprecated; use --new instead", spellings) == "--new"
    assert successor_in("Deprecated alias for --alias.", spellings) == "--new"
    assert successor_in("Use --cfg.level instead", spellings) == "--cfg.level"
    assert successor_in("use --unknown instead", spellings) is None
    assert successor_in("deprecated, no replacement", spellings) is None
    assert successor_in(None, spellings) is None


def test_history_records_releases_defaults_status_and_successor() -> None:
    history = build_history("vllm", _history_manifests())
    assert history.releases == RELEASES
    gpu = history.options["--gpu-mem"]
    assert gpu.releases == RELEASES
    assert gpu.defaults == {"1.0": "0.9", "1.1": "0.92"}
    old = history.options["--old-flag"]
    assert old.releases == ["1.0", "1.1"]
    assert old.status == {"1.0": "current", "1.1": "deprecated"}
    assert old.successor == "--new-flag"
    assert history.options["--mode"].releases == ["1.2"]
    text = history_to_json(history, "cmd")
    again = history_from_json(text)
    assert history_to_json(again, "cmd") == text


def test_index_rows_for_current_and_removed_options() -> None:
    manifests = _history_manifests()
    history = build_history("vllm", manifests)
    curated = {"--port": ("HTTP port.", "references/serving.md#port")}
    rows, orphans = build_index(manifests[-1][1], history, curated)
    assert orphans == []
    assert dumps_index(rows) == (
        "option\taliases\ttype\tdefault\tmeaning\tstatus\treleases\tchanges\tcovered_by\n"
        "--gpu-mem\t--gpu-memory\tfloat\t0.92\t\tcurrent\t1.0-1.2\tdefault 0.9 -> 0.92 in 1.1\t\n"
        "--mode\t\ta|b\ta\t\tcurrent\t1.2\tadded in 1.2\t\n"
        "--new-flag\t\tbool\tfalse\t\tcurrent\t1.1-1.2\tadded in 1.1; replaces --old-flag\t\n"
        "--old-flag\t\tbool\t\t\tremoved -> --new-flag\t1.0-1.1\tdeprecated in 1.1; "
        "removed in 1.2\t\n"
        "--port\t\tint\t8000\tHTTP port.\tcurrent\t1.0-1.2\t\treferences/serving.md#port\n"
        "--short-lived\t\tstr\t\t\tremoved\t1.0\tremoved in 1.1\t\n"
    )


def test_curated_cells_of_a_vanished_option_are_reported() -> None:
    manifests = _history_manifests()
    rows, orphans = build_index(manifests[-1][1], None, {"--gone": ("text", "")})
    assert orphans == ["--gone"]
    assert [r.releases for r in rows if r.option == "--port"] == ["1.2"]


def test_history_cli_reads_two_sample_releases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old"
    shutil.copytree(SAMPLES / "vllm", old)
    cache = old / "vllm" / "config" / "cache.py"
    cache.write_text(
        cache.read_text(encoding="utf-8").replace("Field(default=0.92", "Field(default=0.9"),
        encoding="utf-8",
    )
    argv = ["history", "vllm", "--releases", f"9.9.8={old}", f"9.9.9={SAMPLES / 'vllm'}"]
    assert main([*argv, "--stdout"]) == 0
    history = history_from_json(capsys.readouterr().out)
    assert history.releases == ["9.9.8", "9.9.9"]
    assert history.options["--gpu-memory-utilization"].defaults == {"9.9.8": "0.9", "9.9.9": "0.92"}
    assert main([*argv, "--output", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "vllm.json").is_file()


def test_history_cli_needs_a_version_it_can_read(tmp_path: Path) -> None:
    assert main(["history", "vllm", "--releases", str(tmp_path)]) == 1
    assert parse_release("vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl").version == "0.33.0"
    assert parse_release("llama_cpp_python-0.3.36.tar.gz").version == "0.3.36"
