# ruff: noqa
from typing import Annotated

A = Annotated


class Arg:
    def __init__(self, **kwargs):
        self.kwargs = kwargs


def add_cli_args_from_dataclass(parser, cls): ...
