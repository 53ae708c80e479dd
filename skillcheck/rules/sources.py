"""SC3xx: data/sources.json and citations (filled in by the sources rules)."""
