"""SC618 points at the config key a finding is about, where the block writes it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from skillcheck.cli import main

PAGE = """---
name: demo
description: Engine config keys. Use in tests.
---

# Engines

Applies to: TensorRT-LLM 1.2

```yaml engine="tensorrt-llm"
scheduler_config:
  capacity_scheduler_policy: MAX_UTIL
kv_cache_config:
  free_gpu_memory_fraction: 0.9
  capacity_scheduler_policy: GUARANTEED_NO_EVICT
```
"""


def _diagnostics(tmp_path: Path) -> list[tuple[int, int, str, str]]:
    skill = tmp_path / "demo"
    skill.mkdir()
    (skill / "SKILL.md").write_text(PAGE, encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json", str(skill)])
    data = json.loads(res.output)
    return [(d["line"], d["column"], d["code"], d["message"]) for d in data["diagnostics"]]


def test_config_findings_sit_on_their_keys(tmp_path: Path) -> None:
    assert _diagnostics(tmp_path) == [
        # a bad value: the line of its key, not of the block
        (
            12,
            3,
            "SC618",
            "`MAX_UTIL` is not a valid value for config key "
            "`scheduler_config.capacity_scheduler_policy`",
        ),
        # an unknown nested key whose name is valid elsewhere: its own line, not the first
        # line that spells the same name
        (
            15,
            3,
            "SC618",
            "unknown config key `kv_cache_config.capacity_scheduler_policy` (tensorrt-llm 1.2)",
        ),
    ]
