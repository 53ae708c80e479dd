# ruff: noqa
from typing import List, Literal, Optional

import msgspec

from sglang.srt.arg_groups.arg_utils import A, Arg
from sglang.srt.arg_groups.choices import QUANTIZATION_CHOICES


class Model(msgspec.Struct):
    _NS_PATH = "model"

    model_path: A[str, Arg(help="The path of the model weights.", aliases=["--model"])]
    quantization: A[
        Optional[str], Arg(help="The quantization method.", choices=QUANTIZATION_CHOICES)
    ] = None
    dtype: A[Literal["auto", "half", "bfloat16"], "Data type."] = "auto"
    trust_remote_code: A[bool, "Allow custom models."] = False
    hidden_knob: A[bool, Arg(no_cli=True)] = False
    plain_field: int = 0
