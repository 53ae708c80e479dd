"""SC1xx: SKILL.md front-matter, per the Agent Skills specification."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Generator, Iterator
from typing import Any

from skillcheck.context import Context
from skillcheck.diagnostics import Diagnostic
from skillcheck.document import ParsedDoc
from skillcheck.registry import checker, declare
from skillcheck.safeyaml import kind

SPEC_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
# Keys documented by widely used clients (Claude Code) that other clients ignore.
CLIENT_KEYS = (
    "when_to_use",
    "argument-hint",
    "arguments",
    "disable-model-invocation",
    "user-invocable",
    "model",
    "effort",
    "context",
    "agent",
    "hooks",
    "paths",
    "shell",
)
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
_NAME_ASCII = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

declare(
    "SC102",
    "frontmatter-missing",
    "error",
    "SKILL.md does not start with a '---' front-matter block.",
)
declare("SC103", "frontmatter-unclosed", "error", "The front-matter block has no closing '---'.")
declare(
    "SC104", "frontmatter-yaml", "error", "The front-matter is not valid YAML (or is too large)."
)
declare("SC105", "frontmatter-duplicate-key", "error", "A front-matter key appears twice.")
declare(
    "SC106",
    "frontmatter-alias-bomb",
    "error",
    "YAML aliases expand past the bound (billion laughs).",
)
declare("SC107", "frontmatter-not-mapping", "error", "The front-matter is not a mapping.")
declare(
    "SC108",
    "frontmatter-unknown-key",
    "error",
    "A top-level key the specification does not define.",
)
declare(
    "SC109",
    "frontmatter-client-key",
    "warning",
    "A client extension key (Claude Code) other clients ignore.",
)
declare("SC110", "name-missing", "error", "'name' is missing or empty.")
declare(
    "SC111",
    "name-invalid",
    "error",
    "'name' is not lowercase letters, digits and single inner hyphens.",
)
declare("SC112", "name-too-long", "error", "'name' is over 64 characters.")
declare("SC113", "name-folder-mismatch", "error", "'name' differs from the skill's folder name.")
TEMPLATE_FOLDERS = {"template", "templates", "skill-template", "template-skill"}
declare("SC114", "description-missing", "error", "'description' is missing, empty or not a string.")
declare("SC115", "description-too-long", "error", "'description' is over 1024 characters.")
declare(
    "SC116",
    "description-angle-brackets",
    "warning",
    "'description' holds '<' or '>', which some clients reject.",
)
declare(
    "SC117",
    "compatibility-invalid",
    "error",
    "'compatibility' is not a string of 1 to 500 characters.",
)
declare("SC118", "metadata-not-mapping", "error", "'metadata' is not a mapping.")
declare("SC119", "metadata-non-string", "warning", "A 'metadata' key or value is not a string.")
declare(
    "SC120",
    "allowed-tools-list",
    "warning",
    "'allowed-tools' is a YAML list; the spec says a space-separated string.",
)
declare(
    "SC121", "allowed-tools-invalid", "error", "'allowed-tools' is neither a string nor a list."
)
declare("SC122", "license-invalid", "error", "'license' is not a string.")
declare("SC123", "utf8-bom", "warning", "SKILL.md starts with a UTF-8 byte-order mark.")
declare(
    "SC124",
    "skill-md-case",
    "warning",
    "The file is named other than 'SKILL.md' (e.g. 'skill.md').",
)
declare(
    "SC125",
    "name-non-ascii",
    "warning",
    "'name' holds non-ASCII lowercase letters; clients disagree on them.",
)


@checker("SC1")
def check_frontmatter(ctx: Context) -> Iterator[Diagnostic]:
    rel = ctx.skill.skill_md
    if rel is None:
        return
    if rel != "SKILL.md":
        yield ctx.diag(
            rel,
            0,
            0,
            "SC124",
            f"the file is named '{rel}'",
            "name it 'SKILL.md' in capitals; some clients only look for that name",
        )
    doc = ctx.docs.get(rel)
    if doc is None:
        return  # unreadable: reported by the reader
    yield from _check_delimiters(ctx, rel, doc)
    if doc.frontmatter_state in ("none", "unclosed"):
        return
    value = yield from _load_mapping(ctx, rel, doc)
    if value is None:
        return
    lines = doc.frontmatter_lines

    def at(key: str) -> int:
        return lines.get(key, -1) + 2

    yield from _check_unknown_keys(ctx, rel, value, at)
    yield from _check_name(ctx, rel, value, at("name"))
    yield from _check_description(ctx, rel, value, at("description"))

    yield from _check_other_keys(ctx, rel, value, at)


def _check_delimiters(ctx: Context, rel: str, doc: ParsedDoc) -> Iterator[Diagnostic]:
    """A byte-order mark, and the opening and closing '---' of the block."""
    if doc.has_bom:
        yield ctx.diag(
            rel,
            1,
            1,
            "SC123",
            "file starts with a UTF-8 byte-order mark",
            "save without BOM; some front-matter parsers fail on it",
        )
    if doc.frontmatter_state == "none":
        yield ctx.diag(
            rel,
            1,
            1,
            "SC102",
            "no front-matter: the file must start with '---'",
            "add '---', the name and description keys, and a closing '---'",
        )
    elif doc.frontmatter_state == "unclosed":
        yield ctx.diag(
            rel,
            1,
            1,
            "SC103",
            "front-matter opened with '---' is never closed",
            "add a line with '---' after the last key",
        )


def _load_mapping(
    ctx: Context, rel: str, doc: ParsedDoc
) -> Generator[Diagnostic, None, dict[Any, Any] | None]:
    """The YAML problems found by the parser, then the block's mapping (None when the YAML
    is broken or is not a mapping: the keys cannot be checked)."""
    value, problems = doc.frontmatter_value, doc.frontmatter_problems  # loaded by the parser
    for code, msg, line0, col0 in problems:
        yield ctx.diag(
            rel,
            line0 + 2,
            col0 + 1,
            code,
            msg,
            {
                "SC104": "check indentation and quote values holding ': ' or '#'",
                "SC105": "keep one of the two keys",
                "SC106": "remove the anchors and aliases",
            }.get(code, ""),
        )
    if any(code in ("SC104", "SC106") for code, _, _, _ in problems):
        return None
    if value is None:
        value = {}
    if not isinstance(value, dict):
        yield ctx.diag(
            rel,
            2,
            1,
            "SC107",
            f"front-matter is {kind(value)}, not a mapping",
            "write 'key: value' lines",
        )
        return None
    return value


def _check_unknown_keys(
    ctx: Context, rel: str, value: dict[Any, Any], at: Callable[[str], int]
) -> Iterator[Diagnostic]:
    """Top-level keys outside the specification: client extensions, typos, others."""
    for key in value:
        skey = str(key)
        if skey in SPEC_KEYS:
            continue
        if skey in CLIENT_KEYS:
            yield ctx.diag(
                rel,
                at(skey),
                1,
                "SC109",
                f"'{skey}' is a Claude Code extension key; other clients ignore it",
                "keep it if you target Claude Code; the spec's keys are " + ", ".join(SPEC_KEYS),
            )
            continue
        close = difflib.get_close_matches(skey, SPEC_KEYS + CLIENT_KEYS, n=1, cutoff=0.6)
        hint = (
            f"did you mean '{close[0]}'?"
            if close
            else ("allowed keys: " + ", ".join(SPEC_KEYS) + "; put your own keys under 'metadata'")
        )
        yield ctx.diag(rel, at(skey), 1, "SC108", f"unknown front-matter key '{skey}'", hint)


def _check_other_keys(
    ctx: Context, rel: str, value: dict[Any, Any], at: Callable[[str], int]
) -> Iterator[Diagnostic]:
    """compatibility, metadata, allowed-tools and license."""
    if "compatibility" in value:
        comp = value["compatibility"]
        if not isinstance(comp, str):
            yield ctx.diag(
                rel,
                at("compatibility"),
                1,
                "SC117",
                f"'compatibility' is {kind(comp)}, not a string",
                "write it as one line of text",
            )
        elif not 1 <= len(comp) <= MAX_COMPATIBILITY:
            yield ctx.diag(
                rel,
                at("compatibility"),
                1,
                "SC117",
                f"'compatibility' has {len(comp)} characters; it must have 1 to "
                f"{MAX_COMPATIBILITY}",
                "shorten it, or drop the key",
            )
    if "metadata" in value:
        yield from _check_metadata(ctx, rel, value["metadata"], at("metadata"))
    if "allowed-tools" in value:
        tools = value["allowed-tools"]
        if isinstance(tools, list):
            yield ctx.diag(
                rel,
                at("allowed-tools"),
                1,
                "SC120",
                "'allowed-tools' is a list; the spec says a space-separated string",
                "write: allowed-tools: " + " ".join(str(t) for t in tools),
            )
        elif not isinstance(tools, str):
            yield ctx.diag(
                rel,
                at("allowed-tools"),
                1,
                "SC121",
                f"'allowed-tools' is {kind(tools)}",
                "write a space-separated string, e.g. 'Bash(git:*) Read'",
            )
    if "license" in value and not isinstance(value["license"], str):
        yield ctx.diag(
            rel,
            at("license"),
            1,
            "SC122",
            f"'license' is {kind(value['license'])}, not a string",
            "write a license name such as Apache-2.0, or a bundled file's name",
        )


def _check_metadata(ctx: Context, rel: str, meta: Any, line: int) -> Iterator[Diagnostic]:
    """'metadata' is a mapping of strings to strings."""
    if not isinstance(meta, dict):
        yield ctx.diag(
            rel,
            line,
            1,
            "SC118",
            f"'metadata' is {kind(meta)}, not a mapping",
            "write 'metadata:' then indented 'key: \"value\"' lines",
        )
    else:
        for k, v in meta.items():
            if not isinstance(k, str) or not isinstance(v, str):
                what = (
                    f"'{k}' maps to {kind(v)}" if isinstance(k, str) else f"key {k!r} is {kind(k)}"
                )
                yield ctx.diag(
                    rel,
                    line,
                    1,
                    "SC119",
                    f"metadata {what}; the spec says string keys and values",
                    f'quote it: "{k}": "{v}"'
                    if not isinstance(k, str)
                    else f'quote it: {k}: "{v}"',
                )


def _check_name(ctx: Context, rel: str, fm: dict[Any, Any], line: int) -> Iterator[Diagnostic]:
    if (
        "name" not in fm
        or fm["name"] is None
        or (isinstance(fm["name"], str) and not fm["name"].strip())
    ):
        yield ctx.diag(
            rel,
            max(line, 2),
            1,
            "SC110",
            "'name' is missing or empty",
            f"add: name: {ctx.skill.root.name}",
        )
        return
    name = fm["name"]
    if not isinstance(name, str):
        yield ctx.diag(
            rel,
            line,
            1,
            "SC111",
            f"'name' is {kind(name)}, not a string",
            "write the name as text, e.g. name: my-skill",
        )
        return
    raw_name = name.strip()
    name = unicodedata.normalize("NFKC", raw_name)
    if len(name) > MAX_NAME:
        yield ctx.diag(
            rel,
            line,
            1,
            "SC112",
            f"'name' has {len(name)} characters; the maximum is {MAX_NAME}",
            "shorten it (and rename the folder to match)",
        )
    yield from _check_name_letters(ctx, rel, raw_name, name, line)
    folder = unicodedata.normalize("NFKC", ctx.skill.root.name)
    # a skill template is copied and renamed: its folder and its name are both placeholders
    template = folder.strip("_-.").lower() in TEMPLATE_FOLDERS
    if name != folder and not ctx.skill.is_repo_root and not template:
        yield ctx.diag(
            rel,
            line,
            1,
            "SC113",
            f"'name' is {name!r} but the folder is {folder!r}",
            "rename the folder or the name so they match",
        )


def _check_name_letters(
    ctx: Context, rel: str, raw_name: str, name: str, line: int
) -> Iterator[Diagnostic]:
    """The name's characters: ASCII lowercase, digits and single inner hyphens after NFKC
    normalisation (``name``); the written form (``raw_name``) must not need normalising."""
    if _NAME_ASCII.match(name) and raw_name != name:
        yield ctx.diag(
            rel,
            line,
            1,
            "SC125",
            f"'name' {raw_name!r} holds characters that Unicode normalisation turns into {name!r}",
            "write the plain letters: clients compare names byte for byte",
        )
    elif not _NAME_ASCII.match(name):
        ok_unicode = (
            all((c.isalnum() and c == c.lower()) or c == "-" for c in name)
            and not name.startswith("-")
            and not name.endswith("-")
            and "--" not in name
            and name == name.lower()
        )
        if ok_unicode:
            yield ctx.diag(
                rel,
                line,
                1,
                "SC125",
                f"'name' {name!r} holds non-ASCII letters",
                "the spec lists a-z, 0-9 and '-'; some clients accept other "
                "lowercase letters and some do not",
            )
        else:
            yield ctx.diag(
                rel,
                line,
                1,
                "SC111",
                f"'name' {name!r} must be lowercase letters, digits and single "
                "hyphens, not starting or ending with '-'",
                "e.g. "
                + re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9]+", "-", name.lower())).strip("-"),
            )


def _check_description(
    ctx: Context, rel: str, fm: dict[Any, Any], line: int
) -> Iterator[Diagnostic]:
    desc = fm.get("description")
    if desc is None or not isinstance(desc, str) or not desc.strip():
        what = (
            "missing"
            if "description" not in fm
            else (
                "empty" if desc is None or isinstance(desc, str) else f"{kind(desc)}, not a string"
            )
        )
        yield ctx.diag(
            rel,
            max(line, 2),
            1,
            "SC114",
            f"'description' is {what}",
            "say what the skill does and when to use it, in at most 1024 characters",
        )
        return
    n = len(desc.strip())
    if n > MAX_DESCRIPTION:
        yield ctx.diag(
            rel,
            line,
            1,
            "SC115",
            f"'description' has {n} characters; the maximum is {MAX_DESCRIPTION}",
            "cut it to the trigger: what it does and when to load it",
        )
    if "<" in desc or ">" in desc:
        yield ctx.diag(
            rel,
            line,
            1,
            "SC116",
            "'description' holds '<' or '>'",
            "some clients (and anthropics/skills' quick_validate.py) reject angle brackets; reword",
        )
