"""SC6xx: code blocks and engine flags (filled in by the code-block rules)."""
