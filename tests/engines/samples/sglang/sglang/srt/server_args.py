# ruff: noqa
import argparse

import msgspec

from sglang.srt.arg_groups.arg_utils import add_cli_args_from_dataclass
from sglang.srt.arg_groups.argparse_actions import DeprecatedStoreTrueAction
from sglang.srt.arg_groups.fields.model import Model
from sglang.srt.arg_groups.fields.schedule import Schedule


def _parser_choices():
    module = None
    if module is not None:
        return list(module.names)
    from sglang.srt.parser_names import PARSER_NAMES

    return list(PARSER_NAMES)


class ServerArgs:
    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser):
        add_cli_args_from_dataclass(parser, ServerArgs)
        parser_choices = _parser_choices()
        parser.add_argument(
            "--reasoning-parser",
            type=str,
            choices=["auto"] + parser_choices,
            help="Reasoning parser.",
        )
        parser.add_argument("--config", type=str, help="Read CLI options from a config file.")
        parser.add_argument(
            "--enable-dp-attention",
            action=DeprecatedStoreTrueAction,
            new_flag="--attn-dp-size <dp-size>",
            help="Deprecated. Use --attn-dp-size <dp-size> instead.",
        )


_INPUT_NAMESPACES = [Model, Schedule]

ServerArgs = msgspec.defstruct("ServerArgs", [])
