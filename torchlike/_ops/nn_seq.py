"""nn kernels (nn_seq) declared in the op table."""
