"""``skillcheck probe`` on the command line: formats, exit codes, configuration, the cache."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from click.testing import CliRunner

from skillcheck.cli import main

from .conftest import write_skill
from .server import ProbeServer


def invoke(*args: str, cwd: Path) -> tuple[int, str, str]:
    old = os.getcwd()
    try:
        os.chdir(cwd)
        res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
    return res.exit_code, res.stdout, res.stderr


def _project(
    tmp_path: Path, links: list[str], table: str = "", allow: list[str] | None = None
) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.skillcheck]\nurl-allowlist = {json.dumps(allow or [])}\ncache-dir = 'cache'\n"
        f"{table}",
        encoding="utf-8",
    )
    write_skill(tmp_path, links)
    return tmp_path


def test_text_output(tmp_path: Path, server: ProbeServer) -> None:
    root = _project(tmp_path, [server.url("/ok"), server.url("/status/404")])
    code, out, err = invoke("probe", "--allow-private", "demo", cwd=root)
    assert code == 1
    assert out.splitlines()[:3] == [
        f"demo/SKILL.md:9:12: SC401 {server.url('/status/404')} is broken: HTTP 404 Not Found",
        "  hint: fix or remove the link; if the page moved, link to its new address",
        f"  url: {server.url('/status/404')}",
    ]
    assert re.match(
        r"1 error, 0 warnings in 1 skill \(1 Markdown file\) in \d+\.\d\ds$", out.splitlines()[3]
    )
    assert "probe: 2 URLs in 2 places, 2 requests" in err
    assert "by outcome: ok 1, broken 1" in err
    assert f"127.0.0.1:{server.port}" in err
    assert "probing" not in err  # no progress bar when stderr is not a terminal


def test_quiet_drops_the_summary(tmp_path: Path, server: ProbeServer) -> None:
    root = _project(tmp_path, [server.url("/ok")])
    code, out, err = invoke("probe", "--allow-private", "--quiet", "demo", cwd=root)
    assert code == 0 and err == "" and out.startswith("0 errors, 0 warnings")


def test_json_output_carries_urls(tmp_path: Path, server: ProbeServer) -> None:
    root = _project(
        tmp_path, [server.url("/status/410"), server.url("/moved"), server.url("/status/410#x")]
    )
    code, out, _ = invoke("probe", "--allow-private", "--format", "json", "demo", cwd=root)
    assert code == 1
    data = json.loads(out)
    assert [(d["code"], d["url"]) for d in data["diagnostics"]] == [
        ("SC401", server.url("/status/410")),
        ("SC406", server.url("/moved")),
    ]
    assert data["diagnostics"][0]["message"].endswith("(also used in 1 other place)")
    s = data["summary"]
    assert (s["errors"], s["warnings"], s["urls"], s["uses"]) == (1, 1, 2, 3)
    assert s["outcomes"] == {"broken": 1, "redirected": 1}
    assert s["hosts"][f"127.0.0.1:{server.port}"]["problems"] == 2


def test_github_output(tmp_path: Path, server: ProbeServer) -> None:
    root = _project(tmp_path, [server.url("/status/404")])
    code, out, err = invoke("probe", "--allow-private", "--format", "github", "demo", cwd=root)
    assert code == 1
    assert out.startswith("::error file=demo/SKILL.md,line=8,col=12,title=SC401::")
    assert "1 error" in err


def test_warnings_pass_unless_strict(tmp_path: Path, server: ProbeServer) -> None:
    root = _project(tmp_path, [server.url("/moved")])
    assert invoke("probe", "--allow-private", "--no-cache", "demo", cwd=root)[0] == 0
    assert invoke("probe", "--allow-private", "--no-cache", "--strict", "demo", cwd=root)[0] == 1


def test_example_addresses_are_skipped(tmp_path: Path, server: ProbeServer) -> None:
    # as for `check` (SC307): loopback and private literals, localhost, reserved example
    # domains and placeholders name no page; a metadata address is never fetched
    links = [
        server.url("/status/404"),
        "http://169.254.169.254/latest/meta-data/",
        "https://docs.example/x",
        "https://{{host}}/v1",
        "http://localhost:8000/v1",
    ]
    root = _project(tmp_path, links)
    code, out, err = invoke("probe", "--no-cache", "demo", cwd=root)
    assert code == 0 and out.startswith("0 errors") and server.requests() == []
    assert "2 example addresses skipped" in err
    assert "3 localhost or private addresses skipped (probe them with --allow-private)" in err
    code, out, _ = invoke("probe", "--no-cache", "-f", "json", "demo", cwd=root)
    summary = json.loads(out)["summary"]
    assert (summary["skipped"], summary["skipped_private"]) == (5, 3)


def test_with_allow_private_only_examples_are_skipped(tmp_path: Path, server: ProbeServer) -> None:
    links = [server.url("/ok"), "https://docs.example/x", "https://{{host}}/v1"]
    root = _project(tmp_path, links)
    code, _, err = invoke("probe", "--allow-private", "--no-cache", "demo", cwd=root)
    assert code == 0 and server.requests() == [("HEAD", "/ok")]
    assert "2 example addresses skipped)" in err and "--allow-private" not in err


def test_allowlisted_urls_are_skipped(tmp_path: Path, server: ProbeServer) -> None:
    root = _project(
        tmp_path, [server.url("/status/404"), server.url("/ok")], allow=[server.url("/status")]
    )
    code, _, err = invoke("probe", "--allow-private", "--no-cache", "demo", cwd=root)
    assert code == 0 and server.requests() == [("HEAD", "/ok")]
    assert "1 example address skipped" in err


def test_options_and_config_table(tmp_path: Path, server: ProbeServer) -> None:
    root = _project(tmp_path, [server.url("/hang")], "timeout = 0.3\nretries = 0\n")
    code, out, _ = invoke("probe", "--allow-private", "--no-cache", "demo", cwd=root)
    assert code == 1 and "no answer within 0.3 s" in out
    code, out, _ = invoke(
        "probe", "--allow-private", "--no-cache", "--timeout", "0.2", "demo", cwd=root
    )
    assert "no answer within 0.2 s" in out


def test_bad_configuration_is_a_usage_error(tmp_path: Path) -> None:
    root = _project(tmp_path, [], "concurrency = 0\n")
    code, _, err = invoke("probe", "demo", cwd=root)
    assert code == 2 and "'concurrency' must be a positive integer" in err
    (root / "pyproject.toml").write_text("[tool.skillcheck]\nper-hostt = 3\n")
    code, _, err = invoke("probe", "demo", cwd=root)
    assert code == 2 and "unknown key 'per-hostt'" in err and "per-host" in err
    assert invoke("probe", "--concurrency", "0", "demo", cwd=root)[0] == 2


def test_no_cache_writes_no_cache_file(tmp_path: Path, server: ProbeServer) -> None:
    root = _project(tmp_path, [server.url("/ok")])
    invoke("probe", "--allow-private", "--no-cache", "demo", cwd=root)
    assert not list(root.rglob("probe-v1.json"))
    invoke("probe", "--allow-private", "demo", cwd=root)
    assert len(list(root.rglob("probe-v1.json"))) == 1
    server.reset()
    code, _, err = invoke("probe", "--allow-private", "demo", cwd=root)
    assert code == 0 and server.requests() == [] and "1 from the cache" in err


def test_no_skill(tmp_path: Path) -> None:
    code, out, _ = invoke("probe", ".", cwd=tmp_path)
    assert code == 1 and "SC101" in out


def test_a_file_probes_only_its_own_urls_within_its_skill(
    tmp_path: Path, server: ProbeServer
) -> None:
    """As ``check FILE``: the file stands for the skill around it, and only the URLs written in
    the files named are probed (data/sources.json only when it is named)."""
    root = _project(tmp_path, [])
    skill = write_skill(root, [server.url("/status/404")], sources=[server.url("/status/410")])
    (skill / "references").mkdir()
    (skill / "references" / "page.md").write_text(
        f"# Page\n\nSee [ok]({server.url('/ok')}).\n", encoding="utf-8"
    )
    page = "demo/references/page.md"
    code, out, err = invoke("probe", "--allow-private", "--no-cache", page, cwd=root)
    assert code == 0, out
    assert out.startswith("0 errors, 0 warnings in 1 skill")
    assert "probe: 1 URL in 1 place, 1 request" in err
    assert sorted({p for _, p in server.requests()}) == ["/ok"]

    server.reset()
    code, out, _ = invoke("probe", "--allow-private", "--no-cache", "demo/SKILL.md", cwd=root)
    assert code == 1
    assert [line.split(": ")[0] for line in out.splitlines() if "SC4" in line] == [
        "demo/SKILL.md:8:12"
    ]
    assert sorted({p for _, p in server.requests()}) == ["/status/404"]

    server.reset()
    code, out, _ = invoke(
        "probe", "--allow-private", "--no-cache", "demo/data/sources.json", page, cwd=root
    )
    assert code == 1
    assert sorted({p for _, p in server.requests()}) == ["/ok", "/status/410"]
    assert "demo/SKILL.md" not in out


def test_suppression_comments_silence_probe_findings(tmp_path: Path, server: ProbeServer) -> None:
    root = _project(tmp_path, [])
    (root / "demo" / "SKILL.md").write_text(
        "---\nname: demo\ndescription: Demo skill for the probe tests.\n---\n\n"
        f"<!-- skillcheck: ignore url-broken -->\n[gone]({server.url('/status/404')})\n\n"
        f"[moved]({server.url('/moved')}) <!-- skillcheck: ignore SC406 -->\n\n"
        f"[also gone]({server.url('/status/410')})\n",
        encoding="utf-8",
    )
    code, out, _ = invoke("probe", "--allow-private", "--no-cache", "demo", cwd=root)
    assert code == 1
    assert [line.split(": ")[0:2] for line in out.splitlines() if ": SC" in line] == [
        ["demo/SKILL.md:11:13", "SC401 " + server.url("/status/410") + " is broken"]
    ]
