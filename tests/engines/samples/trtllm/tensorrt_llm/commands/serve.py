# ruff: noqa
# Synthetic excerpt in the shape of tensorrt_llm/commands/serve.py (generator tests).
from typing import Literal, Optional

import click


def help_info_with_stability_tag(
    help_str: str, tag: Literal["stable", "beta", "prototype", "deprecated"]
) -> str:
    return f":tag:`{tag}` {help_str}"


def launch_server(host, port, llm_args):
    if llm_args["backend"] == "pytorch":
        llm_args.pop("build_config", None)


class ChoiceWithAlias(click.Choice):
    def __init__(self, choices, aliases, case_sensitive=True):
        super().__init__(choices, case_sensitive)
        self.aliases = aliases


@click.command("serve")
@click.argument("model", type=str)
@click.option(
    "--host",
    type=str,
    default="localhost",
    help=help_info_with_stability_tag("Hostname of the server.", "beta"),
)
@click.option("--port", type=int, default=8000, help="Port of the server.")
@click.option(
    "--backend",
    type=ChoiceWithAlias(["pytorch", "tensorrt"], {"trt": "tensorrt"}),
    default="pytorch",
    help="The backend.",
)
@click.option("--max_batch_size", type=int, default=2048, help="Maximum batch size.")
@click.option("--tensor_parallel_size", "--tp_size", type=int, default=1, help="TP size.")
@click.option("--trust_remote_code", is_flag=True, default=False, help="Trust remote code.")
@click.option(
    "--config",
    "--extra_llm_api_options",
    "extra_llm_api_options",
    type=str,
    default=None,
    help="Path to a YAML file of LLM API options.",
)
@click.option(
    "--old_knob",
    type=float,
    default=0.5,
    help=help_info_with_stability_tag("An old knob.", "deprecated"),
)
def serve(
    model: str,
    host: str,
    port: int,
    backend: str,
    max_batch_size: int,
    tensor_parallel_size: int,
    trust_remote_code: bool,
    extra_llm_api_options: Optional[str],
    old_knob: float,
):
    """Running an OpenAI API compatible server"""
    llm_args = {}
    llm_args.pop("disagg_cluster", None)
    launch_server(host, port, llm_args)


@click.command("disaggregated")
@click.option("-c", "--config_file", type=str, default=None, help="Disaggregated config.")
def disaggregated(config_file: Optional[str]):
    """Running server in disaggregated mode"""


class DefaultGroup(click.Group):
    def resolve_command(self, ctx, args):
        if args and args[0] not in self.commands:
            return "serve", self.commands["serve"], args
        return super().resolve_command(ctx, args)


main = DefaultGroup(commands={"serve": serve, "disaggregated": disaggregated})
