"""skillcheck: a validator for Agent Skills folders."""

# The version of the distribution: pyproject.toml reads it from here
# ([tool.setuptools.dynamic]); `skillcheck --version` and the probe's User-Agent print it.
__version__ = "0.1.0"
