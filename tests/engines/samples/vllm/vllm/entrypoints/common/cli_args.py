# ruff: noqa
import json
from typing import Any, Literal

from vllm.config import config
from vllm.engine.arg_utils import AsyncEngineArgs, optional_type
from vllm.utils.argparse_utils import FlexibleArgumentParser


@config
class BaseFrontendArgs:
    chat_template: str | None = None
    """Chat template."""
    default_chat_template_kwargs: dict[str, Any] | None = None
    """Defaults for the chat template."""

    @classmethod
    def _customize_cli_kwargs(cls, frontend_kwargs):
        frontend_kwargs["default_chat_template_kwargs"]["type"] = json.loads
        return frontend_kwargs

    @classmethod
    def add_cli_args(cls, parser):
        from vllm.engine.arg_utils import get_kwargs

        frontend_kwargs = get_kwargs(cls)
        frontend_kwargs = cls._customize_cli_kwargs(frontend_kwargs)
        frontend_group = parser.add_argument_group(title="Frontend")
        for key, value in frontend_kwargs.items():
            extra_flags = value.pop("flags", [])
            frontend_group.add_argument(*extra_flags, f"--{key.replace('_', '-')}", **value)
        return parser


@config
class FrontendArgs(BaseFrontendArgs):
    host: str | None = None
    """Host name."""
    port: int = 8000
    """Port number."""
    api_key: list[str] | None = None
    """API keys."""
    uvicorn_log_level: Literal["info", "debug"] = "info"
    """Log level for uvicorn."""
    allowed_origins: list[str] = None
    """Allowed origins."""

    @classmethod
    def _customize_cli_kwargs(cls, frontend_kwargs):
        frontend_kwargs = super()._customize_cli_kwargs(frontend_kwargs)
        frontend_kwargs["allowed_origins"]["type"] = json.loads
        del frontend_kwargs["allowed_origins"]["nargs"]
        return frontend_kwargs


def make_arg_parser(parser: FlexibleArgumentParser) -> FlexibleArgumentParser:
    parser.add_argument("model_tag", type=str, nargs="?", help="The model tag.")
    parser.add_argument("--headless", action="store_true", default=False, help="Headless.")
    parser.add_argument("--config", help="Read CLI options from a config file.")
    parser = FrontendArgs.add_cli_args(parser)
    parser = AsyncEngineArgs.add_cli_args(parser)
    return parser
