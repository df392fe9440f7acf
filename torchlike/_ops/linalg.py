"""linalg ops (declared in the op table)."""
