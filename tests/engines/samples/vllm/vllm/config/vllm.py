# ruff: noqa
from pydantic import Field

from vllm.config.cache import CacheConfig
from vllm.config.speculative import SpeculativeConfig
from vllm.config.utils import config


@config
class VllmConfig:
    cache_config: CacheConfig = Field(default_factory=CacheConfig)
    speculative_config: SpeculativeConfig | None = None
    additional_config: dict | None = None
