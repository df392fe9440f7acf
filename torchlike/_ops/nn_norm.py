"""nn kernels (nn_norm) declared in the op table."""
