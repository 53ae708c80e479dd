"""The tiny model: the same bytes for the same seed, a safetensors file that matches its
config."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest


def _files(folder: Path) -> dict[str, bytes]:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in files}


def test_same_seed_same_bytes_other_seed_other_weights(tmp_path: Path) -> None:
    pytest.importorskip("numpy", reason="numpy (test extra) writes the tiny model")
    pytest.importorskip("gguf", reason="gguf (test extra) writes the tiny model")
    from tools import tinymodel

    tinymodel.make(tmp_path / "a", seed=7)
    tinymodel.make(tmp_path / "b", seed=7)
    tinymodel.make(tmp_path / "c", seed=8)
    a, b, c = _files(tmp_path / "a"), _files(tmp_path / "b"), _files(tmp_path / "c")
    assert sorted(a) == [
        "hf/config.json",
        "hf/generation_config.json",
        "hf/model.safetensors",
        "hf/tokenizer.json",
        "hf/tokenizer_config.json",
        "tiny-llama.gguf",
    ]
    assert a == b
    assert a["hf/model.safetensors"] != c["hf/model.safetensors"]
    assert a["hf/tokenizer.json"] == c["hf/tokenizer.json"]
    assert sum(len(v) for v in a.values()) < 16_000_000


def test_safetensors_header_matches_the_config(tmp_path: Path) -> None:
    pytest.importorskip("numpy", reason="numpy (test extra) writes the tiny model")
    pytest.importorskip("gguf", reason="gguf (test extra) writes the tiny model")
    from tools import tinymodel

    tinymodel.make(tmp_path, seed=0)
    config = json.loads((tmp_path / "hf" / "config.json").read_text())
    raw = (tmp_path / "hf" / "model.safetensors").read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + size])
    embed = header["model.embed_tokens.weight"]
    assert embed["shape"] == [config["vocab_size"], config["hidden_size"]]
    last = max(v["data_offsets"][1] for k, v in header.items() if k != "__metadata__")
    assert 8 + size + last == len(raw)
