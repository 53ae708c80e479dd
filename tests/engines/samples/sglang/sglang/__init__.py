# ruff: noqa
