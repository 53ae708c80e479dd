# ruff: noqa
from dataclasses import field
from typing import ClassVar, Literal

from pydantic import Field

from vllm.config.utils import config

CacheDType = Literal["auto", "fp8", "fp8_e5m2"]
HashAlgo = Literal["sha256", "xxhash"]


@config
class CacheConfig:
    """Synthetic cache config."""

    DEFAULT: ClassVar[int] = 16

    gpu_memory_utilization: float = Field(default=0.92, gt=0, le=1)
    """Fraction of device memory."""
    cache_dtype: CacheDType | str = "auto"
    """KV cache data type."""
    enable_prefix_caching: bool = True
    """Whether to enable prefix caching."""
    prefix_caching_hash_algo: HashAlgo = "sha256"
    """Hash algorithm."""
    derived: int = field(default=0, init=False)
    """Not settable."""
    old_mode: Literal["align", "none"] | None = None
    """Deprecated: has no effect any more."""
