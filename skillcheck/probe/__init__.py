"""``skillcheck probe``: checks every external URL of the skills under the given paths.

The modules, in the order a run uses them:

* :mod:`~skillcheck.probe.codes` declares the SC4xx codes and maps outcome classes to them
  (imported by ``skillcheck rules``; it must not import httpx);
* :mod:`~skillcheck.probe.collect` finds the URLs (Markdown links, reference definitions, raw
  HTML, bare URLs outside code, ``data/sources.json``) and deduplicates them;
* :mod:`~skillcheck.probe.cache` answers URLs that were fine recently without a request;
* :mod:`~skillcheck.probe.safety` refuses private addresses, on every connection;
* :mod:`~skillcheck.probe.client` sends the requests (HEAD first, redirects, retries, budgets);
* :mod:`~skillcheck.probe.runner` ties them together and turns outcomes into diagnostics.
"""
