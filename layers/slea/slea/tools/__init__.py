"""Tool logic: one module per tool, called by the thin handlers in functions/."""
