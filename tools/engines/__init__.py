"""Real inference engines for the integration tests, built from pinned sources and cached."""
