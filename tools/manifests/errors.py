"""The error every part of the manifest generator raises."""

from __future__ import annotations

import subprocess
import tarfile
import zipfile


class GenerateError(Exception):
    """The source does not have the shape the generator expects."""


#: What reading a release can raise: the generator's own error, a missing or unreadable file,
#: a source file that is not Python or not UTF-8 (ValueError covers UnicodeDecodeError), a
#: broken archive, or a failed ``pip download``. Commands report these and exit, no traceback.
READ_ERRORS: tuple[type[BaseException], ...] = (
    GenerateError,
    OSError,
    SyntaxError,
    ValueError,
    zipfile.BadZipFile,
    tarfile.TarError,
    subprocess.CalledProcessError,
)
