"""Generate an engine-flag manifest from an engine's released source.

Run from the repository root::

    python -m tools.manifests ENGINE VERSION [--source PATH]

``ENGINE`` is one of ``vllm``, ``sglang``, ``llama.cpp`` or ``tensorrt-llm``.
``VERSION`` is the release to pin (for ``llama.cpp``: the llama-cpp-python
release whose vendored llama.cpp is read). ``--source`` points at an unpacked
source tree, a wheel or an sdist; without it the release is fetched with
``pip download`` (TensorRT-LLM publishes no source on PyPI, so it needs
``--source``). The manifest is written to ``skillcheck/engines/manifests/``.

The engines are never imported: Python sources are read with :mod:`ast`
(:mod:`.pysource`, :mod:`.pyeval`) and interpreted the way argparse, click or
pydantic would read them (:mod:`.argparse_reader`, :mod:`.click_reader`,
:mod:`.pydantic_reader`); llama.cpp's ``common/arg.cpp`` is read with a small
C++ scanner (:mod:`.cpp_reader`). One module per engine knows where its options
are declared; :mod:`.source` finds and unpacks the release, :mod:`.build` adds
the provenance, :mod:`.defaults` and :mod:`.cpp_defaults` read each option's default.

The flag index under ``data/engine-flags/`` is built by the subcommands
``python -m tools.manifests history ENGINE --releases ...`` (:mod:`.history`),
``python -m tools.manifests index ENGINE|--all`` (:mod:`.index`), and a new release is
checked against the pack with ``python -m tools.manifests release-check ENGINE VERSION``
(:mod:`.release_check`).
"""

from tools.manifests.build import ENGINES, MANIFEST_DIR, build, manifest_filename
from tools.manifests.errors import GenerateError

__all__ = ["ENGINES", "MANIFEST_DIR", "GenerateError", "build", "manifest_filename"]
