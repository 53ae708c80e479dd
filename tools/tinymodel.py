"""A tiny random-weight Llama model, made here: the same weights as GGUF and in Hugging Face
format, with a byte-level BPE vocabulary built locally. Nothing is fetched.

    python -m tools.tinymodel --out DIR [--seed N]

writes ``DIR/tiny-llama.gguf`` and ``DIR/hf/`` (config.json, model.safetensors,
tokenizer.json, tokenizer_config.json, generation_config.json). The same seed gives
byte-identical files. The weights are noise: the model exists to start engines, not to
answer. Needs numpy and the ``gguf`` package (the test extra installs both).
"""

from __future__ import annotations

import argparse
import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

GGUF_NAME = "tiny-llama.gguf"
HF_DIR = "hf"
SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
LETTERS = "abcdefghijklmnopqrstuvwxyz"
# ChatML: a template that llama-server's Jinja engine and transformers both read.
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@dataclass(frozen=True)
class Shape:
    """The model's dimensions: small enough to load in well under a second on a CPU.
    Eight heads of 32: every tensor-parallel size the pack's commands give (up to 8) divides
    the head count, 32 is a head size vLLM's CPU attention takes, and a quantized KV cache
    (``-ctk q8_0``) needs a multiple of the 32-value block."""

    n_embd: int = 256
    n_layer: int = 2
    n_head: int = 8
    n_head_kv: int = 2  # grouped-query attention, as in current Llama models
    n_ff: int = 512
    n_ctx_train: int = 131072  # Llama 3.1's; at or above every context length the pack gives
    rms_eps: float = 1e-5
    rope_theta: float = 10000.0

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head


def _byte_chars() -> list[str]:
    """GPT-2's byte-to-character table: byte b is written as chars[b]."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    chars: dict[int, int] = {b: b for b in printable}
    extra = 0
    for b in range(256):
        if b not in chars:
            chars[b] = 256 + extra
            extra += 1
    return [chr(chars[b]) for b in range(256)]


def vocabulary() -> tuple[list[str], list[str]]:
    """(tokens, merges): the 256 byte characters, then every pair of lowercase letters and
    every letter after a space, each made by one merge; then the special tokens."""
    tokens = _byte_chars()
    space = tokens[ord(" ")]
    merges: list[str] = []
    for a in LETTERS:
        merges.append(f"{space} {a}")
    for a in LETTERS:
        for b in LETTERS:
            merges.append(f"{a} {b}")
    tokens += [m.replace(" ", "") for m in merges]
    tokens += list(SPECIALS)
    return tokens, merges


def _weights(shape: Shape, n_vocab: int, seed: int) -> dict[str, npt.NDArray[np.float32]]:
    """Hugging Face tensor names -> float32 arrays, in a fixed order, from one seeded stream."""
    rng = np.random.default_rng(seed)

    def normal(*dims: int) -> npt.NDArray[np.float32]:
        return (rng.standard_normal(dims) * 0.02).astype(np.float32)

    e, kv = shape.n_embd, shape.n_head_kv * shape.head_dim
    out: dict[str, npt.NDArray[np.float32]] = {"model.embed_tokens.weight": normal(n_vocab, e)}
    for i in range(shape.n_layer):
        p = f"model.layers.{i}."
        out[p + "input_layernorm.weight"] = np.ones(e, dtype=np.float32)
        out[p + "self_attn.q_proj.weight"] = normal(e, e)
        out[p + "self_attn.k_proj.weight"] = normal(kv, e)
        out[p + "self_attn.v_proj.weight"] = normal(kv, e)
        out[p + "self_attn.o_proj.weight"] = normal(e, e)
        out[p + "post_attention_layernorm.weight"] = np.ones(e, dtype=np.float32)
        out[p + "mlp.gate_proj.weight"] = normal(shape.n_ff, e)
        out[p + "mlp.up_proj.weight"] = normal(shape.n_ff, e)
        out[p + "mlp.down_proj.weight"] = normal(e, shape.n_ff)
    out["model.norm.weight"] = np.ones(e, dtype=np.float32)
    out["lm_head.weight"] = normal(n_vocab, e)
    return out


def _permute(w: npt.NDArray[np.float32], n_head: int) -> npt.NDArray[np.float32]:
    """Hugging Face's rotary layout to GGUF's, as convert_hf_to_gguf.py does for Q and K."""
    rows = w.shape[0]
    return np.ascontiguousarray(
        w.reshape(n_head, 2, rows // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)
    )


_GGUF_NAMES = {
    "input_layernorm": "attn_norm",
    "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output",
    "post_attention_layernorm": "ffn_norm",
    "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}


def _gguf_tensor(name: str, w: npt.NDArray[np.float32], shape: Shape) -> tuple[str, Any]:
    if name == "model.embed_tokens.weight":
        return "token_embd.weight", w
    if name == "model.norm.weight":
        return "output_norm.weight", w
    if name == "lm_head.weight":
        return "output.weight", w
    _, _, layer, rest = name.split(".", 3)
    module = rest.removesuffix(".weight")
    if module == "self_attn.q_proj":
        w = _permute(w, shape.n_head)
    elif module == "self_attn.k_proj":
        w = _permute(w, shape.n_head_kv)
    return f"blk.{layer}.{_GGUF_NAMES[module]}.weight", w


def write_gguf(path: Path, shape: Shape, seed: int) -> None:
    import gguf

    tokens, merges = vocabulary()
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name(f"tiny-llama-seed{seed}")
    w.add_context_length(shape.n_ctx_train)
    w.add_embedding_length(shape.n_embd)
    w.add_block_count(shape.n_layer)
    w.add_feed_forward_length(shape.n_ff)
    w.add_head_count(shape.n_head)
    w.add_head_count_kv(shape.n_head_kv)
    w.add_rope_dimension_count(shape.head_dim)
    w.add_rope_freq_base(shape.rope_theta)
    w.add_layer_norm_rms_eps(shape.rms_eps)
    w.add_vocab_size(len(tokens))
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    control = int(gguf.TokenType.CONTROL)
    w.add_token_types([control if t in SPECIALS else int(gguf.TokenType.NORMAL) for t in tokens])
    w.add_token_merges(merges)
    w.add_bos_token_id(tokens.index("<|endoftext|>"))
    w.add_eos_token_id(tokens.index("<|im_end|>"))
    w.add_add_bos_token(False)
    w.add_chat_template(CHAT_TEMPLATE)
    for name, arr in _weights(shape, len(tokens), seed).items():
        gname, garr = _gguf_tensor(name, arr, shape)
        w.add_tensor(gname, garr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_safetensors(path: Path, tensors: dict[str, npt.NDArray[np.float32]]) -> None:
    """The safetensors layout (an 8-byte little-endian header size, a JSON header, the raw
    little-endian data), written with numpy alone."""
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name in sorted(tensors):
        arr = tensors[name]
        header[name] = {
            "dtype": "F32",
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + arr.nbytes],
        }
        offset += arr.nbytes
    raw = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    raw += b" " * (-len(raw) % 8)  # the data starts 8-byte aligned
    with path.open("wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for name in sorted(tensors):
            f.write(np.ascontiguousarray(tensors[name], dtype="<f4").tobytes())


def _dump(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def _tokenizer_json(tokens: list[str], merges: list[str]) -> dict[str, Any]:
    byte_level = {"add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    added = [
        {
            "content": t,
            "id": tokens.index(t),
            "lstrip": False,
            "normalized": False,
            "rstrip": False,
            "single_word": False,
            "special": True,
        }
        for t in SPECIALS
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", **byte_level},
        "post_processor": {"type": "ByteLevel", **byte_level},
        "decoder": {"type": "ByteLevel", **byte_level},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": {t: i for i, t in enumerate(tokens) if t not in SPECIALS},
            "merges": merges,
        },
    }


def write_hf(folder: Path, shape: Shape, seed: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tokens, merges = vocabulary()
    write_safetensors(folder / "model.safetensors", _weights(shape, len(tokens), seed))
    bos, eos = tokens.index("<|endoftext|>"), tokens.index("<|im_end|>")
    _dump(
        folder / "config.json",
        {
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "hidden_size": shape.n_embd,
            "intermediate_size": shape.n_ff,
            "num_hidden_layers": shape.n_layer,
            "num_attention_heads": shape.n_head,
            "num_key_value_heads": shape.n_head_kv,
            "head_dim": shape.head_dim,
            "hidden_act": "silu",
            "max_position_embeddings": shape.n_ctx_train,
            "rms_norm_eps": shape.rms_eps,
            "rope_theta": shape.rope_theta,
            "vocab_size": len(tokens),
            "tie_word_embeddings": False,
            "bos_token_id": bos,
            "eos_token_id": eos,
            "torch_dtype": "float32",
        },
    )
    _dump(folder / "generation_config.json", {"bos_token_id": bos, "eos_token_id": eos})
    _dump(folder / "tokenizer.json", _tokenizer_json(tokens, merges))
    _dump(
        folder / "tokenizer_config.json",
        {
            "tokenizer_class": "PreTrainedTokenizerFast",
            "bos_token": "<|endoftext|>",
            "eos_token": "<|im_end|>",
            "pad_token": "<|endoftext|>",
            "add_bos_token": False,
            "model_max_length": shape.n_ctx_train,
            "chat_template": CHAT_TEMPLATE,
        },
    )


def make(out: Path, seed: int = 0, shape: Shape | None = None) -> Path:
    """Write both forms under ``out``; returns the GGUF file's path."""
    shape = shape or Shape()
    out.mkdir(parents=True, exist_ok=True)
    write_gguf(out / GGUF_NAME, shape, seed)
    write_hf(out / HF_DIR, shape, seed)
    return out / GGUF_NAME


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.tinymodel", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="folder to write into")
    parser.add_argument("--seed", type=int, default=0, help="weights' random seed (default 0)")
    args = parser.parse_args(argv)
    path = make(args.out, args.seed)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
