# ruff: noqa
PARSER_NAMES = ["deepseek-r1", "qwen3"]
