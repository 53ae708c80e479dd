# ruff: noqa
import argparse
import json
from dataclasses import dataclass

from vllm.config import CacheConfig, SchedulerConfig, SpeculativeConfig, VllmConfig
from vllm.utils.argparse_utils import FlexibleArgumentParser

PASSTHROUGH = "passthrough"

_OLD_FLAG_MESSAGE = "--old-flag is deprecated and has no effect. Use --new-flag instead."


def get_kwargs(cls): ...


def optional_type(return_type): ...


@dataclass
class EngineArgs:
    @staticmethod
    def add_cli_args(parser: FlexibleArgumentParser) -> FlexibleArgumentParser:
        cache_kwargs = get_kwargs(CacheConfig)
        cache_group = parser.add_argument_group(title="CacheConfig")
        cache_group.add_argument(
            "--gpu-memory-utilization",
            "--device-memory-utilization",
            **cache_kwargs["gpu_memory_utilization"],
        )
        cache_group.add_argument("--kv-cache-dtype", **cache_kwargs["cache_dtype"])
        cache_group.add_argument(
            "--enable-prefix-caching",
            **{**cache_kwargs["enable_prefix_caching"], "default": None},
        )
        cache_group.add_argument(
            "--prefix-caching-hash-algo", **cache_kwargs["prefix_caching_hash_algo"]
        )
        cache_group.add_argument("--old-mode", **cache_kwargs["old_mode"])

        scheduler_kwargs = get_kwargs(SchedulerConfig)
        scheduler_kwargs["backend"]["choices"].remove(PASSTHROUGH)
        scheduler_group = parser.add_argument_group(title="SchedulerConfig")
        scheduler_group.add_argument("--max-num-seqs", **scheduler_kwargs["max_num_seqs"])
        scheduler_group.add_argument(
            "--max-num-batched-tokens", **scheduler_kwargs["max_num_batched_tokens"]
        )
        scheduler_group.add_argument("--scheduling-policy", **scheduler_kwargs["policy"])
        scheduler_group.add_argument("--cuda-graph-sizes", **scheduler_kwargs["cuda_graph_sizes"])
        backend_kwargs = scheduler_kwargs["backend"]
        backend_kwargs["type"] = lambda s: s.lower().replace("-", "_")
        scheduler_group.add_argument("--sched-backend", **backend_kwargs)

        vllm_kwargs = get_kwargs(VllmConfig)
        vllm_kwargs["speculative_config"]["type"] = optional_type(json.loads)
        parser.add_argument("--speculative-config", "-sc", **vllm_kwargs["speculative_config"])
        speculative_kwargs = get_kwargs(SpeculativeConfig)
        parser.add_argument("--spec-method", **speculative_kwargs["method"])
        parser.add_argument("--additional-config", **vllm_kwargs["additional_config"])
        parser.add_argument(
            "--tensor-parallel-size", "-tp", type=int, default=1, help="Tensor parallel size."
        )
        parser.add_argument(
            "--old-flag",
            action=argparse.BooleanOptionalAction,
            default=None,
            help=_OLD_FLAG_MESSAGE,
        )
        parser.add_argument("--disable-log-stats", action="store_true", help="Disable stats.")
        parser.add_argument("--optimization-level", type=str, default="2", help="Level.")
        return parser


@dataclass
class AsyncEngineArgs(EngineArgs):
    @staticmethod
    def add_cli_args(parser: FlexibleArgumentParser, async_args_only: bool = False):
        if not async_args_only:
            parser = EngineArgs.add_cli_args(parser)
        parser.add_argument(
            "--enable-log-requests",
            action=argparse.BooleanOptionalAction,
            default=False,
            help="Log requests.",
        )
        return parser
