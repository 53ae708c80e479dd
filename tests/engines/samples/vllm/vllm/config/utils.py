# ruff: noqa
def config(cls):
    return cls
