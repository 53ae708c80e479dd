"""Built-in rules, one module per family."""
