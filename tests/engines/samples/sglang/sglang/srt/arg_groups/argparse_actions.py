# ruff: noqa
import argparse


class DeprecatedStoreTrueAction(argparse.Action):
    def __init__(self, option_strings, dest, nargs=0, new_flag=None, **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)
