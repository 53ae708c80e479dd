"""skillcheck: a validator for Agent Skills folders."""

__version__ = "0.1.0"
