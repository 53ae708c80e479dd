# ruff: noqa
from typing import Literal

from vllm.config.utils import config


@config
class SchedulerConfig:
    max_num_seqs: int = 128
    """Maximum number of sequences per iteration."""
    max_num_batched_tokens: int = 2048
    """Maximum number of batched tokens per iteration."""
    policy: Literal["fcfs", "priority"] = "fcfs"
    """Scheduling policy."""
    cuda_graph_sizes: list[int] = None
    """Batch sizes to capture."""
    backend: Literal["a", "b", "passthrough"] = "a"
    """Backend; "passthrough" is internal."""
