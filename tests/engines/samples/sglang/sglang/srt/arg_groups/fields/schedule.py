# ruff: noqa
import argparse
from typing import List, Optional

import msgspec

from sglang.srt.arg_groups.arg_utils import A, Arg


class Schedule(msgspec.Struct):
    _NS_PATH = "schedule"

    tp_size: A[int, Arg(help="Tensor parallel size.", aliases=["--tensor-parallel-size"])] = 1
    mem_fraction_static: A[Optional[float], "Fraction of memory for static allocation."] = None
    schedule_policy: A[
        str, Arg(help="The scheduling policy.", choices=["lpm", "random", "fcfs"])
    ] = "fcfs"
    cuda_graph_bs: A[Optional[List[int]], "Batch sizes to capture."] = None
    enable_tf32: A[Optional[bool], Arg(help="Use TF32.", action=argparse.BooleanOptionalAction)] = (
        None
    )
    disable_fast_thing: A[bool, "Deprecated. Use --thing-backend=slow instead."] = False
