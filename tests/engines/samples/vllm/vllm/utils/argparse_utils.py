# ruff: noqa
from argparse import ArgumentParser, BooleanOptionalAction


class EnableDisableAction(BooleanOptionalAction):
    """Pairs --enable-x with --disable-x."""


class FlexibleArgumentParser(ArgumentParser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", BooleanOptionalAction, EnableDisableAction)

    def parse_args(self, args=None, namespace=None):
        processed_args = []
        for arg in args:
            if arg.startswith("--"):
                processed_args.append(arg.replace("_", "-"))
            elif arg.startswith("-O") and arg != "-O":
                processed_args += ["--optimization-level", arg[2:]]
        for processed_arg in processed_args:
            if processed_arg.startswith("-") and "." in processed_arg:
                pass
        return super().parse_args(processed_args, namespace)

    def load_config_file(self, file_path):
        return []
