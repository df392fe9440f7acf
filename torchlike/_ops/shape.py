"""shape ops (declared in the op table)."""
