# ruff: noqa
# Synthetic excerpt in the shape of tensorrt_llm/llmapi/llm_args.py (generator tests).
from typing import Annotated, List, Literal, Optional, TypeAlias, Union

from pydantic import AliasChoices, BaseModel, PrivateAttr
from pydantic import Field as PydanticField
from strenum import StrEnum


class StrictBaseModel(BaseModel):
    pass


def Field(default=..., *, status=None, **kwargs):
    return PydanticField(default, **kwargs)


class KvCacheConfig(StrictBaseModel):
    free_gpu_memory_fraction: Optional[float] = Field(default=0.9, ge=0, le=1)
    enable_block_reuse: bool = Field(default=True)
    dtype: str = Field(default="auto")


class CapacitySchedulerPolicy(StrEnum):
    MAX_UTILIZATION = "MAX_UTILIZATION"
    GUARANTEED_NO_EVICT = "GUARANTEED_NO_EVICT"


class SchedulerConfig(StrictBaseModel):
    capacity_scheduler_policy: CapacitySchedulerPolicy = Field(
        default=CapacitySchedulerPolicy.GUARANTEED_NO_EVICT
    )


class DecodingBaseConfig(StrictBaseModel):
    max_draft_len: Optional[int] = Field(default=None)
    speculative_model: Optional[str] = Field(
        default=None, validation_alias=AliasChoices("speculative_model", "speculative_model_dir")
    )


class EagleDecodingConfig(DecodingBaseConfig):
    decoding_type: Literal["Eagle"] = "Eagle"
    eagle3_one_model: Optional[bool] = Field(default=True)


class MTPDecodingConfig(DecodingBaseConfig):
    decoding_type: Literal["MTP"] = "MTP"
    num_nextn_predict_layers: int = Field(default=1)
    internal_count: int = Field(default=1, init=False)


SpeculativeConfig: TypeAlias = Annotated[
    Union[EagleDecodingConfig, MTPDecodingConfig],
    Field(discriminator="decoding_type"),
]


class CacheTransceiverConfig(StrictBaseModel):
    backend: Optional[Literal["DEFAULT", "UCX", "NIXL"]] = Field(default=None)
    max_tokens_in_buffer: Optional[int] = Field(default=None)


class BaseLlmArgs(StrictBaseModel):
    model: str = Field()
    tensor_parallel_size: int = Field(default=1)
    kv_cache_config: KvCacheConfig = Field(default_factory=KvCacheConfig)
    scheduler_config: SchedulerConfig = Field(default_factory=SchedulerConfig, status="prototype")
    cache_transceiver_config: Optional[CacheTransceiverConfig] = Field(default=None)
    speculative_config: Optional[SpeculativeConfig] = Field(default=None)
    max_batch_size: Optional[int] = Field(default=2048)
    decoding_config: Optional[object] = Field(
        default=None, status="deprecated", deprecated="Use speculative_config instead."
    )
    lora_config: Optional[LoraConfig] = Field(default=None)
    _parallel_config: Optional[object] = PrivateAttr(default=None)


class TorchLlmArgs(BaseLlmArgs):
    enable_attention_dp: bool = Field(default=False, status="beta")
    attn_backend: str = Field(default="TRTLLM")
    backend: Literal["pytorch"] = Field(default="pytorch", status="deprecated")
