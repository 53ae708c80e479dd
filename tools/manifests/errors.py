"""The error every part of the manifest generator raises."""

from __future__ import annotations


class GenerateError(Exception):
    """The source does not have the shape the generator expects."""
