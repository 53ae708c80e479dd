# ruff: noqa: E501  (one declaration a line, as in skillcheck/rules)
"""SC4xx: the probe's outcome classes and their stable codes.

This module is imported by ``skillcheck rules`` (through ``load_builtin_rules``), so it must
stay free of network imports.
"""

from __future__ import annotations

from skillcheck.registry import declare

# outcome class -> code; "ok" has none
CODES: dict[str, str] = {
    "broken": "SC401",
    "server-error": "SC402",
    "timeout": "SC403",
    "connection-error": "SC404",
    "blocked": "SC405",
    "redirected": "SC406",
    "redirect-loop": "SC407",
    "invalid": "SC408",
    "scheme": "SC409",
    "private": "SC410",
    "fragment-missing": "SC411",
    "network-unreachable": "SC412",
    "not-checked": "SC413",
}

# every outcome class, in the order summaries print them
CLASSES = ("ok", *CODES)

declare(
    "SC401",
    "url-broken",
    "error",
    "An external URL answers 404 or 410 (or another 4xx than 401, 403 and 429).",
)
declare(
    "SC402", "url-server-error", "error", "An external URL still answers 5xx after the retries."
)
declare(
    "SC403",
    "url-timeout",
    "error",
    "An external URL does not answer in time: --timeout per attempt, 1.5 times it for the whole URL.",
)
declare(
    "SC404",
    "url-connection-error",
    "error",
    "An external URL fails with a DNS, connection or TLS error.",
)
declare(
    "SC405",
    "url-blocked",
    "warning",
    "A 401, 403 or 429 that persists (bot protection, rate limit); an error for hosts in blocked-hosts-error.",
)
declare(
    "SC406",
    "url-moved",
    "warning",
    "A permanent redirect (301 or 308): the link should name the new location.",
)
declare("SC407", "url-redirect-loop", "error", "Redirects loop or go on past max-redirects.")
declare(
    "SC408",
    "url-invalid",
    "error",
    "A URL cannot be parsed (no host, a bad port, spaces or other invalid characters).",
)
declare(
    "SC409",
    "url-scheme",
    "warning",
    "A link or redirect uses a scheme other than http and https; it is not probed.",
)
declare(
    "SC410",
    "url-private",
    "error",
    "A URL or a redirect resolves to a loopback, private, link-local or metadata address; refused unless --allow-private.",
)
declare(
    "SC411",
    "url-fragment-missing",
    "error",
    "With --check-fragments: the HTML page has no id or name equal to the URL's #fragment.",
)
declare(
    "SC412",
    "network-unreachable",
    "error",
    "No URL could be reached at all (DNS or connection errors on every host): reported once.",
)
declare(
    "SC413",
    "url-not-checked",
    "warning",
    "A URL was not checked because the total time budget (total-budget) ran out.",
)
