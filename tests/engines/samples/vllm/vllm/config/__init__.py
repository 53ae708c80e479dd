# ruff: noqa
from vllm.config.cache import CacheConfig
from vllm.config.scheduler import SchedulerConfig
from vllm.config.speculative import SpeculativeConfig
from vllm.config.utils import config
from vllm.config.vllm import VllmConfig
