# ruff: noqa
from vllm.config.utils import config


@config
class SpeculativeConfig:
    method: str | None = None
    """Speculation method."""
    model: str | None = None
    """Draft model."""
    num_speculative_tokens: int | None = None
    """Tokens to propose."""
