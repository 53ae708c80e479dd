"""A mutation check: does each behaviour the tests claim to pin make a test fail when broken?

Each mutant is one small semantic change to skillcheck (an exact snippet and its replacement)
with the tests that should kill it. The repository is copied once to a temporary folder; for
each mutant the snippet is replaced there, the tests are run against the copy
(``python -m pytest -x -q -p no:cacheprovider TESTS`` with PYTHONPATH on the copy), and the
file is restored. A mutant is killed when the tests fail.

    python benchmarks/mutants.py                  # every mutant
    python benchmarks/mutants.py --list           # names and descriptions only
    python benchmarks/mutants.py --only slug-marks --only select-exact
    python benchmarks/mutants.py --no-fixtures    # skip those only tests/test_fixtures.py kills

Exit codes: 0 every mutant killed; 1 some survived; 2 a snippet is not found exactly once (the
code moved: update the list), the unmutated tests fail, or bad arguments.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "dist",
    "build",
    "__pycache__",
    "*.pyc",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    "*.egg-info",
)
TIMEOUT = 600.0


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str
    original: str
    replacement: str
    tests: tuple[str, ...]
    description: str
    fixtures: bool = False  # killed by the fixture cases (tests/test_fixtures.py)


FIXTURE_TESTS = ("tests/test_fixtures.py",)

MUTANTS: list[Mutant] = [
    # -- heading anchors ---------------------------------------------------------------------
    Mutant(
        "slug-marks",
        "skillcheck/slugs.py",
        'if cat[0] in "LM" or cat in _KEEP_CATEGORIES:',
        'if cat[0] in "L" or cat in _KEEP_CATEGORIES:',
        ("tests/test_slugs.py",),
        "the slug drops combining marks",
    ),
    Mutant(
        "slug-collapse-hyphens",
        "skillcheck/slugs.py",
        '    return "".join(out)',
        '    return __import__("re").sub("-+", "-", "".join(out))',
        ("tests/test_slugs.py",),
        "the slug collapses repeated hyphens",
    ),
    Mutant(
        "slug-duplicate-numbering",
        "skillcheck/slugs.py",
        's = f"{base}-{self._seen[base]}"',
        's = f"{s}-{self._seen[base]}"',
        ("tests/test_slugs.py",),
        "a duplicate heading is numbered from the last anchor",
    ),
    Mutant(
        "slug-strips-spaces",
        "skillcheck/slugs.py",
        "base = slug(text)",
        "base = slug(text.strip())",
        ("tests/test_slugs.py",),
        "spaces at the ends of a heading are dropped",
    ),
    Mutant(
        "slug-keeps-other-numbers",
        "skillcheck/slugs.py",
        '_KEEP_CATEGORIES = {"Nd", "Nl", "Pc"}',
        '_KEEP_CATEGORIES = {"Nd", "Nl", "No", "Pc"}',
        ("tests/test_slugs.py",),
        "superscripts and fractions are kept in the slug",
    ),
    Mutant(
        "anchor-case-insensitive",
        "skillcheck/rules/links.py",
        "    if frag in anchors:\n",
        "    if frag.lower() in {a.lower() for a in anchors}:\n",
        ("tests/test_link_targets.py",),
        "an anchor matches whatever its case",
    ),
    Mutant(
        "reach-first-depth",
        "skillcheck/reach.py",
        "if nxt not in depth or d < depth[nxt]:",
        "if nxt not in depth:",
        ("tests/test_reach.py",),
        "a file keeps the first depth the walk finds, not the shortest",
    ),
    Mutant(
        "reach-script-folder-costs",
        "skillcheck/reach.py",
        "steps = [(nxt, 0) for nxt in by_folder[folder]] + steps",
        "steps = [(nxt, 1) for nxt in by_folder[folder]] + steps",
        ("tests/test_reach.py",),
        "a script's folder is one level deeper than the script",
    ),
    Mutant(
        "footnote-definition-is-a-link",
        "skillcheck/document.py",
        'if label.startswith("^"):',
        'if label.startswith("^^"):',
        FIXTURE_TESTS,
        "a footnote's text after '[^2]:' is checked as a link target",
        fixtures=True,
    ),
    Mutant(
        "footnote-prose-definition",
        "skillcheck/document.py",
        'defines = m.group(2) == ":" and',
        'defines = m.group(2) == "]" and',
        FIXTURE_TESTS,
        "a footnote defined in a paragraph is not seen as defined",
        fixtures=True,
    ),
    Mutant(
        "discover-skips-hidden",
        "skillcheck/discover.py",
        "        if e.name in SKIP_DIRS:\n",
        '        if e.name in SKIP_DIRS or e.name.startswith("."):\n',
        ("tests/test_discover.py",),
        "skills in hidden folders (.curated, .claude/skills) are not found",
    ),
    Mutant(
        "check-file-reports-whole-skill",
        "skillcheck/runner.py",
        "    if skill.focus is None:\n",
        "    if True:\n",
        ("tests/test_discover.py",),
        "check FILE reports every finding of the skill around the file",
    ),
    Mutant(
        "check-file-climbs-past-repository",
        "skillcheck/discover.py",
        "        if d == ceiling:\n",
        "        if d == ceiling.parent:\n",
        ("tests/test_discover.py",),
        "check FILE looks for SKILL.md above the repository root",
    ),
    # -- link targets ------------------------------------------------------------------------
    Mutant(
        "no-percent-decoding",
        "skillcheck/linktargets.py",
        "        return unquote(path), (unquote(frag) if sharp else None)",
        "        return path, (frag if sharp else None)",
        ("tests/test_link_targets.py",),
        "link targets are not percent-decoded",
    ),
    Mutant(
        "decode-before-split",
        "skillcheck/linktargets.py",
        '    path, sharp, frag = target.partition("#")',
        '    path, sharp, frag = unquote(target).partition("#")',
        ("tests/test_link_targets.py",),
        "%23 is decoded before the fragment is split off",
    ),
    Mutant(
        "query-kept",
        "skillcheck/linktargets.py",
        '    if "?" in path:\n',
        '    if "?" in path and False:\n',
        ("tests/test_link_targets.py",),
        "a query string stays in the file path",
    ),
    Mutant(
        "pointy-brackets-kept",
        "skillcheck/document.py",
        '        if dest.startswith("<") and dest.endswith(">"):',
        "        if False:",
        ("tests/test_link_targets.py",),
        "<...> destinations keep their brackets",
    ),
    # -- configuration -----------------------------------------------------------------------
    Mutant(
        "config-negative-int",
        "skillcheck/config.py",
        "            or not isinstance(value, int)\n            or value < 0\n",
        "            or not isinstance(value, int)\n",
        ("tests/test_config.py",),
        "a negative integer is accepted",
    ),
    Mutant(
        "config-non-boolean",
        "skillcheck/config.py",
        "        if not isinstance(value, bool):\n",
        "        if not isinstance(value, (bool, int, str)):\n",
        ("tests/test_config.py",),
        "a string or a number is accepted as a boolean",
    ),
    Mutant(
        "config-bool-as-int",
        "skillcheck/config.py",
        "            isinstance(value, bool)\n            or not isinstance(value, int)\n",
        "            not isinstance(value, int)\n",
        ("tests/test_config.py",),
        "true is accepted as the integer 1",
    ),
    Mutant(
        "config-nan",
        "skillcheck/config.py",
        "            or not math.isfinite(value)\n",
        "",
        ("tests/test_config.py",),
        "nan and inf are accepted as numbers",
    ),
    Mutant(
        "config-unknown-key",
        "skillcheck/config.py",
        "            if name not in FIELDS:\n",
        "            if False:\n",
        ("tests/test_cli.py::test_unknown_config_key_is_usage_error",),
        "an unknown key is not reported as such",
    ),
    Mutant(
        "config-select-unchecked",
        "skillcheck/config.py",
        "    if not any(c.startswith(code) for c in RULES):\n",
        "    if False:\n",
        ("tests/test_config.py", "tests/test_select.py"),
        "a select/ignore prefix that starts no rule is accepted",
    ),
    Mutant(
        "config-select-case",
        "skillcheck/config.py",
        "raw.strip().upper())",
        "raw.strip())",
        ("tests/test_config.py",),
        "codes in the configuration file are case-sensitive",
    ),
    Mutant(
        "select-no-names",
        "skillcheck/config.py",
        "    by_name = {r.name: r.code for r in RULES.values()}\n",
        "    by_name: dict[str, str] = {}\n",
        ("tests/test_select.py",),
        "a rule's name is not accepted as a selector",
    ),
    Mutant(
        "yaml-opener-ignored",
        "skillcheck/safeyaml.py",
        '        and context.startswith(("while parsing a flow", "while scanning a quoted"))\n',
        "        and False\n",
        ("tests/test_yaml_position.py",),
        "an unclosed bracket or quote is reported where PyYAML noticed it, not where it opens",
    ),
    Mutant(
        "sarif-uri-raw",
        "skillcheck/reporters.py",
        '    return quote(path, safe="/")',
        "    return path",
        ("tests/test_cli.py::test_sarif_uris_are_percent_encoded",),
        "SARIF URIs are not percent-encoded",
    ),
    Mutant(
        "whole-file-at-0",
        "skillcheck/diagnostics.py",
        "        if self.line < 1:\n",
        "        if False:\n",
        ("tests/test_cli.py::test_a_whole_file_finding_is_at_1_1_in_every_format",),
        "a finding about a whole file is at line 0",
    ),
    # -- --select / --ignore -----------------------------------------------------------------
    Mutant(
        "select-exact",
        "skillcheck/registry.py",
        "if select and not any(code.startswith(s) for s in select):",
        "if select and not any(code == s for s in select):",
        ("tests/test_select.py",),
        "--select matches whole codes only",
    ),
    Mutant(
        "ignore-exact",
        "skillcheck/registry.py",
        "return not any(code.startswith(s) for s in ignore)",
        "return not any(code == s for s in ignore)",
        ("tests/test_select.py",),
        "--ignore matches whole codes only",
    ),
    Mutant(
        "select-family-only",
        "skillcheck/registry.py",
        "if select and not any(code.startswith(s) for s in select):",
        "if select and not any(code.startswith(s[:3]) for s in select):",
        ("tests/test_select.py",),
        "SC20 selects all of SC2xx",
    ),
    # -- caches and internal errors ----------------------------------------------------------
    Mutant(
        "parse-cache-unread",
        "skillcheck/runner.py",
        "            doc = cache.get(key) if cache is not None else None",
        "            doc = None",
        ("tests/test_cache.py",),
        "the parse cache is written but never read",
    ),
    Mutant(
        "memo-unread-sources",
        "skillcheck/datatables.py",
        "    got = store.get(key)\n",
        "    got = None\n",
        ("tests/test_cache.py",),
        "the stored sources.json (parse cache) is never read",
    ),
    Mutant(
        "memo-unread-blocks",
        "skillcheck/rules/codeblocks.py",
        "    hit = memo.get(k)\n",
        "    hit = None\n",
        ("tests/test_cache.py",),
        "the memo of code blocks is never read",
    ),
    Mutant(
        "memo-unsaved",
        "skillcheck/resultmemo.py",
        "        memo.save()\n",
        "        pass\n",
        ("tests/test_cache.py",),
        "the memo is never written to disk",
    ),
    Mutant(
        "corrupt-cache-crash",
        "skillcheck/parsecache.py",
        "        except (\n            OSError,\n            pickle.UnpicklingError,\n",
        "        except (\n            OSError,\n",
        ("tests/test_cache.py",),
        "a corrupt cache file crashes the run",
    ),
    Mutant(
        "corrupt-cache-silent",
        "skillcheck/parsecache.py",
        '    sys.stderr.write(f"skillcheck: warning: {message}\\n")',
        "    pass",
        ("tests/test_cache.py",),
        "a corrupt cache file is dropped without a word",
    ),
    Mutant(
        "checker-exception-hidden",
        "skillcheck/runner.py",
        "go on\n                out.append(\n",
        "go on\n                continue\n                out.append(\n",
        ("tests/test_cache.py",),
        "a checker that raises is skipped silently",
    ),
    Mutant(
        "internal-error-filtered",
        "skillcheck/runner.py",
        "if d.code == INTERNAL_ERROR or",
        'if d.code == "none" or',
        ("tests/test_cache.py",),
        "--select hides an internal error",
    ),
    Mutant(
        "command-checker-bug-hidden",
        "skillcheck/engines/options.py",
        'f"could not check this command: {exc!r}", ""\n            ),\n        ]',
        'f"could not check this command: {exc!r}", ""\n            ),\n        ][:0]',
        ("tests/engines/test_engine_commands.py",),
        "a bug of the command checker yields no problem",
    ),
    Mutant(
        "config-checker-bug-hidden",
        "skillcheck/engines/config_keys.py",
        '        return [_finding(UNKNOWN_OPTION, f"could not check the config: {exc!r}")]',
        "        return []",
        ("tests/engines/test_engine_commands.py",),
        "a bug of the config checker yields no problem",
    ),
    Mutant(
        "manifest-negations-dropped",
        "skillcheck/engines/manifest.py",
        '        negations=_tuple(raw.get("negations")),',
        "        negations=(),",
        ("tests/engines/test_engine_oracles.py",),
        "a manifest's negative spellings are not loaded",
    ),
    # -- probe -------------------------------------------------------------------------------
    Mutant(
        "retry-after-not-shared",
        "skillcheck/probe/client.py",
        "                if not self._pause_host(host, att.retry_after, now, last):\n"
        "                    return last\n",
        "                if not self._pause_host(host, att.retry_after, now, last):\n"
        "                    return last\n"
        "                host.not_before = now\n"
        "                await asyncio.sleep(att.retry_after)\n",
        ("tests/probe/test_server.py::test_retry_after_shared_by_the_host",),
        "Retry-After pauses only the URL that received it, not its host",
    ),
    Mutant(
        "retry-after-ignored",
        "skillcheck/probe/client.py",
        "self._pause_host(host, att.retry_after, now, last)",
        "self._pause_host(host, 0.0, now, last)",
        ("tests/probe/test_server.py::test_retry_after_seconds_is_waited",),
        "Retry-After is not waited",
    ),
    Mutant(
        "dns-temporary-lost",
        "skillcheck/probe/safety.py",
        '        temporary = exc.errno in (socket.EAI_AGAIN, getattr(socket, "EAI_SYSTEM", None))',
        "        temporary = False",
        ("tests/probe/test_safety.py",),
        "a temporary DNS failure is never asked again",
    ),
    Mutant(
        "dns-lookup-not-shared",
        "skillcheck/probe/safety.py",
        "        fut = self._lookups.get(key)\n",
        "        fut = None\n",
        ("tests/probe/test_safety.py",),
        "every connection resolves its name again",
    ),
    Mutant(
        "timeout-limit-unnamed",
        "skillcheck/probe/client.py",
        "        if limit >= timeout:\n",
        "        if True:\n",
        ("tests/probe/test_server.py::test_a_hanging_url_costs_one_and_a_half_timeouts",),
        "a retry cut by the URL's budget is reported as a --timeout",
    ),
    Mutant(
        "refused-gets-dns-hint",
        "skillcheck/probe/runner.py",
        "                hint = CONNECTION_HINTS.get(o.cause, hint)\n",
        '                hint = CONNECTION_HINTS["dns"]\n',
        ("tests/probe/test_server.py::test_one_dead_host_is_a_connection_error",),
        "every connection error gets the DNS hint",
    ),
    Mutant(
        "private-skips-uncounted",
        "skillcheck/probe/collect.py",
        '                private += why == "private"\n',
        "",
        ("tests/probe/test_cli_probe.py::test_example_addresses_are_skipped",),
        "skipped localhost and private addresses are not pointed at --allow-private",
    ),
    # -- pack --------------------------------------------------------------------------------
    Mutant(
        "zip-entry-mode",
        "skillcheck/pack.py",
        "FILE_MODE = 0o100644",
        "FILE_MODE = 0o100755",
        ("tests/test_pack.py",),
        "packed files are marked executable",
    ),
    Mutant(
        "zip-file-mode",
        "skillcheck/pack.py",
        "        os.chmod(tmp, 0o644)\n",
        "        pass\n",
        ("tests/test_pack.py",),
        "the zip keeps the 0600 mode of its temporary file",
    ),
    Mutant(
        "zip-date",
        "skillcheck/pack.py",
        "ZIP_DATE = (1980, 1, 1, 0, 0, 0)",
        "ZIP_DATE = (1980, 1, 2, 0, 0, 0)",
        ("tests/test_pack.py",),
        "entries carry another date",
    ),
    Mutant(
        "suppress-not-applied",
        "skillcheck/runner.py",
        "    diagnostics = _unsuppressed(diagnostics, loaded, config)\n",
        "    diagnostics = list(diagnostics)\n",
        ("tests/test_suppress.py",),
        "suppression comments and per-file-ignores silence nothing",
    ),
    Mutant(
        "suppress-one-line-only",
        "skillcheck/document.py",
        "s.first, s.last = nxt, max(nxt, blocks.get(nxt, nxt))",
        "s.first, s.last = nxt, nxt",
        ("tests/test_suppress.py",),
        "a comment above a list, table or fence covers only the block's first line",
    ),
    Mutant(
        "suppress-unused-not-reported",
        "skillcheck/suppress.py",
        "elif not w.used and any(",
        "elif w.used and any(",
        ("tests/test_suppress.py",),
        "an unused suppression is not reported (and a used one is)",
    ),
    Mutant(
        "suppress-judges-every-code",
        "skillcheck/suppress.py",
        "any(code.startswith(w.code) and judged(code) for code in RULES)",
        "any(code.startswith(w.code) for code in RULES)",
        ("tests/test_suppress.py",),
        "a comment naming a code the run could not emit is called unused",
    ),
    Mutant(
        "per-file-ignores-from-the-skill",
        "skillcheck/suppress.py",
        '    rel = os.path.relpath(path, os.path.realpath(base)).replace(os.sep, "/")\n',
        '    rel = os.path.relpath(path, path.parent.parent).replace(os.sep, "/")\n',
        ("tests/test_suppress.py",),
        "per-file-ignores globs are matched from another folder than the configuration's",
    ),
    Mutant(
        "probe-file-whole-skill",
        "skillcheck/probe/collect.py",
        "            if focus is None or rel in focus:\n",
        "            if True:\n",
        ("tests/probe/test_cli_probe.py",),
        "probe FILE probes every URL of the enclosing skill",
    ),
    Mutant(
        "sources-judged-only-when-declared",
        "skillcheck/datatables.py",
        '("SC301", "SC302", "SC303"), raw',
        '("SC301", "SC302", "SC303"), raw, "sources.schema.json"',
        ("tests/test_datafiles.py",),
        "a sources.json without our $schema is not validated",
    ),
    # -- killed by the fixture cases ---------------------------------------------------------
    Mutant(
        "name-64",
        "skillcheck/rules/frontmatter.py",
        "    if len(name) > MAX_NAME:",
        "    if len(name) > MAX_NAME + 1:",
        FIXTURE_TESTS,
        "a 65-character name passes",
        fixtures=True,
    ),
    Mutant(
        "compatibility-500",
        "skillcheck/rules/frontmatter.py",
        "        elif not 1 <= len(comp) <= MAX_COMPATIBILITY:",
        "        elif not 1 <= len(comp) <= MAX_COMPATIBILITY + 1:",
        FIXTURE_TESTS,
        "a 501-character compatibility passes",
        fixtures=True,
    ),
    Mutant(
        "sc306-normalized",
        "skillcheck/rules/sources.py",
        '    if url != entry.get("url"):',
        '    if normalize_url(url) != normalize_url(str(entry.get("url"))):',
        FIXTURE_TESTS,
        "a citation URL differing in case or trailing slash passes",
        fixtures=True,
    ),
    Mutant(
        "sc309-boundary",
        "skillcheck/rules/sources.py",
        "            if age > max_age:",
        "            if age > max_age + 1:",
        FIXTURE_TESTS,
        "a source one day over the age limit passes",
        fixtures=True,
    ),
    Mutant(
        "sc310-above-sources",
        "skillcheck/rules/sources.py",
        "    if sources_line is None or d.line < sources_line:",
        "    if sources_line is None:",
        FIXTURE_TESTS,
        "a citation defined above '## Sources' passes",
        fixtures=True,
    ),
    Mutant(
        "url-allowlist-ignored",
        "skillcheck/rules/sources.py",
        "    return is_example_url(url) or any(url.startswith(prefix) for prefix in allow)",
        "    return is_example_url(url)",
        FIXTURE_TESTS,
        "url-allowlist is ignored by the check",
        fixtures=True,
    ),
    Mutant(
        "engine-pins-ignored",
        "skillcheck/rules/engineflags.py",
        "    want = declared.get(engine) or ctx.config.pins().get(engine)",
        "    want = declared.get(engine)",
        FIXTURE_TESTS,
        "engine-pins is ignored",
        fixtures=True,
    ),
    Mutant(
        "sc611-as-sc618",
        "skillcheck/rules/engineflags.py",
        '            code = "SC611" if p.kind == "deprecated-option" else "SC618"',
        '            code = "SC618"',
        FIXTURE_TESTS,
        "a deprecated config key is reported as SC618",
        fixtures=True,
    ),
    Mutant(
        "sc618-line",
        "skillcheck/rules/engineflags.py",
        "= fence.body_line + at[0],",
        "= fence.line + at[0],",
        FIXTURE_TESTS,
        "an SC618 key is reported one line up",
        fixtures=True,
    ),
    Mutant(
        "sc60x-line",
        "skillcheck/rules/codeblocks.py",
        "                    fence.body_line + line - 1,\n                    col,",
        "                    fence.line + line - 1,\n                    col,",
        FIXTURE_TESTS,
        "a syntax error in a block is reported one line up",
        fixtures=True,
    ),
    Mutant(
        "mention-case-not-reached",
        "skillcheck/rules/links.py",
        "            reach(rel, case_fix)\n            if doc.is_example(line, col) or",
        "            if doc.is_example(line, col) or",
        FIXTURE_TESTS,
        "a name that differs from its file only in case leaves the file an orphan",
        fixtures=True,
    ),
    Mutant(
        "skill-dir-prefix-unread",
        "skillcheck/mentions.py",
        "m = _PREFIXES.match(path)",
        'm = _PREFIXES.match("x" + path)',
        FIXTURE_TESTS,
        "a path behind {baseDir}/ is read from the page's folder",
        fixtures=True,
    ),
    # -- hints in bounded time ---------------------------------------------------------------
    Mutant(
        "hint-first-bound-wins",
        "skillcheck/hints.py",
        "if best is not None and bound < best[0]:",
        "if best is not None:",
        ("tests/test_hints.py",),
        "the first candidate by quick ratio is the hint, not the best by ratio",
    ),
    Mutant(
        "hint-no-folder-candidates",
        "skillcheck/hints.py",
        'found.update(self.index.in_folder(d, d + "/" + name if d else name))',
        "pass",
        ("tests/test_hints.py",),
        "a path in a misspelt folder gets no hint from the folder most like it",
    ),
    Mutant(
        "orphans-every-file",
        "skillcheck/reach.py",
        "roots = [f for f in lost if f not in named]",
        "roots = list(lost)",
        FIXTURE_TESTS,
        "every unreachable file is reported, not only the roots",
        fixtures=True,
    ),
    Mutant(
        "examples-are-paths",
        "skillcheck/rules/links.py",
        'if code != "SC201" and doc is not None and doc.is_example(line, col):',
        "if False:",
        FIXTURE_TESTS,
        "a pack path presented as an example is a broken path",
        fixtures=True,
    ),
    Mutant(
        "templates-are-pages",
        "skillcheck/rules/links.py",
        'return "SC213" if is_template(rel, doc) else code',
        "return code",
        FIXTURE_TESTS,
        "a broken link in a fill-in template is an error",
        fixtures=True,
    ),
    Mutant(
        "metadata-files-unread",
        "skillcheck/rules/links.py",
        "starts = metadata_files(ctx)",
        "starts = []",
        FIXTURE_TESTS,
        "a file that only agents/openai.yaml names is an orphan",
        fixtures=True,
    ),
]


def copy_tree(dest: Path) -> Path:
    shutil.copytree(ROOT, dest, ignore=SKIP, symlinks=True)
    return dest


def run_tests(copy: Path, tests: tuple[str, ...]) -> tuple[int, str]:
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    try:
        proc = subprocess.run(
            cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        return -1, "timed out"
    tail = (proc.stdout.strip().splitlines() or [""])[-1]
    return proc.returncode, tail


def check_snippets(mutants: list[Mutant]) -> list[str]:
    problems = []
    for m in mutants:
        path = ROOT / m.file
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            problems.append(f"{m.name}: cannot read {m.file}: {exc}")
            continue
        n = text.count(m.original)
        if n != 1:
            problems.append(f"{m.name}: the snippet occurs {n} times in {m.file} (want 1)")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--only", action="append", default=[], metavar="NAME", help="run this mutant (repeatable)"
    )
    ap.add_argument(
        "--no-fixtures",
        action="store_true",
        help="skip the mutants that only the fixture cases kill",
    )
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = ap.parse_args(argv)

    names = {m.name for m in MUTANTS}
    if len(names) != len(MUTANTS):
        print("mutants.py: two mutants share a name", file=sys.stderr)
        return 2
    unknown = [n for n in args.only if n not in names]
    if unknown:
        print(f"mutants.py: no mutant named {', '.join(unknown)}", file=sys.stderr)
        return 2
    chosen = [
        m
        for m in MUTANTS
        if (not args.only or m.name in args.only) and not (args.no_fixtures and m.fixtures)
    ]
    if args.list:
        for m in chosen:
            print(f"{m.name:28} {m.file:34} {m.description}")
        return 0
    problems = check_snippets(chosen)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="skillcheck-mutants-") as tmp:
        copy = copy_tree(Path(tmp) / "repo")
        probe = "import skillcheck; print(skillcheck.__file__)"
        where = subprocess.run(
            [sys.executable, "-c", probe],
            cwd=copy,
            env=dict(os.environ, PYTHONPATH=str(copy)),
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if not where or not Path(where).resolve().is_relative_to(copy.resolve()):
            print(
                f"mutants.py: the copy's skillcheck is not the one imported ({where!r})",
                file=sys.stderr,
            )
            return 2
        all_tests = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
        started = time.monotonic()
        code, tail = run_tests(copy, all_tests)
        if code != 0:
            print(f"mutants.py: the tests fail without any mutant: {tail}", file=sys.stderr)
            return 2
        print(f"baseline: {tail} ({time.monotonic() - started:.0f} s)")
        survived = []
        for m in chosen:
            target = copy / m.file
            original = target.read_text(encoding="utf-8")
            target.write_text(original.replace(m.original, m.replacement, 1), encoding="utf-8")
            try:
                t0 = time.monotonic()
                code, tail = run_tests(copy, m.tests)
            finally:
                target.write_text(original, encoding="utf-8")
            verdict = "killed" if code != 0 else "SURVIVED"
            if code == 0:
                survived.append(m.name)
            print(
                f"{verdict:8} {m.name:28} {time.monotonic() - t0:5.1f} s  {m.description}"
                + (f"  [{tail}]" if code == 0 else ""),
                flush=True,
            )
        total = len(chosen)
        print(
            f"{total - len(survived)} of {total} mutants killed, {len(survived)} survived"
            + (f": {', '.join(survived)}" if survived else "")
        )
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
