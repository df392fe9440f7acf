"""random ops (declared in the op table)."""
