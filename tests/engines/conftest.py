from __future__ import annotations

import sys
from pathlib import Path

# The manifest generator lives in tools/ at the repository root, outside the
# installed package; put the root on sys.path so that the tests can import it.
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
