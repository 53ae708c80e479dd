"""Bad-input benchmark: skillcheck against agnix on invalid (and a few valid) skill folders.

Builds a suite of Agent Skills folders in a temporary directory (nothing is committed as a
fixture), runs each tool once per case as a separate process, and prints, per tool and case:

  detected   the exit code is non-zero or the tool reports a finding (an error or a warning;
             agnix's "info" level does not count), and the tool neither crashed nor hung;
  false +    the same on a case that is valid and must pass;
  crash      a Python traceback or a Rust panic on stderr, an exit code above 2, or a signal;
  hang       no exit within --timeout seconds (the process group is then killed).

Runs that crash, hang, print output that is not the expected JSON, peak over 500 MiB of RSS
or print over 10 MiB are listed again with their peak RSS and output size.

The invalid cases cover front-matter (missing, unclosed, YAML errors, duplicate keys, alias
bombs, wrong types and lengths of every specified key, BOM, CRLF, flow style), files (empty,
binary, not UTF-8, huge, symlinks that leave the skill or loop, no SKILL.md, unreadable),
links (broken, wrong case, leaving the skill, missing anchors, orphans) and a few small
inputs that are slow to scan (each also holds a broken link). The valid cases use forms a
checker must accept: flow-style YAML, CRLF line endings, trailing whitespace, a description
of exactly 1024 multibyte characters, Unicode heading anchors, and every length at its limit.

With --skills-repo (a clone or bare mirror of github.com/anthropics/skills) it also runs both
tools on each folder under skills/ and prints the skills each flags for front-matter problems
only: skillcheck with --select SC1; agnix's findings filtered to AGNIX_FRONTMATTER_RULES.

agnix (`pip install agnix`) is taken from --agnix or PATH and skipped when absent.

Run:  python benchmarks/bench_bad_inputs.py [--agnix PATH] [--skills-repo PATH]
                                            [--timeout 20] [--case SUBSTRING] [--keep DIR]
It prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TIMEOUT = 20.0
BIG_OUTPUT = 32 * 1024 * 1024  # past this, findings are read with a regex, not json.loads
# agnix rules about SKILL.md front-matter (from `agnix explain RULE`): missing front-matter,
# required fields, name format, description and compatibility limits, parse errors, the
# name/folder match, unknown fields.
AGNIX_FRONTMATTER_RULES = frozenset(
    {
        "AS-001",
        "AS-002",
        "AS-003",
        "AS-004",
        "AS-005",
        "AS-006",
        "AS-007",
        "AS-008",
        "AS-009",
        "AS-010",
        "AS-011",
        "AS-016",
        "AS-017",
        "CC-SK-017",
    }
)

# -- the suite -----------------------------------------------------------------------------

DESC = "Checks sample inputs for a benchmark. Use when testing a skills validator."
BODY = "# Sample skill\n\nFollow these steps.\n"


def front(name: str | None, *extra: str, description: str | None = DESC) -> str:
    """A front-matter block: name, description, then the extra lines, as written."""
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    lines.extend(extra)
    lines.append("---")
    return "\n".join(lines) + "\n"


def put(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def skill(
    base: Path, folder: str, text: str | bytes | None, files: dict[str, str | bytes] | None = None
) -> Path:
    """Write a skill folder: SKILL.md (unless ``text`` is None) and other files."""
    root = base / folder
    root.mkdir(parents=True, exist_ok=True)
    if text is not None:
        put(root / "SKILL.md", text)
    for rel, data in (files or {}).items():
        put(root / rel, data)
    return root


def plain(folder: str, body: str = BODY, *extra: str) -> str:
    """A valid SKILL.md for ``folder`` with extra front-matter lines."""
    return front(folder, *extra) + body


Builder = Callable[[Path], "Path | str"]  # the folder to check, or why the case is skipped


@dataclass(frozen=True)
class Case:
    name: str
    area: str
    valid: bool
    what: str
    build: Builder


CASES: list[Case] = []


def case(area: str, what: str, *, valid: bool = False) -> Callable[[Builder], Builder]:
    def deco(fn: Builder) -> Builder:
        name = fn.__name__.removeprefix("c_").replace("_", "-")
        CASES.append(Case(name, area, valid, what, fn))
        return fn

    return deco


# front-matter ---------------------------------------------------------------------------


@case("front-matter", "no front-matter block")
def c_fm_missing(b: Path) -> Path | str:
    return skill(b, "fm-missing", "# Sample skill\n\nNo front-matter here.\n")


@case("front-matter", "'---' opened and never closed")
def c_fm_unclosed(b: Path) -> Path | str:
    return skill(b, "fm-unclosed", f"---\nname: fm-unclosed\ndescription: {DESC}\n\n{BODY}")


@case("front-matter", "YAML syntax error (': ' inside a plain scalar)")
def c_fm_yaml_error(b: Path) -> Path | str:
    return skill(
        b, "fm-yaml-error", front("fm-yaml-error", description="Use when: parsing: fails") + BODY
    )


@case("front-matter", "duplicate 'description' key")
def c_fm_duplicate_key(b: Path) -> Path | str:
    return skill(
        b,
        "fm-duplicate-key",
        plain(
            "fm-duplicate-key",
            BODY,
            "description: Another description. Use when checking duplicates.",
        ),
    )


@case("front-matter", "billion-laughs alias bomb under 'metadata' (9 levels of 9 aliases)")
def c_fm_alias_bomb(b: Path) -> Path | str:
    lines = ["metadata:", '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"  {cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    return skill(b, "fm-alias-bomb", plain("fm-alias-bomb", BODY, *lines))


@case("front-matter", "aliases to one 28 kB string, repeated 9,000 times in 'allowed-tools'")
def c_fm_alias_amplification(b: Path) -> Path | str:
    text = (
        front(
            "fm-alias-amplification",
            f'license: &s "{"x" * 28_000}"',
            "allowed-tools: [" + ",".join(["*s"] * 9_000) + "]",
        )
        + BODY
    )
    return skill(b, "fm-alias-amplification", text)


@case("front-matter", "front-matter is a YAML sequence, not a mapping")
def c_fm_not_mapping(b: Path) -> Path | str:
    return skill(
        b, "fm-not-mapping", f"---\n- name: fm-not-mapping\n- description: {DESC}\n---\n{BODY}"
    )


@case("front-matter", "unknown top-level key 'author'")
def c_fm_unknown_key(b: Path) -> Path | str:
    return skill(b, "fm-unknown-key", plain("fm-unknown-key", BODY, "author: someone"))


@case("front-matter", "closed with YAML's '...' instead of '---'")
def c_fm_closed_with_dots(b: Path) -> Path | str:
    return skill(
        b,
        "fm-closed-with-dots",
        f"---\nname: fm-closed-with-dots\ndescription: {DESC}\n...\n{BODY}",
    )


@case("front-matter", "a blank line before the opening '---'")
def c_fm_leading_blank_line(b: Path) -> Path | str:
    return skill(b, "fm-leading-blank-line", "\n" + plain("fm-leading-blank-line"))


@case("front-matter", "tab used for indentation")
def c_fm_tab_indent(b: Path) -> Path | str:
    return skill(b, "fm-tab-indent", plain("fm-tab-indent", BODY, "metadata:", "\tauthor: me"))


@case("front-matter", "!!python/object/apply tag (unsafe YAML)")
def c_fm_python_tag(b: Path) -> Path | str:
    return skill(
        b,
        "fm-python-tag",
        plain("fm-python-tag", BODY, 'license: !!python/object/apply:os.system ["true"]'),
    )


@case("front-matter", "'name' missing")
def c_name_missing(b: Path) -> Path | str:
    return skill(b, "name-missing", front(None) + BODY)


@case("front-matter", "'name' with capitals (folder of the same name)")
def c_name_uppercase(b: Path) -> Path | str:
    return skill(b, "Name-Uppercase", plain("Name-Uppercase"))


@case("front-matter", "'name' with '--' (folder of the same name)")
def c_name_double_hyphen(b: Path) -> Path | str:
    return skill(b, "name--double-hyphen", plain("name--double-hyphen"))


@case("front-matter", "'name' starts with '-' (folder of the same name)")
def c_name_leading_hyphen(b: Path) -> Path | str:
    return skill(b, "-name-leading-hyphen", front('"-name-leading-hyphen"') + BODY)


@case("front-matter", "'name' of 65 ASCII characters")
def c_name_too_long(b: Path) -> Path | str:
    name = "n" * 65
    return skill(b, name, plain(name))


@case("front-matter", "'name' of 65 characters, 8 of them 'é' (73 bytes)")
def c_name_too_long_multibyte(b: Path) -> Path | str:
    name = ("données-" * 9)[:65]
    return skill(b, name, plain(name))


@case("front-matter", "'name' differs from the folder")
def c_name_folder_mismatch(b: Path) -> Path | str:
    return skill(b, "name-folder-mismatch", plain("another-name"))


@case("front-matter", "'name' 'ﬁle-tools' (U+FB01 ligature) in folder 'file-tools'")
def c_name_nfkc_ligature(b: Path) -> Path | str:
    return skill(b, "file-tools", front("\ufb01le-tools") + BODY)


@case("front-matter", "'description' missing")
def c_description_missing(b: Path) -> Path | str:
    return skill(b, "description-missing", front("description-missing", description=None) + BODY)


@case("front-matter", "'description' is an empty string")
def c_description_empty(b: Path) -> Path | str:
    return skill(b, "description-empty", front("description-empty", description='""') + BODY)


@case("front-matter", "'description' of 1025 characters")
def c_description_too_long(b: Path) -> Path | str:
    desc = ("Checks inputs. Use when testing. " * 40)[:1025]
    return skill(
        b, "description-too-long", front("description-too-long", description=f'"{desc}"') + BODY
    )


@case("front-matter", "'description' is a YAML list")
def c_description_non_string(b: Path) -> Path | str:
    return skill(
        b,
        "description-non-string",
        front("description-non-string", description="\n  - one\n  - two") + BODY,
    )


@case("front-matter", "'compatibility' of 501 characters")
def c_compatibility_too_long(b: Path) -> Path | str:
    return skill(
        b,
        "compatibility-too-long",
        plain("compatibility-too-long", BODY, f"compatibility: {'c' * 501}"),
    )


@case("front-matter", "'metadata' is a string")
def c_metadata_not_mapping(b: Path) -> Path | str:
    return skill(
        b, "metadata-not-mapping", plain("metadata-not-mapping", BODY, "metadata: just some text")
    )


@case("front-matter", "'allowed-tools' is a mapping")
def c_allowed_tools_wrong_type(b: Path) -> Path | str:
    return skill(
        b,
        "allowed-tools-wrong-type",
        plain("allowed-tools-wrong-type", BODY, "allowed-tools:", "  Bash: true"),
    )


@case("front-matter", "'license' is a list")
def c_license_not_string(b: Path) -> Path | str:
    return skill(
        b,
        "license-not-string",
        plain("license-not-string", BODY, "license:", "  - MIT", "  - Apache-2.0"),
    )


@case("front-matter", "UTF-8 byte-order mark before '---'")
def c_fm_bom(b: Path) -> Path | str:
    return skill(b, "fm-bom", "\ufeff" + plain("fm-bom"))


@case("front-matter", "CRLF line endings, 'name' with '_' (folder of the same name)")
def c_fm_crlf_bad_name(b: Path) -> Path | str:
    return skill(b, "crlf_bad_name", plain("crlf_bad_name").replace("\n", "\r\n"))


@case("front-matter", "CRLF line endings, front-matter never closed")
def c_fm_crlf_unclosed(b: Path) -> Path | str:
    text = f"---\nname: fm-crlf-unclosed\ndescription: {DESC}\n\n{BODY}"
    return skill(b, "fm-crlf-unclosed", text.replace("\n", "\r\n"))


@case("front-matter", "flow-style mapping with no closing '}'")
def c_fm_flow_unclosed(b: Path) -> Path | str:
    return skill(
        b, "fm-flow-unclosed", f"---\n{{name: fm-flow-unclosed, description: {DESC}\n---\n{BODY}"
    )


@case("front-matter", "flow-style sequence instead of a mapping")
def c_fm_flow_sequence(b: Path) -> Path | str:
    return skill(b, "fm-flow-sequence", f"---\n[fm-flow-sequence, {DESC}]\n---\n{BODY}")


# files ------------------------------------------------------------------------------------


@case("files", "SKILL.md is empty")
def c_file_empty(b: Path) -> Path | str:
    return skill(b, "file-empty", b"")


@case("files", "SKILL.md is binary (PNG signature and NUL bytes)")
def c_file_binary(b: Path) -> Path | str:
    return skill(b, "file-binary", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 16)


@case("files", "SKILL.md holds a Latin-1 byte (0xe9) in the description")
def c_file_non_utf8(b: Path) -> Path | str:
    text = front("file-non-utf8", description="Caf\udce9 checks. Use when testing.") + BODY
    return skill(b, "file-non-utf8", text.encode("utf-8", "surrogateescape"))


@case("files", "SKILL.md of 3 MB (60,000 lines)")
def c_file_huge(b: Path) -> Path | str:
    filler = "Filler line of text in a very large skill file.\n" * 62_500
    return skill(b, "file-huge", plain("file-huge", BODY + filler))


@case("files", "SKILL.md is a symlink to a file outside the skill")
def c_symlink_outside(b: Path) -> Path | str:
    put(b / "elsewhere" / "SKILL.md", plain("symlink-outside"))
    root = skill(b, "symlink-outside", None)
    (root / "SKILL.md").symlink_to(Path("..") / "elsewhere" / "SKILL.md")
    return root


@case("files", "SKILL.md is a symlink to itself")
def c_symlink_self_loop(b: Path) -> Path | str:
    root = skill(b, "symlink-self-loop", None)
    (root / "SKILL.md").symlink_to("SKILL.md")
    return root


@case("files", "a linked reference is a symlink loop (a.md -> b.md -> a.md)")
def c_symlink_loop(b: Path) -> Path | str:
    root = skill(b, "symlink-loop", plain("symlink-loop", BODY + "\nSee [a](references/a.md).\n"))
    (root / "references").mkdir()
    (root / "references" / "a.md").symlink_to("b.md")
    (root / "references" / "b.md").symlink_to("a.md")
    return root


@case("files", "no SKILL.md (only README.md)")
def c_skill_md_missing(b: Path) -> Path | str:
    return skill(b, "skill-md-missing", None, {"README.md": plain("skill-md-missing")})


@case("files", "SKILL.md is a directory")
def c_skill_md_directory(b: Path) -> Path | str:
    return skill(b, "skill-md-directory", None, {"SKILL.md/notes.txt": "not a file\n"})


@case("files", "the file is named skill.md, not SKILL.md")
def c_skill_md_lowercase(b: Path) -> Path | str:
    return skill(b, "skill-md-lowercase", None, {"skill.md": plain("skill-md-lowercase")})


@case("files", "SKILL.md cannot be read (mode 000)")
def c_file_unreadable(b: Path) -> Path | str:
    root = skill(b, "file-unreadable", plain("file-unreadable"))
    (root / "SKILL.md").chmod(0)
    if os.access(root / "SKILL.md", os.R_OK):
        (root / "SKILL.md").chmod(0o644)
        return "mode 000 does not stop this user from reading (root)"
    return root


# links ------------------------------------------------------------------------------------

GUIDE = "# Guide\n\n## Setup\n\nSteps.\n"
BROKEN = "\n\nSee [x](references/missing.md).\n"


@case("links", "relative link to a file that does not exist")
def c_link_broken(b: Path) -> Path | str:
    return skill(b, "link-broken", plain("link-broken", BODY + BROKEN))


@case("links", "link case differs from the file on disk (Guide.md vs guide.md)")
def c_link_case(b: Path) -> Path | str:
    return skill(
        b,
        "link-case",
        plain("link-case", BODY + "\nSee [g](references/Guide.md).\n"),
        {"references/guide.md": GUIDE},
    )


@case("links", "link leaves the skill through '..' (the target exists)")
def c_link_escape(b: Path) -> Path | str:
    put(b / "outside.md", GUIDE)
    return skill(b, "link-escape", plain("link-escape", BODY + "\nSee [o](../outside.md).\n"))


@case("links", "absolute link (/etc/hosts)")
def c_link_absolute(b: Path) -> Path | str:
    return skill(b, "link-absolute", plain("link-absolute", BODY + "\nSee [h](/etc/hosts).\n"))


@case("links", "'#fragment' with no such heading in the same file")
def c_link_anchor_missing(b: Path) -> Path | str:
    return skill(
        b,
        "link-anchor-missing",
        plain("link-anchor-missing", BODY + "\nSee [s](#no-such-section).\n"),
    )


@case("links", "'file.md#fragment' with no such heading in that file")
def c_link_anchor_other_file(b: Path) -> Path | str:
    return skill(
        b,
        "link-anchor-other-file",
        plain("link-anchor-other-file", BODY + "\nSee [g](references/guide.md#teardown).\n"),
        {"references/guide.md": GUIDE},
    )


@case("links", "orphan file under references/ that nothing links to")
def c_link_orphan(b: Path) -> Path | str:
    return skill(
        b,
        "link-orphan",
        plain("link-orphan", BODY + "\nSee [g](references/guide.md).\n"),
        {"references/guide.md": GUIDE, "references/unused.md": GUIDE},
    )


# small inputs that are slow to scan; each also holds a broken link -----------------------


@case("stress", "one paragraph of 40,000 lines, each a link '[top](#sample-skill)' (840 kB)")
def c_stress_many_links(b: Path) -> Path | str:
    return skill(
        b,
        "stress-many-links",
        plain("stress-many-links", BODY + "\n" + "[top](#sample-skill)\n" * 40_000 + BROKEN),
    )


@case("stress", "one paragraph of 400 backtick runs of lengths 1 to 400 (80 kB)")
def c_stress_backticks(b: Path) -> Path | str:
    runs = " ".join("`" * k + "x" for k in range(1, 401))
    return skill(b, "stress-backticks", plain("stress-backticks", BODY + "\n" + runs + BROKEN))


@case("stress", "one paragraph of 20,000 unclosed '<a ' tags (60 kB)")
def c_stress_unclosed_tags(b: Path) -> Path | str:
    return skill(
        b,
        "stress-unclosed-tags",
        plain("stress-unclosed-tags", BODY + "\n" + "<a " * 20_000 + BROKEN),
    )


# valid: must pass -------------------------------------------------------------------------


@case("valid", "plain skill linking a reference and its heading", valid=True)
def c_valid_baseline(b: Path) -> Path | str:
    return skill(
        b,
        "valid-baseline",
        plain("valid-baseline", BODY + "\nSee [setup](references/guide.md#setup).\n"),
        {"references/guide.md": GUIDE},
    )


@case("valid", "flow-style 'metadata' mapping", valid=True)
def c_valid_flow_metadata(b: Path) -> Path | str:
    return skill(
        b,
        "valid-flow-metadata",
        plain("valid-flow-metadata", BODY, 'metadata: {author: example-org, version: "1.0"}'),
    )


@case("valid", "the whole front-matter as one flow-style mapping", valid=True)
def c_valid_flow_document(b: Path) -> Path | str:
    return skill(
        b,
        "valid-flow-document",
        f'---\n{{name: valid-flow-document, description: "{DESC}"}}\n---\n{BODY}',
    )


@case("valid", "CRLF line endings in SKILL.md and a linked reference", valid=True)
def c_valid_crlf(b: Path) -> Path | str:
    text = plain("valid-crlf", BODY + "\nSee [setup](references/guide.md#setup).\n")
    return skill(
        b,
        "valid-crlf",
        text.replace("\n", "\r\n"),
        {"references/guide.md": GUIDE.replace("\n", "\r\n")},
    )


@case("valid", "trailing spaces after '---', the values and body lines", valid=True)
def c_valid_trailing_spaces(b: Path) -> Path | str:
    text = (
        f"---  \nname: valid-trailing-spaces   \ndescription: {DESC}  \n---   \n"
        "# Sample skill  \n\nFollow these steps.   \n"
    )
    return skill(b, "valid-trailing-spaces", text)


@case("valid", "a tab after the 'description' value and after the closing '---'", valid=True)
def c_valid_trailing_tab(b: Path) -> Path | str:
    text = (
        f"---\nname: valid-trailing-tab\ndescription: {DESC}\t\n---\t\n"
        "# Sample skill\t\n\nFollow these steps.\n"
    )
    return skill(b, "valid-trailing-tab", text)


@case("valid", "'description' of exactly 1024 characters, most of them multibyte", valid=True)
def c_valid_multibyte_description(b: Path) -> Path | str:
    head = "Prüft Eingaben; 日本語の説明; проверка. Use when testing. "
    desc = (head + "éüжß日本" * 200)[:1024]
    assert len(desc) == 1024 and len(desc.encode("utf-8")) > 2048
    return skill(
        b,
        "valid-multibyte-description",
        front("valid-multibyte-description", description=f'"{desc}"') + BODY,
    )


@case("valid", "links to Unicode headings (plain and percent-encoded anchors)", valid=True)
def c_valid_unicode_anchors(b: Path) -> Path | str:
    body = (
        "# Sample skill\n\n## Überblick\n\nText.\n\n## 日本語の見出し\n\nText.\n\n"
        "## Café au lait\n\nText.\n\n"
        "See [a](#überblick), [b](#日本語の見出し), [c](#café-au-lait), "
        "[d](#%C3%BCberblick) and [e](references/guide.md#größe).\n"
    )
    return skill(
        b,
        "valid-unicode-anchors",
        plain("valid-unicode-anchors", body),
        {"references/guide.md": "# Guide\n\n## Größe\n\nText.\n"},
    )


@case(
    "valid",
    "64-character name, 1024-character description, 500-character compatibility",
    valid=True,
)
def c_valid_limits(b: Path) -> Path | str:
    name = ("valid-limits-" * 5)[:64].strip("-")
    name = name + "x" * (64 - len(name))
    desc = ("Checks limits. Use when testing. " * 40)[:1024]
    return skill(
        b, name, front(name, f"compatibility: {'c' * 500}", description=f'"{desc}"') + BODY
    )


# -- running the tools ---------------------------------------------------------------------


@dataclass
class Run:
    exit_code: int | None  # None: killed after the timeout; negative: killed by that signal
    seconds: float
    peak_mib: float
    out_bytes: int
    findings: list[str] = field(default_factory=list)
    crashed: bool = False
    hung: bool = False
    note: str = ""

    @property
    def detected(self) -> bool:
        return not self.crashed and not self.hung and (bool(self.exit_code) or bool(self.findings))


class Tool:
    name = ""

    def __init__(self, prefix: list[str]) -> None:
        self.prefix = prefix

    def argv(self, target: Path, frontmatter_only: bool = False) -> list[str]:
        raise NotImplementedError

    def parse(self, data: Any) -> list[str]:
        raise NotImplementedError

    big_output = re.compile(b"$^")

    def scan(self, out: Path, chunk: int = 1 << 22, overlap: int = 512) -> list[str]:
        """Codes found by ``big_output`` in a file read in chunks (a match is shorter than
        ``overlap``); keeps this process small, since a child's peak RSS counts its parent's."""
        codes: list[str] = []
        carry = b""
        with open(out, "rb") as fh:
            while True:
                data = fh.read(chunk)
                buf = carry + data
                limit = len(buf) if not data else len(buf) - overlap
                for m in self.big_output.finditer(buf):
                    if m.start() < limit:
                        codes.append(m.group(1).decode())
                if not data:
                    return codes
                carry = buf[max(limit, 0) :]

    def findings(self, out: Path) -> tuple[list[str], str]:
        size = out.stat().st_size
        if size == 0:
            return [], "no output"
        if size > BIG_OUTPUT:
            return self.scan(out), "JSON too large to load: codes read with a regex"
        try:
            return self.parse(json.loads(out.read_bytes())), ""
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            return [], f"output is not the expected JSON ({type(exc).__name__})"


class Skillcheck(Tool):
    name = "skillcheck"
    big_output = re.compile(rb'"code":\s*"(SC\d+)"')

    def argv(self, target: Path, frontmatter_only: bool = False) -> list[str]:
        select = ["--select", "SC1"] if frontmatter_only else []
        return [*self.prefix, "check", "--no-cache", "--format", "json", *select, str(target)]

    def parse(self, data: Any) -> list[str]:
        return [str(d["code"]) for d in data["diagnostics"]]


class Agnix(Tool):
    name = "agnix"
    big_output = re.compile(rb'"level":\s*"(?:error|warning)",\s*"rule":\s*"([^"]+)"')

    def argv(self, target: Path, frontmatter_only: bool = False) -> list[str]:
        return [*self.prefix, "--format", "json", str(target)]

    def parse(self, data: Any) -> list[str]:
        return [
            str(d["rule"]) for d in data["diagnostics"] if d.get("level") in ("error", "warning")
        ]


CRASH_MARKS = (b"Traceback (most recent call last)", b"panicked at", b"RUST_BACKTRACE")


def run_tool(tool: Tool, argv: list[str], cwd: Path, timeout: float, scratch: Path) -> Run:
    """Run one command in its own process group; output goes to files, not pipes."""
    out, err = scratch / "stdout", scratch / "stderr"
    with open(out, "wb") as fo, open(err, "wb") as fe:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe, start_new_session=True
        )
        hung = False
        status, usage = 0, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > timeout:
                hung = True
                os.killpg(proc.pid, signal.SIGKILL)
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.005)
        seconds = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    run = Run(
        None if hung else code,
        seconds,
        usage.ru_maxrss / 1024 if usage else 0.0,
        out.stat().st_size,
        hung=hung,
    )
    if hung:
        run.note = f"killed after {timeout:g} s"
        return run
    with open(err, "rb") as fe:
        stderr = fe.read(1 << 20)
    if code < 0 or code > 2 or any(m in stderr for m in CRASH_MARKS):
        run.crashed = True
        last = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        run.note = f"exit {code}: {last[0][:100]}"
        return run
    run.findings, run.note = tool.findings(out)
    return run


def find_tool(cls: type[Tool], option: str | None, default: list[str] | None) -> Tool | None:
    if option:
        return cls([option]) if Path(option).exists() or shutil.which(option) else None
    return cls(default) if default else None


# -- reports -------------------------------------------------------------------------------


def short(codes: list[str], width: int = 30) -> str:
    uniq = sorted(set(codes), key=codes.index)
    text = ",".join(uniq)
    return text if len(text) <= width else text[: width - 3] + "..."


def cell(case: Case, run: Run | None) -> str:
    if run is None:
        return f"{'skip':<7}{'':>8} {'':<30}"
    if run.hung:
        status = "HANG"
    elif run.crashed:
        status = "CRASH"
    elif case.valid:
        status = "FALSE+" if run.detected else "clean"
    else:
        status = "found" if run.detected else "MISSED"
    shown = "-" if run.hung or run.crashed else short(run.findings) or f"exit {run.exit_code}"
    return f"{status:<7}{run.seconds:>7.2f}s {shown:<30}"


def run_suite(tools: list[Tool], cases: list[Case], base: Path, timeout: float) -> None:
    scratch = base / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, Run | None]] = {t.name: {} for t in tools}
    skipped: dict[str, str] = {}
    targets: dict[str, Path] = {}
    for c in cases:
        got = c.build(base / "cases" / c.name)
        if isinstance(got, str):
            skipped[c.name] = got
        else:
            targets[c.name] = got
    wall = {t.name: 0.0 for t in tools}
    for t in tools:
        t0 = time.perf_counter()
        for c in cases:
            if c.name in targets:
                results[t.name][c.name] = run_tool(
                    t, t.argv(targets[c.name]), base / "cases" / c.name, timeout, scratch
                )
            else:
                results[t.name][c.name] = None
        wall[t.name] = time.perf_counter() - t0

    head = f"{'case':<28} {'area':<12} " + " ".join(f"{t.name:<46}" for t in tools)
    print(head.rstrip())
    print("-" * len(head.rstrip()))
    for c in cases:
        row = f"{c.name:<28} {c.area:<12} " + " ".join(
            cell(c, results[t.name][c.name]) for t in tools
        )
        print(row.rstrip())
    print()
    for name, why in skipped.items():
        print(f"skipped {name}: {why}")
    notes = [
        (t.name, c.name, r)
        for t in tools
        for c in cases
        if (r := results[t.name][c.name]) is not None
        and (r.note or r.peak_mib > 500 or r.out_bytes > 10 * 2**20)
    ]
    if notes:
        print("notes (crash, hang, odd output, peak RSS over 500 MiB or output over 10 MiB):")
        for tname, cname, r in notes:
            print(
                f"  {tname:<10} {cname:<28} peak {r.peak_mib:8.1f} MiB  output "
                f"{r.out_bytes / 2**20:8.1f} MiB  {r.note}"
            )
    print()
    invalid = [c for c in cases if not c.valid and c.name in targets]
    valid = [c for c in cases if c.valid and c.name in targets]
    print(
        f"{len(invalid)} invalid and {len(valid)} valid cases run ({len(skipped)} skipped); "
        f"timeout {timeout:g} s per case"
    )
    print(
        f"{'tool':<12} {'detected':>12} {'false +':>9} {'crashes':>8} {'hangs':>6} "
        f"{'wall':>9} {'median':>8}"
    )
    for t in tools:
        runs = results[t.name]
        det = sum(1 for c in invalid if (r := runs[c.name]) is not None and r.detected)
        fp = sum(1 for c in valid if (r := runs[c.name]) is not None and r.detected)
        crashes = sum(1 for r in runs.values() if r is not None and r.crashed)
        hangs = sum(1 for r in runs.values() if r is not None and r.hung)
        times = sorted(r.seconds for r in runs.values() if r is not None)
        median = times[len(times) // 2] if times else 0.0
        print(
            f"{t.name:<12} {f'{det}/{len(invalid)}':>12} {f'{fp}/{len(valid)}':>9} "
            f"{crashes:>8} {hangs:>6} {wall[t.name]:>8.2f}s {median:>7.2f}s"
        )
    for t in tools:
        missed = [
            c.name
            for c in invalid
            if (r := results[t.name][c.name]) is not None
            and not r.detected
            and not r.crashed
            and not r.hung
        ]
        print(f"{t.name} missed: {', '.join(missed) or 'none'}")


def extract_repo(repo: Path, dest: Path) -> Path:
    """`git archive HEAD` of a clone or bare mirror, unpacked into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    with subprocess.Popen(
        ["git", "-C", str(repo), "archive", "--format=tar", "HEAD"], stdout=subprocess.PIPE
    ) as git:
        subprocess.run(["tar", "-x", "-C", str(dest)], stdin=git.stdout, check=True)
    if git.returncode:
        raise SystemExit(f"git archive failed in {repo} (exit {git.returncode})")
    return dest


def run_corpus(tools: list[Tool], repo: Path, base: Path, timeout: float) -> None:
    root = extract_repo(repo, base / "corpus") / "skills"
    skills = sorted(p for p in root.iterdir() if (p / "SKILL.md").is_file())
    print(
        f"\nanthropics/skills: {len(skills)} skills under skills/; front-matter findings only "
        "(skillcheck --select SC1; agnix rules " + ", ".join(sorted(AGNIX_FRONTMATTER_RULES)) + ")"
    )
    scratch = base / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    flagged: dict[str, list[str]] = {t.name: [] for t in tools}
    print((f"{'skill':<24} " + " ".join(f"{t.name:<34}" for t in tools)).rstrip())
    for s in skills:
        cells = []
        for t in tools:
            r = run_tool(t, t.argv(s, frontmatter_only=True), base / "corpus", timeout, scratch)
            codes = (
                r.findings
                if isinstance(t, Skillcheck)
                else [c for c in r.findings if c in AGNIX_FRONTMATTER_RULES]
            )
            if r.hung or r.crashed:
                text = "HANG" if r.hung else f"CRASH {r.note}"
            else:
                text = short(codes) or "-"
            if codes or r.hung or r.crashed:
                flagged[t.name].append(s.name)
            cells.append(f"{text:<34}")
        print((f"{s.name:<24} " + " ".join(cells)).rstrip())
    for t in tools:
        names = flagged[t.name]
        print(f"{t.name} flags {len(names)} of {len(skills)}: {', '.join(names) or 'none'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--skillcheck",
        default=None,
        help="skillcheck executable (default: this Python's -m skillcheck)",
    )
    ap.add_argument("--agnix", default=None, help="agnix executable (default: found on PATH)")
    ap.add_argument(
        "--skills-repo",
        type=Path,
        default=None,
        help="clone or bare mirror of anthropics/skills for the corpus run",
    )
    ap.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per case and tool")
    ap.add_argument(
        "--case",
        action="append",
        default=[],
        help="run only the cases whose name holds this text (repeatable)",
    )
    ap.add_argument("--keep", type=Path, default=None, help="build the suite here and keep it")
    args = ap.parse_args()

    tools: list[Tool] = []
    sc = find_tool(Skillcheck, args.skillcheck, [sys.executable, "-m", "skillcheck"])
    if sc is None:
        raise SystemExit(f"skillcheck not found: {args.skillcheck}")
    tools.append(sc)
    which = shutil.which("agnix")
    agnix = find_tool(Agnix, args.agnix, [which] if which else None)
    if agnix is None:
        print(
            f"agnix: not found{f' at {args.agnix}' if args.agnix else ' on PATH'} "
            "(pip install agnix); skipped"
        )
    else:
        tools.append(agnix)
    for t in tools:
        ver = subprocess.run([*t.prefix, "--version"], capture_output=True, text=True, check=False)
        print(f"{t.name}: {' '.join(t.prefix)} ({(ver.stdout or ver.stderr).strip()})")

    cases = [c for c in CASES if not args.case or any(s in c.name for s in args.case)]
    base = args.keep or Path(tempfile.mkdtemp(prefix="skillcheck-bad-inputs-"))
    shutil.rmtree(base / "cases", ignore_errors=True)
    shutil.rmtree(base / "corpus", ignore_errors=True)
    try:
        run_suite(tools, cases, base, args.timeout)
        if args.skills_repo is not None:
            run_corpus(tools, args.skills_repo, base, args.timeout)
    finally:
        if args.keep is None:
            for p in (base / "cases").rglob("*"):
                if not p.is_symlink():
                    p.chmod(0o755 if p.is_dir() else 0o644)
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
