"""llama.cpp defaults: the ``common_params`` member an option's handler sets, and its
initializer in ``common/common.h`` (with the server's own overrides in ``arg.cpp``)."""

from __future__ import annotations

import re
from pathlib import Path

from tools.manifests.cpp_reader import blank_comments, match_bracket
from tools.manifests.defaults import computed

# One member declaration: type, name, optional array size, optional initializer.
_MEMBER = re.compile(
    r"^\s*(?P<type>[A-Za-z_][\w:<>,\s*&]*?)\s+(?P<name>\w+)\s*(?:\[[^\]]*\])?\s*"
    r"(?:=\s*(?P<init>[^;]+?))?\s*;",
    re.M,
)
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[fFuUlL]*")
_MAX_QUOTED = 60


def _drop_blocks(text: str) -> str:
    """Blank innermost ``{...}`` blocks, except initializers (``= {...}``)."""

    def blank(m: re.Match[str]) -> str:
        before = text[: m.start()].rstrip()
        return m.group(0) if before.endswith("=") else "{}"

    return re.sub(r"\{[^{}]*\}", blank, text)


def _structs(header: str) -> dict[str, dict[str, tuple[str, str | None]]]:
    """struct name -> member -> (type, initializer) for the top-level members."""
    text = blank_comments(header)
    structs: dict[str, dict[str, tuple[str, str | None]]] = {}
    for m in re.finditer(r"^struct\s+(\w+)\s*\{", text, re.M):
        brace = m.end() - 1
        body = text[brace + 1 : match_bracket(text, brace) - 1]
        # drop nested blocks (methods, nested structs) so only members remain
        flat = _drop_blocks(_drop_blocks(body))
        members: dict[str, tuple[str, str | None]] = {}
        for mm in _MEMBER.finditer(flat):
            if "(" in mm.group("type") or mm.group("type").strip() in ("return", "using"):
                continue
            init = mm.group("init")
            members[mm.group("name")] = (" ".join(mm.group("type").split()), init)
        structs[m.group(1)] = members
    return structs


def render_cpp(init: str | None, ctype: str) -> str | None:
    """A C++ initializer as the command line spells it; ``None`` when there is none."""
    if init is None:
        return None
    value = " ".join(init.split())
    if value in ("true", "false"):
        return value
    if _NUMBER.fullmatch(value):
        number = re.sub(r"[fFuUlL]+$", "", value)
        if re.fullmatch(r"[-+]?\d+", number):
            return str(int(number))
        return repr(float(number))
    sm = re.fullmatch(r'"((?:[^"\\]|\\.)*)"', value)
    if sm:
        return sm.group(1) if sm.group(1) else None
    items = re.fullmatch(r'\{\s*((?:"(?:[^"\\]|\\.)*"\s*,?\s*)+)\}', value)
    if items:  # escapes are kept as written: a cell never holds a real line break
        return ",".join(re.findall(r'"((?:[^"\\]|\\.)*)"', items.group(1)))
    fill = re.fullmatch(r"\{\s*([-+]?[\d.]+[fF]?)\s*\}", value)
    if fill:  # {0}: every element
        return render_cpp(fill.group(1), ctype)
    if value in ("{}", "nullptr", "{0}") and ("vector" in ctype or "string" in ctype):
        return None
    if value == "nullptr":
        return None
    return computed(value if len(value) <= _MAX_QUOTED else None)


def _server_overrides(arg_text: str) -> dict[str, str]:
    """``params.x = v;`` in the ``ex == LLAMA_EXAMPLE_SERVER`` branch of the parser setup."""
    m = re.search(r"\(\s*ex\s*==\s*LLAMA_EXAMPLE_SERVER\s*\)\s*\{", arg_text)
    if m is None:
        return {}
    brace = m.end() - 1
    body = arg_text[brace + 1 : match_bracket(arg_text, brace) - 1]
    return {
        a.group(1): a.group(2).strip()
        for a in re.finditer(r"params\.([\w.]+)\s*=\s*([^;]+);", body)
    }


class CppDefaults:
    """Defaults of ``common_params`` members, read once per source tree."""

    def __init__(self, vendor: Path, arg_text: str) -> None:
        header = vendor / "common" / "common.h"
        text = header.read_text(encoding="utf-8", errors="replace") if header.is_file() else ""
        self.structs = _structs(text)
        self.overrides = _server_overrides(arg_text)

    def member(self, path: str) -> tuple[str, str | None] | None:
        """(type, initializer) of ``a.b.c`` under ``common_params``."""
        struct = "common_params"
        found: tuple[str, str | None] | None = None
        for part in path.split("."):
            members = self.structs.get(struct)
            if members is None or part not in members:
                return None
            found = members[part]
            struct = found[0].split()[-1]
        return found

    def of_handler(self, body: str, flag: bool = False) -> str | None:
        """The default of the member the handler body assigns first.

        For a flag (a handler without a value), only a ``bool`` member's initializer is
        the flag's default; a flag that sets a number or an enum has none to state.
        """
        m = re.search(r"\bparams\.([\w.]+)\s*(=[^=]|\.push_back|\.emplace_back|\.clear|\[)", body)
        if m is None:
            return None
        path = m.group(1)
        found = self.member(path)
        if found is None:
            return None
        ctype, init = found
        if flag and ctype != "bool":
            return None
        if path in self.overrides:
            init = self.overrides[path]
        if init is not None and re.fullmatch(r"[A-Z][A-Z0-9_]+", init.strip()):
            return self._constant(body, path, init.strip())
        return render_cpp(init, ctype)

    def _constant(self, body: str, path: str, constant: str) -> str:
        """An enum constant: the value the handler maps to it (``"layer"``), else its name."""
        m = re.search(
            r'"([^"]+)"\s*\)\s*\{?\s*params\.'
            + re.escape(path)
            + r"\s*=\s*"
            + re.escape(constant)
            + r"\s*;",
            body,
        )
        if m:
            return m.group(1)
        m = re.search(
            r"\bis_(truthy|falsey|autoy)\(\s*\w+\s*\)\s*\)\s*\{?\s*params\."
            + re.escape(path)
            + r"\s*=\s*"
            + re.escape(constant)
            + r"\s*;",
            body,
        )
        if m:
            return {"truthy": "on", "falsey": "off", "autoy": "auto"}[m.group(1)]
        if constant.startswith("GGML_TYPE_"):
            return constant[len("GGML_TYPE_") :].lower()
        return constant
