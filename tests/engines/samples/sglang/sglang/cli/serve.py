# ruff: noqa
def _extract_model_type_override(extra_argv):
    for arg in extra_argv:
        if arg == "--model-type":
            return arg


def _normalize_positional_model_path(extra_argv):
    if extra_argv and not extra_argv[0].startswith("-"):
        return ["--model-path", extra_argv[0], *extra_argv[1:]], True
    return extra_argv, False
